/*
 * Board texts straight to cells, included by _solve_c.c after the walk and read_board().
 *
 * Board.parse (board.py) builds a Board, a tuple of face strings and a Counter per text: more
 * than solving the board costs. Here a text goes from its bytes to a BoardSpec in one pass,
 * with no Python object made. The parser is deliberately partial: it accepts a text only when
 * it is sure Board.parse accepts the same text and gives the same cells, and DECLINES
 * everything else (any error, any character outside the common notation: non-ASCII, the rarer
 * ASCII whitespace, a text past the length limit). A declined text goes to a Python fallback
 * that runs Board.parse itself, so every error (type and message), and every rare accepted
 * form, is exactly Board.parse's, raised when the batch reaches that text.
 *
 * The notation (see board.py's _split_rows and _parse): the text is stripped; if it has a '/'
 * or a newline, rows are the '/'-separated parts of its non-blank lines, with spaces and tabs
 * inside a part ignored; otherwise runs of whitespace separate rows. In a row: a letter (q is
 * Qu, and a u right after a q is part of it), '.' a blank, '[' 1-3 letters ']' a face (a q on
 * it followed by u), '*' after a lettered cell marks the one challenge cell.
 *
 * Module functions (the GIL is released for the walks, a chunk of boards at a time):
 *   parse_text(text) -> (letters, rows, cols, challenge) | None   (for tests: None = declined)
 *   score_texts(trie, items, points, bonus, fallback) -> list[int]
 *   tally_texts(trie, items, points, bonus, fallback) -> list[(total, words)]
 *   score_lines(trie, data, points, bonus, fallback) -> list[int]
 *   tally_lines(trie, data, points, bonus, fallback) -> list[(total, words)]
 * items: a list of board texts or anything else; fallback(item) -> (letters, rows, cols,
 * challenge) for each item the parser declines (a Board, a bad text). data: bytes-like, one
 * board per line ('\n'; a final line needs none); fallback(line: bytes, index) likewise, with
 * the line's 0-based index in data.
 */

/* board.py's limits.MAX_BOARD_TEXT: a longer text is declined, so Board.parse refuses it. */
#define TEXT_MAX_CHARS 800

enum { TEXT_ACCEPTED = 1, TEXT_DECLINED = 0 };

static inline int text_is_letter(char ch) {
    return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z');
}

/* The whitespace Board.parse strips and splits on, as far as this parser accepts it. */
static inline int text_is_space(char ch) {
    return ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r';
}

/* The characters of the common notation; any other declines the text. */
static inline int text_is_known(char ch) {
    return text_is_letter(ch) || text_is_space(ch) || ch == '.' || ch == '[' || ch == ']' ||
           ch == '*' || ch == '/';
}

typedef struct {
    BoardSpec *b;
    int slash_mode; /* rows are '/'-separated parts of lines */
    int nrows, width, row_cells, total, line_has_slash;
} TextParse;

/* A row has ended; declines a row of another width or one row too many (text_new_cell has
 * already declined any cell of a 13th row, so this is a second guard, not the bound). */
static inline int text_end_row(TextParse *p) {
    if (p->nrows == 0) p->width = p->row_cells;
    else if (p->row_cells != p->width) return TEXT_DECLINED;
    if (p->nrows == MAX_SIDE) return TEXT_DECLINED;
    p->nrows++;
    p->row_cells = 0;
    return TEXT_ACCEPTED;
}

/* A new cell of `ntok` tokens, or NULL to decline. The bounds are checked HERE, before the
 * write into b->ntok / b->tok (MAX_CELLS entries): the 13th cell of a row, any cell of a 13th
 * row (text_end_row only sees the row count when that row ends, after its cells were written:
 * 12 full rows and a 13th wrote past the BoardSpec), and, as a guard that holds whatever the
 * row logic does, a cell past MAX_CELLS in all. */
static inline uint8_t *text_new_cell(TextParse *p, int ntok) {
    if (p->row_cells == MAX_SIDE || p->nrows == MAX_SIDE || p->total >= MAX_CELLS) return NULL;
    p->row_cells++;
    p->b->ntok[p->total] = (uint8_t)ntok;
    return p->b->tok[p->total++];
}

/* The index of the next character of the row at or after i, skipping the spaces and tabs that
 * Board.parse removes from a row in slash mode; `end` if the row's text ends first. */
static inline Py_ssize_t text_next(const TextParse *p, const char *s, Py_ssize_t i,
                                   Py_ssize_t end) {
    if (p->slash_mode)
        while (i < end && (s[i] == ' ' || s[i] == '\t')) i++;
    return i;
}

