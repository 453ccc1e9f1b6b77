/* dbstor.hotpath's PostgreSQL reply reader: one connection's reply read through libpq in one
 * call (engines/pg_prepared.py's PgReply).
 *
 * The loop thread (drivers/multiplex.py) reads a reply per wake of each user; through
 * psycopg's pq layer that is consume_input, is_busy, get_result (a PGresult object made),
 * is_busy, get_result, the status check and get_value: eight calls into Cython and two
 * objects per transaction. Here it is one call. The libpq used is psycopg's own, already
 * loaded: its functions' addresses are given once (bind_libpq) from the loaded library,
 * never a second libpq linked or loaded. A failed reply is raised as psycopg's cursor
 * raises it: the reader gives the result's error fields (as psycopg's DiagnosticField
 * codes), its message and whether the connection is BAD to the Python callable the
 * PgReply was made with, which builds the exception; the reader raises it.
 */
#include "hotpath.h"
#include <stdlib.h>
#include <string.h>

typedef void PGconn;
typedef void PGresult;

enum { COMMAND_OK = 1, TUPLES_OK = 2, CONNECTION_BAD = 1 };

/* The error fields psycopg's Diagnostic reads (psycopg.pq.DiagnosticField) */
static const char FIELDS[] = "SVCMDHPpqWstcdnFLR";

static struct {
    int (*consume_input)(PGconn *);
    int (*is_busy)(PGconn *);
    PGresult *(*get_result)(PGconn *);
    int (*result_status)(const PGresult *);
    char *(*get_value)(const PGresult *, int, int);
    int (*get_is_null)(const PGresult *, int, int);
    int (*ntuples)(const PGresult *);
    char *(*cmd_tuples)(PGresult *);
    void (*clear)(PGresult *);
    int (*status)(const PGconn *);
    char *(*error_field)(const PGresult *, int);
    char *(*result_error_message)(const PGresult *);
    char *(*error_message)(const PGconn *);
} pq;

/* The order of bind_libpq's addresses (engines/pg_prepared.py: LIBPQ_FUNCTIONS) */
#define FUNCTIONS 13

PyObject *bind_libpq(PyObject *module, PyObject *addresses)
{
    PyObject *seq = PySequence_Fast(addresses, "bind_libpq: a sequence of addresses");
    if (seq == NULL)
        return NULL;
    if (PySequence_Fast_GET_SIZE(seq) != FUNCTIONS) {
        Py_DECREF(seq);
        PyErr_Format(PyExc_ValueError, "bind_libpq: %d addresses expected", FUNCTIONS);
        return NULL;
    }
    void *found[FUNCTIONS];
    for (int i = 0; i < FUNCTIONS; i++) {
        found[i] = PyLong_AsVoidPtr(PySequence_Fast_GET_ITEM(seq, i));
        if (found[i] == NULL) {
            Py_DECREF(seq);
            if (!PyErr_Occurred())
                PyErr_SetString(PyExc_ValueError, "bind_libpq: a null address");
            return NULL;
        }
    }
    Py_DECREF(seq);
    void **slots = (void **)&pq;
    for (int i = 0; i < FUNCTIONS; i++)
        slots[i] = found[i];
    Py_RETURN_NONE;
}

typedef struct {
    PyObject_HEAD
    PyObject *pgconn;  /* psycopg's PGconn: its pgconn_ptr is None once it is closed */
    PyObject *failure; /* failure(fields | None, message, bad) -> the exception to raise */
    PGconn *conn;
    PGresult *first; /* the reply's first result, held until the reply is complete */
} PgReply;

static PyObject *s_pgconn_ptr;

static int reply_init(PgReply *self, PyObject *args, PyObject *kwargs)
{
    PyObject *pgconn, *failure;
    if (!PyArg_ParseTuple(args, "OO:PgReply", &pgconn, &failure))
        return -1;
    if (pq.consume_input == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "PgReply: bind_libpq() first");
        return -1;
    }
    PyObject *ptr = PyObject_GetAttr(pgconn, s_pgconn_ptr);
    if (ptr == NULL)
        return -1;
    self->conn = ptr == Py_None ? NULL : PyLong_AsVoidPtr(ptr);
    Py_DECREF(ptr);
    if (self->conn == NULL) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_ValueError, "PgReply: the connection is closed");
        return -1;
    }
    Py_XSETREF(self->pgconn, Py_NewRef(pgconn));
    Py_XSETREF(self->failure, Py_NewRef(failure));
    return 0;
}

static void reply_forget(PgReply *self)
{
    if (self->first != NULL && pq.clear != NULL)
        pq.clear(self->first);
    self->first = NULL;
}

