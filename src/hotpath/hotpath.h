/* dbstor.hotpath's parts (module.c, draws.c, text.c, tally.c): what they share. */
#ifndef DBSTOR_HOTPATH_H
#define DBSTOR_HOTPATH_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

/* draws.c: one terminal's TPC-C draws */
extern PyTypeObject DrawerType;

/* A transaction drawn, as plain numbers: its CALL's parameters in order, each a kind and a
 * value (an int, a last name's number, an amount in cents; NULL, the second's datetime and
 * New-Order's three line lists take none), and New-Order's lines. The NamedTuples
 * (draws.c) and the dialects' parameter text (sends.c) are both written from it, so the
 * two ways of drawing consume a user's stream alike. */
enum { TRANSACTION_KINDS = 5, MAX_LINES = 15, MAX_PARAMS = 8 };
typedef enum { P_INT, P_NULL, P_NAME, P_CENTS, P_MOMENT, P_ITEMS, P_SUPPLY, P_QUANTITY } ParamKind;
typedef struct {
    ParamKind kind;
    long value;
} Param;
typedef struct {
    long item, supply, quantity;
} Line;
typedef struct {
    int kind; /* 0 New-Order, 1 Payment, 2 Order-Status, 3 Delivery, 4 Stock-Level */
    int count;
    Param params[MAX_PARAMS];
    long line_count;
    Line lines[MAX_LINES];
} Drawn;
/* The kind of a transaction by its name; -1 and ValueError for another name. */
int transaction_kind(PyObject *name);
/* -1 and TypeError unless `drawer` is an initialised Drawer. */
int drawer_check(PyObject *drawer);
/* Draw the next transaction of this kind from the drawer's stream (checked drawer). */
void drawn_fill(PyObject *drawer, int kind, Drawn *out);
/* The second's datetime, as the NamedTuples carry it (a new reference). */
PyObject *drawn_moment(PyObject *drawer);

/* sends.c: a transaction drawn and sent in one call */
extern PyTypeObject SubmitterType;

/* text.c: PostgreSQL's text format and New-Order's line lists */
int text_ready(void);
PyObject *encode(PyObject *module, PyObject *value);
PyObject *encode_all(PyObject *module, PyObject *values);
PyObject *int_array(PyObject *module, PyObject *values);
PyObject *int_list(PyObject *module, PyObject *values);
PyObject *call_args(PyObject *module, PyObject *const *argv, Py_ssize_t argc);
PyObject *sql_literals(PyObject *module, PyObject *const *argv, Py_ssize_t argc);
/* A datetime as PostgreSQL's timestamp text (bytes), and as MySQL's quoted literal. */
PyObject *moment_text(PyObject *value);
PyObject *quoted_moment(PyObject *value);

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
