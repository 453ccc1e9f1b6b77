/* dbstor.hotpath's Drawer: one terminal's TPC-C draws (clauses 2.4.1 - 2.8.1) from its own
 * stream, xoshiro256** seeded per user, drawn into plain numbers (a Drawn, hotpath.h) and
 * answered from them as workloads/orders/inputs.py's NamedTuples (draw()) or written as a
 * dialect's parameter text by the Submitter (sends.c): one draw, the same stream both ways.
 * The rules' percentages, constants and types come from inputs.py; TPC-C's fixed
 * cardinalities (10 districts, 3,000 customers, 100,000 items, 5-15 lines) are
 * written here as in tpcc.py, and tests/unit/workloads/test_orders_draws.py holds the
 * draws to TPC-C's formulas. */
#include "hotpath.h"
#include <stdint.h>
#include <time.h>

/* ---- the random stream: xoshiro256** (Blackman and Vigna), seeded by splitmix64 ---- */

typedef struct {
    uint64_t s[4];
} Stream;

static inline uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

static void stream_seed(Stream *r, uint64_t seed)
{
    for (int i = 0; i < 4; i++) {
        uint64_t z = (seed += 0x9e3779b97f4a7c15ULL);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
        r->s[i] = z ^ (z >> 31);
    }
}