static void reply_dealloc(PgReply *self)
{
    reply_forget(self);
    Py_XDECREF(self->pgconn);
    Py_XDECREF(self->failure);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

/* Raise the exception failure(fields, message, bad) returns; NULL. */
static PyObject *raise_failure(PgReply *self, PyObject *fields, const char *message, int bad)
{
    PyObject *text = PyBytes_FromString(message != NULL ? message : "");
    if (text == NULL)
        return NULL;
    PyObject *exc = PyObject_CallFunction(self->failure, "OOi", fields, text, bad);
    Py_DECREF(text);
    if (exc == NULL)
        return NULL;
    PyErr_SetObject((PyObject *)Py_TYPE(exc), exc);
    Py_DECREF(exc);
    return NULL;
}

/* The error fields of a failed result: {field code: bytes} as psycopg's Diagnostic reads. */
static PyObject *error_fields(const PGresult *result)
{
    PyObject *fields = PyDict_New();
    for (const char *code = FIELDS; fields != NULL && *code; code++) {
        const char *value = pq.error_field(result, *code);
        if (value == NULL)
            continue;
        PyObject *key = PyLong_FromLong(*code), *text = PyBytes_FromString(value);
        if (key == NULL || text == NULL || PyDict_SetItem(fields, key, text) < 0)
            Py_CLEAR(fields);
        Py_XDECREF(key);
        Py_XDECREF(text);
    }
    return fields;
}

/* The connection, or NULL with the exception psycopg raises on a closed one. */
static PGconn *open_connection(PgReply *self)
{
    PyObject *ptr = PyObject_GetAttr(self->pgconn, s_pgconn_ptr);
    if (ptr == NULL)
        return NULL;
    int open = ptr != Py_None;
    Py_DECREF(ptr);
    if (!open) {
        reply_forget(self);
        raise_failure(self, Py_None, "the connection is closed", 1);
        return NULL;
    }
    return self->conn;
}

/* Read what has arrived: 1 and *done set to the reply's first result (OK, the caller's to
 * clear) once the reply is complete, 0 while it is not, -1 with the exception raised. */
static int read_reply(PgReply *self, PGresult **done)
{
    PGconn *conn = open_connection(self);
    if (conn == NULL)
        return -1;
    pq.consume_input(conn); /* a failure shows as a BAD connection and an error result */
    while (!pq.is_busy(conn)) {
        PGresult *result = pq.get_result(conn);
        if (result != NULL) {
            if (self->first == NULL)
                self->first = result;
            else
                pq.clear(result);
            continue;
        }
        PGresult *first = self->first; /* the reply is complete */
        self->first = NULL;
        int status = first != NULL ? pq.result_status(first) : -1;
        if (status == COMMAND_OK || status == TUPLES_OK) {
            *done = first;
            return 1;
        }
        int bad = pq.status(conn) == CONNECTION_BAD;
        PyObject *fields = first != NULL ? error_fields(first) : Py_NewRef(Py_None);
        const char *message =
            first != NULL ? pq.result_error_message(first) : pq.error_message(conn);
        if (fields != NULL)
            raise_failure(self, fields, message, bad);
        Py_XDECREF(fields);
        if (first != NULL)
            pq.clear(first);
        return -1;
    }
    return 0;
}

/* The first row's first value as an integer; 0 when there is none or it is NULL. */
static long first_value(const PGresult *result)
{
    if (pq.ntuples(result) < 1 || pq.get_is_null(result, 0, 0))
        return 0;
    return strtol(pq.get_value(result, 0, 0), NULL, 10);
}

static PyObject *reply_value(PgReply *self, PyObject *unused)
{
    PGresult *result = NULL;
    int rc = read_reply(self, &result);
    if (rc <= 0)
        return rc < 0 ? NULL : Py_NewRef(Py_None);
    long value = first_value(result);
    pq.clear(result);
    return PyLong_FromLong(value);
}

static PyObject *reply_rows(PgReply *self, PyObject *unused)
{
    PGresult *result = NULL;
    int rc = read_reply(self, &result);
    if (rc <= 0)
        return rc < 0 ? NULL : Py_NewRef(Py_None);
    long value = strtol(pq.cmd_tuples(result), NULL, 10);
    pq.clear(result);
    return PyLong_FromLong(value);
}

static PyObject *reply_status(PgReply *self, PyObject *unused)
{
    PGresult *result = NULL;
    int rc = read_reply(self, &result);
    if (rc <= 0)
        return rc < 0 ? NULL : Py_NewRef(Py_None);
    int zero = pq.ntuples(result) < 1 || pq.get_is_null(result, 0, 0) ||
               strcmp(pq.get_value(result, 0, 0), "0") == 0;
    pq.clear(result);
    return PyBool_FromLong(zero);
}

static PyObject *reply_ok(PgReply *self, PyObject *unused)
{
    PGresult *result = NULL;
    int rc = read_reply(self, &result);
    if (rc <= 0)
        return rc < 0 ? NULL : Py_NewRef(Py_None);
    pq.clear(result);
    Py_RETURN_TRUE;
}

static PyMethodDef reply_methods[] = {
    {"value", (PyCFunction)reply_value, METH_NOARGS,
     "None while the reply is incomplete; else its first row's first value as an int (0 "
     "when it has no row or NULL), or the failure raised as psycopg's cursor raises it."},
    {"rows", (PyCFunction)reply_rows, METH_NOARGS,
     "As value(), the rows the statement changed (its command tag's count)."},
    {"status", (PyCFunction)reply_status, METH_NOARGS,
     "As value(), True when the first value is 0 or absent (New-Order's status: committed)."},
    {"ok", (PyCFunction)reply_ok, METH_NOARGS, "As value(), True once the reply is in."},
    {NULL, NULL, 0, NULL},
};

PyTypeObject PgReplyType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "dbstor.hotpath.PgReply",
    .tp_basicsize = sizeof(PgReply),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "PgReply(pgconn, failure): one psycopg connection's replies, read in one call "
              "each through psycopg's libpq (bind_libpq).",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)reply_init,
    .tp_dealloc = (destructor)reply_dealloc,
    .tp_methods = reply_methods,
};

int replies_ready(void)
{
    s_pgconn_ptr = PyUnicode_InternFromString("pgconn_ptr");
    if (s_pgconn_ptr == NULL)
        return -1;
    return PyType_Ready(&PgReplyType);
}