/* A bracketed face starting at s[i] == '['; returns the index of its ']', or -1 to decline.
 * Board.parse takes the text up to the next ']' and wants 1-3 letters, a q followed by u. */
static Py_ssize_t text_bracket(TextParse *p, const char *s, Py_ssize_t i, Py_ssize_t end) {
    char lower[MAX_FACE_TOKENS];
    int n = 0;
    Py_ssize_t j = text_next(p, s, i + 1, end);
    while (j < end && text_is_letter(s[j])) {
        if (n == MAX_FACE_TOKENS) return -1;
        lower[n++] = (char)(s[j] | 0x20);
        j = text_next(p, s, j + 1, end);
    }
    if (j >= end || s[j] != ']' || n == 0) return -1;
    uint8_t tok[MAX_FACE_TOKENS];
    int k = 0;
    if (n == 1 && lower[0] == 'q') {
        tok[k++] = TOKEN_QU; /* "[q]" is the Qu face, as a lone q is */
    } else {
        for (int m = 0; m < n; m++) {
            if (lower[m] == 'q') {
                if (m + 1 >= n || lower[m + 1] != 'u') return -1;
                tok[k++] = TOKEN_QU;
                m++;
            } else {
                tok[k++] = (uint8_t)(lower[m] - 'a');
            }
        }
    }
    uint8_t *cell = text_new_cell(p, k);
    if (!cell) return -1;
    memcpy(cell, tok, (size_t)k);
    return j;
}

/* One character of a row at s[i] (not a separator); returns the index of the next one, or -1
 * to decline. */
static Py_ssize_t text_cell(TextParse *p, const char *s, Py_ssize_t i, Py_ssize_t end,
                            int *challenge) {
    char ch = s[i];
    if (text_is_letter(ch)) {
        char lower = (char)(ch | 0x20);
        uint8_t *cell = text_new_cell(p, 1);
        if (!cell) return -1;
        if (lower == 'q') {
            cell[0] = TOKEN_QU;
            Py_ssize_t j = text_next(p, s, i + 1, end);
            if (j < end && (s[j] == 'u' || s[j] == 'U')) return j + 1;
        } else {
            cell[0] = (uint8_t)(lower - 'a');
        }
        return i + 1;
    }
    if (ch == '.') {
        return text_new_cell(p, 0) ? i + 1 : -1;
    }
    if (ch == '[') {
        Py_ssize_t close = text_bracket(p, s, i, end);
        return close < 0 ? -1 : close + 1;
    }
    if (ch == '*') {
        /* After a cell of this row, once per board, never after a blank. */
        if (p->row_cells == 0 || *challenge >= 0 || p->b->ntok[p->total - 1] == 0) return -1;
        *challenge = p->total - 1;
        return i + 1;
    }
    return -1; /* ']' out of place */
}

/* Parse s[0..n) into *b: TEXT_ACCEPTED, or TEXT_DECLINED for anything Board.parse might not
 * accept exactly so. Linear in n and reads nothing past it. */
static int parse_board_text(const char *s, Py_ssize_t n, BoardSpec *b) {
    if (n > TEXT_MAX_CHARS) return TEXT_DECLINED;
    Py_ssize_t lo = 0, hi = n;
    while (lo < hi && text_is_space(s[lo])) lo++;
    while (hi > lo && text_is_space(s[hi - 1])) hi--;
    if (lo == hi) return TEXT_DECLINED;
    TextParse p = {b, 0, 0, 0, 0, 0, 0};
    for (Py_ssize_t i = lo; i < hi; i++) {
        if (!text_is_known(s[i])) return TEXT_DECLINED;
        if (s[i] == '/' || s[i] == '\n') p.slash_mode = 1;
    }
    int challenge = -1;
    Py_ssize_t i = lo;
    while (i < hi) {
        char ch = s[i];
        if (p.slash_mode && (ch == '/' || ch == '\n' || ch == '\r')) {
            if (p.row_cells > 0) {
                if (text_end_row(&p) != TEXT_ACCEPTED) return TEXT_DECLINED;
            } else if (ch == '/' || p.line_has_slash) {
                return TEXT_DECLINED; /* an empty part: Board.parse says which row */
            } /* else a blank line, which Board.parse skips */
            p.line_has_slash = ch == '/';
            i++;
        } else if (p.slash_mode && (ch == ' ' || ch == '\t')) {
            i++;
        } else if (!p.slash_mode && text_is_space(ch)) {
            if (p.row_cells > 0 && text_end_row(&p) != TEXT_ACCEPTED) return TEXT_DECLINED;
            i++;
        } else {
            /* The row's text runs to the next separator: text_next and brackets stop there. */
            Py_ssize_t end = i;
            if (p.slash_mode)
                while (end < hi && s[end] != '/' && s[end] != '\n' && s[end] != '\r') end++;
            else
                while (end < hi && !text_is_space(s[end])) end++;
            while (i < end) {
                if (s[i] == ' ' || s[i] == '\t') { /* only in slash mode */
                    i++;
                    continue;
                }
                i = text_cell(&p, s, i, end, &challenge);
                if (i < 0) return TEXT_DECLINED;
            }
        }
    }
    if (p.row_cells > 0) {
        if (text_end_row(&p) != TEXT_ACCEPTED) return TEXT_DECLINED;
    } else if (p.slash_mode && p.line_has_slash) {
        return TEXT_DECLINED; /* a trailing '/' */
    }
    if (p.nrows < 2 || p.width < 2) return TEXT_DECLINED;
    b->rows = p.nrows;
    b->cols = p.width;
    b->ncells = p.total;
    b->challenge = challenge;
    return TEXT_ACCEPTED;
}

