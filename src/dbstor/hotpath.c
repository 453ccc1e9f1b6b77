/* dbstor.hotpath: the orders load generator's per-transaction work, compiled.
 *
 * The profile of issue 39 found two thirds of the client's CPU in the interpreter running
 * some eighty Python calls per orders transaction: New-Order's draw of about forty random
 * numbers, the parameters' text and the tally's record. This module does that work in C,
 * one call per step:
 *
 *   Drawer    one terminal's TPC-C draws (clauses 2.4.1 - 2.8.1) from its own stream
 *             (xoshiro256**, seeded per user), answered as the inputs' NamedTuples;
 *   encode    one parameter in PostgreSQL's text format, encode_all a call's list of them;
 *   int_array / int_list   a tuple of ints as {1,2,3} / 1,2,3 (New-Order's line lists);
 *   bin_ns    the representative value of the 2%-wide latency bin holding a latency.
 *
 * The Python side (workloads/orders/inputs.py, engines/pg_prepared.py, drivers/tally.py)
 * keeps the names, the types and the rules' constants; nothing here is kept twice.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
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

enum { DISTRICTS = 10, CUSTOMERS = 3000, ITEMS = 100000, MAX_LINES = 15 };

typedef struct {
    PyObject_HEAD
    Stream stream;
    long warehouses, home, district, all_warehouses;
    long c_id, c_last_run, c_item;
    long remote_line_pct, rollback_pct, by_name_pct, remote_payment_pct;
    long unused_item, cents_low, cents_high;
    PyTypeObject *new_order, *payment, *order_status, *delivery, *stock_level, *customer;
    PyObject *names;  /* the 1000 last names, by number */
    PyObject *cents;  /* whole cents -> Decimal */
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

static PyObject *customer(Drawer *d, long w_id, long d_id)
{
    Stream *r = &d->stream;
    PyObject *items[4] = {PyLong_FromLong(w_id), PyLong_FromLong(d_id), NULL, NULL};
    if (uniform(r, 1, 100) <= d->by_name_pct) {
        long number = nurand(r, 255, 0, 999, d->c_last_run);
        items[2] = PyLong_FromLong(0);
        items[3] = Py_NewRef(PyTuple_GET_ITEM(d->names, number));
    } else {
        items[2] = PyLong_FromLong(nurand(r, 1023, 1, CUSTOMERS, d->c_id));
        items[3] = Py_NewRef(Py_None);
    }
    return record(d->customer, 4, items);
}

typedef struct {
    long item, supply, quantity;
} Line;

static PyObject *lines_tuple(Line *lines, long count)
{
    /* stock rows are locked in (warehouse, item) order, so New-Orders never deadlock */
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
    PyObject *out = PyTuple_New(count);
    if (out == NULL)
        return NULL;
    for (long i = 0; i < count; i++) {
        PyObject *line = Py_BuildValue("(lll)", lines[i].item, lines[i].supply,
                                       lines[i].quantity);
        if (line == NULL) {
            Py_DECREF(out);
            return NULL;
        }
        PyTuple_SET_ITEM(out, i, line);
    }
    return out;
}

static PyObject *draw_new_order(Drawer *d, PyObject *unused)
{
    Stream *r = &d->stream;
    Line lines[MAX_LINES];
    long w_id = warehouse(d), d_id = uniform(r, 1, DISTRICTS);
    long c_id = nurand(r, 1023, 1, CUSTOMERS, d->c_id);
    long count = uniform(r, 5, MAX_LINES);
    int rollback = uniform(r, 1, 100) <= d->rollback_pct;
    for (long i = 0; i < count; i++) {
        lines[i].item = nurand(r, 8191, 1, ITEMS, d->c_item);
        lines[i].supply = w_id;
        if (d->warehouses > 1 && uniform(r, 1, 100) <= d->remote_line_pct)
            lines[i].supply = other_warehouse(d, w_id);
        lines[i].quantity = uniform(r, 1, 10);
    }
    if (rollback)
        lines[count - 1].item = d->unused_item;
    PyObject *items[5] = {PyLong_FromLong(w_id), PyLong_FromLong(d_id), PyLong_FromLong(c_id),
                          lines_tuple(lines, count), moment(d)};
    return record(d->new_order, 5, items);
}

