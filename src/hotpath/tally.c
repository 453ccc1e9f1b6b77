/* dbstor.hotpath's counting: the 2%-wide latency bins and one finished transaction's
 * figures into a Tally (drivers/tally.py). */
#include "hotpath.h"
#include <math.h>
#include <string.h>

/* ---- the tally's latency bins ---- */

static double log_growth;
static long bin_values[2000];

PyObject *bin_ns(PyObject *module, PyObject *arg)
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
    if ((latency = PyFloat_FromDouble(ns)) == NULL || (key = bin_ns(NULL, latency)) == NULL ||
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

PyObject *count(PyObject *module, PyObject *args)
{
    PyObject *tally, *txn;
    double ns;
    Py_ssize_t second;
    int rolled_back = 0; /* absent: committed */
    if (!PyArg_ParseTuple(args, "OUdn|p:count", &tally, &txn, &ns, &second, &rolled_back))
        return NULL;
    if (second < 0 || !isfinite(ns)) {
        PyErr_SetString(PyExc_ValueError, "count: a second below 0 or a latency not finite");
        return NULL;
    }
    if (count_into(tally, txn, ns, second, rolled_back) < 0)
        return NULL;
    Py_RETURN_NONE;
}

int tally_ready(void)
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
    return counter_type == NULL || one == NULL || s_frombytes == NULL ? -1 : 0;
}
