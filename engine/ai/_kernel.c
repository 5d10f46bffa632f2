/* The computer players' innermost loops in C (issue 31): the best value of each kind of
 * tile over the empty adjacent pairs of a Genial board, where a kind makes it, and the
 * greedy play-out step's tied best placements, and a whole play-out, greedy or looking one
 * placement ahead (master's, issue 50).
 *
 * Optional: engine/ai/kernel.py uses this module when it was built (pip install compiles
 * it from source) and the pure-Python code of engine/ai/evaluation.py and
 * engine/ai/genial_players.py otherwise; tests/engine/test_kernel.py checks that both give
 * the same values, spots and moves. The arithmetic is the Python code's, done on the same
 * doubles in the same order (a + b for a placement of colours x and y, the table at a + b
 * points for a double), so every value is bit for bit the one Python computes.
 *
 * Arguments shared by the functions:
 *   points  6 sequences of ints: points[c][cell], what a hex of colour c scores on cell
 *   low     the lower cell of each empty adjacent pair
 *   high    the higher cell of each pair
 *   padded  6 sequences of floats: padded[c][p], the value of scoring p points in c
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdlib.h>

#define COLOURS 6

typedef struct {
    Py_ssize_t n;       /* pairs */
    long *cells;        /* low cells, then high cells: 2n */
    long *pts;          /* pts[(c * 2 + side) * n + k]: colour c's points on pair k's low (0)
                           or high (1) cell */
    PyObject *rows[COLOURS]; /* padded rows as fast sequences */
    Py_ssize_t row_len[COLOURS];
    PyObject **row_items[COLOURS];
    double *row_values[COLOURS]; /* a row as doubles, made when first read */
    double *hex_values[COLOURS];  /* [side * n + k]: a hex of c on pair k's low (0) or high
                                     (1) cell, made when first read */
    double *double_values[COLOURS]; /* [k]: a double of c on pair k */
} Pairs;

static void pairs_free(Pairs *p) {
    free(p->cells);
    free(p->pts);
    for (int c = 0; c < COLOURS; c++) {
        Py_XDECREF(p->rows[c]);
        free(p->row_values[c]);
        free(p->hex_values[c]);
        free(p->double_values[c]);
    }
}

/* Colour c's padded row as doubles (read once: a loop reads each entry many times). */
static const double *row_of(Pairs *p, int c) {
    if (p->row_values[c] != NULL) {
        return p->row_values[c];
    }
    Py_ssize_t len = p->row_len[c];
    double *values = malloc(sizeof(double) * (size_t)(len + 1));
    if (values == NULL) {
        PyErr_NoMemory();
        return NULL;
    }
    for (Py_ssize_t k = 0; k < len; k++) {
        PyObject *item = p->row_items[c][k];
        double v = PyFloat_CheckExact(item) ? PyFloat_AS_DOUBLE(item) : PyFloat_AsDouble(item);
        if (v == -1.0 && PyErr_Occurred()) {
            free(values);
            return NULL;
        }
        values[k] = v;
    }
    p->row_values[c] = values;
    return values;
}

static int read_cells(PyObject *seq, long *out, Py_ssize_t n) {
    PyObject *fast = PySequence_Fast(seq, "cells must be a sequence");
    if (fast == NULL) {
        return -1;
    }
    if (PySequence_Fast_GET_SIZE(fast) != n) {
        Py_DECREF(fast);
        PyErr_SetString(PyExc_ValueError, "low and high cells differ in length");
        return -1;
    }
    PyObject **items = PySequence_Fast_ITEMS(fast);
    for (Py_ssize_t k = 0; k < n; k++) {
        long v = PyLong_AsLong(items[k]);
        if (v == -1 && PyErr_Occurred()) {
            Py_DECREF(fast);
            return -1;
        }
        out[k] = v;
    }
    Py_DECREF(fast);
    return 0;
}

/* Reads the pairs' cells, their points and the padded rows. Returns -1 with an exception
 * set on bad input. */
