/* dbstor.hotpath's Submitter: an orders transaction drawn and sent in one call.
 *
 * submit(name) draws the transaction's inputs from the user's Drawer (draws.c: the same
 * draws, from the same stream, as Drawer.draw), writes them straight into the dialect's
 * parameter text, sends them and answers the socket the reply comes on; no NamedTuple,
 * argument tuple or list of Python values is made on the way, and no Python frame runs.
 *
 *   PostgreSQL (dialect 0): the statement is the prepared statement's name; the parameters
 *     go as PostgreSQL's text format (ints, NULL, a last name, the amount as 43.21, the
 *     second's timestamp, New-Order's lines as {1,2,3}) to send(name, params), libpq's
 *     send_query_prepared;
 *   MySQL and MariaDB (dialect 1): the statement is its text with %s placeholders; the
 *     parameters go in as SQL literals (ints, NULL, a last name as the connection's own
 *     literal() wrote it, the amount unquoted, the timestamp and New-Order's lines quoted,
 *     '1,2,3') and the whole text to send(text), libmariadb's send_query.
 *
 * The name of the last transaction sent is kept (sent) for the caller's reply and count. */
#include "hotpath.h"
#include <stdio.h>
#include <string.h>

enum { DIALECT_POSTGRES = 0, DIALECT_MYSQL = 1, NAME_COUNT = 1000, STATEMENT_ROOM = 4096,
       LITERAL_ROOM = 1024 };
static const int param_counts[TRANSACTION_KINDS] = {7, 8, 4, 3, 3};

typedef struct {
    PyObject_HEAD
    PyObject *drawer;
    int dialect;
    PyObject *statements; /* name -> (kind, prepared name) or (kind, (text's parts)) */
    PyObject *send;       /* send_query_prepared(name, params) or send_query(text) */
    PyObject *socket;     /* () -> the socket the reply comes on */
    PyObject *names;      /* the 1000 last names, as the dialect's parameter text */
    PyObject *sent;       /* the last transaction's name */
} Submitter;

/* One line list (New-Order's items, supplying warehouses or quantities) as 1,2,3. */
static int line_list(char *buf, const Drawn *drawn, ParamKind kind)
{
    int at = 0;
    for (long i = 0; i < drawn->line_count; i++) {
        const Line *l = &drawn->lines[i];
        long v = kind == P_ITEMS ? l->item : kind == P_SUPPLY ? l->supply : l->quantity;
        at += sprintf(buf + at, i ? ",%ld" : "%ld", v);
    }
    return at;
}

/* ---- PostgreSQL: a list of text parameters ---- */

static PyObject *pg_param(Submitter *s, const Drawn *drawn, const Param *p)
{
    char buf[MAX_LINES * 24 + 4];
    int n;
    switch (p->kind) {
    case P_INT:
        n = sprintf(buf, "%ld", p->value);
        break;
    case P_NULL:
        return Py_NewRef(Py_None);
    case P_NAME:
        return Py_NewRef(PyTuple_GET_ITEM(s->names, p->value));
    case P_CENTS:
        n = sprintf(buf, "%ld.%02ld", p->value / 100, p->value % 100);
        break;
    case P_MOMENT: {
        PyObject *moment = drawn_moment(s->drawer);
        PyObject *text = moment ? moment_text(moment) : NULL;
        Py_XDECREF(moment);
        return text;
    }
    default:
        buf[0] = '{';
        n = 1 + line_list(buf + 1, drawn, p->kind);
        buf[n++] = '}';
    }
    return PyBytes_FromStringAndSize(buf, n);
}

static PyObject *pg_send(Submitter *s, const Drawn *drawn, PyObject *statement)
{
    PyObject *params = PyList_New(drawn->count);
    if (params == NULL)
        return NULL;
    for (int i = 0; i < drawn->count; i++) {
        PyObject *text = pg_param(s, drawn, &drawn->params[i]);
        if (text == NULL) {
            Py_DECREF(params);
            return NULL;
        }
        PyList_SET_ITEM(params, i, text);
    }
    PyObject *args[2] = {statement, params};
    PyObject *out = PyObject_Vectorcall(s->send, args, 2, NULL);
    Py_DECREF(params);
    return out;
}

/* ---- MySQL and MariaDB: one statement's text ---- */