static inline uint64_t stream_next(Stream *r)
{
    uint64_t *s = r->s;
    uint64_t result = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

/* A uniform integer in [low, high]: the 64-bit draw scaled to the range (bias below
 * range / 2**64, far under any count a run makes). */
static inline long uniform(Stream *r, long low, long high)
{
    unsigned __int128 wide = (unsigned __int128)stream_next(r) * (uint64_t)(high - low + 1);
    return low + (long)(uint64_t)(wide >> 64);
}

/* TPC-C's NURand(A, x, y) with the run's constant C (clause 2.1.6). */
static inline long nurand(Stream *r, long a, long x, long y, long c)
{
    return (((uniform(r, 0, a) | uniform(r, x, y)) + c) % (y - x + 1)) + x;
}

/* ---- the terminal's draws ---- */

enum { DISTRICTS = 10, CUSTOMERS = 3000, ITEMS = 100000 };

typedef struct {
    PyObject_HEAD
    Stream stream;
    long warehouses, home, district, all_warehouses;
    long c_id, c_last_run, c_item;
    long remote_line_pct, rollback_pct, by_name_pct, remote_payment_pct;
    long unused_item, cents_low, cents_high;
    PyTypeObject *new_order, *payment, *order_status, *delivery, *stock_level, *customer;
    PyObject *names;  /* the 1000 last names, by number */
    PyObject *decimal; /* Decimal, made from the amount's text: 43.21 */
    PyObject *now;    /* () -> the second's datetime */
} Drawer;

/* The draws' datetime: now() (inputs.now, one datetime a second) asked once a second of
 * the clock, its answer kept here between; every Drawer shares it, as they share now's. */
static time_t moment_second = -1;
static PyObject *moment_now;

static PyObject *moment(Drawer *d)
{
    struct timespec clock;
    clock_gettime(CLOCK_REALTIME, &clock);
    if (clock.tv_sec != moment_second || moment_now == NULL) {
        PyObject *fresh = PyObject_CallNoArgs(d->now);
        if (fresh == NULL)
            return NULL;
        Py_XSETREF(moment_now, fresh);
        moment_second = clock.tv_sec;
    }
    return Py_NewRef(moment_now);
}

PyObject *drawn_moment(PyObject *drawer) { return moment((Drawer *)drawer); }

/* A NamedTuple of `type` from n new references (stolen; NULL ones fail the whole). */
static PyObject *record(PyTypeObject *type, Py_ssize_t n, PyObject **items)
{
    PyObject *out = NULL;
    for (Py_ssize_t i = 0; i < n; i++)
        if (items[i] == NULL)
            goto fail;
    out = type->tp_alloc(type, n);
    if (out == NULL)
        goto fail;
    for (Py_ssize_t i = 0; i < n; i++)
        PyTuple_SET_ITEM(out, i, items[i]);
    return out;
fail:
    for (Py_ssize_t i = 0; i < n; i++)
        Py_XDECREF(items[i]);
    return NULL;
}

static long warehouse(Drawer *d)
{
    return d->all_warehouses ? uniform(&d->stream, 1, d->warehouses) : d->home;
}

static long other_warehouse(Drawer *d, long w_id)
{
    long other = uniform(&d->stream, 1, d->warehouses - 1);
    return other < w_id ? other : other + 1;
}

static void put(Drawn *out, ParamKind kind, long value)
{
    out->params[out->count].kind = kind;
    out->params[out->count++].value = value;
}

/* A customer's four parameters (w_id, d_id, c_id, c_last): by last name (c_id 0, the
 * name's number) or by id (c_last NULL). */
static void draw_customer(Drawer *d, long w_id, long d_id, Drawn *out)
{
    Stream *r = &d->stream;
    put(out, P_INT, w_id);
    put(out, P_INT, d_id);
    if (uniform(r, 1, 100) <= d->by_name_pct) {
        long number = nurand(r, 255, 0, 999, d->c_last_run);
        put(out, P_INT, 0);
        put(out, P_NAME, number);
    } else {
        put(out, P_INT, nurand(r, 1023, 1, CUSTOMERS, d->c_id));
        put(out, P_NULL, 0);
    }
}

/* Stock rows are locked in (warehouse, item) order, so New-Orders never deadlock. */
static void sort_lines(Line *lines, long count)
{
    for (long i = 1; i < count; i++) {
        Line key = lines[i];
        long j = i - 1;
        while (j >= 0 && (lines[j].supply > key.supply ||
                          (lines[j].supply == key.supply && lines[j].item > key.item))) {
            lines[j + 1] = lines[j];
            j--;
        }
        lines[j + 1] = key;
    }
}

static void draw_new_order(Drawer *d, Drawn *out)
{
    Stream *r = &d->stream;
    long w_id = warehouse(d), d_id = uniform(r, 1, DISTRICTS);
    long c_id = nurand(r, 1023, 1, CUSTOMERS, d->c_id);
    long count = uniform(r, 5, MAX_LINES);
    int rollback = uniform(r, 1, 100) <= d->rollback_pct;
    for (long i = 0; i < count; i++) {
        out->lines[i].item = nurand(r, 8191, 1, ITEMS, d->c_item);
        out->lines[i].supply = w_id;
        if (d->warehouses > 1 && uniform(r, 1, 100) <= d->remote_line_pct)
            out->lines[i].supply = other_warehouse(d, w_id);
        out->lines[i].quantity = uniform(r, 1, 10);
    }
    if (rollback)
        out->lines[count - 1].item = d->unused_item;
    sort_lines(out->lines, count);
    out->line_count = count;
    put(out, P_INT, w_id);
    put(out, P_INT, d_id);
    put(out, P_INT, c_id);
    put(out, P_MOMENT, 0);
    put(out, P_ITEMS, 0);
    put(out, P_SUPPLY, 0);
    put(out, P_QUANTITY, 0);
}

static void draw_payment(Drawer *d, Drawn *out)
{
    Stream *r = &d->stream;
    long w_id = warehouse(d), d_id = uniform(r, 1, DISTRICTS);
    long c_w_id = w_id, c_d_id = d_id;
    if (d->warehouses > 1 && uniform(r, 1, 100) <= d->remote_payment_pct) {
        c_w_id = other_warehouse(d, w_id);
        c_d_id = uniform(r, 1, DISTRICTS);
    }
    put(out, P_INT, w_id);
    put(out, P_INT, d_id);
    draw_customer(d, c_w_id, c_d_id, out);
    put(out, P_CENTS, uniform(r, d->cents_low, d->cents_high));
    put(out, P_MOMENT, 0);
}

static void draw_order_status(Drawer *d, Drawn *out)
{
    long w_id = warehouse(d);
    draw_customer(d, w_id, uniform(&d->stream, 1, DISTRICTS), out);
}

static void draw_delivery(Drawer *d, Drawn *out)
{
    put(out, P_INT, warehouse(d));
    put(out, P_INT, uniform(&d->stream, 1, 10));
    put(out, P_MOMENT, 0);
}

static void draw_stock_level(Drawer *d, Drawn *out)
{
    put(out, P_INT, warehouse(d));
    put(out, P_INT, d->district);
    put(out, P_INT, uniform(&d->stream, 10, 20));
}

void drawn_fill(PyObject *drawer, int kind, Drawn *out)
{
    static void (*draws[TRANSACTION_KINDS])(Drawer *, Drawn *) = {
        draw_new_order, draw_payment, draw_order_status, draw_delivery, draw_stock_level};
    out->kind = kind;
    out->count = 0;
    out->line_count = 0;
    draws[kind]((Drawer *)drawer, out);
}

int drawer_check(PyObject *drawer)
{
    if (!PyObject_TypeCheck(drawer, &DrawerType) || ((Drawer *)drawer)->new_order == NULL) {
        PyErr_SetString(PyExc_TypeError, "a Drawer, initialised, expected");
        return -1;
    }
    return 0;
}

/* ---- the draws as the inputs' NamedTuples ---- */

static PyObject *customer_record(Drawer *d, const Param *p)
{
    PyObject *items[4] = {PyLong_FromLong(p[0].value), PyLong_FromLong(p[1].value),
                          PyLong_FromLong(p[2].value),
                          p[3].kind == P_NAME
                              ? Py_NewRef(PyTuple_GET_ITEM(d->names, p[3].value))
                              : Py_NewRef(Py_None)};
    return record(d->customer, 4, items);
}

static PyObject *lines_tuple(const Drawn *drawn)
{
    PyObject *out = PyTuple_New(drawn->line_count);
    if (out == NULL)
        return NULL;
    for (long i = 0; i < drawn->line_count; i++) {
        const Line *l = &drawn->lines[i];
        PyObject *line = Py_BuildValue("(lll)", l->item, l->supply, l->quantity);
        if (line == NULL) {
            Py_DECREF(out);
            return NULL;
        }
        PyTuple_SET_ITEM(out, i, line);
    }
    return out;
}

static PyObject *amount(Drawer *d, long cents)
{
    PyObject *text = PyUnicode_FromFormat("%ld.%02ld", cents / 100, cents % 100);
    if (text == NULL)
        return NULL;
    PyObject *out = PyObject_CallOneArg(d->decimal, text);
    Py_DECREF(text);
    return out;
}

static PyObject *inputs(Drawer *d, int kind)
{
    Drawn drawn;
    drawn_fill((PyObject *)d, kind, &drawn);
    const Param *p = drawn.params;
    if (kind == 0) {
        PyObject *items[5] = {PyLong_FromLong(p[0].value), PyLong_FromLong(p[1].value),
                              PyLong_FromLong(p[2].value), lines_tuple(&drawn), moment(d)};
        return record(d->new_order, 5, items);
    }
    if (kind == 1) {
        PyObject *items[5] = {PyLong_FromLong(p[0].value), PyLong_FromLong(p[1].value),
                              customer_record(d, p + 2), amount(d, p[6].value), moment(d)};
        return record(d->payment, 5, items);
    }
    if (kind == 2) {
        PyObject *items[1] = {customer_record(d, p)};
        return record(d->order_status, 1, items);
    }
    if (kind == 3) {
        PyObject *items[3] = {PyLong_FromLong(p[0].value), PyLong_FromLong(p[1].value),
                              moment(d)};
        return record(d->delivery, 3, items);
    }
    PyObject *items[3] = {PyLong_FromLong(p[0].value), PyLong_FromLong(p[1].value),
                          PyLong_FromLong(p[2].value)};
    return record(d->stock_level, 3, items);
}

int transaction_kind(PyObject *name)
{
    static const char *names[TRANSACTION_KINDS] = {"New-Order", "Payment", "Order-Status",
                                                   "Delivery", "Stock-Level"};
    if (PyUnicode_Check(name))
        for (int kind = 0; kind < TRANSACTION_KINDS; kind++)
            if (PyUnicode_CompareWithASCIIString(name, names[kind]) == 0)
                return kind;
    PyErr_Format(PyExc_ValueError, "unknown orders transaction %R", name);
    return -1;
}

static PyObject *draw_by_name(Drawer *d, PyObject *name)
{
    int kind = transaction_kind(name);
    return kind < 0 ? NULL : inputs(d, kind);
}

static PyObject *drawer_uniform(Drawer *d, PyObject *args)
{
    long low, high;
    if (!PyArg_ParseTuple(args, "ll:uniform", &low, &high))
        return NULL;
    if (high < low) {
        PyErr_SetString(PyExc_ValueError, "uniform: high below low");
        return NULL;
    }
    return PyLong_FromLong(uniform(&d->stream, low, high));
}

static PyObject *drawer_nurand(Drawer *d, PyObject *args)
{
    long a, x, y, c;
    if (!PyArg_ParseTuple(args, "llll:nurand", &a, &x, &y, &c))
        return NULL;
    if (y < x || a < 0) {
        PyErr_SetString(PyExc_ValueError, "nurand: y below x or A below 0");
        return NULL;
    }
    return PyLong_FromLong(nurand(&d->stream, a, x, y, c));
}

static int drawer_init(Drawer *d, PyObject *args, PyObject *kwargs)
{
    static char *keywords[] = {"seed", "warehouses", "home", "district", "all_warehouses",
                               "constants", "rules", "types", "names", "decimal", "now", NULL};
    unsigned long long seed;
    PyObject *types, *names, *decimal, *now;
    if (!PyArg_ParseTupleAndKeywords(
            args, kwargs, "Kllll(lll)(lllllll)O!O!OO:Drawer", keywords, &seed, &d->warehouses,
            &d->home, &d->district, &d->all_warehouses, &d->c_id, &d->c_last_run, &d->c_item,
            &d->remote_line_pct, &d->rollback_pct, &d->by_name_pct, &d->remote_payment_pct,
            &d->unused_item, &d->cents_low, &d->cents_high, &PyTuple_Type, &types,
            &PyTuple_Type, &names, &decimal, &now))
        return -1;
    if (d->warehouses < 1 || d->home < 1 || d->home > d->warehouses) {
        PyErr_SetString(PyExc_ValueError, "Drawer: warehouses below 1 or home outside them");
        return -1;
    }
    if (PyTuple_GET_SIZE(types) != 6 || PyTuple_GET_SIZE(names) != 1000) {
        PyErr_SetString(PyExc_ValueError, "Drawer: six types and 1000 names expected");
        return -1;
    }
    PyTypeObject **slots[6] = {&d->new_order, &d->payment, &d->order_status,
                               &d->delivery, &d->stock_level, &d->customer};
    for (int i = 0; i < 6; i++) {
        PyObject *type = PyTuple_GET_ITEM(types, i);
        if (!PyType_Check(type) || !PyType_IsSubtype((PyTypeObject *)type, &PyTuple_Type)) {
            PyErr_SetString(PyExc_TypeError, "Drawer: the types must be NamedTuples");
            return -1;
        }
        Py_XSETREF(*slots[i], (PyTypeObject *)Py_NewRef(type));
    }
    Py_XSETREF(d->names, Py_NewRef(names));
    Py_XSETREF(d->decimal, Py_NewRef(decimal));
    Py_XSETREF(d->now, Py_NewRef(now));
    stream_seed(&d->stream, (uint64_t)seed);
    return 0;
}

static int drawer_traverse(Drawer *d, visitproc visit, void *arg)
{
    Py_VISIT(d->new_order);
    Py_VISIT(d->payment);
    Py_VISIT(d->order_status);
    Py_VISIT(d->delivery);
    Py_VISIT(d->stock_level);
    Py_VISIT(d->customer);
    Py_VISIT(d->names);
    Py_VISIT(d->decimal);
    Py_VISIT(d->now);
    return 0;
}

static int drawer_clear(Drawer *d)
{
    Py_CLEAR(d->new_order);
    Py_CLEAR(d->payment);
    Py_CLEAR(d->order_status);
    Py_CLEAR(d->delivery);
    Py_CLEAR(d->stock_level);
    Py_CLEAR(d->customer);
    Py_CLEAR(d->names);
    Py_CLEAR(d->decimal);
    Py_CLEAR(d->now);
    return 0;
}

static void drawer_dealloc(Drawer *d)
{
    PyObject_GC_UnTrack(d);
    drawer_clear(d);
    Py_TYPE(d)->tp_free((PyObject *)d);
}

static PyObject *drawer_ready(Drawer *d)
{
    if (d->new_order == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "Drawer used before __init__");
        return NULL;
    }
    return Py_None;
}

