/* dbstor.hotpath's parameter text: PostgreSQL's text format for a prepared call
 * (engines/pg_prepared.py), MySQL's and MariaDB's SQL literals (dialects/mysql/calls.py),
 * New-Order's line lists ({1,2,3} or 1,2,3) and a transaction's CALL arguments. */
#include "hotpath.h"
#include <stdio.h>

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

PyObject *moment_text(PyObject *value)
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

PyObject *encode(PyObject *module, PyObject *value) { return encode_one(value); }

PyObject *encode_all(PyObject *module, PyObject *values)
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

PyObject *int_array(PyObject *module, PyObject *values)
{
    return join_ints(values, "{", "}", 0);
}

PyObject *int_list(PyObject *module, PyObject *values)
{
    return join_ints(values, "", "", 0);
}


int text_ready(void)
{
    datetime_type = attribute_of("datetime", "datetime");
    decimal_type = attribute_of("decimal", "Decimal");
    return datetime_type == NULL || decimal_type == NULL ? -1 : 0;
}

/* ---- a transaction's CALL arguments (workloads/orders/procedures.py) ---- */

/* A customer's four fields (w_id, d_id, c_id, c_last), checked, as a plain tuple. */
static PyObject *customer_args(PyObject *who)
{
    if (!PyTuple_Check(who) || PyTuple_GET_SIZE(who) != 4) {
        PyErr_SetString(PyExc_TypeError, "call_args: a customer must be a Customer");
        return NULL;
    }
    return PyTuple_GetSlice(who, 0, 4);
}

/* New-Order's arguments: w_id, d_id, c_id, entry_d and its three line lists, each column
 * (items, supplying warehouses, quantities) written by the dialect's item_lines. */
static PyObject *new_order_args(PyObject *t, PyObject *item_lines)
{
    PyObject *lines = PyTuple_GET_ITEM(t, 3), *args = NULL;
    if (!PyTuple_Check(lines)) {
        PyErr_SetString(PyExc_TypeError, "call_args: New-Order's lines must be a tuple");
        return NULL;
    }
    Py_ssize_t n = PyTuple_GET_SIZE(lines);
    PyObject *columns[3] = {PyTuple_New(n), PyTuple_New(n), PyTuple_New(n)};
    PyObject *texts[3] = {NULL, NULL, NULL};
    for (int c = 0; c < 3; c++)
        if (columns[c] == NULL)
            goto done;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *line = PyTuple_GET_ITEM(lines, i);
        if (!PyTuple_Check(line) || PyTuple_GET_SIZE(line) != 3) {
            PyErr_SetString(PyExc_TypeError, "call_args: a line must be (item, supply, qty)");
            goto done;
        }
        for (int c = 0; c < 3; c++)
            PyTuple_SET_ITEM(columns[c], i, Py_NewRef(PyTuple_GET_ITEM(line, c)));
    }
    for (int c = 0; c < 3; c++)
        if ((texts[c] = PyObject_CallOneArg(item_lines, columns[c])) == NULL)
            goto done;
    args = PyTuple_Pack(7, PyTuple_GET_ITEM(t, 0), PyTuple_GET_ITEM(t, 1),
                        PyTuple_GET_ITEM(t, 2), PyTuple_GET_ITEM(t, 4), texts[0], texts[1],
                        texts[2]);
done:
    for (int c = 0; c < 3; c++) {
        Py_XDECREF(columns[c]);
        Py_XDECREF(texts[c]);
    }
    return args;
}