static int pairs_read(Pairs *p, PyObject *points, PyObject *low, PyObject *high,
                      PyObject *padded) {
    memset(p, 0, sizeof(*p));
    Py_ssize_t n = PySequence_Size(low);
    if (n < 0) {
        return -1;
    }
    p->n = n;
    p->cells = malloc(sizeof(long) * (size_t)(2 * n + 1));
    p->pts = malloc(sizeof(long) * (size_t)(COLOURS * 2 * n + 1));
    if (p->cells == NULL || p->pts == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    if (read_cells(low, p->cells, n) < 0 || read_cells(high, p->cells + n, n) < 0) {
        return -1;
    }
    PyObject *cols = PySequence_Fast(points, "points must be a sequence");
    if (cols == NULL) {
        return -1;
    }
    if (PySequence_Fast_GET_SIZE(cols) != COLOURS) {
        Py_DECREF(cols);
        PyErr_SetString(PyExc_ValueError, "points must have 6 colours");
        return -1;
    }
    for (int c = 0; c < COLOURS; c++) {
        PyObject *col = PySequence_Fast(PySequence_Fast_GET_ITEM(cols, c),
                                        "a colour's points must be a sequence");
        if (col == NULL) {
            Py_DECREF(cols);
            return -1;
        }
        Py_ssize_t size = PySequence_Fast_GET_SIZE(col);
        PyObject **items = PySequence_Fast_ITEMS(col);
        for (int side = 0; side < 2; side++) {
            long *out = p->pts + (c * 2 + side) * n;
            const long *cells = p->cells + side * n;
            for (Py_ssize_t k = 0; k < n; k++) {
                if (cells[k] < 0 || cells[k] >= size) {
                    Py_DECREF(col);
                    Py_DECREF(cols);
                    PyErr_SetString(PyExc_IndexError, "cell out of range");
                    return -1;
                }
                long v = PyLong_AsLong(items[cells[k]]);
                if (v == -1 && PyErr_Occurred()) {
                    Py_DECREF(col);
                    Py_DECREF(cols);
                    return -1;
                }
                out[k] = v;
            }
        }
        Py_DECREF(col);
    }
    Py_DECREF(cols);
    PyObject *rows = PySequence_Fast(padded, "padded must be a sequence");
    if (rows == NULL) {
        return -1;
    }
    if (PySequence_Fast_GET_SIZE(rows) != COLOURS) {
        Py_DECREF(rows);
        PyErr_SetString(PyExc_ValueError, "padded must have 6 colours");
        return -1;
    }
    for (int c = 0; c < COLOURS; c++) {
        PyObject *row = PySequence_Fast(PySequence_Fast_GET_ITEM(rows, c),
                                        "a padded row must be a sequence");
        if (row == NULL) {
            Py_DECREF(rows);
            return -1;
        }
        p->rows[c] = row;
        p->row_len[c] = PySequence_Fast_GET_SIZE(row);
        p->row_items[c] = PySequence_Fast_ITEMS(row);
    }
    Py_DECREF(rows);
    return 0;
}

/* padded[c][points], or -1 with IndexError. */
static inline int value_at(Pairs *p, int c, long points, double *out) {
    if (points < 0 || points >= p->row_len[c]) {
        PyErr_SetString(PyExc_IndexError, "points beyond the padded table");
        return -1;
    }
    const double *row = row_of(p, c);
    if (row == NULL) {
        return -1;
    }
    *out = row[points];
    return 0;
}

static inline long pts_at(const Pairs *p, int c, int side, Py_ssize_t k) {
    return p->pts[(c * 2 + side) * p->n + k];
}

/* What a hex of colour c is worth on each pair's low and high cell, [side * n + k]
 * (looked up once per colour and call: every kind with c reads them). */
static const double *hex_values(Pairs *p, int c) {
    if (p->hex_values[c] != NULL) {
        return p->hex_values[c];
    }
    Py_ssize_t n = p->n;
    double *values = malloc(sizeof(double) * (size_t)(2 * n + 1));
    if (values == NULL) {
        PyErr_NoMemory();
        return NULL;
    }
    for (int side = 0; side < 2; side++) {
        for (Py_ssize_t k = 0; k < n; k++) {
            if (value_at(p, c, pts_at(p, c, side, k), &values[side * n + k]) < 0) {
                free(values);
                return NULL;
            }
        }
    }
    p->hex_values[c] = values;
    return values;
}

/* What a double of colour c is worth on each pair: the table at both cells' points. */
static const double *double_values(Pairs *p, int c) {
    if (p->double_values[c] != NULL) {
        return p->double_values[c];
    }
    Py_ssize_t n = p->n;
    double *values = malloc(sizeof(double) * (size_t)(n + 1));
    if (values == NULL) {
        PyErr_NoMemory();
        return NULL;
    }
    for (Py_ssize_t k = 0; k < n; k++) {
        if (value_at(p, c, pts_at(p, c, 0, k) + pts_at(p, c, 1, k), &values[k]) < 0) {
            free(values);
            return NULL;
        }
    }
    p->double_values[c] = values;
    return values;
}

/* The value of placement k of colours x (on the pair's `side` cell) and y (on the other):
 * x's value plus y's, in that order, as Python adds them; a double (x == y) scores the sum
 * of both cells' points in x. */
static inline int placement(Pairs *p, int x, int y, int side, Py_ssize_t k,
                            double *out) {
    if (x == y) {
        const double *d = double_values(p, x);
        if (d == NULL) {
            return -1;
        }
        *out = d[k];
        return 0;
    }
    const double *a = hex_values(p, x), *b = hex_values(p, y);
    if (a == NULL || b == NULL) {
        return -1;
    }
    *out = a[side * p->n + k] + b[(1 - side) * p->n + k];
    return 0;
}

static int colour_of(PyObject *obj, int *out) {
    long v = PyLong_AsLong(obj);
    if (v == -1 && PyErr_Occurred()) {
        return -1;
    }
    if (v < 0 || v >= COLOURS) {
        PyErr_SetString(PyExc_ValueError, "colour out of range");
        return -1;
    }
    *out = (int)v;
    return 0;
}

/* The best value of a kind of colours (x, y) over every placement (both ways round). */
static int best_of(Pairs *p, int x, int y, double *out) {
    Py_ssize_t n = p->n;
    if (x == y) {
        const double *d = double_values(p, x);
        if (d == NULL) {
            return -1;
        }
        double best = d[0];
        for (Py_ssize_t k = 1; k < n; k++) {
            best = d[k] > best ? d[k] : best;
        }
        *out = best;
        return 0;
    }
    const double *a = hex_values(p, x), *b = hex_values(p, y);
    if (a == NULL || b == NULL) {
        return -1;
    }
    double best = a[0] + b[n];
    for (Py_ssize_t k = 0; k < n; k++) {
        double one = a[k] + b[n + k];  /* x on the low cell */
        double other = a[n + k] + b[k];  /* x on the high cell */
        best = one > best ? one : best;
        best = other > best ? other : best;
    }
    *out = best;
    return 0;
}

PyDoc_STRVAR(tile_values_doc,
"tile_values(points, low, high, padded, kinds) -> list[float] | None\n\n"
"For each (x, y) of kinds, the best value of a placement of a tile of those colours on\n"
"the pairs; None if there are no pairs.");

static PyObject *tile_values(PyObject *self, PyObject *args) {
    PyObject *points, *low, *high, *padded, *kinds;
    if (!PyArg_ParseTuple(args, "OOOOO", &points, &low, &high, &padded, &kinds)) {
        return NULL;
    }
    Pairs p;
    if (pairs_read(&p, points, low, high, padded) < 0) {
        pairs_free(&p);
        return NULL;
    }
    if (p.n == 0) {
        pairs_free(&p);
        Py_RETURN_NONE;
    }
    PyObject *fast = PySequence_Fast(kinds, "kinds must be a sequence");
    if (fast == NULL) {
        pairs_free(&p);
        return NULL;
    }
    Py_ssize_t count = PySequence_Fast_GET_SIZE(fast);
    PyObject *out = PyList_New(count);
    if (out == NULL) {
        goto fail;
    }
    for (Py_ssize_t t = 0; t < count; t++) {
        PyObject *kind = PySequence_Fast_GET_ITEM(fast, t);
        int x, y;
        double best;
        if (!PyTuple_Check(kind) || PyTuple_GET_SIZE(kind) != 2) {
            PyErr_SetString(PyExc_TypeError, "a kind is a pair of colours");
            goto fail;
        }
        if (colour_of(PyTuple_GET_ITEM(kind, 0), &x) < 0 ||
            colour_of(PyTuple_GET_ITEM(kind, 1), &y) < 0 || best_of(&p, x, y, &best) < 0) {
            goto fail;
        }
        PyObject *v = PyFloat_FromDouble(best);
        if (v == NULL) {
            goto fail;
        }
        PyList_SET_ITEM(out, t, v);
    }
    Py_DECREF(fast);
    pairs_free(&p);
    return out;
fail:
    Py_XDECREF(out);
    Py_DECREF(fast);
    pairs_free(&p);
    return NULL;
}

PyDoc_STRVAR(best_spot_doc,
"best_spot(points, low, high, padded, x, y, neighbours) -> (int, int) | None\n\n"
"Where a tile of colours x and y makes its best value: (cell of x, cell of y), the first\n"
"in cell order of x's cell, then of the direction of y's cell in neighbours[x's cell];\n"
"None if there are no pairs.");

static PyObject *best_spot(PyObject *self, PyObject *args) {
    PyObject *points, *low, *high, *padded, *neighbours;
    int x, y;
    if (!PyArg_ParseTuple(args, "OOOOiiO", &points, &low, &high, &padded, &x, &y,
                          &neighbours)) {
        return NULL;
    }
    if (x < 0 || x >= COLOURS || y < 0 || y >= COLOURS) {
        PyErr_SetString(PyExc_ValueError, "colour out of range");
        return NULL;
    }
    Pairs p;
    if (pairs_read(&p, points, low, high, padded) < 0) {
        pairs_free(&p);
        return NULL;
    }
    if (p.n == 0) {
        pairs_free(&p);
        Py_RETURN_NONE;
    }
    double best;
    if (best_of(&p, x, y, &best) < 0) {
        pairs_free(&p);
        return NULL;
    }
    /* A double can lie either way round, as can any other kind. */
    long first = -1, second = -1;
    Py_ssize_t direction = 0;
    for (int side = 0; side < 2; side++) {
        for (Py_ssize_t k = 0; k < p.n; k++) {
            double v;
            if (placement(&p, x, y, side, k, &v) < 0) {
                pairs_free(&p);
                return NULL;
            }
            if (v != best) {
                continue;
            }
            long i = p.cells[side * p.n + k];
            long j = p.cells[(1 - side) * p.n + k];
            if (first >= 0 && i > first) {
                continue;
            }
            /* The direction of j from i: its place in neighbours[i]. */
            PyObject *around = PySequence_GetItem(neighbours, i);
            if (around == NULL) {
                pairs_free(&p);
                return NULL;
            }
            PyObject *target = PyLong_FromLong(j);
            Py_ssize_t d = target == NULL ? -1 : PySequence_Index(around, target);
            Py_XDECREF(target);
            Py_DECREF(around);
            if (d < 0) {
                pairs_free(&p);
                return NULL;
            }
            if (first < 0 || i < first || d < direction) {
                first = i;
                second = j;
                direction = d;
            }
        }
    }
    pairs_free(&p);
    return Py_BuildValue("(ll)", first, second);
}

PyDoc_STRVAR(greedy_tied_doc,
"greedy_tied(points, low, high, padded, groups) -> (float, list[tuple[int, int, float]])\n\n"
"groups: (x, y, side) per group of placements: colour x on each pair's low (side 0) or\n"
"high (side 1) cell and y on the other (x == y: a double, side 0). Returns the best value\n"
"of any group's placement and every placement within 1e-9 of it, as (group, pair, value),\n"
"in group order, then pair order.");

static PyObject *greedy_tied(PyObject *self, PyObject *args) {
    PyObject *points, *low, *high, *padded, *groups;
    if (!PyArg_ParseTuple(args, "OOOOO", &points, &low, &high, &padded, &groups)) {
        return NULL;
    }
    Pairs p;
    if (pairs_read(&p, points, low, high, padded) < 0) {
        pairs_free(&p);
        return NULL;
    }
    PyObject *fast = PySequence_Fast(groups, "groups must be a sequence");
    if (fast == NULL) {
        pairs_free(&p);
        return NULL;
    }
    Py_ssize_t count = PySequence_Fast_GET_SIZE(fast);
    int *gx = malloc(sizeof(int) * (size_t)(count + 1));
    int *gy = malloc(sizeof(int) * (size_t)(count + 1));
    int *gs = malloc(sizeof(int) * (size_t)(count + 1));
    double *values = malloc(sizeof(double) * (size_t)(count * p.n + 1));
    PyObject *tied = NULL;
    if (gx == NULL || gy == NULL || gs == NULL || values == NULL) {
        PyErr_NoMemory();
        goto fail;
    }
    if (count == 0 || p.n == 0) {
        PyErr_SetString(PyExc_ValueError, "no placement to choose from");
        goto fail;
    }
    double best = 0.0;
    for (Py_ssize_t g = 0; g < count; g++) {
        PyObject *group = PySequence_Fast_GET_ITEM(fast, g);
        if (!PyTuple_Check(group) || PyTuple_GET_SIZE(group) != 3) {
            PyErr_SetString(PyExc_TypeError, "a group is (x, y, side)");
            goto fail;
        }
        int side;
        if (colour_of(PyTuple_GET_ITEM(group, 0), &gx[g]) < 0 ||
            colour_of(PyTuple_GET_ITEM(group, 1), &gy[g]) < 0 ||
            colour_of(PyTuple_GET_ITEM(group, 2), &side) < 0) {
            goto fail;
        }
        gs[g] = side ? 1 : 0;
        for (Py_ssize_t k = 0; k < p.n; k++) {
            double v;
            if (placement(&p, gx[g], gy[g], gs[g], k, &v) < 0) {
                goto fail;
            }
            values[g * p.n + k] = v;
            if ((g == 0 && k == 0) || v > best) {
                best = v;
            }
        }
    }
    double cut = best - 1e-9;
    tied = PyList_New(0);
    if (tied == NULL) {
        goto fail;
    }
    for (Py_ssize_t g = 0; g < count; g++) {
        for (Py_ssize_t k = 0; k < p.n; k++) {
            double v = values[g * p.n + k];
            if (cut <= v) {
                PyObject *item = Py_BuildValue("(nnd)", g, k, v);
                if (item == NULL || PyList_Append(tied, item) < 0) {
                    Py_XDECREF(item);
                    goto fail;
                }
                Py_DECREF(item);
            }
        }
    }
    free(gx);
    free(gy);
    free(gs);
    free(values);
    Py_DECREF(fast);
    pairs_free(&p);
    PyObject *result = Py_BuildValue("(dN)", best, tied);
    return result;
fail:
    free(gx);
    free(gy);
    free(gs);
    free(values);
    Py_XDECREF(tied);
    Py_DECREF(fast);
    pairs_free(&p);
    return NULL;
}

/* C(n, r) exactly, or -1 beyond 2^53 (where a double could not hold it: the caller then
 * uses Python's integers). */
static long long comb_exact(long long n, long long r) {
    if (r < 0 || r > n) {
        return 0;
    }
    if (r > n - r) {
        r = n - r;
    }
    unsigned long long c = 1;
    for (long long i = 0; i < r; i++) {
        /* c * (n - i) / (i + 1) is exact: c is C(n, i) and the product C(n, i + 1) * (i + 1). */
        if (c > (1ULL << 53) / (unsigned long long)(n - i)) {
            return -1;
        }
        c = c * (unsigned long long)(n - i) / (unsigned long long)(i + 1);
    }
    return (long long)c;
}

typedef struct {
    int count;
    double values[64];
    long counts[64];
    int order[64];
} Draw;

/* Reads values and counts (at most 64 kinds); -1 with an exception on bad input. */
static int draw_read(Draw *d, PyObject *values, PyObject *counts) {
    PyObject *fv = PySequence_Fast(values, "values must be a sequence");
    if (fv == NULL) {
        return -1;
    }
    PyObject *fc = PySequence_Fast(counts, "counts must be a sequence");
    if (fc == NULL) {
        Py_DECREF(fv);
        return -1;
    }
    Py_ssize_t n = PySequence_Fast_GET_SIZE(fv);
    if (n != PySequence_Fast_GET_SIZE(fc) || n > 64) {
        Py_DECREF(fv);
        Py_DECREF(fc);
        PyErr_SetString(PyExc_ValueError, "values and counts: the same kinds, at most 64");
        return -1;
    }
    d->count = (int)n;
    for (Py_ssize_t k = 0; k < n; k++) {
        d->values[k] = PyFloat_AsDouble(PySequence_Fast_GET_ITEM(fv, k));
        d->counts[k] = PyLong_AsLong(PySequence_Fast_GET_ITEM(fc, k));
        if (PyErr_Occurred()) {
            Py_DECREF(fv);
            Py_DECREF(fc);
            return -1;
        }
        d->order[k] = (int)k;
    }
    Py_DECREF(fv);
    Py_DECREF(fc);
    /* Best first, equal values in kind order (Python's sorted(..., reverse=True)). An
     * insertion sort: 21 kinds. */
    for (int a = 1; a < d->count; a++) {
        int k = d->order[a];
        int b = a - 1;
        while (b >= 0 && d->values[d->order[b]] < d->values[k]) {
            d->order[b + 1] = d->order[b];
            b--;
        }
        d->order[b + 1] = k;
    }
    return 0;
}

/* The chances of best_distribution into kinds/chances; returns how many, or -1 (no error
 * set) when the numbers are too large for doubles to hold exactly, or -2 on an error. */
static int distribution(const Draw *d, long draws, int *kinds, double *chances) {
    long long total = 0;
    for (int k = 0; k < d->count; k++) {
        total += d->counts[k];
    }
    if (draws > total) {
        draws = total;
    }
    if (draws <= 0) {
        return 0;
    }
    long long ways = comb_exact(total, draws);
    if (ways < 0) {
        return -1;
    }
    int out = 0;
    double p_missed = 1.0;
    long long removed = 0;
    for (int a = 0; a < d->count; a++) {
        int k = d->order[a];
        if (!d->counts[k]) {
            continue;
        }
        removed += d->counts[k];
        long long left = comb_exact(total - removed, draws);
        if (left < 0) {
            return -1;
        }
        double p_next = (double)left / (double)ways;
        kinds[out] = k;
        chances[out] = p_missed - p_next;
        out++;
        p_missed = p_next;
        if (p_missed <= 0.0) {
            break;
        }
    }
    return out;
}

PyDoc_STRVAR(best_distribution_doc,
"best_distribution(values, counts, draws) -> list[tuple[int, float]] | None\n\n"
"evaluation.best_distribution, or None where its numbers outgrow exact doubles.");

static PyObject *best_distribution(PyObject *self, PyObject *args) {
    PyObject *values, *counts;
    long draws;
    if (!PyArg_ParseTuple(args, "OOl", &values, &counts, &draws)) {
        return NULL;
    }
    Draw d;
    if (draw_read(&d, values, counts) < 0) {
        return NULL;
    }
    int kinds[64];
    double chances[64];
    int n = distribution(&d, draws, kinds, chances);
    if (n == -1) {
        Py_RETURN_NONE;
    }
    PyObject *out = PyList_New(n);
    if (out == NULL) {
        return NULL;
    }
    for (int a = 0; a < n; a++) {
        PyObject *item = Py_BuildValue("(id)", kinds[a], chances[a]);
        if (item == NULL) {
            Py_DECREF(out);
            return NULL;
        }
        PyList_SET_ITEM(out, a, item);
    }
    return out;
}

PyDoc_STRVAR(expected_best_doc,
"expected_best(values, counts, draws, known, no_room) -> float | None\n\n"
"evaluation.expected_best, or None where its numbers outgrow exact doubles.");

static PyObject *expected_best(PyObject *self, PyObject *args) {
    PyObject *values, *counts;
    long draws;
    double known, no_room;
    if (!PyArg_ParseTuple(args, "OOldd", &values, &counts, &draws, &known, &no_room)) {
        return NULL;
    }
    Draw d;
    if (draw_read(&d, values, counts) < 0) {
        return NULL;
    }
    int kinds[64];
    double chances[64];
    int n = distribution(&d, draws, kinds, chances);
    if (n == -1) {
        Py_RETURN_NONE;
    }
    double expected = 0.0, p_left = 1.0;
    for (int a = 0; a < n; a++) {
        double v = d.values[kinds[a]];
        if (v <= known) {
            break;
        }
        expected += v * chances[a];
        p_left -= chances[a];
    }
    if (known > no_room) {
        expected += known * p_left;
    } else if (p_left >= 1.0) {
        return PyFloat_FromDouble(0.0);
    }
    return PyFloat_FromDouble(expected);
}

/* --- A whole greedy play-out (engine/ai/playout.py) ------------------------------------
 *
 * GenialGame.play_spot, swap_quietly and the greedy play-out policy (greedy_spot: the best
 * value over every kind on the rack and every empty pair, ties broken by one draw of the
 * given random generator among them sorted best first, then in the fixed placement order),
 * on C arrays: the same placements, scores, end and draws of the generator as the Python
 * loop in engine/ai/genial_players.py, the first round included (RULES.md 2.3: a seat's
 * first placement must touch a start symbol that no tile touches yet), so that a play-out
 * from the first moves of a game costs what a later one does (issue 50).
 * tests/engine/test_playout.py compares both.
 */

#define KINDS 21
#define EMPTY_CELL (-1)
#define MAX_MARKS 4

/* The fixed tables of one playing area (built once per radius, kept in a capsule). */
typedef struct {
    int cells;
    int edges;
    int *low, *high;       /* by edge: its lower and higher cell */
    int *edge_start;       /* cell c's edges: edge_list[edge_start[c] .. edge_start[c + 1]] */
    int *edge_list;
    int *ray_start;        /* ray (c, d): ray_cells[ray_start[6c + d] .. ray_start[6c + d + 1]] */
    int *ray_cells;
    int kind_x[KINDS], kind_y[KINDS];
    int kind_of[COLOURS][COLOURS];
} Layout;

static void layout_free(Layout *l) {
    free(l->low);
    free(l->high);
    free(l->edge_start);
    free(l->edge_list);
    free(l->ray_start);
    free(l->ray_cells);
    free(l);
}

static void layout_capsule_free(PyObject *capsule) {
    Layout *l = PyCapsule_GetPointer(capsule, "genial.layout");
    if (l != NULL) {
        layout_free(l);
    }
}

/* An int from a Python object within [lo, hi), or -1 with an exception set. */
static int int_in(PyObject *obj, long lo, long hi, long *out) {
    long v = PyLong_AsLong(obj);
    if (v == -1 && PyErr_Occurred()) {
        return -1;
    }
    if (v < lo || v >= hi) {
        PyErr_SetString(PyExc_ValueError, "a number out of range");
        return -1;
    }
    *out = v;
    return 0;
}

/* A sequence of ints, each within [lo, hi), into a new array (its length in *n). */
static int *int_array(PyObject *seq, long lo, long hi, Py_ssize_t *n) {
    PyObject *fast = PySequence_Fast(seq, "expected a sequence of ints");
    if (fast == NULL) {
        return NULL;
    }
    Py_ssize_t size = PySequence_Fast_GET_SIZE(fast);
    int *out = malloc(sizeof(int) * (size_t)(size + 1));
    if (out == NULL) {
        Py_DECREF(fast);
        PyErr_NoMemory();
        return NULL;
    }
    PyObject **items = PySequence_Fast_ITEMS(fast);
    for (Py_ssize_t k = 0; k < size; k++) {
        long v;
        if (int_in(items[k], lo, hi, &v) < 0) {
            free(out);
            Py_DECREF(fast);
            return NULL;
        }
        out[k] = (int)v;
    }
    Py_DECREF(fast);
    *n = size;
    return out;
}

/* Sequences of sequences of ints flattened: rows[r] = flat[start[r] .. start[r + 1]]. */
static int flatten(PyObject *seq, Py_ssize_t rows, long lo, long hi, int **start, int **flat) {
    PyObject *fast = PySequence_Fast(seq, "expected a sequence of sequences");
    if (fast == NULL) {
        return -1;
    }
    if (PySequence_Fast_GET_SIZE(fast) != rows) {
        Py_DECREF(fast);
        PyErr_SetString(PyExc_ValueError, "a table of the wrong length");
        return -1;
    }
    *start = malloc(sizeof(int) * (size_t)(rows + 1));
    Py_ssize_t total = 0, capacity = 64;
    *flat = malloc(sizeof(int) * (size_t)capacity);
    if (*start == NULL || *flat == NULL) {
        Py_DECREF(fast);
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t r = 0; r < rows; r++) {
        Py_ssize_t n;
        int *row = int_array(PySequence_Fast_GET_ITEM(fast, r), lo, hi, &n);
        if (row == NULL) {
            Py_DECREF(fast);
            return -1;
        }
        if (total + n > capacity) {
            while (total + n > capacity) {
                capacity *= 2;
            }
            int *grown = realloc(*flat, sizeof(int) * (size_t)capacity);
            if (grown == NULL) {
                free(row);
                Py_DECREF(fast);
                PyErr_NoMemory();
                return -1;
            }
            *flat = grown;
        }
        (*start)[r] = (int)total;
        memcpy(*flat + total, row, sizeof(int) * (size_t)n);
        total += n;
        free(row);
    }
    (*start)[rows] = (int)total;
    Py_DECREF(fast);
    return 0;
}

PyDoc_STRVAR(layout_doc,
"layout(low, high, cell_edges, rays, kinds) -> capsule\n\n"
"The tables of one playing area for play_out: each edge's lower and higher cell, each\n"
"cell's edges, the rays six per cell (rays[6 * c + d]: the cells outwards from cell c in\n"
"direction d, d and d + 3 opposite)\n"
"and the colours (x, y) of the 21 kinds of tile.");

static PyObject *make_layout(PyObject *self, PyObject *args) {
    PyObject *low, *high, *cell_edges, *rays, *kinds;
    if (!PyArg_ParseTuple(args, "OOOOO", &low, &high, &cell_edges, &rays, &kinds)) {
        return NULL;
    }
    Layout *l = calloc(1, sizeof(Layout));
    if (l == NULL) {
        return PyErr_NoMemory();
    }
    Py_ssize_t cells = PySequence_Size(cell_edges), edges, check;
    if (cells < 0) {
        goto fail;
    }
    l->cells = (int)cells;
    l->low = int_array(low, 0, cells, &edges);
    if (l->low == NULL) {
        goto fail;
    }
    l->edges = (int)edges;
    l->high = int_array(high, 0, cells, &check);
    if (l->high == NULL) {
        goto fail;
    }
    if (check != edges) {
        PyErr_SetString(PyExc_ValueError, "low and high cells differ in length");
        goto fail;
    }
    if (flatten(cell_edges, cells, 0, edges, &l->edge_start, &l->edge_list) < 0) {
        goto fail;
    }
    /* rays: six per cell, cell by cell (ray 6c + d from cell c in direction d) */
    if (flatten(rays, 6 * cells, 0, cells, &l->ray_start, &l->ray_cells) < 0) {
        goto fail;
    }
    PyObject *fast = PySequence_Fast(kinds, "kinds must be a sequence");
    if (fast == NULL) {
        goto fail;
    }
    if (PySequence_Fast_GET_SIZE(fast) != KINDS) {
        Py_DECREF(fast);
        PyErr_SetString(PyExc_ValueError, "kinds: the 21 kinds of tile");
        goto fail;
    }
    for (int x = 0; x < COLOURS; x++) {
        for (int y = 0; y < COLOURS; y++) {
            l->kind_of[x][y] = -1;
        }
    }
    for (int k = 0; k < KINDS; k++) {
        PyObject *kind = PySequence_Fast_GET_ITEM(fast, k);
        if (!PyTuple_Check(kind) || PyTuple_GET_SIZE(kind) != 2 ||
            colour_of(PyTuple_GET_ITEM(kind, 0), &l->kind_x[k]) < 0 ||
            colour_of(PyTuple_GET_ITEM(kind, 1), &l->kind_y[k]) < 0) {
            if (!PyErr_Occurred()) {
                PyErr_SetString(PyExc_TypeError, "a kind is a pair of colours");
            }
            Py_DECREF(fast);
            goto fail;
        }
        l->kind_of[l->kind_x[k]][l->kind_y[k]] = k;
        l->kind_of[l->kind_y[k]][l->kind_x[k]] = k;
    }
    Py_DECREF(fast);
    PyObject *capsule = PyCapsule_New(l, "genial.layout", layout_capsule_free);
    if (capsule == NULL) {
        goto fail;
    }
    return capsule;
fail:
    layout_free(l);
    return NULL;
}

/* The padded rows of one setup and set of weights, fetched from Python once each:
 * row(old, low), the value of scoring p points in a colour standing at old when the
 * side's lowest colour stands at low (engine.ai.evaluation's padded rows, bit for bit). */
typedef struct {
    PyObject *row_of;   /* callable (old, low) -> sequence of floats */
    int cap;
    Py_ssize_t length;  /* of every row (checked) */
    double **rows;      /* [old * (cap + 1) + low], NULL until fetched */
    int not_a_number;   /* a row fetched so far holds a NaN (no value is above or below it) */
} Rows;

static void rows_capsule_free(PyObject *capsule) {
    Rows *r = PyCapsule_GetPointer(capsule, "genial.rows");
    if (r == NULL) {
        return;
    }
    int n = (r->cap + 1) * (r->cap + 1);
    for (int k = 0; k < n; k++) {
        free(r->rows[k]);
    }
    free(r->rows);
    Py_XDECREF(r->row_of);
    free(r);
}

PyDoc_STRVAR(rows_doc,
"rows(row_of, cap) -> capsule\n\n"
"Padded rows for play_out, each fetched once by row_of(old, low) (old and low from 0 to\n"
"cap), a sequence of floats as long as every other row.");

static PyObject *make_rows(PyObject *self, PyObject *args) {
    PyObject *row_of;
    int cap;
    if (!PyArg_ParseTuple(args, "Oi", &row_of, &cap)) {
        return NULL;
    }
    if (!PyCallable_Check(row_of) || cap < 1 || cap > 1000) {
        PyErr_SetString(PyExc_ValueError, "rows(row_of, cap): a callable and a cap from 1");
        return NULL;
    }
    Rows *r = calloc(1, sizeof(Rows));
    if (r == NULL) {
        return PyErr_NoMemory();
    }
    r->rows = calloc((size_t)((cap + 1) * (cap + 1)), sizeof(double *));
    if (r->rows == NULL) {
        free(r);
        return PyErr_NoMemory();
    }
    Py_INCREF(row_of);
    r->row_of = row_of;
    r->cap = cap;
    r->length = -1;
    PyObject *capsule = PyCapsule_New(r, "genial.rows", rows_capsule_free);
    if (capsule == NULL) {
        Py_DECREF(row_of);
        free(r->rows);
        free(r);
    }
    return capsule;
}

static const double *row_for(Rows *r, int old, int low) {
    if (old < 0 || old > r->cap || low < 0 || low > r->cap) {
        PyErr_SetString(PyExc_ValueError, "a score beyond the cap");
        return NULL;
    }
    double **slot = &r->rows[old * (r->cap + 1) + low];
    if (*slot != NULL) {
        return *slot;
    }
    PyObject *got = PyObject_CallFunction(r->row_of, "ii", old, low);
    if (got == NULL) {
        return NULL;
    }
    PyObject *fast = PySequence_Fast(got, "a row is a sequence of floats");
    Py_DECREF(got);
    if (fast == NULL) {
        return NULL;
    }
    Py_ssize_t n = PySequence_Fast_GET_SIZE(fast);
    if (r->length >= 0 && n != r->length) {
        Py_DECREF(fast);
        PyErr_SetString(PyExc_ValueError, "rows of different lengths");
        return NULL;
    }
    double *values = malloc(sizeof(double) * (size_t)(n + 1));
    if (values == NULL) {
        Py_DECREF(fast);
        PyErr_NoMemory();
        return NULL;
    }
    for (Py_ssize_t k = 0; k < n; k++) {
        double v = PyFloat_AsDouble(PySequence_Fast_GET_ITEM(fast, k));
        if (v == -1.0 && PyErr_Occurred()) {
            free(values);
            Py_DECREF(fast);
            return NULL;
        }
        values[k] = v;
        if (v != v) {
            r->not_a_number = 1;
        }
    }
    Py_DECREF(fast);
    r->length = n;
    *slot = values;
    return values;
}

/* The position a play-out changes, in C arrays. */
typedef struct {
    const Layout *l;
    int *board;            /* by cell: its colour or EMPTY_CELL */
    int *points;           /* points[c * cells + cell] */
    int *empty;            /* the empty edges, in the game's order */
    int *pos;              /* by edge: its place in empty, or -1 */
    int empty_count;
    int players, team, cap, rack_size, bonus_placements, swaps;
    int marks[MAX_MARKS], mark_count;
    int racks[4][8];       /* kinds, in rack order */
    int rack_len[4];
    int *bag;              /* kinds: bag[bag_front .. bag_end] is the bag, front first */
    int bag_front, bag_end, bag_capacity;
    int scores[4][COLOURS];
    int to_move, bonus_owed, awaiting_swap, over, winner;
    /* The first round, while some seat has still to place (else near is NULL): by cell,
     * the start symbols it is next to (a bit each, of those no tile touched when the
     * play-out began); the bits of the symbols still untouched; which seats have placed. */
    int *near;
    int *opening_pairs;    /* room for the pairs a first placement may cover */
    int untouched;
    int placed[4];
    /* At least the largest of points[] (raised with it, never lowered): while twice it is
     * below the padded rows' length, every index a placement's value reads is in a row,
     * checked once a step instead of once a placement. */
    int max_points;
    /* The lookahead's best of each seat's tiles on each pair (by edge; NULL without the
     * lookahead), as worked out for the next seat's reply, kept for that seat's own turn:
     * worked out when the clock stood at seat_clock[seat] (-1: not kept, its rack or its
     * side's scores changed since), and still right on every pair neither of whose cells
     * has had its points changed or been covered since (changed[cell], the clock then). */
    double *seat_value[4];
    int seat_clock[4];
    int *changed;
    int clock;
    /* Greedy's best of each kind on each pair, by side (NULL until the side holds the
     * kind): worked out when the clock stood at kind_clock, through the rows kind_rows (a
     * row is one pointer for one score and lowest score: the same rows, the same values),
     * and right on every pair neither of whose cells has changed since. pair_changed: by
     * edge, the later clock of its cells' changes (worked out once a step). */
    double *kind_value[4][KINDS];
    const double *kind_rows[4][KINDS][2];
    int kind_clock[4][KINDS];
    int *pair_changed;
} Position;

static inline int side_of(const Position *s, int seat) { return s->team ? seat % 2 : seat; }

static void drop_edges(Position *s, int cell) {
    const Layout *l = s->l;
    for (int k = l->edge_start[cell]; k < l->edge_start[cell + 1]; k++) {
        int e = l->edge_list[k];
        int p = s->pos[e];
        if (p >= 0) {
            int last = s->empty[--s->empty_count];
            if (last != e) {
                s->empty[p] = last;
                s->pos[last] = p;
            }
            s->pos[e] = -1;
        }
    }
}

/* engine.genial.raise_points, after a symbol of colour was put on cell. With a log (the
 * lookahead's, which takes the symbol off again), each raise is logged (its place in
 * s->points and by how much), and with `note` each raised cell is noted too. */
static inline void raise_logged(Position *s, int cell, int colour, int *log, int *logged,
                                int note, int *noted, int *count) {
    const Layout *l = s->l;
    int *points = s->points + colour * l->cells;
    const int *board = s->board;
    for (int d = 0; d < 3; d++) {
        const int *ahead = l->ray_cells + l->ray_start[6 * cell + d];
        int ahead_len = l->ray_start[6 * cell + d + 1] - l->ray_start[6 * cell + d];
        const int *behind = l->ray_cells + l->ray_start[6 * cell + d + 3];
        int behind_len = l->ray_start[6 * cell + d + 4] - l->ray_start[6 * cell + d + 3];
        int a = 0, b = 0;
        while (a < ahead_len && board[ahead[a]] == colour) {
            a++;
        }
        while (b < behind_len && board[behind[b]] == colour) {
            b++;
        }
        int raised[2] = {-1, -1}, by[2] = {1 + b, 1 + a};
        if (a < ahead_len && board[ahead[a]] == EMPTY_CELL) {
            raised[0] = ahead[a];
        }
        if (b < behind_len && board[behind[b]] == EMPTY_CELL) {
            raised[1] = behind[b];
        }
        for (int t = 0; t < 2; t++) {
            if (raised[t] < 0) {
                continue;
            }
            points[raised[t]] += by[t];
            if (points[raised[t]] > s->max_points) {
                s->max_points = points[raised[t]];
            }
            if (log == NULL && s->changed != NULL) {
                s->changed[raised[t]] = s->clock;
            }
            if (log != NULL) {
                log[(*logged)++] = colour * l->cells + raised[t];
                log[(*logged)++] = by[t];
                if (note) {
                    noted[(*count)++] = raised[t];
                }
            }
        }
    }
}

static void raise_points_c(Position *s, int cell, int colour) {
    raise_logged(s, cell, colour, NULL, NULL, 0, NULL, NULL);
}

static void fill(Position *s, int cell, int colour) {
    s->board[cell] = colour;
    if (s->changed != NULL) {
        s->changed[cell] = s->clock;
    }
    drop_edges(s, cell);
    raise_points_c(s, cell, colour);
    if (s->near != NULL) {  /* a symbol next to a covered cell is touched (GenialBoard._fill) */
        s->untouched &= ~s->near[cell];
    }
}

/* GenialGame._score: returns the bonus placements earned. */
static int score(Position *s, int *track, int x, int y, int a, int b) {
    int earned = 0;
    int ks[2] = {x, y}, ps[2] = {a, b}, n = 2;
    if (x == y) {
        ps[0] = a + b;
        n = 1;
    }
    for (int t = 0; t < n; t++) {
        int k = ks[t], p = ps[t];
        if (!p) {
            continue;
        }
        int old = track[k], new = old + p;
        for (int m = 0; m < s->mark_count; m++) {
            if (old < s->marks[m] && s->marks[m] <= new) {
                new = s->marks[m];
                if (s->bonus_placements) {
                    earned++;
                }
                break;
            }
        }
        track[k] = new < s->cap ? new : s->cap;
    }
    return earned;
}

static inline int track_min(const int *track) {
    int low = track[0];
    for (int c = 1; c < COLOURS; c++) {
        low = track[c] < low ? track[c] : low;
    }
    return low;
}

/* GenialGame._refill_quietly. */
static void refill(Position *s) {
    int seat = s->to_move;
    while (s->rack_len[seat] < s->rack_size && s->bag_front < s->bag_end) {
        s->racks[seat][s->rack_len[seat]++] = s->bag[s->bag_front++];
    }
    s->awaiting_swap = 0;
    int next = (seat + 1) % s->players;
    s->to_move = next;
    if (s->rack_len[next] == 0 && s->bag_front == s->bag_end) {
        s->over = 1;
        s->awaiting_swap = 0;
        s->bonus_owed = 0;
    }
}

/* GenialGame.swap_quietly(True): the rack to the end of the bag, a new one drawn. */
static void swap_rack(Position *s) {
    int seat = s->to_move;
    s->seat_clock[seat] = -1;
    if (s->bag_end + s->rack_len[seat] > s->bag_capacity) {  /* move the bag to the front */
        memmove(s->bag, s->bag + s->bag_front, sizeof(int) * (size_t)(s->bag_end - s->bag_front));
        s->bag_end -= s->bag_front;
        s->bag_front = 0;
    }
    for (int t = 0; t < s->rack_len[seat]; t++) {
        s->bag[s->bag_end++] = s->racks[seat][t];
    }
    s->rack_len[seat] = 0;
    refill(s);
}

static void end_quietly(Position *s) {
    s->over = 1;
    s->awaiting_swap = 0;
    s->bonus_owed = 0;
}

/* GenialGame.play_spot for colour x on cell i and y on cell j. */
static void play_spot_c(Position *s, int i, int j, int x, int y) {
    const Layout *l = s->l;
    int seat = s->to_move;
    s->clock++;
    for (int q = 0; q < s->players; q++) {
        if (side_of(s, q) == side_of(s, seat)) {
            s->seat_clock[q] = -1;
        }
    }
    int *track = s->scores[side_of(s, seat)];
    int a = s->points[x * l->cells + i];
    int b = s->points[y * l->cells + j];
    int kind = l->kind_of[x][y];
    int *rack = s->racks[seat];
    for (int t = 0; t < s->rack_len[seat]; t++) {  /* the first tile of that kind */
        if (rack[t] == kind) {
            memmove(rack + t, rack + t + 1, sizeof(int) * (size_t)(s->rack_len[seat] - t - 1));
            s->rack_len[seat]--;
            break;
        }
    }
    fill(s, i, x);
    fill(s, j, y);
    s->placed[seat] = 1;
    int earned = score(s, track, x, y, a, b);
    if (track_min(track) == s->cap) {
        s->winner = side_of(s, seat);
        end_quietly(s);
        return;
    }
    if (s->empty_count == 0) {
        end_quietly(s);
        return;
    }
    s->bonus_owed += earned;
    if (s->bonus_owed) {
        if (s->rack_len[seat]) {
            s->bonus_owed--;
            return;
        }
        s->bonus_owed = 0;
    }
    if (s->swaps && s->rack_len[seat]) {
        int low = track_min(track), shown_low = 0;
        for (int t = 0; t < s->rack_len[seat] && !shown_low; t++) {
            shown_low = track[l->kind_x[rack[t]]] == low || track[l->kind_y[rack[t]]] == low;
        }
        if (!shown_low) {
            s->awaiting_swap = 1;
            return;
        }
    }
    refill(s);
}

typedef struct {
    double value;
    long long order;
    int i, j, x, y;
} Tied;

static int tied_cmp(const void *pa, const void *pb) {
    const Tied *a = pa, *b = pb;
    if (a->value != b->value) {
        return a->value > b->value ? -1 : 1;  /* best first */
    }
    return a->order < b->order ? -1 : (a->order > b->order ? 1 : 0);
}

/* random.Random.randrange(n) for n >= 1, drawn as CPython draws it
 * (_randbelow_with_getrandbits: k = n.bit_length() bits at a time until one is below n),
 * through the generator's own getrandbits, a C method: the same numbers, without two
 * Python frames a draw. -1 with an exception set on an error. */
static long rand_below(PyObject *getrandbits, long n) {
    int k = 0;
    for (long m = n; m; m >>= 1) {
        k++;
    }
    for (;;) {
        PyObject *got = PyObject_CallFunction(getrandbits, "i", k);
        if (got == NULL) {
            return -1;
        }
        long v = PyLong_AsLong(got);
        Py_DECREF(got);
        if (v == -1 && PyErr_Occurred()) {
            return -1;
        }
        if (v < 0 || v >= (1L << k)) {
            PyErr_SetString(PyExc_ValueError, "getrandbits gave a number out of range");
            return -1;
        }
        if (v < n) {
            return v;
        }
    }
}

/* A seat's kinds (each once, in rack order) into kinds[], and its side's rows of their
 * colours into row[] (the others NULL); the count, or -1 with an exception set. */
static int kinds_and_rows(Position *s, Rows *rows, int seat, int *kinds, const double **row) {
    const Layout *l = s->l;
    const int *track = s->scores[side_of(s, seat)];
    int low = track_min(track);
    int seen[KINDS] = {0}, kind_count = 0;
    for (int c = 0; c < COLOURS; c++) {
        row[c] = NULL;
    }
    for (int t = 0; t < s->rack_len[seat]; t++) {
        int k = s->racks[seat][t];
        if (!seen[k]) {
            seen[k] = 1;
            kinds[kind_count++] = k;
        }
    }
    for (int g = 0; g < kind_count; g++) {
        int cs[2] = {l->kind_x[kinds[g]], l->kind_y[kinds[g]]};
        for (int t = 0; t < 2; t++) {
            if (row[cs[t]] == NULL && (row[cs[t]] = row_for(rows, track[cs[t]], low)) == NULL) {
                return -1;
            }
        }
    }
    return kind_count;
}

/* The empty pairs the seat may cover into *pairs: every one, or in the seat's first
 * placement only those with a cell next to a start symbol that no tile touches yet (picked
 * out first, so that the loops over them stay the later moves' loops; their order does
 * not matter: the tied ones are sorted). Their count. */
static int placeable_pairs(Position *s, int seat, const int **pairs) {
    const Layout *l = s->l;
    *pairs = s->empty;
    if (s->near == NULL || s->placed[seat]) {
        return s->empty_count;
    }
    int *picked = s->opening_pairs, count = 0;
    for (int p = 0; p < s->empty_count; p++) {
        int e = s->empty[p];
        if ((s->near[l->low[e]] | s->near[l->high[e]]) & s->untouched) {
            picked[count++] = e;
        }
    }
    *pairs = picked;
    return count;
}

/* Whether every value a placement can take is in the padded rows: no points beyond them
 * (twice the largest, for two cells of one colour); else IndexError set and 0. Never
 * false on a real board (the rows are padded past any count of points). */
static int points_in_rows(const Position *s, Py_ssize_t length) {
    if (2 * (Py_ssize_t)s->max_points < length) {
        return 1;
    }
    PyErr_SetString(PyExc_IndexError, "points beyond the padded table");
    return 0;
}

/* Picks among the placements within 1e-9 of the best (count of them in tied[], as they
 * were found), as greedy_spot does: sorted best first then in the fixed order, one drawn.
 * 0, or -1 with an exception set. */
static int greedy_pick(Tied *tied, int count, PyObject *getrandbits, int *chosen) {
    int pick = 0;
    if (count > 1) {
        qsort(tied, (size_t)count, sizeof(Tied), tied_cmp);
        long v = rand_below(getrandbits, count);
        if (v < 0) {
            return -1;
        }
        pick = (int)v;
    }
    *chosen = pick;
    return 0;
}

/* greedy_c from the kept values (Position's kind_value): each of the seat's kinds' best on
 * each pair is made right again where its cells changed (or everywhere, for a kind whose
 * rows changed), the best of them is greedy's best value, and only the pairs whose kept
 * best reaches it less 1e-9 are looked at placement by placement. The same placements,
 * found in the same order, as the scan of every pair. Between a seat's turns in a 4-player
 * game some 60 of 480 pairs change. */
static int greedy_kept(Position *s, Rows *rows, PyObject *getrandbits, Tied *tied,
                       int *chosen, const int *kinds, int kind_count,
                       const double *const *row) {
    const Layout *l = s->l;
    const int *low = l->low, *high = l->high, *changed = s->changed;
    int n = l->cells, side = side_of(s, s->to_move);
    int *pair_changed = s->pair_changed;
    for (int p = 0; p < s->empty_count; p++) {
        int e = s->empty[p], a = changed[low[e]], b = changed[high[e]];
        pair_changed[e] = a > b ? a : b;
    }
    double best = -HUGE_VAL;
    for (int g = 0; g < kind_count; g++) {
        int kind = kinds[g], x = l->kind_x[kind], y = l->kind_y[kind];
        const int *px = s->points + x * n, *py = s->points + y * n;
        const double *rx = row[x], *ry = row[y];
        double *value = s->kind_value[side][kind];
        if (value == NULL) {
            value = s->kind_value[side][kind] = malloc(sizeof(double) * (size_t)(l->edges + 1));
            if (value == NULL) {
                PyErr_NoMemory();
                return -1;
            }
            s->kind_clock[side][kind] = -1;
        }
        int since = s->kind_clock[side][kind];
        if (s->kind_rows[side][kind][0] != rx || s->kind_rows[side][kind][1] != ry) {
            since = -1;
        }
        for (int p = 0; p < s->empty_count; p++) {
            int e = s->empty[p];
            if (pair_changed[e] > since || since < 0) {
                int lo = low[e], hi = high[e];
                if (x == y) {
                    value[e] = rx[px[lo] + px[hi]];
                } else {
                    double v = rx[px[lo]] + ry[py[hi]], u = rx[px[hi]] + ry[py[lo]];
                    value[e] = u > v ? u : v;
                }
            }
            best = value[e] > best ? value[e] : best;
        }
        s->kind_clock[side][kind] = s->clock;
        s->kind_rows[side][kind][0] = rx;
        s->kind_rows[side][kind][1] = ry;
    }
    double cut = best - 1e-9;
    int count = 0;
    for (int g = 0; g < kind_count; g++) {
        int kind = kinds[g], x = l->kind_x[kind], y = l->kind_y[kind];
        const int *px = s->points + x * n, *py = s->points + y * n;
        const double *rx = row[x], *ry = row[y];
        const double *value = s->kind_value[side][kind];
        for (int w = 0; w < (x == y ? 1 : 2); w++) {
            for (int p = 0; p < s->empty_count; p++) {
                int e = s->empty[p];
                if (value[e] < cut) {
                    continue;
                }
                int i = w ? high[e] : low[e], j = w ? low[e] : high[e];
                double v = x == y ? rx[px[i] + px[j]] : rx[px[i]] + ry[py[j]];
                if (cut <= v) {
                    Tied *t = &tied[count++];
                    t->value = v;
                    t->order = (((long long)i * n + j) * 6 + x) * 6 + y;
                    t->i = i;
                    t->j = j;
                    t->x = x;
                    t->y = y;
                }
            }
        }
    }
    return greedy_pick(tied, count, getrandbits, chosen);
}

/* greedy_spot: the placement played, or -1 with an exception set. */
static int greedy_c(Position *s, Rows *rows, PyObject *getrandbits, Tied *tied, int *chosen) {
    const Layout *l = s->l;
    int seat = s->to_move, n = l->cells;
    const double *row[COLOURS];
    int kinds[8];
    int kind_count = kinds_and_rows(s, rows, seat, kinds, row);
    if (kind_count < 0) {
        return -1;
    }
    if (s->empty_count == 0 || kind_count == 0) {
        PyErr_SetString(PyExc_IndexError, "no legal placement");
        return -1;
    }
    const int *pairs;
    int pair_count = placeable_pairs(s, seat, &pairs);
    if (pair_count == 0) {  /* as pick_best on no placement */
        PyErr_SetString(PyExc_IndexError, "no legal placement");
        return -1;
    }
    if (!points_in_rows(s, rows->length)) {
        return -1;
    }
    if (s->changed != NULL && s->pair_changed != NULL && pairs == s->empty &&
        !rows->not_a_number) {
        return greedy_kept(s, rows, getrandbits, tied, chosen, kinds, kind_count, row);
    }
    /* One pass: every placement within 1e-9 of the best so far is put by, and those that
     * fall below the best at the end are dropped (a placement within 1e-9 of the final best
     * was within 1e-9 of the best when it was seen, which was no higher). */
    const int *low = l->low, *high = l->high;
    double best = 0.0;
    int first = 1, count = 0;
    for (int g = 0; g < kind_count; g++) {
        int x = l->kind_x[kinds[g]], y = l->kind_y[kinds[g]];
        const int *px = s->points + x * n, *py = s->points + y * n;
        const double *rx = row[x], *ry = row[y];
        for (int w = 0; w < (x == y ? 1 : 2); w++) {
            for (int p = 0; p < pair_count; p++) {
                int e = pairs[p];
                int i = w ? high[e] : low[e], j = w ? low[e] : high[e];
                double v = x == y ? rx[px[i] + px[j]] : rx[px[i]] + ry[py[j]];
                if (first || v > best) {
                    best = v;
                    first = 0;
                }
                if (best - 1e-9 <= v) {
                    Tied *t = &tied[count++];
                    t->value = v;
                    t->order = (((long long)i * n + j) * 6 + x) * 6 + y;
                    t->i = i;
                    t->j = j;
                    t->x = x;
                    t->y = y;
                }
            }
        }
    }
    double cut = best - 1e-9;
    int kept = 0;
    for (int t = 0; t < count; t++) {
        if (cut <= tied[t].value) {
            tied[kept++] = tied[t];
        }
    }
    return greedy_pick(tied, kept, getrandbits, chosen);
}


/* --- The lookahead play-out step (issue 50) -------------------------------------------
 *
 * Of greedy's best `k` placements (by value, equal values in the fixed order) the one
 * whose value less `w` times the next seat's best reply on the board it leaves is highest
 * (the first of equal ones; no draw of the generator). The reply is the best value of the
 * next seat's tiles over every empty pair, first-round limits aside, through its side's
 * rows, and 0 if it has none; its own turn's bonus placements are not looked at. The same
 * choice as lookahead_spot in engine/ai/genial_expert.py. Done without a scan of the whole
 * board per candidate: a placement changes the points of at most 14 cells, so the reply is
 * the best of the unchanged pairs (the first of the board's best REPLY_KEPT that touches
 * none of them) and of the pairs on those cells, worked out anew only if the candidate can
 * still come out ahead. */

#define REPLY_KEPT 16
#define MAX_NOTED 32

typedef struct {
    int *picked;                        /* room for the pairs the mover's scan looks at */
    int *mark;                          /* by cell: the candidate that last changed it, + 1 */
} LookScratch;

/* A kind of tile on a seat's rack, as a pair's value reads it: its colours' points (by
 * cell) and the seat's rows of them. Worked out once a scan, not once a pair. */
typedef struct {
    const int *px, *py;
    const double *rx, *ry;
    int same;  /* both halves one colour: their points are scored together */
} KindView;

static void kind_views(const Position *s, const int *kinds, int kind_count,
                       const double *const *row, KindView *out) {
    const Layout *l = s->l;
    int n = l->cells;
    for (int g = 0; g < kind_count; g++) {
        int x = l->kind_x[kinds[g]], y = l->kind_y[kinds[g]];
        out[g].px = s->points + x * n;
        out[g].py = s->points + y * n;
        out[g].rx = row[x];
        out[g].ry = row[y];
        out[g].same = x == y;
    }
}

/* The best value of the kinds on the pair of cells lo and hi, either way round; 0 if none
 * is above (points_in_rows checked). */
static inline double pair_best(const KindView *kv, int kind_count, int lo, int hi) {
    double best = 0.0;
    for (int g = 0; g < kind_count; g++) {
        const int *px = kv[g].px, *py = kv[g].py;
        const double *rx = kv[g].rx, *ry = kv[g].ry;
        if (kv[g].same) {
            double v = rx[px[lo] + px[hi]];
            best = v > best ? v : best;
            continue;
        }
        double v = rx[px[lo]] + ry[py[hi]];
        best = v > best ? v : best;
        v = rx[px[hi]] + ry[py[lo]];
        best = v > best ? v : best;
    }
    return best;
}

/* The lookahead step: the placement played is put in tied[0]; -1 with an exception set. */
static int lookahead_c(Position *s, Rows *rows, int k, double w, Tied *tied,
                       LookScratch *sc) {
    const Layout *l = s->l;
    int seat = s->to_move, n = l->cells;
    int kinds[8];
    const double *row[COLOURS];
    int kind_count = kinds_and_rows(s, rows, seat, kinds, row);
    if (kind_count < 0) {
        return -1;
    }
    if (s->empty_count == 0 || kind_count == 0) {
        PyErr_SetString(PyExc_IndexError, "no legal placement");
        return -1;
    }
    const int *pairs;
    int pair_count = placeable_pairs(s, seat, &pairs);
    if (pair_count == 0) {
        PyErr_SetString(PyExc_IndexError, "no legal placement");
        return -1;
    }
    Py_ssize_t length = rows->length;
    if (!points_in_rows(s, length)) {
        return -1;
    }
    const int *low = l->low, *high = l->high;
    /* Where the seat's best on each pair is kept from the last seat's reply (see Position),
     * made right again on the pairs changed since: no placement on a pair whose best is
     * below the k-th best of the pairs can be among the best k placements, and only the
     * others are looked at. Each of those k pairs has a placement worth at least that much:
     * a pair's best counts a value below 0 as 0, so the k-th best is either 0 (and no pair
     * is below it) or some placement's value. Not in the seat's first placement (fewer
     * pairs are allowed then), nor with a NaN in the rows. */
    double *value = s->seat_value[seat];
    double floor = -HUGE_VAL;  /* no placement below it can be among the best k */
    if (value != NULL && s->seat_clock[seat] >= 0 && !rows->not_a_number &&
        pairs == s->empty && pair_count >= k) {
        int since = s->seat_clock[seat], *changed = s->changed;
        KindView own[8];
        kind_views(s, kinds, kind_count, row, own);
        double best[64];
        int ranked = 0;
        for (int p = 0; p < pair_count; p++) {
            int e = pairs[p];
            if (changed[low[e]] > since || changed[high[e]] > since) {
                value[e] = pair_best(own, kind_count, low[e], high[e]);
            }
            double v = value[e];
            if (ranked == k && v <= best[k - 1]) {
                continue;
            }
            int at = ranked < k ? ranked++ : k - 1;
            while (at > 0 && v > best[at - 1]) {
                best[at] = best[at - 1];
                at--;
            }
            best[at] = v;
        }
        s->seat_clock[seat] = s->clock;
        floor = best[k - 1];
        int *picked = sc->picked;
        int count = 0;
        for (int p = 0; p < pair_count; p++) {
            if (value[pairs[p]] >= floor) {
                picked[count++] = pairs[p];
            }
        }
        pairs = picked;
        pair_count = count;
    }
    /* Greedy's best k, best first, kept sorted as they are found. */
    int top = 0;
    for (int g = 0; g < kind_count; g++) {
        int x = l->kind_x[kinds[g]], y = l->kind_y[kinds[g]];
        const int *px = s->points + x * n;
        const double *rx = row[x], *ry = row[y];
        const int *py = s->points + y * n;
        for (int v_ = 0; v_ < (x == y ? 1 : 2); v_++) {
            for (int p = 0; p < pair_count; p++) {
                int e = pairs[p];
                int i = v_ ? high[e] : low[e], j = v_ ? low[e] : high[e];
                double value = x == y ? rx[px[i] + px[j]] : rx[px[i]] + ry[py[j]];
                /* Below the k-th by value: out, whatever its place in the order. */
                if (value < floor || (top == k && value < tied[k - 1].value)) {
                    continue;
                }
                Tied t;
                t.value = value;
                t.order = (((long long)i * n + j) * 6 + x) * 6 + y;
                if (top == k && tied_cmp(&t, &tied[k - 1]) >= 0) {
                    continue;
                }
                int at = top < k ? top++ : k - 1;
                while (at > 0 && tied_cmp(&t, &tied[at - 1]) < 0) {
                    tied[at] = tied[at - 1];
                    at--;
                }
                t.i = i;
                t.j = j;
                t.x = x;
                t.y = y;
                tied[at] = t;
            }
        }
    }
    int next = (seat + 1) % s->players;
    if (top < 2 || side_of(s, next) == side_of(s, seat) || s->rack_len[next] == 0) {
        return 0;
    }
    int next_kinds[8];
    const double *next_row[COLOURS];
    int next_count = kinds_and_rows(s, rows, next, next_kinds, next_row);
    if (next_count < 0) {
        return -1;
    }
    int held = 0;  /* the colours on the next seat's tiles: points of others change nothing */
    for (int g = 0; g < next_count; g++) {
        held |= 1 << l->kind_x[next_kinds[g]] | 1 << l->kind_y[next_kinds[g]];
    }
    double *pair_value = s->seat_value[next];
    s->seat_clock[next] = s->clock;
    KindView reply_kinds[8];
    kind_views(s, next_kinds, next_count, next_row, reply_kinds);
    /* The next seat's best on each empty pair now, and the REPLY_KEPT best pairs. */
    int kept[REPLY_KEPT], kept_count = 0;
    for (int p = 0; p < s->empty_count; p++) {
        int e = s->empty[p];
        double v = pair_best(reply_kinds, next_count, low[e], high[e]);
        pair_value[e] = v;
        if (kept_count == REPLY_KEPT && v <= pair_value[kept[REPLY_KEPT - 1]]) {
            continue;
        }
        int at = kept_count < REPLY_KEPT ? kept_count++ : REPLY_KEPT - 1;
        while (at > 0 && v > pair_value[kept[at - 1]]) {
            kept[at] = kept[at - 1];
            at--;
        }
        kept[at] = e;
    }
    int pick = 0;
    double best_adjusted = 0.0;
    int *board = s->board;
    for (int a = 0; a < top; a++) {
        /* The candidate put on the board (not on the empty pairs: a pair on one of its
         * cells is skipped below) and taken off again. */
        int noted[MAX_NOTED], count = 0, log[2 * MAX_NOTED], logged = 0;
        int ci = tied[a].i, cj = tied[a].j;
        noted[count++] = ci;
        noted[count++] = cj;
        board[ci] = tied[a].x;
        raise_logged(s, ci, tied[a].x, log, &logged, held >> tied[a].x & 1, noted, &count);
        board[cj] = tied[a].y;
        raise_logged(s, cj, tied[a].y, log, &logged, held >> tied[a].y & 1, noted, &count);
        for (int m = 0; m < count; m++) {
            sc->mark[noted[m]] = a + 1;
        }
        double reply = 0.0;
        int found = 0;
        for (int q = 0; q < kept_count; q++) {  /* the best unchanged pair */
            int e = kept[q];
            if (sc->mark[l->low[e]] != a + 1 && sc->mark[l->high[e]] != a + 1) {
                reply = pair_value[e];
                found = 1;
                break;
            }
        }
        if (!found) {  /* every kept pair changed (a nearly full board): all of them */
            for (int p = 0; p < s->empty_count; p++) {
                int e = s->empty[p];
                if (sc->mark[l->low[e]] != a + 1 && sc->mark[l->high[e]] != a + 1) {
                    reply = pair_value[e] > reply ? pair_value[e] : reply;
                }
            }
        }
        /* The changed pairs can only raise the reply: a candidate already behind without
         * them stays behind, and they are not worked out. */
        int behind = a > 0 && tied[a].value - w * reply <= best_adjusted;
        int failed = !behind && !points_in_rows(s, length);
        for (int m = 2; m < count && !failed && !behind; m++) {  /* the changed pairs, anew */
            int cell = noted[m];
            if (board[cell] != EMPTY_CELL) {
                continue;
            }
            for (int q = l->edge_start[cell]; q < l->edge_start[cell + 1]; q++) {
                int e = l->edge_list[q];
                if (s->pos[e] < 0 || board[l->low[e]] != EMPTY_CELL ||
                    board[l->high[e]] != EMPTY_CELL) {
                    continue;
                }
                double v = pair_best(reply_kinds, next_count, l->low[e], l->high[e]);
                reply = v > reply ? v : reply;
            }
        }
        for (int m = 0; m < logged; m += 2) {
            s->points[log[m]] -= log[m + 1];
        }
        board[ci] = EMPTY_CELL;
        board[cj] = EMPTY_CELL;
        if (failed) {
            return -1;
        }
        double adjusted = tied[a].value - w * reply;
        if (a == 0 || adjusted > best_adjusted) {
            best_adjusted = adjusted;
            pick = a;
        }
    }
    for (int m = 0; m < n; m++) {
        sc->mark[m] = 0;
    }
    if (pick) {
        tied[0] = tied[pick];
    }
    return 0;
}

/* Reads a list of lists of ints (rows of at most `width`) into out[rows][width]. */
static int read_rows(PyObject *seq, int rows, int width, long lo, long hi, int *out, int *lens,
                     int exact) {
    PyObject *fast = PySequence_Fast(seq, "expected a sequence of sequences");
    if (fast == NULL) {
        return -1;
    }
    if (PySequence_Fast_GET_SIZE(fast) != rows) {
        Py_DECREF(fast);
        PyErr_SetString(PyExc_ValueError, "one entry per seat or side");
        return -1;
    }
    for (int r = 0; r < rows; r++) {
        Py_ssize_t n;
        int *got = int_array(PySequence_Fast_GET_ITEM(fast, r), lo, hi, &n);
        if (got == NULL) {
            Py_DECREF(fast);
            return -1;
        }
        if (n > width || (exact && n != width)) {
            free(got);
            Py_DECREF(fast);
            PyErr_SetString(PyExc_ValueError, "an entry of the wrong length");
            return -1;
        }
        memcpy(out + r * width, got, sizeof(int) * (size_t)n);
        if (lens != NULL) {
            lens[r] = (int)n;
        }
        free(got);
    }
    Py_DECREF(fast);
    return 0;
}

/* Appends (i, j, x, y) to trace unless it is None; -1 with an exception set on failure. */
static int trace_add(PyObject *trace, long i, long j, long x, long y) {
    if (trace == Py_None) {
        return 0;
    }
    PyObject *item = Py_BuildValue("(llll)", i, j, x, y);
    if (item == NULL || PyList_Append(trace, item) < 0) {
        Py_XDECREF(item);
        return -1;
    }
    Py_DECREF(item);
    return 0;
}

/* Reads play_out's opening, (placed, starts), into s->placed, s->near and s->untouched;
 * -1 with an exception set on bad input. */
static int read_opening(Position *s, PyObject *opening) {
    int cells = s->l->cells;
    PyObject *placed, *starts;
    if (!PyTuple_Check(opening) || !PyArg_ParseTuple(opening, "OO", &placed, &starts)) {
        if (!PyErr_Occurred()) {
            PyErr_SetString(PyExc_TypeError, "opening is None or (placed, starts)");
        }
        return -1;
    }
    Py_ssize_t n;
    int *by_seat = int_array(placed, 0, 2, &n);
    if (by_seat == NULL) {
        return -1;
    }
    if (n != s->players) {
        free(by_seat);
        PyErr_SetString(PyExc_ValueError, "placed: one entry per seat");
        return -1;
    }
    memcpy(s->placed, by_seat, sizeof(int) * (size_t)n);
    free(by_seat);
    s->near = calloc((size_t)cells + 1, sizeof(int));
    s->opening_pairs = malloc(sizeof(int) * (size_t)(s->l->edges + 1));
    if (s->near == NULL || s->opening_pairs == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    PyObject *fast = PySequence_Fast(starts, "starts is a sequence of sequences of cells");
    if (fast == NULL) {
        return -1;
    }
    Py_ssize_t count = PySequence_Fast_GET_SIZE(fast);
    if (count > 6) {
        Py_DECREF(fast);
        PyErr_SetString(PyExc_ValueError, "more than six start symbols");
        return -1;
    }
    for (Py_ssize_t k = 0; k < count; k++) {
        int *around = int_array(PySequence_Fast_GET_ITEM(fast, k), 0, cells, &n);
        if (around == NULL) {
            Py_DECREF(fast);
            return -1;
        }
        for (Py_ssize_t c = 0; c < n; c++) {
            s->near[around[c]] |= 1 << k;
        }
        free(around);
        s->untouched |= 1 << k;
    }
    Py_DECREF(fast);
    return 0;
}

PyDoc_STRVAR(play_out_doc,
"play_out(layout, rows, board, points, empty_edges, racks, bag, scores, rules, turn,\n"
"         first, steps, getrandbits, trace[, lookahead]) -> (made, scores, over, winner)\n\n"
"GenialGame.play_spot(first) (if first, (i, j, x, y), is not None) and then the greedy\n"
"play-out of engine/ai/genial_players.py for up to `steps` placements, on copies of the\n"
"position: board (colour by cell, -1 empty), points (6 lists by cell), empty_edges, racks\n"
"(kinds, by seat), bag (kinds, front first), scores (by side). rules = (players, team,\n"
"cap, marks, bonus_placements, swaps, rack_size); turn = (to_move, bonus_owed,\n"
"awaiting_swap, opening): opening is None once every seat has placed, else (placed, starts):\n"
"by seat whether it has placed, and for each start symbol no tile touches yet the cells\n"
"around it (a seat's first placement must cover one). Ties are drawn as randrange(n) draws them\n"
"from getrandbits (a random.Random's bound method: the same numbers). With a\n"
"list as trace, each placement (i, j, x, y) is appended to it. With lookahead = (k, w)\n"
"(k > 1) each placement is lookahead_c's instead of greedy's (no draws). Returns the placements\n"
"made after first, the scores, whether the game is over and the winning side (or None).");

/* Frees a position's arrays (any of them NULL). */
static void position_free(Position *s) {
    free(s->board);
    free(s->near);
    free(s->opening_pairs);
    free(s->points);
    free(s->empty);
    free(s->pos);
    free(s->bag);
    free(s->changed);
    free(s->pair_changed);
    for (int q = 0; q < 4; q++) {
        free(s->seat_value[q]);
        for (int k = 0; k < KINDS; k++) {
            free(s->kind_value[q][k]);
        }
    }
}

/* Reads play_out's position arguments (layout to turn) into s, zeroed first: 0, or -1 with
 * an exception set (what was read is freed by position_free). */
static int read_position(PyObject *args, Position *s, Rows **rows_out, PyObject **layout_obj,
                         PyObject **rows_obj) {
    PyObject *board, *points, *empty_edges, *racks, *bag, *scores, *marks, *opening;
    int players, team, cap, bonus_placements, swaps, rack_size, to_move, bonus_owed, awaiting;
    memset(s, 0, sizeof(*s));
    for (int q = 0; q < 4; q++) {
        s->seat_clock[q] = -1;
    }
    if (!PyArg_ParseTuple(args, "OOOOOOOO(iiiOiii)(iiiO)", layout_obj, rows_obj, &board,
                          &points, &empty_edges, &racks, &bag, &scores, &players, &team, &cap,
                          &marks, &bonus_placements, &swaps, &rack_size, &to_move, &bonus_owed,
                          &awaiting, &opening)) {
        return -1;
    }
    Layout *l = PyCapsule_GetPointer(*layout_obj, "genial.layout");
    if (l == NULL) {
        return -1;
    }
    Rows *rows = PyCapsule_GetPointer(*rows_obj, "genial.rows");
    if (rows == NULL) {
        return -1;
    }
    *rows_out = rows;
    if (players < 1 || players > 4 || rack_size < 1 || rack_size > 8 || cap != rows->cap ||
        to_move < 0 || to_move >= players || (team && players != 4) || bonus_owed < 0) {
        PyErr_SetString(PyExc_ValueError, "rules or turn out of range");
        return -1;
    }
    int sides = team ? 2 : players;
    s->l = l;
    s->players = players;
    s->team = team;
    s->cap = cap;
    s->rack_size = rack_size;
    s->bonus_placements = bonus_placements;
    s->swaps = swaps;
    s->to_move = to_move;
    s->bonus_owed = bonus_owed;
    s->awaiting_swap = awaiting ? 1 : 0;
    s->winner = -1;
    int cells = l->cells;
    Py_ssize_t n;
    s->board = int_array(board, -1, COLOURS, &n);
    if (s->board == NULL) {
        return -1;
    }
    if (n != cells) {
        PyErr_SetString(PyExc_ValueError, "a board of the wrong size");
        return -1;
    }
    s->points = malloc(sizeof(int) * (size_t)(COLOURS * cells + 1));
    s->pos = malloc(sizeof(int) * (size_t)(l->edges + 1));
    if (s->points == NULL || s->pos == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    if (read_rows(points, COLOURS, cells, 0, 1 << 20, s->points, NULL, 1) < 0) {
        return -1;
    }
    for (int k = 0; k < COLOURS * cells; k++) {
        s->max_points = s->points[k] > s->max_points ? s->points[k] : s->max_points;
    }
    s->empty = int_array(empty_edges, 0, l->edges, &n);
    if (s->empty == NULL) {
        return -1;
    }
    s->empty_count = (int)n;
    if (opening != Py_None && read_opening(s, opening) < 0) {
        return -1;
    }
    for (int e = 0; e < l->edges; e++) {
        s->pos[e] = -1;
    }
    for (int p = 0; p < s->empty_count; p++) {
        if (s->pos[s->empty[p]] >= 0) {
            PyErr_SetString(PyExc_ValueError, "an empty edge listed twice");
            return -1;
        }
        s->pos[s->empty[p]] = p;
    }
    if (read_rows(racks, players, 8, 0, KINDS, &s->racks[0][0], s->rack_len, 0) < 0 ||
        read_rows(scores, sides, COLOURS, 0, (long)cap + 1, &s->scores[0][0], NULL, 1) < 0) {
        return -1;
    }
    int *bag_kinds = int_array(bag, 0, KINDS, &n);
    if (bag_kinds == NULL) {
        return -1;
    }
    s->bag_capacity = (int)n + players * 8 + 1;
    s->bag = malloc(sizeof(int) * (size_t)s->bag_capacity);
    if (s->bag == NULL) {
        free(bag_kinds);
        PyErr_NoMemory();
        return -1;
    }
    memcpy(s->bag, bag_kinds, sizeof(int) * (size_t)n);
    free(bag_kinds);
    s->bag_end = (int)n;
    int *mark_values = int_array(marks, 1, (long)cap + 1, &n);
    if (mark_values == NULL) {
        return -1;
    }
    if (n > MAX_MARKS) {
        free(mark_values);
        PyErr_SetString(PyExc_ValueError, "too many marks");
        return -1;
    }
    memcpy(s->marks, mark_values, sizeof(int) * (size_t)n);
    s->mark_count = (int)n;
    free(mark_values);
    return 0;
}

/* play_out's lookahead argument: 0 with look_k and look_w set, or -1 with an exception. */
static int read_lookahead(PyObject *lookahead, int *look_k, double *look_w) {
    *look_k = 0;
    *look_w = 0.0;
    if (lookahead == Py_None) {
        return 0;
    }
    if (!PyTuple_Check(lookahead) || !PyArg_ParseTuple(lookahead, "id", look_k, look_w)) {
        if (!PyErr_Occurred()) {
            PyErr_SetString(PyExc_TypeError, "lookahead is (candidates, reply weight)");
        }
        return -1;
    }
    if (*look_k < 1 || *look_k > 64 || !(*look_w >= 0.0 && *look_w <= 1e6)) {
        PyErr_SetString(PyExc_ValueError, "lookahead out of range");
        return -1;
    }
    return 0;
}

/* The play-out itself on s (whose arrays it changes): the first placement, then up to
 * `steps` more. The lookahead's kept values (s->seat_value, s->changed) are made here
 * where s has none. Returns play_out's result, or NULL with an exception set. */
static PyObject *run(Position *s, Rows *rows, PyObject *first, long steps,
                     PyObject *getrandbits, PyObject *trace, int look_k, double look_w) {
    const Layout *l = s->l;
    int cells = l->cells, sides = s->team ? 2 : s->players;
    if (steps < 0) {
        PyErr_SetString(PyExc_ValueError, "rules or turn out of range");
        return NULL;
    }
    if (!PyCallable_Check(getrandbits) || (trace != Py_None && !PyList_Check(trace))) {
        PyErr_SetString(PyExc_TypeError, "getrandbits must be callable, trace a list or None");
        return NULL;
    }
    PyObject *result = NULL;
    LookScratch look = {NULL, NULL};
    Tied *tied = malloc(sizeof(Tied) * (size_t)(2 * 8 * l->edges + 1));
    if (s->changed == NULL) {
        s->changed = calloc((size_t)(cells + 1), sizeof(int));
    }
    if (s->pair_changed == NULL) {
        s->pair_changed = malloc(sizeof(int) * (size_t)(l->edges + 1));
    }
    int ok = tied != NULL && s->changed != NULL && s->pair_changed != NULL;
    if (look_k > 1 && ok) {
        look.picked = malloc(sizeof(int) * (size_t)(l->edges + 1));
        look.mark = calloc((size_t)(cells + 1), sizeof(int));
        ok = look.picked && look.mark;
        for (int q = 0; q < s->players && ok; q++) {
            if (s->seat_value[q] == NULL) {
                s->seat_value[q] = malloc(sizeof(double) * (size_t)(l->edges + 1));
                ok = s->seat_value[q] != NULL;
            }
        }
    }
    if (!ok) {
        PyErr_NoMemory();
        goto done;
    }
    if (first != Py_None) {
        long i, j, x, y;
        if (!PyTuple_Check(first) || PyTuple_GET_SIZE(first) != 4 ||
            int_in(PyTuple_GET_ITEM(first, 0), 0, cells, &i) < 0 ||
            int_in(PyTuple_GET_ITEM(first, 1), 0, cells, &j) < 0 ||
            int_in(PyTuple_GET_ITEM(first, 2), 0, COLOURS, &x) < 0 ||
            int_in(PyTuple_GET_ITEM(first, 3), 0, COLOURS, &y) < 0) {
            if (!PyErr_Occurred()) {
                PyErr_SetString(PyExc_TypeError, "first is (i, j, x, y)");
            }
            goto done;
        }
        if (s->board[i] != EMPTY_CELL || s->board[j] != EMPTY_CELL || i == j ||
            s->awaiting_swap) {
            PyErr_SetString(PyExc_ValueError, "first is not a placement on two empty cells");
            goto done;
        }
        play_spot_c(s, (int)i, (int)j, (int)x, (int)y);
        if (trace_add(trace, i, j, x, y) < 0) {
            goto done;
        }
    }
    long made = 0;
    while (!s->over && made < steps) {
        if (s->awaiting_swap) {
            swap_rack(s);
            continue;
        }
        int chosen = 0;
        /* The tied placements are sorted into tied[]; the chosen one is played. */
        if (look_k > 1) {
            if (lookahead_c(s, rows, look_k, look_w, tied, &look) < 0) {
                goto done;
            }
        } else if (greedy_c(s, rows, getrandbits, tied, &chosen) < 0) {
            goto done;
        }
        Tied t = tied[chosen];
        if (trace_add(trace, t.i, t.j, t.x, t.y) < 0) {
            goto done;
        }
        play_spot_c(s, t.i, t.j, t.x, t.y);
        made++;
    }
    PyObject *out_scores = PyList_New(sides);
    if (out_scores == NULL) {
        goto done;
    }
    for (int side = 0; side < sides; side++) {
        PyObject *track = Py_BuildValue("[iiiiii]", s->scores[side][0], s->scores[side][1],
                                        s->scores[side][2], s->scores[side][3],
                                        s->scores[side][4], s->scores[side][5]);
        if (track == NULL) {
            Py_DECREF(out_scores);
            goto done;
        }
        PyList_SET_ITEM(out_scores, side, track);
    }
    if (s->winner >= 0) {
        result = Py_BuildValue("(lNOi)", made, out_scores, s->over ? Py_True : Py_False,
                               s->winner);
    } else {
        result = Py_BuildValue("(lNOO)", made, out_scores, s->over ? Py_True : Py_False,
                               Py_None);
    }
done:
    free(tied);
    free(look.picked);
    free(look.mark);
    return result;
}

static PyObject *play_out(PyObject *self, PyObject *args) {
    Py_ssize_t given = PyTuple_GET_SIZE(args);
    if (given < 14 || given > 15) {
        PyErr_SetString(PyExc_TypeError, "play_out takes 14 or 15 arguments");
        return NULL;
    }
    PyObject *first, *getrandbits, *trace, *lookahead = Py_None;
    long steps;
    PyObject *tail = PyTuple_GetSlice(args, 10, given);
    if (tail == NULL) {
        return NULL;
    }
    int parsed = PyArg_ParseTuple(tail, "OlOO|O", &first, &steps, &getrandbits, &trace,
                                  &lookahead);
    Py_DECREF(tail);
    int look_k;
    double look_w;
    if (!parsed || read_lookahead(lookahead, &look_k, &look_w) < 0) {
        return NULL;
    }
    PyObject *head = PyTuple_GetSlice(args, 0, 10);
    if (head == NULL) {
        return NULL;
    }
    Position s;
    Rows *rows = NULL;
    PyObject *layout_obj, *rows_obj;
    PyObject *result = NULL;
    if (read_position(head, &s, &rows, &layout_obj, &rows_obj) == 0) {
        result = run(&s, rows, first, steps, getrandbits, trace, look_k, look_w);
    }
    Py_DECREF(head);
    position_free(&s);
    return result;
}

/* --- A position read once, played out from many times (issue 50) ----------------------
 *
 * Master plays each deal out from a dozen or more first placements: start() reads the
 * deal's position once, and play_out_from() plays out a copy of it, with the arrays copied
 * instead of read from Python lists each time. With the lookahead, the start also keeps
 * the seat after the mover's best on each pair (worked out by the first play-out that
 * asks), so that each play-out's first lookahead step looks only at the pairs that can
 * hold its best placements, as the later steps do. */

typedef struct {
    Position s;
    PyObject *layout_obj, *rows_obj;    /* kept alive with the start */
    Rows *rows;
    double *values[4];                  /* each seat's best on every empty pair, or NULL */
} Start;

static void start_capsule_free(PyObject *capsule) {
    Start *st = PyCapsule_GetPointer(capsule, "genial.start");
    if (st == NULL) {
        return;
    }
    position_free(&st->s);
    for (int q = 0; q < 4; q++) {
        free(st->values[q]);
    }
    Py_XDECREF(st->layout_obj);
    Py_XDECREF(st->rows_obj);
    free(st);
}

PyDoc_STRVAR(start_doc,
"start(layout, rows, board, points, empty_edges, racks, bag, scores, rules, turn) -> capsule\n\n"
"play_out's position, read once, for play_out_from.");

static PyObject *make_start(PyObject *self, PyObject *args) {
    Start *st = calloc(1, sizeof(Start));
    if (st == NULL) {
        return PyErr_NoMemory();
    }
    PyObject *layout_obj, *rows_obj;
    if (read_position(args, &st->s, &st->rows, &layout_obj, &rows_obj) < 0) {
        position_free(&st->s);
        free(st);
        return NULL;
    }
    Py_INCREF(layout_obj);
    Py_INCREF(rows_obj);
    st->layout_obj = layout_obj;
    st->rows_obj = rows_obj;
    PyObject *capsule = PyCapsule_New(st, "genial.start", start_capsule_free);
    if (capsule == NULL) {
        position_free(&st->s);
        Py_DECREF(layout_obj);
        Py_DECREF(rows_obj);
        free(st);
    }
    return capsule;
}

/* A copy of n ints (n >= 0), or NULL (no memory, or none to copy from). */
static int *copy_ints(const int *from, size_t n) {
    if (from == NULL) {
        return NULL;
    }
    int *to = malloc(sizeof(int) * (n + 1));
    if (to != NULL) {
        memcpy(to, from, sizeof(int) * n);
    }
    return to;
}

/* The start's seat's best on every empty pair, worked out the first time it is asked for:
 * 0, or -1 with an exception set. */
static int start_values(Start *st, int seat) {
    if (st->values[seat] != NULL) {
        return 0;
    }
    Position *s = &st->s;
    const Layout *l = s->l;
    int kinds[8];
    const double *row[COLOURS];
    int kind_count = kinds_and_rows(s, st->rows, seat, kinds, row);
    if (kind_count < 0 || !points_in_rows(s, st->rows->length)) {
        return -1;
    }
    double *values = malloc(sizeof(double) * (size_t)(l->edges + 1));
    if (values == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    KindView kv[8];
    kind_views(s, kinds, kind_count, row, kv);
    for (int p = 0; p < s->empty_count; p++) {
        int e = s->empty[p];
        values[e] = pair_best(kv, kind_count, l->low[e], l->high[e]);
    }
    st->values[seat] = values;
    return 0;
}

PyDoc_STRVAR(play_out_from_doc,
"play_out_from(start, first, steps, getrandbits, trace[, lookahead]) -> (made, scores, over,\n"
"              winner)\n\n"
"play_out on the position start() read: the same placements, draws and result.");

static PyObject *play_out_from(PyObject *self, PyObject *args) {
    PyObject *capsule, *first, *getrandbits, *trace, *lookahead = Py_None;
    long steps;
    if (!PyArg_ParseTuple(args, "OOlOO|O", &capsule, &first, &steps, &getrandbits, &trace,
                          &lookahead)) {
        return NULL;
    }
    int look_k;
    double look_w;
    if (read_lookahead(lookahead, &look_k, &look_w) < 0) {
        return NULL;
    }
    Start *st = PyCapsule_GetPointer(capsule, "genial.start");
    if (st == NULL) {
        return NULL;
    }
    const Position *from = &st->s;
    const Layout *l = from->l;
    int cells = l->cells;
    /* The seat after the mover: the lookahead's kept values for it, from the start. */
    int next = (from->to_move + 1) % from->players;
    if (look_k > 1 && side_of(from, next) != side_of(from, from->to_move) &&
        start_values(st, next) < 0) {
        return NULL;
    }
    Position s = *from;
    s.board = copy_ints(from->board, (size_t)cells);
    s.points = copy_ints(from->points, (size_t)(COLOURS * cells));
    s.empty = copy_ints(from->empty, (size_t)from->empty_count);
    s.pos = copy_ints(from->pos, (size_t)l->edges);
    s.bag = copy_ints(from->bag, (size_t)from->bag_capacity);
    s.near = copy_ints(from->near, (size_t)cells);
    s.opening_pairs = NULL;  /* room only: a first placement's pairs are picked into it */
    if (from->opening_pairs != NULL) {
        s.opening_pairs = malloc(sizeof(int) * (size_t)(l->edges + 1));
    }
    s.changed = NULL;
    s.pair_changed = NULL;
    memset(s.kind_value, 0, sizeof(s.kind_value));
    for (int q = 0; q < 4; q++) {
        s.seat_value[q] = NULL;
        s.seat_clock[q] = -1;
    }
    PyObject *result = NULL;
    int ok = s.board && s.points && s.empty && s.pos && s.bag &&
             (from->near == NULL || (s.near && s.opening_pairs));
    if (ok && look_k > 1 && st->values[next] != NULL) {
        s.seat_value[next] = malloc(sizeof(double) * (size_t)(l->edges + 1));
        ok = s.seat_value[next] != NULL;
        if (ok) {
            memcpy(s.seat_value[next], st->values[next], sizeof(double) * (size_t)l->edges);
            s.seat_clock[next] = s.clock;  /* right for the start's board */
        }
    }
    if (!ok) {
        PyErr_NoMemory();
    } else {
        result = run(&s, st->rows, first, steps, getrandbits, trace, look_k, look_w);
    }
    position_free(&s);
    return result;
}

/* --- random.Random.shuffle, drawn through getrandbits ----------------------------------- */

PyDoc_STRVAR(shuffle_doc,
"shuffle(items, getrandbits) -> None\n\n"
"Shuffle the list in place exactly as random.Random.shuffle does (from the end, each item\n"
"swapped with one drawn below it as randrange draws), taking the bits from getrandbits\n"
"(a random.Random's bound method): the same order and the same draws, in C.");

static PyObject *shuffle(PyObject *self, PyObject *args) {
    PyObject *items, *getrandbits;
    if (!PyArg_ParseTuple(args, "O!O", &PyList_Type, &items, &getrandbits)) {
        return NULL;
    }
    if (!PyCallable_Check(getrandbits)) {
        PyErr_SetString(PyExc_TypeError, "getrandbits must be callable");
        return NULL;
    }
    for (Py_ssize_t i = PyList_GET_SIZE(items) - 1; i > 0; i--) {
        long j = rand_below(getrandbits, (long)i + 1);
        if (j < 0) {
            return NULL;
        }
        if (i >= PyList_GET_SIZE(items)) {  /* the list changed under the draw */
            PyErr_SetString(PyExc_RuntimeError, "the list changed while shuffled");
            return NULL;
        }
        PyObject *a = PyList_GET_ITEM(items, i);
        PyList_SET_ITEM(items, i, PyList_GET_ITEM(items, j));
        PyList_SET_ITEM(items, j, a);
    }
    Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
    {"shuffle", shuffle, METH_VARARGS, shuffle_doc},
    {"tile_values", tile_values, METH_VARARGS, tile_values_doc},
    {"best_spot", best_spot, METH_VARARGS, best_spot_doc},
    {"greedy_tied", greedy_tied, METH_VARARGS, greedy_tied_doc},
    {"best_distribution", best_distribution, METH_VARARGS, best_distribution_doc},
    {"expected_best", expected_best, METH_VARARGS, expected_best_doc},
    {"layout", make_layout, METH_VARARGS, layout_doc},
    {"rows", make_rows, METH_VARARGS, rows_doc},
    {"play_out", play_out, METH_VARARGS, play_out_doc},
    {"start", make_start, METH_VARARGS, start_doc},
    {"play_out_from", play_out_from, METH_VARARGS, play_out_from_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT,
    "engine.ai._kernel",
    "The computer players' innermost loops in C (see engine/ai/kernel.py).",
    -1,
    methods,
    NULL,
    NULL,
    NULL,
    NULL,
};

PyMODINIT_FUNC PyInit__kernel(void) { return PyModule_Create(&module); }
