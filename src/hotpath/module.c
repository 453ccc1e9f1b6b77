/* dbstor.hotpath: the orders load generator's per-transaction work, compiled.
 *
 * The profile of issue 39 found two thirds of the client's CPU in the interpreter running
 * some eighty Python calls per orders transaction: New-Order's draw of about forty random
 * numbers, the parameters' text and the tally's record. This module does that work in C,
 * one call per step:
 *
 *   Drawer    one terminal's TPC-C draws (clauses 2.4.1 - 2.8.1) from its own stream
 *             (xoshiro256**, seeded per user), answered as the inputs' NamedTuples;
 *   Submitter a transaction drawn from a Drawer straight into the dialect's parameter
 *             text and sent, in one call (the loop thread's submit; sends.c);
 *   encode    one parameter in PostgreSQL's text format, encode_all a call's list of them;
 *   int_array / int_list   a tuple of ints as {1,2,3} / 1,2,3 (New-Order's line lists);
 *   call_args a transaction's CALL arguments, as the procedures take them;
 *   sql_literals  a statement's parameters as MySQL's and MariaDB's SQL literals;
 *   bin_ns    the representative value of the 2%-wide latency bin holding a latency;
 *   count     one finished transaction into the tally (drivers/tally.py: Tally.record);
 *   PgReply   one PostgreSQL connection's reply read through psycopg's libpq in one call
 *             (replies.c; engines/pg_prepared.py).
 *
 * The Python side (workloads/orders/inputs.py, engines/pg_prepared.py, drivers/tally.py)
 * keeps the names, the types and the rules' percentages and constants, and no Python twin
 * of this code is kept beside it (one path); only TPC-C's fixed cardinalities are written
 * in draws.c as in tpcc.py. Built by setup.py (gcc and python3-dev: the Makefile's
 * SYSTEM_DEPS_BUILD).
 */
#include "hotpath.h"

static PyMethodDef module_methods[] = {
    {"count", count, METH_VARARGS,
     "count(tally, txn, ns, second, rolled_back=False): one finished transaction into a Tally: "
     "its latency bin, total and maximum, its second's count and latency sum, a rollback."},
    {"encode", encode, METH_O,
     "One parameter in PostgreSQL's text format (bytes; None stays None)."},
    {"encode_all", encode_all, METH_O, "A call's parameters, each as encode() writes it."},
    {"int_array", int_array, METH_O, "Ints as an array literal: {1,2,3}."},
    {"int_list", int_list, METH_O, "Ints separated by commas: 1,2,3."},
    {"sql_literals", (PyCFunction)(void (*)(void))sql_literals, METH_FASTCALL,
     "sql_literals(params, literal): each parameter as an SQL literal (bytes) for MySQL and "
     "MariaDB; text and other types by literal, the connection's own."},
    {"call_args", (PyCFunction)(void (*)(void))call_args, METH_FASTCALL,
     "call_args(inputs, item_lines, types): (transaction, its CALL's arguments), New-Order's "
     "three line lists written by item_lines; types: the five inputs' NamedTuples."},
    {"bind_libpq", bind_libpq, METH_O,
     "bind_libpq(addresses): the already loaded libpq's functions PgReply calls (their "
     "addresses, in engines/pg_prepared.py's LIBPQ_FUNCTIONS order)."},
    {"bin_ns", bin_ns, METH_O,
     "The representative value of the 2%-wide bin holding a latency in ns."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef hotpath_module = {
    PyModuleDef_HEAD_INIT, "dbstor.hotpath",
    "The orders load generator's per-transaction work, compiled (src/hotpath/).", -1,
    module_methods,
};

PyObject *attribute_of(const char *module, const char *name)
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
    if (tally_ready() < 0 || text_ready() < 0 || PyType_Ready(&DrawerType) < 0 ||
        replies_ready() < 0 || PyType_Ready(&SubmitterType) < 0)
        return NULL;
    PyObject *m = PyModule_Create(&hotpath_module);
    if (m == NULL)
        return NULL;
    if (PyModule_AddObjectRef(m, "Drawer", (PyObject *)&DrawerType) < 0 ||
        PyModule_AddObjectRef(m, "PgReply", (PyObject *)&PgReplyType) < 0 ||
        PyModule_AddObjectRef(m, "Submitter", (PyObject *)&SubmitterType) < 0 ||
        PyModule_AddIntConstant(m, "POSTGRES_TEXT", 0) < 0 ||
        PyModule_AddIntConstant(m, "MYSQL_LITERALS", 1) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
