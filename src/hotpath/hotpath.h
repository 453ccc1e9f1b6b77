/* dbstor.hotpath's parts (module.c, draws.c, text.c, tally.c): what they share. */
#ifndef DBSTOR_HOTPATH_H
#define DBSTOR_HOTPATH_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

/* draws.c: one terminal's TPC-C draws */
extern PyTypeObject DrawerType;

/* text.c: PostgreSQL's text format and New-Order's line lists */
int text_ready(void);
PyObject *encode(PyObject *module, PyObject *value);
PyObject *encode_all(PyObject *module, PyObject *values);
PyObject *int_array(PyObject *module, PyObject *values);
PyObject *int_list(PyObject *module, PyObject *values);
PyObject *call_args(PyObject *module, PyObject *const *argv, Py_ssize_t argc);
PyObject *sql_literals(PyObject *module, PyObject *const *argv, Py_ssize_t argc);

/* tally.c: the latency bins and the per-transaction count */
int tally_ready(void);
PyObject *bin_ns(PyObject *module, PyObject *arg);
PyObject *count(PyObject *module, PyObject *args);

/* replies.c: one PostgreSQL connection's reply read through psycopg's libpq */
extern PyTypeObject PgReplyType;
int replies_ready(void);
PyObject *bind_libpq(PyObject *module, PyObject *addresses);

/* module.c: an attribute of an importable module (a new reference; NULL and an error) */
PyObject *attribute_of(const char *module, const char *name);

#endif