static int append(char *buf, int at, const char *text, Py_ssize_t size)
{
    memcpy(buf + at, text, (size_t)size);
    return at + (int)size;
}

/* The literal of one parameter at buf + at; the new end, or -1 and an error. */
static int my_literal(Submitter *s, const Drawn *drawn, const Param *p, char *buf, int at)
{
    switch (p->kind) {
    case P_INT:
        return at + sprintf(buf + at, "%ld", p->value);
    case P_NULL:
        return append(buf, at, "NULL", 4);
    case P_NAME: {
        PyObject *name = PyTuple_GET_ITEM(s->names, p->value);
        return append(buf, at, PyBytes_AS_STRING(name), PyBytes_GET_SIZE(name));
    }
    case P_CENTS:
        return at + sprintf(buf + at, "%ld.%02ld", p->value / 100, p->value % 100);
    case P_MOMENT: {
        PyObject *moment = drawn_moment(s->drawer);
        PyObject *text = moment ? quoted_moment(moment) : NULL;
        Py_XDECREF(moment);
        if (text == NULL)
            return -1;
        at = append(buf, at, PyBytes_AS_STRING(text), PyBytes_GET_SIZE(text));
        Py_DECREF(text);
        return at;
    }
    default:
        buf[at++] = '\'';
        at += line_list(buf + at, drawn, p->kind);
        buf[at++] = '\'';
        return at;
    }
}

static PyObject *my_send(Submitter *s, const Drawn *drawn, PyObject *parts)
{
    char buf[STATEMENT_ROOM];
    int at = 0;
    for (int i = 0; i <= drawn->count; i++) {
        PyObject *part = PyTuple_GET_ITEM(parts, i);
        /* a literal is at most a line list (15 lines of 21 digits) or a quoted name */
        if (at + PyBytes_GET_SIZE(part) > STATEMENT_ROOM - LITERAL_ROOM) {
            PyErr_SetString(PyExc_ValueError, "Submitter: a statement longer than its room");
            return NULL;
        }
        at = append(buf, at, PyBytes_AS_STRING(part), PyBytes_GET_SIZE(part));
        if (i < drawn->count && (at = my_literal(s, drawn, &drawn->params[i], buf, at)) < 0)
            return NULL;
    }
    PyObject *text = PyBytes_FromStringAndSize(buf, at);
    if (text == NULL)
        return NULL;
    PyObject *out = PyObject_CallOneArg(s->send, text);
    Py_DECREF(text);
    return out;
}

/* ---- the type ---- */

static PyObject *submitter_submit(Submitter *s, PyObject *name)
{
    if (s->statements == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "Submitter used before __init__");
        return NULL;
    }
    PyObject *entry = PyDict_GetItemWithError(s->statements, name);
    if (entry == NULL) {
        if (!PyErr_Occurred())
            PyErr_Format(PyExc_ValueError, "unknown orders transaction %R", name);
        return NULL;
    }
    Drawn drawn;
    drawn_fill(s->drawer, (int)PyLong_AsLong(PyTuple_GET_ITEM(entry, 0)), &drawn);
    PyObject *statement = PyTuple_GET_ITEM(entry, 1);
    PyObject *done = s->dialect == DIALECT_POSTGRES ? pg_send(s, &drawn, statement)
                                                   : my_send(s, &drawn, statement);
    if (done == NULL)
        return NULL;
    Py_DECREF(done);
    Py_XSETREF(s->sent, Py_NewRef(name));
    return PyObject_CallNoArgs(s->socket);
}

/* A MySQL statement's text split at its %s, checked against its parameters and the room a
 * statement has here. */
static PyObject *text_parts(PyObject *text, int kind)
{
    if (!PyBytes_Check(text) || PyBytes_GET_SIZE(text) > STATEMENT_ROOM / 2) {
        PyErr_SetString(PyExc_ValueError, "Submitter: a statement must be bytes, under 2 KiB");
        return NULL;
    }
    PyObject *parts = PyObject_CallMethod(text, "split", "y", "%s");
    PyObject *out = parts ? PySequence_Tuple(parts) : NULL;
    Py_XDECREF(parts);
    if (out != NULL && PyTuple_GET_SIZE(out) != param_counts[kind] + 1) {
        PyErr_Format(PyExc_ValueError, "Submitter: %R needs %d parameters", text,
                     param_counts[kind]);
        Py_CLEAR(out);
    }
    return out;
}