static PyObject *draw_payment(Drawer *d, PyObject *unused)
{
    Stream *r = &d->stream;
    long w_id = warehouse(d), d_id = uniform(r, 1, DISTRICTS);
    long c_w_id = w_id, c_d_id = d_id;
    if (d->warehouses > 1 && uniform(r, 1, 100) <= d->remote_payment_pct) {
        c_w_id = other_warehouse(d, w_id);
        c_d_id = uniform(r, 1, DISTRICTS);
    }
    PyObject *who = customer(d, c_w_id, c_d_id);
    PyObject *amount = PyLong_FromLong(uniform(r, d->cents_low, d->cents_high));
    PyObject *items[5] = {PyLong_FromLong(w_id), PyLong_FromLong(d_id), who, NULL, NULL};
    if (amount != NULL) {
        items[3] = PyObject_CallOneArg(d->cents, amount);
        Py_DECREF(amount);
    }
    items[4] = moment(d);
    return record(d->payment, 5, items);
}

static PyObject *draw_order_status(Drawer *d, PyObject *unused)
{
    long w_id = warehouse(d);
    PyObject *items[1] = {customer(d, w_id, uniform(&d->stream, 1, DISTRICTS))};
    return record(d->order_status, 1, items);
}

static PyObject *draw_delivery(Drawer *d, PyObject *unused)
{
    long w_id = warehouse(d);
    PyObject *items[3] = {PyLong_FromLong(w_id), PyLong_FromLong(uniform(&d->stream, 1, 10)),
                          moment(d)};
    return record(d->delivery, 3, items);
}

static PyObject *draw_stock_level(Drawer *d, PyObject *unused)
{
    long w_id = warehouse(d);
    PyObject *items[3] = {PyLong_FromLong(w_id), PyLong_FromLong(d->district),
                          PyLong_FromLong(uniform(&d->stream, 10, 20))};
    return record(d->stock_level, 3, items);
}

static PyObject *draw_by_name(Drawer *d, PyObject *name)
{
    if (PyUnicode_Check(name)) {
        if (PyUnicode_CompareWithASCIIString(name, "New-Order") == 0)
            return draw_new_order(d, NULL);
        if (PyUnicode_CompareWithASCIIString(name, "Payment") == 0)
            return draw_payment(d, NULL);
        if (PyUnicode_CompareWithASCIIString(name, "Order-Status") == 0)
            return draw_order_status(d, NULL);
        if (PyUnicode_CompareWithASCIIString(name, "Delivery") == 0)
            return draw_delivery(d, NULL);
        if (PyUnicode_CompareWithASCIIString(name, "Stock-Level") == 0)
            return draw_stock_level(d, NULL);
    }
    PyErr_Format(PyExc_ValueError, "unknown orders transaction %R", name);
    return NULL;
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
                               "constants", "rules", "types", "names", "cents", "now", NULL};
    unsigned long long seed;
    PyObject *types, *names, *cents, *now;
    if (!PyArg_ParseTupleAndKeywords(
            args, kwargs, "Kllll(lll)(lllllll)O!O!OO:Drawer", keywords, &seed, &d->warehouses,
            &d->home, &d->district, &d->all_warehouses, &d->c_id, &d->c_last_run, &d->c_item,
            &d->remote_line_pct, &d->rollback_pct, &d->by_name_pct, &d->remote_payment_pct,
            &d->unused_item, &d->cents_low, &d->cents_high, &PyTuple_Type, &types,
            &PyTuple_Type, &names, &cents, &now))
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
    Py_XSETREF(d->cents, Py_NewRef(cents));
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
    Py_VISIT(d->cents);
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
    Py_CLEAR(d->cents);
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

static PyObject *m_new_order(Drawer *d, PyObject *u) { READY(d) return draw_new_order(d, u); }
static PyObject *m_payment(Drawer *d, PyObject *u) { READY(d) return draw_payment(d, u); }
static PyObject *m_order_status(Drawer *d, PyObject *u) { READY(d) return draw_order_status(d, u); }
static PyObject *m_delivery(Drawer *d, PyObject *u) { READY(d) return draw_delivery(d, u); }
static PyObject *m_stock_level(Drawer *d, PyObject *u) { READY(d) return draw_stock_level(d, u); }
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

