/* The computer players' innermost loops in C (issue 31): the best value of each kind of
 * tile over the empty adjacent pairs of a Genial board, where a kind makes it, and the
 * greedy play-out step's tied best placements.
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

static PyMethodDef methods[] = {
    {"tile_values", tile_values, METH_VARARGS, tile_values_doc},
    {"best_spot", best_spot, METH_VARARGS, best_spot_doc},
    {"greedy_tied", greedy_tied, METH_VARARGS, greedy_tied_doc},
    {"best_distribution", best_distribution, METH_VARARGS, best_distribution_doc},
    {"expected_best", expected_best, METH_VARARGS, expected_best_doc},
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