/* parse_text(text) -> (letters, rows, cols, challenge), or None when the parser declines. */
static PyObject *parse_text(PyObject *Py_UNUSED(module), PyObject *text) {
    /* Exactly str: a subclass may override what Board.parse calls (strip, split...), so it
     * goes to Board.parse, which reads it through those methods. */
    if (!PyUnicode_CheckExact(text) || !PyUnicode_IS_ASCII(text)) Py_RETURN_NONE;
    BoardSpec b;
    if (parse_board_text((const char *)PyUnicode_DATA(text), PyUnicode_GET_LENGTH(text), &b) !=
        TEXT_ACCEPTED)
        Py_RETURN_NONE;
    PyObject *letters = PyTuple_New(b.ncells);
    if (!letters) return NULL;
    for (int i = 0; i < b.ncells; i++) {
        char face[2 * MAX_FACE_TOKENS];
        int n = 0;
        for (int j = 0; j < b.ntok[i]; j++) {
            uint8_t t = b.tok[i][j];
            if (t == TOKEN_QU) {
                face[n++] = 'q';
                face[n++] = 'u';
            } else {
                face[n++] = (char)('a' + t);
            }
        }
        PyObject *item = PyUnicode_FromStringAndSize(face, n);
        if (!item) {
            Py_DECREF(letters);
            return NULL;
        }
        PyTuple_SET_ITEM(letters, i, item);
    }
    return Py_BuildValue("(Niii)", letters, b.rows, b.cols, b.challenge);
}

/* ---------------------------------------------------------------------------------------- */
/* Batches of texts and of lines                                                              */

/* Where a batch's boards come from: a tuple of items, or the lines of a buffer. */
typedef struct {
    PyObject *items; /* a tuple, or NULL for lines */
    const char *data;
    Py_ssize_t len, pos; /* lines: the buffer, and where the next line starts */
    PyObject *fallback;
} TextSource;

/* The fallback's (letters, rows, cols, challenge) into *b; -1 with an exception set. */
static int text_from_fallback(PyObject *cells, Py_ssize_t index, BoardSpec *b) {
    PyObject *letters;
    int rows, cols, challenge;
    if (!cells) return -1;
    int ok = PyTuple_Check(cells) &&
             PyArg_ParseTuple(cells, "Oiii", &letters, &rows, &cols, &challenge) &&
             read_board(letters, rows, cols, challenge, b) == 0;
    Py_DECREF(cells);
    if (ok) return 0;
    if (!PyErr_Occurred() || PyErr_ExceptionMatches(PyExc_TypeError)) {
        PyErr_Clear();
        PyErr_Format(PyExc_TypeError,
                     "fallback for board %zd must give (letters, rows, cols, challenge)", index);
    }
    return -1;
}

/* Board `index` of the source into *b (the GIL is held); -1 with an exception set. */
static int text_next_board(TextSource *src, Py_ssize_t index, BoardSpec *b) {
    if (src->items) {
        PyObject *item = PyTuple_GET_ITEM(src->items, index);
        if (PyUnicode_CheckExact(item) && PyUnicode_IS_ASCII(item) && /* as parse_text */
            parse_board_text((const char *)PyUnicode_DATA(item), PyUnicode_GET_LENGTH(item),
                             b) == TEXT_ACCEPTED)
            return 0;
        return text_from_fallback(PyObject_CallOneArg(src->fallback, item), index, b);
    }
    const char *start = src->data + src->pos;
    const char *nl = memchr(start, '\n', (size_t)(src->len - src->pos));
    Py_ssize_t n = nl ? nl - start : src->len - src->pos;
    src->pos += n + (nl != NULL);
    if (parse_board_text(start, n, b) == TEXT_ACCEPTED) return 0;
    PyObject *line = PyBytes_FromStringAndSize(start, n);
    if (!line) return -1;
    PyObject *number = PyLong_FromSsize_t(index);
    PyObject *cells =
        number ? PyObject_CallFunctionObjArgs(src->fallback, line, number, NULL) : NULL;
    Py_DECREF(line);
    Py_XDECREF(number);
    return text_from_fallback(cells, index, b);
}