static PyTypeObject DrawerType = {
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

/* ---- PostgreSQL's text format ---- */

static PyObject *datetime_type, *decimal_type;
static PyObject *last_moment, *last_moment_text; /* the last datetime encoded, and its text */

/* Ints as text between `open` and `close`, separated by commas. */
static PyObject *join_ints(PyObject *values, const char *open, const char *close, int as_bytes)
{
    PyObject *seq = PySequence_Fast(values, "a sequence of ints expected");
    if (seq == NULL)
        return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq), at = 0;
    size_t room = 24 * (size_t)n + 4;
    char stack[512], *buf = room <= sizeof stack ? stack : PyMem_Malloc(room);
    PyObject *out = NULL;
    if (buf == NULL) {
        Py_DECREF(seq);
        return PyErr_NoMemory();
    }
    at += sprintf(buf, "%s", open);
    for (Py_ssize_t i = 0; i < n; i++) {
        long long v = PyLong_AsLongLong(PySequence_Fast_GET_ITEM(seq, i));
        if (v == -1 && PyErr_Occurred())
            goto done;
        at += sprintf(buf + at, i ? ",%lld" : "%lld", v);
    }
    at += sprintf(buf + at, "%s", close);
    out = as_bytes ? PyBytes_FromStringAndSize(buf, at) : PyUnicode_FromStringAndSize(buf, at);
done:
    if (buf != stack)
        PyMem_Free(buf);
    Py_DECREF(seq);
    return out;
}

static PyObject *int_text(PyObject *value)
{
    int overflow;
    long long v = PyLong_AsLongLongAndOverflow(value, &overflow);
    if (v == -1 && PyErr_Occurred())
        return NULL;
    if (overflow) {
        PyObject *text = PyObject_Str(value);
        PyObject *out = text ? PyUnicode_AsUTF8String(text) : NULL;
        Py_XDECREF(text);
        return out;
    }
    char buf[24];
    return PyBytes_FromStringAndSize(buf, snprintf(buf, sizeof buf, "%lld", v));
}

static PyObject *moment_text(PyObject *value)
{
    if (value != last_moment) {
        PyObject *text = PyObject_CallMethod(value, "isoformat", "s", " ");
        PyObject *encoded = text ? PyUnicode_AsUTF8String(text) : NULL;
        Py_XDECREF(text);
        if (encoded == NULL)
            return NULL;
        Py_XSETREF(last_moment, Py_NewRef(value));
        Py_XSETREF(last_moment_text, encoded);
    }
    return Py_NewRef(last_moment_text);
}

static PyObject *encode_one(PyObject *value)
{
    if (PyLong_CheckExact(value))
        return int_text(value);
    if (PyUnicode_CheckExact(value))
        return PyUnicode_AsUTF8String(value);
    if (value == Py_None)
        return Py_NewRef(Py_None);
    if ((PyObject *)Py_TYPE(value) == datetime_type)
        return moment_text(value);
    if (PyLong_Check(value))
        return int_text(value);
    if (PyList_Check(value) || PyTuple_Check(value))
        return join_ints(value, "{", "}", 1);
    int is = PyObject_IsInstance(value, decimal_type);
    if (is < 0)
        return NULL;
    if (is) {
        PyObject *spec = PyUnicode_FromString("f");
        PyObject *text = spec ? PyObject_Format(value, spec) : NULL;
        Py_XDECREF(spec);
        PyObject *out = text ? PyUnicode_AsUTF8String(text) : NULL;
        Py_XDECREF(text);
        return out;
    }
    is = PyObject_IsInstance(value, datetime_type);
    if (is < 0)
        return NULL;
    if (is)
        return moment_text(value);
    if (PyUnicode_Check(value))
        return PyUnicode_AsUTF8String(value);
    PyErr_Format(PyExc_TypeError, "no PostgreSQL text for a %.100s parameter",
                 Py_TYPE(value)->tp_name);
    return NULL;
}

static PyObject *encode(PyObject *module, PyObject *value) { return encode_one(value); }

static PyObject *encode_all(PyObject *module, PyObject *values)
{
    PyObject *seq = PySequence_Fast(values, "encode_all: a sequence of parameters expected");
    if (seq == NULL)
        return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    PyObject *out = PyList_New(n);
    for (Py_ssize_t i = 0; out != NULL && i < n; i++) {
        PyObject *text = encode_one(PySequence_Fast_GET_ITEM(seq, i));
        if (text == NULL)
            Py_CLEAR(out);
        else
            PyList_SET_ITEM(out, i, text);
    }
    Py_DECREF(seq);
    return out;
}

static PyObject *int_array(PyObject *module, PyObject *values)
{
    return join_ints(values, "{", "}", 0);
}

static PyObject *int_list(PyObject *module, PyObject *values)
{
    return join_ints(values, "", "", 0);
}

/* ---- the tally's latency bins ---- */

static double log_growth;
static long bin_values[2000];