static int names_ok(PyObject *names)
{
    if (!PyTuple_Check(names) || PyTuple_GET_SIZE(names) != NAME_COUNT)
        goto bad;
    for (Py_ssize_t i = 0; i < NAME_COUNT; i++) {
        PyObject *name = PyTuple_GET_ITEM(names, i);
        if (!PyBytes_Check(name) || PyBytes_GET_SIZE(name) > 64)
            goto bad;
    }
    return 0;
bad:
    PyErr_SetString(PyExc_ValueError, "Submitter: 1000 last names as bytes expected");
    return -1;
}

static int submitter_init(Submitter *s, PyObject *args, PyObject *kwargs)
{
    static char *keywords[] = {"drawer", "dialect", "statements", "send", "socket", "names",
                               NULL};
    PyObject *drawer, *statements, *send, *socket, *names, *key, *value;
    int dialect;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OiO!OOO:Submitter", keywords, &drawer,
                                     &dialect, &PyDict_Type, &statements, &send, &socket,
                                     &names))
        return -1;
    if (drawer_check(drawer) < 0 || names_ok(names) < 0)
        return -1;
    if (dialect != DIALECT_POSTGRES && dialect != DIALECT_MYSQL) {
        PyErr_SetString(PyExc_ValueError, "Submitter: dialect 0 (PostgreSQL) or 1 (MySQL)");
        return -1;
    }
    PyObject *table = PyDict_New();
    Py_ssize_t at = 0;
    while (table != NULL && PyDict_Next(statements, &at, &key, &value)) {
        int kind = transaction_kind(key);
        PyObject *statement = kind < 0                     ? NULL
                              : dialect == DIALECT_MYSQL ? text_parts(value, kind)
                                                         : Py_NewRef(value);
        PyObject *entry = statement ? Py_BuildValue("(iN)", kind, statement) : NULL;
        if (entry == NULL || PyDict_SetItem(table, key, entry) < 0)
            Py_CLEAR(table);
        Py_XDECREF(entry);
    }
    if (table == NULL)
        return -1;
    s->dialect = dialect;
    Py_XSETREF(s->statements, table);
    Py_XSETREF(s->drawer, Py_NewRef(drawer));
    Py_XSETREF(s->send, Py_NewRef(send));
    Py_XSETREF(s->socket, Py_NewRef(socket));
    Py_XSETREF(s->names, Py_NewRef(names));
    return 0;
}

static int submitter_traverse(Submitter *s, visitproc visit, void *arg)
{
    Py_VISIT(s->drawer);
    Py_VISIT(s->statements);
    Py_VISIT(s->send);
    Py_VISIT(s->socket);
    Py_VISIT(s->names);
    Py_VISIT(s->sent);
    return 0;
}

static int submitter_clear(Submitter *s)
{
    Py_CLEAR(s->drawer);
    Py_CLEAR(s->statements);
    Py_CLEAR(s->send);
    Py_CLEAR(s->socket);
    Py_CLEAR(s->names);
    Py_CLEAR(s->sent);
    return 0;
}

static void submitter_dealloc(Submitter *s)
{
    PyObject_GC_UnTrack(s);
    submitter_clear(s);
    Py_TYPE(s)->tp_free((PyObject *)s);
}

static PyObject *submitter_sent(Submitter *s, void *unused)
{
    return Py_NewRef(s->sent ? s->sent : Py_None);
}

static PyMethodDef submitter_methods[] = {
    {"submit", (PyCFunction)submitter_submit, METH_O,
     "submit(name): draw the transaction, send it; the socket its reply comes on."},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef submitter_getset[] = {
    {"sent", (getter)submitter_sent, NULL, "The name of the last transaction sent (or None).",
     NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

PyTypeObject SubmitterType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "dbstor.hotpath.Submitter",
    .tp_doc = "Submitter(drawer, dialect, statements, send, socket, names): an orders "
              "transaction drawn and sent in one call (0 PostgreSQL, 1 MySQL).",
    .tp_basicsize = sizeof(Submitter),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)submitter_init,
    .tp_traverse = (traverseproc)submitter_traverse,
    .tp_clear = (inquiry)submitter_clear,
    .tp_dealloc = (destructor)submitter_dealloc,
    .tp_methods = submitter_methods,
    .tp_getset = submitter_getset,
};