#define READY(d)                        \
    if (drawer_ready(d) == NULL)        \
        return NULL;

static PyObject *m_new_order(Drawer *d, PyObject *u) { READY(d) return inputs(d, 0); }
static PyObject *m_payment(Drawer *d, PyObject *u) { READY(d) return inputs(d, 1); }
static PyObject *m_order_status(Drawer *d, PyObject *u) { READY(d) return inputs(d, 2); }
static PyObject *m_delivery(Drawer *d, PyObject *u) { READY(d) return inputs(d, 3); }
static PyObject *m_stock_level(Drawer *d, PyObject *u) { READY(d) return inputs(d, 4); }
static PyObject *m_draw(Drawer *d, PyObject *name) { READY(d) return draw_by_name(d, name); }

static PyMethodDef drawer_methods[] = {
    {"draw", (PyCFunction)m_draw, METH_O, "The inputs of one transaction, by its name."},
    {"new_order", (PyCFunction)m_new_order, METH_NOARGS, "New-Order's inputs (2.4.1)."},
    {"payment", (PyCFunction)m_payment, METH_NOARGS, "Payment's inputs (2.5.1)."},
    {"order_status", (PyCFunction)m_order_status, METH_NOARGS, "Order-Status's (2.6.1)."},
    {"delivery", (PyCFunction)m_delivery, METH_NOARGS, "Delivery's inputs (2.7.1)."},
    {"stock_level", (PyCFunction)m_stock_level, METH_NOARGS, "Stock-Level's (2.8.1)."},
    {"uniform", (PyCFunction)drawer_uniform, METH_VARARGS,
     "uniform(low, high): an integer in [low, high] from this stream."},
    {"nurand", (PyCFunction)drawer_nurand, METH_VARARGS,
     "nurand(A, x, y, C): TPC-C's NURand from this stream."},
    {NULL, NULL, 0, NULL},
};

PyTypeObject DrawerType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "dbstor.hotpath.Drawer",
    .tp_doc = "One terminal's TPC-C draws from its own stream (xoshiro256**).",
    .tp_basicsize = sizeof(Drawer),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)drawer_init,
    .tp_traverse = (traverseproc)drawer_traverse,
    .tp_clear = (inquiry)drawer_clear,
    .tp_dealloc = (destructor)drawer_dealloc,
    .tp_methods = drawer_methods,
};