static PyObject *bin_ns(PyObject *module, PyObject *arg)
{
    double ns = PyFloat_AsDouble(arg);
    if (ns == -1.0 && PyErr_Occurred())
        return NULL;
    if (isnan(ns) || isinf(ns)) {
        PyErr_SetString(PyExc_ValueError, "bin_ns: a latency must be a finite number");
        return NULL;
    }
    if (ns < 1000.0) /* below a microsecond: the value itself, at least 1 */
        return PyLong_FromLong(ns >= 1.0 ? (long)ns : 1);
    long index = (long)floor(log(ns) / log_growth);
    if (index < 2000)
        return PyLong_FromLong(bin_values[index]);
    return PyLong_FromDouble(pow(1.02, (double)index));
}

/* ---- the tally's per-transaction count (drivers/tally.py: Tally.record) ---- */

static PyObject *counter_type; /* collections.Counter */
static PyObject *one;
static PyObject *s_bins, *s_total_ns, *s_max_ns, *s_per_second, *s_per_second_ns,
    *s_rollbacks, *s_frombytes;

/* mapping[key] += amount (absent: amount), the sum as Python adds it. */
static int add_to(PyObject *mapping, PyObject *key, PyObject *amount)
{
    PyObject *old = PyDict_GetItemWithError(mapping, key);
    if (old == NULL && PyErr_Occurred())
        return -1;
    PyObject *sum = old == NULL ? Py_NewRef(amount) : PyNumber_Add(old, amount);
    if (sum == NULL)
        return -1;
    int rc = PyDict_SetItem(mapping, key, sum);
    Py_DECREF(sum);
    return rc;
}

/* values[second] += amount on an array of 8-byte items ('q' or 'd'), grown with zeros. */
static int add_at(PyObject *values, Py_ssize_t second, int is_float, double amount)
{
    Py_buffer view;
    if (PyObject_GetBuffer(values, &view, PyBUF_WRITABLE | PyBUF_FORMAT) < 0)
        return -1;
    Py_ssize_t length = view.len / 8;
    int fits = view.itemsize == 8 && view.format != NULL &&
               view.format[0] == (is_float ? 'd' : 'q');
    PyBuffer_Release(&view);
    if (!fits) {
        PyErr_SetString(PyExc_TypeError, "the tally's per-second counts must be array q / d");
        return -1;
    }
    if (second >= length) { /* zero bytes are 0 and 0.0 alike */
        PyObject *zeros = PyBytes_FromStringAndSize(NULL, 8 * (second + 1 - length));
        if (zeros == NULL)
            return -1;
        memset(PyBytes_AS_STRING(zeros), 0, PyBytes_GET_SIZE(zeros));
        PyObject *done = PyObject_CallMethodOneArg(values, s_frombytes, zeros);
        Py_DECREF(zeros);
        if (done == NULL)
            return -1;
        Py_DECREF(done);
    }
    if (PyObject_GetBuffer(values, &view, PyBUF_WRITABLE) < 0)
        return -1;
    if (is_float)
        ((double *)view.buf)[second] += amount;
    else
        ((long long *)view.buf)[second] += (long long)amount;
    PyBuffer_Release(&view);
    return 0;
}

static PyObject *attribute_dict(PyObject *owner, PyObject *name)
{
    PyObject *out = PyObject_GetAttr(owner, name);
    if (out != NULL && !PyDict_Check(out)) {
        PyErr_Format(PyExc_TypeError, "the tally's %U must be a dict", name);
        Py_CLEAR(out);
    }
    return out;
}