/* text_next_board as score_boards reads a board. */
static int read_text_board(void *source, Py_ssize_t index, BoardSpec *b) {
    return text_next_board((TextSource *)source, index, b);
}

/* Score `n` boards of a source (score_boards: read with the GIL, walked without it). */
static PyObject *text_batch(PyObject *trie_obj, TextSource *src, Py_ssize_t n,
                            PyObject *points_obj, int bonus, int with_counts) {
    if (!PyCallable_Check(src->fallback)) {
        PyErr_SetString(PyExc_TypeError, "fallback must be callable");
        return NULL;
    }
    return score_boards((PackedTrie *)trie_obj, n, points_obj, bonus, with_counts,
                        read_text_board, src);
}

static PyObject *texts_common(PyObject *args, const char *format, int with_counts) {
    PyObject *trie_obj, *items, *points_obj, *fallback;
    int bonus;
    if (!PyArg_ParseTuple(args, format, &PackedTrieType, &trie_obj, &PyList_Type, &items,
                          &points_obj, &bonus, &fallback))
        return NULL;
    /* A tuple copy: the fallback is Python code and may change the list. */
    TextSource src = {PySequence_Tuple(items), NULL, 0, 0, fallback};
    if (!src.items) return NULL;
    PyObject *result = text_batch(trie_obj, &src, PyTuple_GET_SIZE(src.items), points_obj,
                                  bonus, with_counts);
    Py_DECREF(src.items);
    return result;
}

static PyObject *score_texts(PyObject *Py_UNUSED(module), PyObject *args) {
    return texts_common(args, "O!O!OiO:score_texts", 0);
}

static PyObject *tally_texts(PyObject *Py_UNUSED(module), PyObject *args) {
    return texts_common(args, "O!O!OiO:tally_texts", 1);
}

static PyObject *lines_common(PyObject *args, const char *format, int with_counts) {
    PyObject *trie_obj, *points_obj, *fallback;
    Py_buffer view;
    int bonus;
    if (!PyArg_ParseTuple(args, format, &PackedTrieType, &trie_obj, &view, &points_obj, &bonus,
                          &fallback))
        return NULL;
    /* The buffer stays exported while the fallback runs, so it cannot be resized under us. */
    TextSource src = {NULL, view.buf, view.len, 0, fallback};
    Py_ssize_t n = 0;
    for (const char *at = src.data, *end = src.data + src.len; at < end; n++) {
        const char *nl = memchr(at, '\n', (size_t)(end - at));
        at = nl ? nl + 1 : end;
    }
    PyObject *result = text_batch(trie_obj, &src, n, points_obj, bonus, with_counts);
    PyBuffer_Release(&view);
    return result;
}

static PyObject *score_lines(PyObject *Py_UNUSED(module), PyObject *args) {
    return lines_common(args, "O!y*OiO:score_lines", 0);
}

static PyObject *tally_lines(PyObject *Py_UNUSED(module), PyObject *args) {
    return lines_common(args, "O!y*OiO:tally_lines", 1);
}

#define TEXT_METHODS                                                                           \
    {"parse_text", parse_text, METH_O,                                                         \
     "parse_text(text) -> (letters, rows, cols, challenge) | None: the compiled parser's\n"    \
     "cells of a board text, None where it leaves the text to Board.parse."},                  \
        {"score_texts", score_texts, METH_VARARGS,                                             \
         "score_texts(trie, items, points, bonus, fallback) -> list[int]: totals of board\n"   \
         "texts parsed here; fallback(item) gives the cells of any other item."},              \
        {"tally_texts", tally_texts, METH_VARARGS,                                             \
         "tally_texts(trie, items, points, bonus, fallback) -> list[(total, words)]."},        \
        {"score_lines", score_lines, METH_VARARGS,                                             \
         "score_lines(trie, data, points, bonus, fallback) -> list[int]: one board a line;\n"  \
         "fallback(line, index) gives the cells of a line not parsed here."},                  \
        {"tally_lines", tally_lines, METH_VARARGS,                                             \
         "tally_lines(trie, data, points, bonus, fallback) -> list[(total, words)]."},