PyObject *call_args(PyObject *module, PyObject *const *argv, Py_ssize_t argc)
{
    static const char *names[5] = {"New-Order", "Payment", "Order-Status", "Delivery",
                                   "Stock-Level"};
    static const Py_ssize_t sizes[5] = {5, 5, 1, 3, 3};
    if (argc != 3 || !PyTuple_Check(argv[2]) || PyTuple_GET_SIZE(argv[2]) != 5) {
        PyErr_SetString(PyExc_TypeError,
                        "call_args(inputs, item_lines, (NewOrder, Payment, OrderStatus, "
                        "Delivery, StockLevel))");
        return NULL;
    }
    PyObject *t = argv[0], *item_lines = argv[1], *types = argv[2], *args = NULL;
    int kind = 0;
    while (kind < 5 && (PyObject *)Py_TYPE(t) != PyTuple_GET_ITEM(types, kind))
        kind++;
    if (kind == 5 || PyTuple_GET_SIZE(t) != sizes[kind]) {
        PyErr_Format(PyExc_TypeError, "not an orders transaction: %R", t);
        return NULL;
    }
    if (kind == 0)
        args = new_order_args(t, item_lines);
    else if (kind == 1) /* w_id, d_id, the customer's four, amount, date */
    {
        PyObject *who = customer_args(PyTuple_GET_ITEM(t, 2));
        if (who != NULL) {
            args = PyTuple_Pack(8, PyTuple_GET_ITEM(t, 0), PyTuple_GET_ITEM(t, 1),
                                PyTuple_GET_ITEM(who, 0), PyTuple_GET_ITEM(who, 1),
                                PyTuple_GET_ITEM(who, 2), PyTuple_GET_ITEM(who, 3),
                                PyTuple_GET_ITEM(t, 3), PyTuple_GET_ITEM(t, 4));
            Py_DECREF(who);
        }
    } else if (kind == 2)
        args = customer_args(PyTuple_GET_ITEM(t, 0));
    else /* Delivery (w_id, carrier, date), Stock-Level (w_id, d_id, threshold): as drawn */
        args = PyTuple_GetSlice(t, 0, sizes[kind]);
    if (args == NULL)
        return NULL;
    PyObject *name = PyUnicode_InternFromString(names[kind]);
    if (name == NULL) {
        Py_DECREF(args);
        return NULL;
    }
    PyObject *out = PyTuple_Pack(2, name, args);
    Py_DECREF(name);
    Py_DECREF(args);
    return out;
}

/* ---- MySQL's and MariaDB's SQL literals (dialects/mysql/calls.py: Sender) ---- */

static PyObject *last_quoted, *last_quoted_text; /* the last datetime written, and its literal */

PyObject *quoted_moment(PyObject *value)
{
    if (value != last_quoted) {
        PyObject *text = moment_text(value); /* 2030-01-02 03:04:05[.ffffff], as MySQLdb */
        if (text == NULL)
            return NULL;
        PyObject *quoted = PyBytes_FromFormat("'%s'", PyBytes_AS_STRING(text));
        Py_DECREF(text);
        if (quoted == NULL)
            return NULL;
        Py_XSETREF(last_quoted, Py_NewRef(value));
        Py_XSETREF(last_quoted_text, quoted);
    }
    return Py_NewRef(last_quoted_text);
}

/* One parameter as an SQL literal: ints, NULL, naive datetimes and Decimals written here as
 * mysqlclient's converters write them; text and every other type by the connection's own
 * literal() (mysql_real_escape_string: its character set and sql_mode respected). */
static PyObject *sql_literal(PyObject *value, PyObject *literal)
{
    if (PyLong_CheckExact(value))
        return int_text(value);
    if (value == Py_None)
        return PyBytes_FromString("NULL");
    if ((PyObject *)Py_TYPE(value) == datetime_type) {
        PyObject *zone = PyObject_GetAttrString(value, "tzinfo");
        if (zone == NULL)
            return NULL;
        int naive = zone == Py_None;
        Py_DECREF(zone);
        if (naive)
            return quoted_moment(value);
    }
    if ((PyObject *)Py_TYPE(value) == decimal_type)
        return encode_one(value);
    return PyObject_CallOneArg(literal, value);
}

PyObject *sql_literals(PyObject *module, PyObject *const *argv, Py_ssize_t argc)
{
    if (argc != 2) {
        PyErr_SetString(PyExc_TypeError, "sql_literals(params, literal)");
        return NULL;
    }
    PyObject *seq = PySequence_Fast(argv[0], "sql_literals: a sequence of parameters expected");
    if (seq == NULL)
        return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    PyObject *out = PyTuple_New(n);
    for (Py_ssize_t i = 0; out != NULL && i < n; i++) {
        PyObject *text = sql_literal(PySequence_Fast_GET_ITEM(seq, i), argv[1]);
        if (text == NULL)
            Py_CLEAR(out);
        else
            PyTuple_SET_ITEM(out, i, text);
    }
    Py_DECREF(seq);
    return out;
}