static int count_into(PyObject *tally, PyObject *txn, double ns, Py_ssize_t second,
                      int rolled_back)
{
    PyObject *bins = NULL, *per_type = NULL, *totals = NULL, *maxima = NULL, *per_second = NULL,
             *per_second_ns = NULL, *rollbacks = NULL, *key = NULL, *latency = NULL;
    int rc = -1;
    if ((bins = attribute_dict(tally, s_bins)) == NULL)
        goto done;
    per_type = Py_XNewRef(PyDict_GetItemWithError(bins, txn));
    if (per_type == NULL) {
        if (PyErr_Occurred() || (per_type = PyObject_CallNoArgs(counter_type)) == NULL ||
            PyDict_SetItem(bins, txn, per_type) < 0)
            goto done;
    }
    if ((key = bin_ns(NULL, latency = PyFloat_FromDouble(ns))) == NULL ||
        add_to(per_type, key, one) < 0)
        goto done;
    if ((totals = attribute_dict(tally, s_total_ns)) == NULL || add_to(totals, txn, latency) < 0)
        goto done;
    if ((maxima = attribute_dict(tally, s_max_ns)) == NULL)
        goto done;
    PyObject *most = PyDict_GetItemWithError(maxima, txn);
    if (most == NULL && PyErr_Occurred())
        goto done;
    double so_far = most == NULL ? 0.0 : PyFloat_AsDouble(most);
    if (so_far == -1.0 && PyErr_Occurred())
        goto done;
    if (ns > so_far && PyDict_SetItem(maxima, txn, latency) < 0)
        goto done;
    if ((per_second = PyObject_GetAttr(tally, s_per_second)) == NULL ||
        add_at(per_second, second, 0, 1.0) < 0)
        goto done;
    if ((per_second_ns = PyObject_GetAttr(tally, s_per_second_ns)) == NULL ||
        add_at(per_second_ns, second, 1, ns) < 0)
        goto done;
    if (rolled_back && ((rollbacks = attribute_dict(tally, s_rollbacks)) == NULL ||
                        add_to(rollbacks, txn, one) < 0))
        goto done;
    rc = 0;
done:
    Py_XDECREF(bins);
    Py_XDECREF(per_type);
    Py_XDECREF(totals);
    Py_XDECREF(maxima);
    Py_XDECREF(per_second);
    Py_XDECREF(per_second_ns);
    Py_XDECREF(rollbacks);
    Py_XDECREF(key);
    Py_XDECREF(latency);
    return rc;
}

static PyObject *count(PyObject *module, PyObject *args)
{
    PyObject *tally, *txn;
    double ns;
    Py_ssize_t second;
    int rolled_back;
    if (!PyArg_ParseTuple(args, "OUdnp:count", &tally, &txn, &ns, &second, &rolled_back))
        return NULL;
    if (second < 0 || !isfinite(ns)) {
        PyErr_SetString(PyExc_ValueError, "count: a second below 0 or a latency not finite");
        return NULL;
    }
    if (count_into(tally, txn, ns, second, rolled_back) < 0)
        return NULL;
    Py_RETURN_NONE;
}

static PyMethodDef module_methods[] = {
    {"count", count, METH_VARARGS,
     "count(tally, txn, ns, second, rolled_back): one finished transaction into a Tally: "
     "its latency bin, total and maximum, its second's count and latency sum, a rollback."},
    {"encode", encode, METH_O,
     "One parameter in PostgreSQL's text format (bytes; None stays None)."},
    {"encode_all", encode_all, METH_O, "A call's parameters, each as encode() writes it."},
    {"int_array", int_array, METH_O, "Ints as an array literal: {1,2,3}."},
    {"int_list", int_list, METH_O, "Ints separated by commas: 1,2,3."},
    {"bin_ns", bin_ns, METH_O,
     "The representative value of the 2%-wide bin holding a latency in ns."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef hotpath_module = {
    PyModuleDef_HEAD_INIT, "dbstor.hotpath",
    "The orders load generator's per-transaction work, compiled (see hotpath.c).", -1,
    module_methods,
};

static PyObject *attribute_of(const char *module, const char *name)
{
    PyObject *m = PyImport_ImportModule(module);
    if (m == NULL)
        return NULL;
    PyObject *out = PyObject_GetAttrString(m, name);
    Py_DECREF(m);
    return out;
}

PyMODINIT_FUNC PyInit_hotpath(void)
{
    log_growth = log(1.02);
    for (int i = 0; i < 2000; i++)
        bin_values[i] = (long)pow(1.02, i);
    counter_type = attribute_of("collections", "Counter");
    one = PyLong_FromLong(1);
    s_bins = PyUnicode_InternFromString("bins");
    s_total_ns = PyUnicode_InternFromString("total_ns");
    s_max_ns = PyUnicode_InternFromString("max_ns");
    s_per_second = PyUnicode_InternFromString("per_second");
    s_per_second_ns = PyUnicode_InternFromString("per_second_ns");
    s_rollbacks = PyUnicode_InternFromString("rollbacks");
    s_frombytes = PyUnicode_InternFromString("frombytes");
    if (counter_type == NULL || s_frombytes == NULL)
        return NULL;
    datetime_type = attribute_of("datetime", "datetime");
    decimal_type = attribute_of("decimal", "Decimal");
    if (datetime_type == NULL || decimal_type == NULL || PyType_Ready(&DrawerType) < 0)
        return NULL;
    PyObject *m = PyModule_Create(&hotpath_module);
    if (m == NULL)
        return NULL;
    if (PyModule_AddObjectRef(m, "Drawer", (PyObject *)&DrawerType) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
