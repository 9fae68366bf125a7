/*
 * bigboggle._solve_c: the compiled solver core.
 *
 * Same contract as the pure-Python reference (_solve_py.py): solve_cells, score_cells and
 * score_batch over a trie; all validation, rules and scoring tables stay in Python, which
 * passes a points-by-letter-count table, the challenge bonus and cells as lowercase faces.
 *
 * The trie is packed: nodes in breadth-first order, each with a 27-bit mask of child tokens
 * (a-z, and "qu" as token 26, since a Qu face is one cell), the index of its first child
 * (children are contiguous, in token order, so a child's index is first + popcount of the
 * lower mask bits), and the id of the word ending there (-1 if none). Word ids are indices
 * into the dictionary's sorted word list, so sorting by id is sorting alphabetically.
 * Each node is one 16-byte record (mask, first child, word id, the word's letter count), so a
 * step of the walk touches one cache line: ENABLE2K's 389k nodes take 6.2 MB, cached on disk
 * by cache.py.
 *
 * Words found on one board are de-duplicated. The score walks keep one bit a word (Marks),
 * cleared through the list of the words marked when the board is done; the solve walk keeps
 * per-word "stamps" (the number of the board on which a word was last seen, so no clearing is
 * needed) beside the slot of each word's entry. Calls that keep the GIL use the arrays owned
 * by the trie; score_batch releases the GIL and allocates its own, so several threads can
 * score batches at once.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#ifdef __linux__
#include <sys/mman.h>
#endif

#define NTOKENS 27
#define TOKEN_QU 26
#define MAX_SIDE 12
#define MAX_CELLS (MAX_SIDE * MAX_SIDE)
#define MAX_FACE_TOKENS 3
#define BATCH_CHUNK 2048

/* The index of the lowest set bit of x (x != 0). */
#if defined(__GNUC__) || defined(__clang__)
#define lowest_bit(x) ((int)__builtin_ctzll(x))
#else
static inline int lowest_bit(uint64_t x) {
    int i = 0;
    while (!(x & 1)) {
        x >>= 1;
        i++;
    }
    return i;
}
#endif

static inline uint32_t popcount_portable(uint32_t x) {
    x = x - ((x >> 1) & 0x55555555u);
    x = (x & 0x33333333u) + ((x >> 2) & 0x33333333u);
    return (((x + (x >> 4)) & 0x0F0F0F0Fu) * 0x01010101u) >> 24;
}


/* ---------------------------------------------------------------------------------------- */
/* The packed trie                                                                            */

typedef struct {
    uint32_t mask;    /* bit t set: a child for token t */
    uint32_t first;   /* index of the first child (children are contiguous, in token order) */
    int32_t word;     /* id of the word ending here, or -1 */
    uint32_t letters; /* letters in that word (Qu counts two), 0 if none */
} Node;

/* The words a score walk has found on the board it is walking: one bit a word (and one more
 * for "found through the challenge cell"), with the list of the words marked, by which the
 * bits are cleared when the board is done. ENABLE2K's 173k words take 21 KB of bits, which
 * stay in the nearest caches; a stamp a word took 700 KB, and each first find was a miss. */
typedef struct {
    uint64_t *seen, *through;
    uint32_t *marked; /* room for every word: a board can hold no more */
    uint32_t count;
} Marks;

static int marks_alloc(Marks *m, uint32_t n_words) {
    size_t blocks = (size_t)n_words / 64 + 1;
    m->seen = PyMem_RawCalloc(blocks, sizeof(uint64_t));
    m->through = PyMem_RawCalloc(blocks, sizeof(uint64_t));
    m->marked = PyMem_RawMalloc(((size_t)n_words + 1) * sizeof(uint32_t));
    m->count = 0;
    return m->seen && m->through && m->marked ? 0 : -1;
}

static void marks_free(Marks *m) {
    PyMem_RawFree(m->seen);
    PyMem_RawFree(m->through);
    PyMem_RawFree(m->marked);
    m->seen = m->through = NULL;
    m->marked = NULL;
}

/* Every bit set back to 0, ready for the next board. */
static inline void marks_clear(Marks *m) {
    for (uint32_t i = 0; i < m->count; i++) {
        uint32_t word = m->marked[i];
        m->seen[word >> 6] = 0;
        m->through[word >> 6] = 0;
    }
    m->count = 0;
}

typedef struct {
    PyObject_HEAD
    uint32_t n_nodes;
    uint32_t n_words;
    Node *nodes;
    /* De-duplication state for calls that hold the GIL: the solve walk's and the
     * alternatives walk's stamps, ... */
    uint32_t *seen;
    int32_t *slot;
    uint32_t stamp;
    Marks marks; /* the score walks' */
    /* score_alternatives only, made on its first call: the faces that spell each word. */
    uint32_t *faces_of;
} PackedTrie;

static PyTypeObject PackedTrieType;

/* The node array: on Linux in transparent huge pages when it is large. A fresh 4 KB page
 * costs a fault of microseconds on first touch, which made copying ENABLE2K's 6 MB of nodes
 * out of the cache cost more than checking them; huge pages take a few faults, and fewer TLB
 * misses in the walk. */
#define HUGE_PAGE ((size_t)2 << 20)

/* A large array from libc (free() it, or realloc() it: never PyMem_Raw*), in huge pages
 * where Linux has them. */
static void *big_alloc(size_t bytes) {
#ifdef __linux__
    if (bytes >= HUGE_PAGE) {
        void *p = NULL;
        size_t rounded = (bytes + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
        if (rounded < bytes || posix_memalign(&p, HUGE_PAGE, rounded) != 0) return NULL;
        madvise(p, rounded, MADV_HUGEPAGE); /* a hint: without it, ordinary pages */
        return p;
    }
#endif
    return malloc(bytes ? bytes : 1);
}

static Node *nodes_alloc(size_t count) {
    return count <= SIZE_MAX / sizeof(Node) ? big_alloc(count * sizeof(Node)) : NULL;
}

static void nodes_free(Node *nodes) {
    free(nodes);
}

static void trie_free_arrays(PackedTrie *t) {
    nodes_free(t->nodes);
    PyMem_RawFree(t->seen);
    PyMem_RawFree(t->slot);
    PyMem_RawFree(t->faces_of);
    marks_free(&t->marks);
    t->nodes = NULL;
    t->seen = NULL;
    t->slot = NULL;
    t->faces_of = NULL;
}

static void PackedTrie_dealloc(PackedTrie *self) {
    trie_free_arrays(self);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static int trie_alloc_arrays(PackedTrie *t, uint32_t n_nodes, uint32_t n_words) {
    size_t nodes = n_nodes ? n_nodes : 1, words = n_words ? n_words : 1;
    t->n_nodes = n_nodes;
    t->n_words = n_words;
    t->nodes = nodes_alloc(nodes);
    t->seen = PyMem_RawCalloc(words, sizeof(uint32_t));
    t->slot = PyMem_RawMalloc(words * sizeof(int32_t));
    t->faces_of = NULL;
    t->stamp = 0;
    int marks = marks_alloc(&t->marks, n_words);
    if (!t->nodes || !t->seen || !t->slot || marks < 0) {
        trie_free_arrays(t);
        PyErr_NoMemory();
        return -1;
    }
    return 0;
}

/* Tokens of lowercase ASCII letters: "qu" is one token. Returns the count, or -1 if a
 * character is not a-z or there are more than max tokens. */
static int tokenize(const char *s, Py_ssize_t n, uint8_t *out, int max) {
    int k = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        char ch = s[i];
        if (ch < 'a' || ch > 'z') return -1;
        if (k >= max) return -1;
        if (ch == 'q' && i + 1 < n && s[i + 1] == 'u') {
            out[k++] = TOKEN_QU;
            i++;
        } else {
            out[k++] = (uint8_t)(ch - 'a');
        }
    }
    return k;
}

/* A growable pointer trie used only while building: first child, next sibling, "last" child,
 * word id and token per node. Siblings are kept in token order, so a "qu" child (token 26)
 * is always the tail of its list; "last" is the child with the highest other token. Words
 * mostly arrive sorted, so a step either follows "last", appends after it, or (for "qu")
 * takes the tail: O(1), where a walk along the siblings cost a third of a first build
 * (after the "qu" words, every word from r to z walked past its 17-odd siblings). */
typedef struct {
    int32_t *child, *sibling, *last, *word;
    uint8_t *token;
    uint32_t count, capacity;
} BuildTrie;

/* The build's arrays: fresh ones from big_alloc (a first build faults in ~7 MB of them),
 * grown with realloc. All freed with free(). */
static void *build_realloc(void *old, size_t bytes) {
    return old ? realloc(old, bytes) : big_alloc(bytes);
}

static int build_reserve(BuildTrie *b, uint64_t wanted) {
    if (wanted <= b->capacity) return 0;
    if (wanted > INT32_MAX) return -1;
    uint32_t capacity = (uint32_t)wanted;
    int32_t *child = build_realloc(b->child, capacity * sizeof(int32_t));
    if (child) b->child = child;
    int32_t *sibling = build_realloc(b->sibling, capacity * sizeof(int32_t));
    if (sibling) b->sibling = sibling;
    int32_t *last = build_realloc(b->last, capacity * sizeof(int32_t));
    if (last) b->last = last;
    int32_t *word = build_realloc(b->word, capacity * sizeof(int32_t));
    if (word) b->word = word;
    uint8_t *token = build_realloc(b->token, capacity);
    if (token) b->token = token;
    if (!child || !sibling || !last || !word || !token) return -1;
    b->capacity = capacity;
    return 0;
}

static int32_t build_new_node(BuildTrie *b, uint8_t token) {
    if (b->count == b->capacity && build_reserve(b, b->capacity ? 2 * (uint64_t)b->capacity : 1024) < 0)
        return -1;
    int32_t id = (int32_t)b->count++;
    b->child[id] = -1;
    b->sibling[id] = -1;
    b->last[id] = -1;
    b->word[id] = -1;
    b->token[id] = token;
    return id;
}

static void build_free(BuildTrie *b) {
    free(b->child);
    free(b->sibling);
    free(b->last);
    free(b->word);
    free(b->token);
}

enum { INSERT_OK = 0, INSERT_NOMEM = -1, INSERT_BAD = -2, INSERT_TWICE = -3 };

/* Add word id (n letters at s) to the build trie. */
static int build_insert(BuildTrie *b, const char *s, Py_ssize_t n, int32_t id) {
    uint8_t toks[256];
    int k = n <= 255 ? tokenize(s, n, toks, 255) : -1;
    if (k <= 0) return INSERT_BAD;
    int32_t node = 0;
    for (int j = 0; j < k; j++) {
        uint8_t t = toks[j];
        int32_t last = b->last[node];
        /* Where a new child goes when it follows "last": after it (or first). */
        int32_t *link = last >= 0 ? &b->sibling[last] : &b->child[node];
        if (t == TOKEN_QU) { /* the tail, if there is one, is the "qu" child */
            if (*link >= 0) {
                node = *link;
                continue;
            }
            int32_t fresh = build_new_node(b, t);
            if (fresh < 0) return INSERT_NOMEM;
            link = last >= 0 ? &b->sibling[last] : &b->child[node]; /* arrays may have moved */
            *link = fresh;
            node = fresh;
            continue;
        }
        if (last >= 0 && b->token[last] == t) { /* the sorted-input case: same prefix */
            node = last;
            continue;
        }
        if (last < 0 || b->token[last] < t) { /* a new "last", before the "qu" child if any */
            int32_t fresh = build_new_node(b, t);
            if (fresh < 0) return INSERT_NOMEM;
            link = last >= 0 ? &b->sibling[last] : &b->child[node];
            b->sibling[fresh] = *link;
            *link = fresh;
            b->last[node] = fresh;
            node = fresh;
            continue;
        }
        int32_t prev = -1, cur = b->child[node]; /* unsorted input: between two siblings */
        while (b->token[cur] < t) { /* stops at "last" at the latest, whose token is > t */
            prev = cur;
            cur = b->sibling[cur];
        }
        if (b->token[cur] != t) {
            int32_t fresh = build_new_node(b, t);
            if (fresh < 0) return INSERT_NOMEM;
            b->sibling[fresh] = cur;
            if (prev < 0) b->child[node] = fresh;
            else b->sibling[prev] = fresh;
            cur = fresh;
        }
        node = cur;
    }
    if (b->word[node] >= 0) return INSERT_TWICE;
    b->word[node] = id;
    return INSERT_OK;
}

/* The packed trie of a finished build: breadth-first, a node's children get consecutive new
 * ids in token order. Frees nothing; NULL with an exception set on failure. */
static PyObject *build_pack(PyTypeObject *type, BuildTrie *b, const uint8_t *lengths, uint32_t n_words) {
    PackedTrie *t = (PackedTrie *)type->tp_alloc(type, 0);
    if (!t) return NULL;
    if (trie_alloc_arrays(t, b->count, n_words) < 0) {
        Py_DECREF(t);
        return NULL;
    }
    int32_t *order = PyMem_RawMalloc(b->count * sizeof(int32_t)); /* new id -> old id */
    if (!order) {
        Py_DECREF(t);
        return PyErr_NoMemory();
    }
    uint32_t head = 0, tail = 0;
    order[tail++] = 0;
    while (head < tail) {
        Node *node = &t->nodes[head];
        int32_t old = order[head++];
        uint32_t mask = 0, first = tail;
        for (int32_t c = b->child[old]; c >= 0; c = b->sibling[c]) {
            mask |= 1u << b->token[c];
            order[tail++] = c;
        }
        node->mask = mask;
        node->first = mask ? first : 0;
        node->word = b->word[old];
        node->letters = b->word[old] >= 0 ? lengths[b->word[old]] : 0;
    }
    PyMem_RawFree(order);
    return (PyObject *)t;
}

/* A bounded excerpt of a bad word for an error message. */
static PyObject *word_excerpt(const char *s, Py_ssize_t n) {
    return PyBytes_FromStringAndSize(s, n < 40 ? n : 40);
}

static PyObject *build_error(int code, Py_ssize_t i, PyObject *item, const char *s, Py_ssize_t n) {
    if (code == INSERT_NOMEM) return PyErr_NoMemory();
    PyObject *shown = item ? Py_NewRef(item) : word_excerpt(s, n);
    if (!shown) return NULL;
    if (code == INSERT_TWICE) PyErr_Format(PyExc_ValueError, "word %zd (%R) appears twice", i, shown);
    else PyErr_Format(PyExc_ValueError, "word %zd (%R) is not 1-255 letters a-z", i, shown);
    Py_DECREF(shown);
    return NULL;
}

/* PackedTrie.build(words): words is a list of distinct lowercase a-z strings, or the bytes of
 * such words each followed by "\n" but the last (Dictionary's blob, from scan_words() or the
 * cache, so a first build makes no Python string per word); word i gets id i. */
static PyObject *PackedTrie_build(PyTypeObject *type, PyObject *words) {
    int is_blob = PyBytes_Check(words);
    if (!is_blob && !PyList_Check(words)) {
        PyErr_SetString(PyExc_TypeError, "build() takes a list of words or their bytes");
        return NULL;
    }
    const char *blob = is_blob ? PyBytes_AS_STRING(words) : NULL;
    Py_ssize_t blob_len = is_blob ? PyBytes_GET_SIZE(words) : 0;
    Py_ssize_t n_words = is_blob ? (blob_len > 0) : PyList_GET_SIZE(words);
    for (Py_ssize_t at = 0; at < blob_len; at++) n_words += blob[at] == '\n';
    if (n_words >= INT32_MAX) {
        PyErr_SetString(PyExc_ValueError, "too many words");
        return NULL;
    }
    BuildTrie b = {0};
    uint8_t *lengths = PyMem_RawMalloc(n_words ? (size_t)n_words : 1);
    /* Real word lists have about one node for four letters (ENABLE2K: 389k nodes for 1.7 MB):
     * reserving that ahead saves most reallocations, which double from there if need be. */
    uint64_t hint = 1024 + (is_blob ? (uint64_t)blob_len / 3 : 3 * (uint64_t)n_words);
    if (!lengths || build_reserve(&b, hint < (1u << 26) ? hint : (1u << 26)) < 0 ||
        build_new_node(&b, 0) < 0) {
        PyMem_RawFree(lengths);
        build_free(&b);
        return PyErr_NoMemory();
    }
    PyObject *result = NULL;
    const char *s = blob;
    for (Py_ssize_t i = 0; i < n_words; i++) {
        Py_ssize_t n;
        PyObject *item = NULL;
        if (is_blob) {
            const char *end = memchr(s, '\n', (size_t)(blob + blob_len - s));
            n = (end ? end : blob + blob_len) - s;
        } else {
            item = PyList_GET_ITEM(words, i);
            s = PyUnicode_Check(item) ? PyUnicode_AsUTF8AndSize(item, &n) : NULL;
            if (!s) {
                if (!PyErr_Occurred()) PyErr_Format(PyExc_TypeError, "word %zd is not a string", i);
                goto done;
            }
        }
        int code = build_insert(&b, s, n, (int32_t)i);
        if (code != INSERT_OK) {
            build_error(code, i, item, s, n);
            goto done;
        }
        lengths[i] = (uint8_t)n;
        s += n + 1;
    }
    result = build_pack(type, &b, lengths, (uint32_t)n_words);
done:
    PyMem_RawFree(lengths);
    build_free(&b);
    return result;
}

/* ---- Reading a word list (PackedTrie.scan_words) ----------------------------------------- */

/* Python's str.isspace() on one ASCII character (str.strip() strips these). */
static inline int ascii_space(unsigned char c) {
    return c == ' ' || (c >= '\t' && c <= '\r') || (c >= 0x1c && c <= 0x1f);
}

typedef struct {
    const char *at; /* the lowercase word, in the scan's own buffer */
    uint32_t len;
} Span;

static int span_compare(const void *a, const void *b) {
    const Span *x = a, *y = b;
    uint32_t n = x->len < y->len ? x->len : y->len;
    int c = memcmp(x->at, y->at, n);
    if (c) return c;
    return (x->len > y->len) - (x->len < y->len);
}

/* One line's bounds, after a line break of bytes.splitlines() (\n, \r or \r\n). */
static const char *next_line(const char *p, const char *end, const char **line_end) {
    const char *q = p;
    while (q < end && *q != '\n' && *q != '\r') q++;
    *line_end = q;
    if (q < end && *q == '\r' && q + 1 < end && q[1] == '\n') return q + 2;
    return q < end ? q + 1 : end;
}

/* PackedTrie.scan_words(data): the fast reading of an all-ASCII word list, entry for entry the
 * one of Dictionary.from_file (dictionary.py is the specification: lines as bytes.splitlines(),
 * blank and "#" lines left out, each entry stripped and lowercased, kept when it is 3-255
 * letters a-z and not a name in a list that mixes cases). Returns None for data that is not
 * all ASCII (Python reads those), else (blob, words, longest, lines, duplicates, not_letters,
 * too_short, too_long, q_without_u, names, examples): blob is the distinct words, sorted,
 * joined by "\n"; examples the first five skipped entries, stripped, at most 40 characters. */
static PyObject *PackedTrie_scan_words(PyTypeObject *Py_UNUSED(type), PyObject *arg) {
    Py_buffer view;
    if (PyObject_GetBuffer(arg, &view, PyBUF_SIMPLE) < 0) return NULL;
    const char *data = view.buf, *end = data + view.len;
    for (Py_ssize_t i = 0; i < view.len; i++) {
        if ((unsigned char)data[i] >= 0x80) {
            PyBuffer_Release(&view);
            Py_RETURN_NONE;
        }
    }
    /* First pass: does the list mix cases? (all-lowercase entries outnumber capitalised ones) */
    Py_ssize_t lowercase = 0, capitals = 0;
    for (const char *p = data, *line_end; p < end;) {
        const char *line = p;
        p = next_line(p, end, &line_end);
        const char *a = line;
        while (a < line_end && ascii_space((unsigned char)*a)) a++;
        if (a == line_end || *a == '#') continue;
        int lower = 0, upper = 0;
        for (const char *c = a; c < line_end; c++) {
            lower |= *c >= 'a' && *c <= 'z';
            upper |= *c >= 'A' && *c <= 'Z';
        }
        if (upper) capitals++;
        else if (lower) lowercase++;
    }
    int skip_names = lowercase > capitals && capitals > 0;
    /* Second pass: keep or count each entry. Kept words are written lowercase straight into
     * the blob, which is never longer than the data; a word equal to the one before is a
     * duplicate and not kept, so a sorted list (the usual kind) is done in this one pass. */
    Py_ssize_t lines = 0, not_letters = 0, too_short = 0, too_long = 0, names = 0, kept = 0;
    Py_ssize_t size = 0, written = 0, prev_at = 0, prev_len = 0;
    int sorted = 1;
    PyObject *examples = PyList_New(0), *result = NULL;
    PyObject *blob = examples ? PyBytes_FromStringAndSize(NULL, view.len) : NULL;
    Span *spans = NULL;
    if (!blob) goto done;
    char *joined = PyBytes_AS_STRING(blob);
    for (const char *p = data, *line_end; p < end;) {
        const char *line = p;
        p = next_line(p, end, &line_end);
        const char *a = line, *z = line_end;
        while (a < z && ascii_space((unsigned char)*a)) a++;
        if (a == z || *a == '#') continue;
        while (z > a && ascii_space((unsigned char)z[-1])) z--;
        lines++;
        int letters = 1, upper = 0;
        for (const char *c = a; c < z; c++) {
            char ch = *c;
            upper |= ch >= 'A' && ch <= 'Z';
            letters &= (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z');
        }
        Py_ssize_t n = z - a, *counter = NULL;
        if (!letters) counter = &not_letters;
        else if (n < 3) counter = &too_short;
        else if (n > 255) counter = &too_long;
        else if (skip_names && upper) counter = &names;
        if (counter) {
            ++*counter;
            if (PyList_GET_SIZE(examples) < 5) {
                PyObject *example = PyUnicode_DecodeASCII(a, n < 40 ? n : 40, NULL);
                int failed = !example || PyList_Append(examples, example) < 0;
                Py_XDECREF(example);
                if (failed) goto done;
            }
            continue;
        }
        kept++;
        Py_ssize_t at = size + (written > 0); /* after a "\n" when a word came before */
        char *w = joined + at;
        for (Py_ssize_t j = 0; j < n; j++) w[j] = (char)(a[j] | 0x20); /* A-Z -> a-z */
        if (written) {
            Span before = {joined + prev_at, (uint32_t)prev_len}, here = {w, (uint32_t)n};
            int order = span_compare(&before, &here);
            if (order == 0) continue; /* a duplicate of the word before */
            if (order > 0) sorted = 0;
            joined[size] = '\n';
        }
        prev_at = at;
        prev_len = n;
        size = at + n;
        written++;
    }
    if (!sorted) { /* sort the words, then keep each once */
        spans = PyMem_RawMalloc((size_t)written * sizeof(Span));
        char *copy = spans ? PyMem_RawMalloc(size ? (size_t)size : 1) : NULL;
        if (!copy) {
            PyErr_NoMemory();
            goto done;
        }
        memcpy(copy, joined, (size_t)size);
        for (Py_ssize_t i = 0, at = 0; i < written; i++) {
            const char *w = copy + at, *stop = memchr(w, '\n', (size_t)(size - at));
            spans[i].at = w;
            spans[i].len = (uint32_t)((stop ? stop : copy + size) - w);
            at += spans[i].len + 1;
        }
        qsort(spans, (size_t)written, sizeof(Span), span_compare);
        size = 0;
        for (Py_ssize_t i = 0; i < written; i++) {
            if (i && span_compare(&spans[i - 1], &spans[i]) == 0) continue;
            if (size) joined[size++] = '\n';
            memcpy(joined + size, spans[i].at, spans[i].len);
            size += spans[i].len;
        }
        PyMem_RawFree(copy);
    }
    /* The distinct words: how many, the longest, and those with a q not followed by u. */
    Py_ssize_t words = 0, q_without_u = 0, longest = 0;
    for (Py_ssize_t at = 0; at < size;) {
        const char *w = joined + at, *stop = memchr(w, '\n', (size_t)(size - at));
        Py_ssize_t n = (stop ? stop : joined + size) - w;
        const char *q = memchr(w, 'q', (size_t)n);
        while (q) {
            if (q + 1 == w + n || q[1] != 'u') {
                q_without_u++;
                break;
            }
            q = memchr(q + 1, 'q', (size_t)(w + n - q - 1));
        }
        if (n > longest) longest = n;
        words++;
        at += n + 1;
    }
    if (_PyBytes_Resize(&blob, size) < 0) goto done;
    PyObject *example_tuple = PyList_AsTuple(examples);
    if (!example_tuple) goto done;
    result = Py_BuildValue("(OnnnnnnnnnN)", blob, words, longest, lines, kept - words,
                           not_letters, too_short, too_long, q_without_u, names, example_tuple);
done:
    Py_XDECREF(blob);
    Py_XDECREF(examples);
    PyMem_RawFree(spans);
    PyBuffer_Release(&view);
    if (!result && !PyErr_Occurred()) PyErr_NoMemory();
    return result;
}

/* Check a trie's structure so that no walk can leave its arrays. */
static int trie_validate(PackedTrie *t) {
    if (t->n_nodes == 0) {
        PyErr_SetString(PyExc_ValueError, "a trie needs a root node");
        return -1;
    }
    for (uint32_t i = 0; i < t->n_nodes; i++) {
        const Node *node = &t->nodes[i];
        uint32_t m = node->mask;
        if (m >> NTOKENS) goto bad;
        if (m) {
            uint64_t end = (uint64_t)node->first + popcount_portable(m);
            if (node->first <= i || end > t->n_nodes) goto bad;
        }
        if (node->word < -1 || node->word >= (int64_t)t->n_words) goto bad;
        if ((node->word < 0) != (node->letters == 0) || node->letters > 255) goto bad;
    }
    return 0;
bad:
    PyErr_SetString(PyExc_ValueError, "trie data is corrupt");
    return -1;
}

/* The digest of node bytes that the cache stores beside them: native 8-byte words (the last
 * one zero-padded) folded into four lanes, lane = (lane ^ word) * P, then the lanes and the
 * length folded into one. Each step is a bijection of its lane, so a change of any one word
 * always changes the digest; four lanes keep four multiplies in flight, so it runs at the
 * speed of the copy it is fused with (zlib's crc32 over ENABLE2K's 6 MB took ~3 ms).
 * tests/test_cache.py restates it in Python. */
#define DIGEST_P 0x9E3779B97F4A7C15ull

static uint64_t digest_copy(void *dest, const void *src, size_t len) {
    uint64_t lane[4] = {1, 2, 3, 4};
    const unsigned char *from = src;
    unsigned char *to = dest;
    size_t i = 0, k = 0;
    for (; i + 8 <= len; i += 8, k++) {
        uint64_t w;
        memcpy(&w, from + i, 8);
        if (to) memcpy(to + i, &w, 8);
        lane[k & 3] = (lane[k & 3] ^ w) * DIGEST_P;
    }
    if (i < len) {
        uint64_t w = 0;
        memcpy(&w, from + i, len - i);
        if (to) memcpy(to + i, from + i, len - i);
        lane[k & 3] = (lane[k & 3] ^ w) * DIGEST_P;
    }
    uint64_t h = (uint64_t)len;
    for (int j = 0; j < 4; j++) h = (h ^ lane[j]) * DIGEST_P;
    return h ^ (h >> 29);
}

/* PackedTrie.from_bytes(data, n_nodes, n_words, digest=None): the inverse of to_bytes(),
 * validated, and checked against digest() when one is given. */
static PyObject *PackedTrie_from_bytes(PyTypeObject *type, PyObject *args) {
    Py_buffer view;
    unsigned long n_nodes, n_words;
    PyObject *digest = Py_None;
    if (!PyArg_ParseTuple(args, "y*kk|O", &view, &n_nodes, &n_words, &digest)) return NULL;
    unsigned long long wanted = 0;
    if (digest != Py_None) {
        wanted = PyLong_Check(digest) ? PyLong_AsUnsignedLongLong(digest) : (unsigned long long)-1;
        if (PyErr_Occurred() || !PyLong_Check(digest)) {
            PyErr_Clear();
            PyBuffer_Release(&view);
            PyErr_SetString(PyExc_ValueError, "a trie digest is an int of 64 bits");
            return NULL;
        }
    }
    uint64_t expected = (uint64_t)n_nodes * sizeof(Node);
    if (n_nodes > UINT32_MAX / 16 || n_words > INT32_MAX || (uint64_t)view.len != expected) {
        PyBuffer_Release(&view);
        PyErr_SetString(PyExc_ValueError, "trie data has the wrong size");
        return NULL;
    }
    PackedTrie *t = (PackedTrie *)type->tp_alloc(type, 0);
    if (!t) {
        PyBuffer_Release(&view);
        return NULL;
    }
    if (trie_alloc_arrays(t, (uint32_t)n_nodes, (uint32_t)n_words) < 0) {
        PyBuffer_Release(&view);
        Py_DECREF(t);
        return NULL;
    }
    uint64_t got = digest_copy(t->nodes, view.buf, n_nodes * sizeof(Node));
    PyBuffer_Release(&view);
    if (trie_validate(t) < 0) {
        Py_DECREF(t);
        return NULL;
    }
    if (digest != Py_None && got != wanted) {
        Py_DECREF(t);
        PyErr_SetString(PyExc_ValueError, "trie data does not match its digest");
        return NULL;
    }
    return (PyObject *)t;
}

static PyObject *PackedTrie_digest(PackedTrie *t, PyObject *Py_UNUSED(ignored)) {
    return PyLong_FromUnsignedLongLong(digest_copy(NULL, t->nodes, t->n_nodes * sizeof(Node)));
}

static PyObject *PackedTrie_to_bytes(PackedTrie *t, PyObject *Py_UNUSED(ignored)) {
    return PyBytes_FromStringAndSize((const char *)t->nodes, (Py_ssize_t)(t->n_nodes * sizeof(Node)));
}

static PyObject *PackedTrie_get_nodes(PackedTrie *t, void *Py_UNUSED(c)) {
    return PyLong_FromUnsignedLong(t->n_nodes);
}

static PyObject *PackedTrie_get_words(PackedTrie *t, void *Py_UNUSED(c)) {
    return PyLong_FromUnsignedLong(t->n_words);
}

static PyMethodDef PackedTrie_methods[] = {
    {"build", (PyCFunction)PackedTrie_build, METH_O | METH_CLASS,
     "build(words) -> PackedTrie: a trie of distinct lowercase words (a list, or their bytes "
     "joined by newlines); word i gets id i."},
    {"scan_words", (PyCFunction)PackedTrie_scan_words, METH_O | METH_CLASS,
     "scan_words(data) -> tuple | None: an ASCII word list read as Dictionary.from_file reads "
     "it (see the C source); None for data that is not all ASCII."},
    {"from_bytes", (PyCFunction)PackedTrie_from_bytes, METH_VARARGS | METH_CLASS,
     "from_bytes(data, n_nodes, n_words, digest=None) -> PackedTrie: the inverse of "
     "to_bytes(), validated (and checked against digest() when one is given)."},
    {"digest", (PyCFunction)PackedTrie_digest, METH_NOARGS,
     "digest() -> int: a 64-bit digest of to_bytes(), which from_bytes() can check."},
    {"to_bytes", (PyCFunction)PackedTrie_to_bytes, METH_NOARGS,
     "to_bytes() -> bytes: the node records, for the cache."},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef PackedTrie_getset[] = {
    {"node_count", (getter)PackedTrie_get_nodes, NULL, "Number of nodes.", NULL},
    {"word_count", (getter)PackedTrie_get_words, NULL, "Number of words.", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyTypeObject PackedTrieType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "bigboggle._solve_c.PackedTrie",
    .tp_basicsize = sizeof(PackedTrie),
    .tp_dealloc = (destructor)PackedTrie_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "A trie packed into arrays (see the module's notes). Build with build() or from_bytes().",
    .tp_methods = PackedTrie_methods,
    .tp_getset = PackedTrie_getset,
};

/* ---------------------------------------------------------------------------------------- */
/* Boards and the walk                                                                        */

typedef struct {
    int ncells, rows, cols, challenge;
    uint8_t ntok[MAX_CELLS];
    uint8_t tok[MAX_CELLS][MAX_FACE_TOKENS];
} BoardSpec;

typedef struct {
    uint32_t word;
    int32_t score, bonus;
    uint32_t path_at;
    uint8_t path_len, through;
} Found;

/* Cells of a board shape (rows, cols) each cell's neighbours, in a fixed order; a Walk keeps
 * the table of the last shape it walked, since a batch is usually of one shape. */
typedef struct {
    int rows, cols;
    uint8_t nnb[MAX_CELLS];
    uint8_t nb[MAX_CELLS][8];
} Shape;

typedef struct {
    const Node *nodes;
    uint32_t n_words;
    const int32_t *points;
    int npoints, bonus;
    uint32_t *seen; /* solve walks: stamps (score walks have marks instead) */
    int32_t *slot;
    uint32_t stamp;
    Marks *marks; /* score walks: the words found on this board */
    const BoardSpec *board;
    Shape shape;
    /* Per board: the non-blank neighbours of each cell, ... */
    uint8_t nnb[MAX_CELLS];
    uint8_t nb[MAX_CELLS][8];
    /* ... the token bit of a one-token face (0 for a longer face or a blank), ... */
    uint32_t bit[MAX_CELLS];
    /* ... and the tokens the neighbours of a cell begin with: a node whose children share
     * none of them cannot go on from that cell, so its neighbour loop is skipped. */
    uint32_t near[MAX_CELLS];
    /* The score walks' neighbours, split: those with a one-token face with its bit beside it
     * (one test of the node's mask each), and the rest (two-letter faces, walked token by
     * token). The solve walk keeps the board order of nb, which decides the path it reports. */
    uint8_t nfast[MAX_CELLS], nslow[MAX_CELLS];
    uint8_t fast[MAX_CELLS][8], slow[MAX_CELLS][8];
    uint32_t fast_bit[MAX_CELLS][8];
    /* Boards of up to 64 cells: for each cell and token, the neighbours (one bit
     * a cell) whose one-token face is that token. A node's live tokens then lead straight to
     * the cells to walk, with no test of a neighbour that cannot follow. */
    uint64_t cells_by_token[64][NTOKENS];
    uint64_t slow_cells[64]; /* ... and those whose face is longer than a token */
    uint8_t used[MAX_CELLS]; /* boards over 64 cells; smaller ones keep a bitmask in a register */
    uint8_t path[MAX_CELLS];
    int challenge;
    uint64_t challenge_bit; /* 1 << challenge on boards of up to 64 cells, else 0 */
    int with_paths;
    long long total;
    long long count; /* words with points (score mode) */
    /* Points by letter count, clamped to the table's last entry: no bounds test per word. */
    int32_t points_by_letters[256];
    /* with_paths only */
    Found *found;
    size_t nfound, found_cap;
    uint8_t *paths;
    size_t paths_len, paths_cap;
    int oom;
} Walk;

static inline int32_t points_for(const Walk *w, uint32_t letters) {
    return (int)letters < w->npoints ? w->points[letters] : w->points[w->npoints - 1];
}

static int store_path(Walk *w, int len) {
    if (w->paths_len + (size_t)len > w->paths_cap) {
        size_t cap = w->paths_cap ? w->paths_cap * 2 : 4096;
        while (cap < w->paths_len + (size_t)len) cap *= 2;
        uint8_t *grown = PyMem_RawRealloc(w->paths, cap);
        if (!grown) return -1;
        w->paths = grown;
        w->paths_cap = cap;
    }
    memcpy(w->paths + w->paths_len, w->path, (size_t)len);
    w->paths_len += (size_t)len;
    return 0;
}

/* A word found in score mode: its points the first time on this board, and the challenge
 * bonus the first time a path through the challenge cell spells it. */
static inline void record_score(Walk *w, uint32_t word, uint32_t letters, int through) {
    Marks *m = w->marks;
    const uint64_t bit = (uint64_t)1 << (word & 63);
    uint64_t *seen = &m->seen[word >> 6];
    if (!(*seen & bit)) {
        *seen |= bit;
        m->marked[m->count++] = word;
        int32_t p = w->points_by_letters[letters];
        w->total += p;
        w->count += p > 0;
        if (through && p) {
            m->through[word >> 6] |= bit;
            w->total += w->bonus;
        }
    } else if (through && !(m->through[word >> 6] & bit) && w->points_by_letters[letters]) {
        m->through[word >> 6] |= bit;
        w->total += w->bonus;
    }
}

/* A word found in solve mode (w->path holds its `len` cells): kept with its first path, or
 * with the first path through the challenge cell once one spells it. */
static inline void record(Walk *w, uint32_t word, uint32_t letters, int len, int through) {
    int32_t p = w->points_by_letters[letters];
    if (!p || w->oom) return;
    if (w->seen[word] != w->stamp) {
        if (w->nfound == w->found_cap) {
            size_t cap = w->found_cap ? w->found_cap * 2 : 256;
            Found *grown = PyMem_RawRealloc(w->found, cap * sizeof(Found));
            if (!grown) {
                w->oom = 1;
                return;
            }
            w->found = grown;
            w->found_cap = cap;
        }
        uint32_t at = (uint32_t)w->paths_len;
        if (store_path(w, len) < 0) {
            w->oom = 1;
            return;
        }
        w->seen[word] = w->stamp;
        w->slot[word] = (int32_t)w->nfound;
        Found *f = &w->found[w->nfound++];
        f->word = word;
        f->score = p + (through ? w->bonus : 0);
        f->bonus = through ? w->bonus : 0;
        f->path_at = at;
        f->path_len = (uint8_t)len;
        f->through = (uint8_t)through;
    } else if (through) {
        Found *f = &w->found[w->slot[word]];
        if (f->through) return;
        uint32_t at = (uint32_t)w->paths_len;
        if (store_path(w, len) < 0) {
            w->oom = 1;
            return;
        }
        f->score = p + w->bonus;
        f->bonus = w->bonus;
        f->path_at = at;
        f->path_len = (uint8_t)len;
        f->through = 1;
    }
}

static void next_stamp(Walk *w) {
    if (++w->stamp == 0) {
        memset(w->seen, 0, w->n_words * sizeof(uint32_t));
        w->stamp = 1;
    }
}

/* For a board of up to 64 cells (its shape's neighbours in `shape`): each cell's non-blank
 * neighbours as cell bitmasks, by_token[cell][t] those whose face is the one token t and
 * longer[cell] those whose face is longer, leaving out cell `skip` (-1: none). The narrow
 * walks take the neighbours to walk from these and a node's tokens. */
static void neighbours_by_token(uint64_t (*by_token)[NTOKENS], uint64_t *longer,
                                const BoardSpec *b, const Shape *shape, int skip) {
    memset(by_token, 0, (size_t)b->ncells * sizeof(by_token[0]));
    for (int cell = 0; cell < b->ncells; cell++) {
        uint64_t slow = 0;
        for (int i = 0; i < shape->nnb[cell]; i++) {
            const int n = shape->nb[cell][i];
            if (n == skip || !b->ntok[n]) continue;
            if (b->ntok[n] == 1) by_token[cell][b->tok[n][0]] |= (uint64_t)1 << n;
            else slow |= (uint64_t)1 << n;
        }
        longer[cell] = slow;
    }
}

/* score_alternatives' walk (_solve_c_alternatives.h): one board with the faces of one cell
 * varying, up to MAX_ALTERNATIVES of them. */
#define MAX_ALTERNATIVES 31
#define ALT_ANY (1u << 31) /* a path that misses the varying cell: the word is there for every face */

typedef struct {
    uint32_t word;
    int32_t points;
} AltWord;

typedef struct {
    const Node *nodes;
    const BoardSpec *board;
    const Shape *shape;
    int cell, nfaces;
    uint8_t face_ntok[MAX_ALTERNATIVES];
    uint8_t face_tok[MAX_ALTERNATIVES][MAX_FACE_TOKENS];
    const int32_t *points_by_letters;
    uint32_t *seen, *faces_of, stamp;
    AltWord *words; /* each word with points found, once */
    size_t nwords, words_cap;
    int oom;
    uint8_t used[MAX_CELLS];
    uint32_t bit[MAX_CELLS];  /* the token bit of a one-token face; 0 for others and the cell */
    uint32_t near[MAX_CELLS]; /* the tokens the cell's neighbours begin with */
    /* Boards of up to 64 cells, as the Walk's: each cell's neighbours by one-token face and
     * those with longer faces (the varying cell in neither), and the varying cell's bit
     * where it is a neighbour. */
    uint64_t cells_by_token[64][NTOKENS];
    uint64_t slow_cells[64], vary_near[64];
} AltWalk;

/* A word reached by a path that took face `alt` at the varying cell (-1: missed it). */
static inline void alt_record(AltWalk *a, uint32_t word, uint32_t letters, int alt) {
    const int32_t points = a->points_by_letters[letters];
    if (!points) return;
    const uint32_t bit = alt < 0 ? ALT_ANY : 1u << alt;
    if (a->seen[word] == a->stamp) {
        a->faces_of[word] |= bit;
        return;
    }
    if (a->nwords == a->words_cap) {
        size_t cap = a->words_cap ? a->words_cap * 2 : 1024;
        AltWord *grown = PyMem_RawRealloc(a->words, cap * sizeof(AltWord));
        if (!grown) {
            a->oom = 1;
            return;
        }
        a->words = grown;
        a->words_cap = cap;
    }
    a->seen[word] = a->stamp;
    a->faces_of[word] = bit;
    a->words[a->nwords].word = word;
    a->words[a->nwords++].points = points;
}

/* The walk spends much of its time counting bits, and x86-64's baseline has no popcount
 * instruction. So the walk (in _solve_c_walk.h) is compiled twice, once counting bits
 * portably and once with the instruction, and the module picks at load time. */

#define WALK_CAT_(a, b) a##b
#define WALK_CAT(a, b) WALK_CAT_(a, b)
#define WALK_BOARD walk_board_portable
#define WALK_STEP step_cell_portable
#define WALK_POPCOUNT(x) popcount_portable(x)
#define WALK_TARGET
#include "_solve_c_walk.h"
#include "_solve_c_alternatives.h"
#undef WALK_BOARD
#undef WALK_STEP
#undef WALK_POPCOUNT
#undef WALK_TARGET

#if (defined(__GNUC__) || defined(__clang__)) && defined(__x86_64__)
#define HAVE_POPCNT_BUILD 1
#define WALK_BOARD walk_board_popcnt
#define WALK_STEP step_cell_popcnt
#define WALK_POPCOUNT(x) ((uint32_t)__builtin_popcount(x))
#define WALK_TARGET __attribute__((target("popcnt")))
#include "_solve_c_walk.h"
#include "_solve_c_alternatives.h"
#undef WALK_BOARD
#undef WALK_STEP
#undef WALK_POPCOUNT
#undef WALK_TARGET
#endif

static void (*walk_board)(Walk *, const BoardSpec *) = walk_board_portable;
static void (*walk_alternatives)(AltWalk *) = walk_board_portable_alternatives;

static void choose_walk(void) {
#ifdef HAVE_POPCNT_BUILD
    __builtin_cpu_init();
    if (__builtin_cpu_supports("popcnt")) {
        walk_board = walk_board_popcnt;
        walk_alternatives = walk_board_popcnt_alternatives;
    }
#endif
}

/* ---------------------------------------------------------------------------------------- */
/* Arguments                                                                                  */

/* Read (letters, rows, cols, challenge) into a BoardSpec. */
static int read_board(PyObject *letters, int rows, int cols, int challenge, BoardSpec *b) {
    if (rows < 1 || cols < 1 || rows > MAX_SIDE || cols > MAX_SIDE) {
        PyErr_Format(PyExc_ValueError, "a board is 1-%d rows and columns, not %dx%d", MAX_SIDE,
                     rows, cols);
        return -1;
    }
    PyObject *seq = PySequence_Fast(letters, "letters must be a sequence of strings");
    if (!seq) return -1;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    if (n != (Py_ssize_t)rows * cols) {
        Py_DECREF(seq);
        PyErr_Format(PyExc_ValueError, "%zd letters for a %dx%d board", n, rows, cols);
        return -1;
    }
    if (challenge < -1 || challenge >= n) {
        Py_DECREF(seq);
        PyErr_Format(PyExc_ValueError, "challenge cell %d is off the board", challenge);
        return -1;
    }
    b->ncells = (int)n;
    b->rows = rows;
    b->cols = cols;
    b->challenge = challenge;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *item = PySequence_Fast_GET_ITEM(seq, i);
        Py_ssize_t len;
        const char *s = PyUnicode_Check(item) ? PyUnicode_AsUTF8AndSize(item, &len) : NULL;
        int k = s ? tokenize(s, len, b->tok[i], MAX_FACE_TOKENS) : -1;
        if (k < 0) {
            Py_DECREF(seq);
            if (!PyErr_Occurred())
                PyErr_Format(PyExc_ValueError, "cell %zd: %R is not a face of 0-3 letters a-z", i,
                             item);
            return -1;
        }
        b->ntok[i] = (uint8_t)k;
    }
    Py_DECREF(seq);
    return 0;
}

/* Read the points table (a sequence of non-negative ints, one per letter count). */
static int32_t *read_points(PyObject *points, int *count) {
    PyObject *seq = PySequence_Fast(points, "points must be a sequence of ints");
    if (!seq) return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    if (n < 1 || n > 4096) {
        Py_DECREF(seq);
        PyErr_SetString(PyExc_ValueError, "points must have 1-4096 entries");
        return NULL;
    }
    int32_t *out = PyMem_RawMalloc((size_t)n * sizeof(int32_t));
    if (!out) {
        Py_DECREF(seq);
        PyErr_NoMemory();
        return NULL;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        long v = PyLong_AsLong(PySequence_Fast_GET_ITEM(seq, i));
        if (v == -1 && PyErr_Occurred()) {
            PyMem_RawFree(out);
            Py_DECREF(seq);
            return NULL;
        }
        if (v < 0 || v > 1000000) {
            PyMem_RawFree(out);
            Py_DECREF(seq);
            PyErr_SetString(PyExc_ValueError, "points must be 0-1000000");
            return NULL;
        }
        out[i] = (int32_t)v;
    }
    Py_DECREF(seq);
    *count = (int)n;
    return out;
}

static void walk_init(Walk *w, PackedTrie *t, const int32_t *points, int npoints, int bonus) {
    memset(w, 0, sizeof(*w));
    w->nodes = t->nodes;
    w->n_words = t->n_words;
    w->points = points;
    w->npoints = npoints;
    w->bonus = bonus;
    /* Letter counts run 0-255 (trie_validate); past the table's end a word scores its last. */
    for (int letters = 0; letters < 256; letters++)
        w->points_by_letters[letters] = points_for(w, (uint32_t)letters);
}

static void walk_use_trie_state(Walk *w, PackedTrie *t) {
    w->seen = t->seen;
    w->slot = t->slot;
    w->stamp = t->stamp;
    w->marks = &t->marks;
}

/* The order of the results: highest score first, then by word id (alphabetical). Returns an
 * array of indices into w->found (or NULL when out of memory), sorted by an LSD radix sort of
 * one key per entry, (top score - score) above the word id: cheaper than qsort's comparisons
 * and copies for these few hundred entries. Scores stay below 2^21 (points and bonus are capped
 * at 10^6) and ids below 2^31, so a key always fits 64 bits. */
static uint32_t *sorted_order(const Walk *w) {
    size_t n = w->nfound;
    uint64_t *keys = PyMem_RawMalloc((n ? n : 1) * 2 * sizeof(uint64_t));
    uint32_t *order = PyMem_RawMalloc((n ? n : 1) * sizeof(uint32_t));
    if (!keys || !order) {
        PyMem_RawFree(keys);
        PyMem_RawFree(order);
        return NULL;
    }
    int32_t top = 0;
    for (size_t i = 0; i < n; i++)
        if (w->found[i].score > top) top = w->found[i].score;
    int word_bits = 1;
    while (((uint64_t)1 << word_bits) <= w->n_words) word_bits++;
    uint64_t used = 0;
    for (size_t i = 0; i < n; i++) {
        const Found *f = &w->found[i];
        keys[i] = ((uint64_t)(uint32_t)(top - f->score) << word_bits) | f->word;
        used |= keys[i];
    }
    uint64_t *from = keys, *to = keys + n;
    for (int shift = 0; shift < 64 && (used >> shift); shift += 8) {
        size_t count[257] = {0};
        for (size_t i = 0; i < n; i++) count[((from[i] >> shift) & 0xFF) + 1]++;
        for (int d = 0; d < 256; d++) count[d + 1] += count[d];
        for (size_t i = 0; i < n; i++) to[count[(from[i] >> shift) & 0xFF]++] = from[i];
        uint64_t *swap = from;
        from = to;
        to = swap;
    }
    uint64_t word_mask = ((uint64_t)1 << word_bits) - 1;
    for (size_t i = 0; i < n; i++) order[i] = (uint32_t)w->slot[from[i] & word_mask];
    PyMem_RawFree(keys);
    return order;
}

/* ---------------------------------------------------------------------------------------- */
/* The contract                                                                               */

/* Check and read one board's arguments into *board, then walk it with the trie's own
 * de-duplication state (the GIL is held throughout). Results are in *w; with paths, the caller
 * frees w->found and w->paths. Returns -1 with an exception set on bad arguments. */
static int walk_one(PackedTrie *t, PyObject *letters, int rows, int cols, int challenge,
                    PyObject *points_obj, int bonus, int with_paths, BoardSpec *board, Walk *w) {
    if (bonus < 0 || bonus > 1000000) {
        PyErr_SetString(PyExc_ValueError, "bonus must be 0-1000000");
        return -1;
    }
    if (read_board(letters, rows, cols, challenge, board) < 0) return -1;
    int npoints;
    int32_t *points = read_points(points_obj, &npoints);
    if (!points) return -1;
    walk_init(w, t, points, npoints, bonus);
    walk_use_trie_state(w, t);
    w->with_paths = with_paths;
    walk_board(w, board);
    t->stamp = w->stamp;
    PyMem_RawFree(points);
    w->points = NULL;
    return 0;
}

/* The (row, col) tuple of every cell of the largest board, made once and shared by every path
 * of every solve: a path is then one tuple of borrowed positions, and a solve allocates no
 * position. Built on first use (the GIL is held), never freed, like the module. Positions
 * hold only ints, so they can never be part of a reference cycle: the collector need not
 * track them. */
static PyObject *positions[MAX_SIDE][MAX_SIDE];

static int ensure_positions(void) {
    if (positions[MAX_SIDE - 1][MAX_SIDE - 1]) return 0;
    for (int r = 0; r < MAX_SIDE; r++) {
        for (int c = 0; c < MAX_SIDE; c++) {
            if (positions[r][c]) continue;
            PyObject *pos = Py_BuildValue("(ii)", r, c);
            if (!pos) return -1;
            PyObject_GC_UnTrack(pos);
            positions[r][c] = pos;
        }
    }
    return 0;
}

/* The list slot of the word of result entry i, or NULL past the end. The list is read afresh,
 * its bounds checked, since Python code may have run since the walk. */
static inline PyObject **word_slot(PyObject *words, const Walk *w, const uint32_t *order,
                                   size_t i) {
    if (i >= w->nfound) return NULL;
    uint32_t id = w->found[order[i]].word;
    return (Py_ssize_t)id < PyList_GET_SIZE(words) ? &PyList_GET_ITEM(words, id) : NULL;
}

/* Prefetch distances, in result entries: see solve_cells. */
#define SLOT_AHEAD 16
#define WORD_AHEAD 8

/* One result entry, make(word, path, score, bonus), for a found word; NULL with an exception
 * set. `untrack` says the entry cannot hold a reference cycle (a tuple type without a
 * __dict__, whose fields are a str, ints and a path of positions): it is then left out of the
 * collector's young generation, which a solve of hundreds of words would otherwise fill. */
static PyObject *make_entry(PyTypeObject *make, PyObject *words, const Walk *w, const Found *f,
                            int cols, int untrack) {
    PyObject *path = PyTuple_New(f->path_len);
    if (!path) return NULL;
    for (int j = 0; j < f->path_len; j++) {
        int cell = w->paths[f->path_at + (uint32_t)j];
        PyObject *pos = positions[cell / cols][cell % cols];
        Py_INCREF(pos);
        PyTuple_SET_ITEM(path, j, pos);
    }
    PyObject_GC_UnTrack(path);
    PyObject *score = PyLong_FromLong(f->score);
    PyObject *bonus_value = PyLong_FromLong(f->bonus);
    PyObject *entry = make->tp_alloc(make, 4);
#if PY_VERSION_HEX >= 0x030E0000
    /* 3.14 caches tuple hashes; tp_alloc zero-fills, and 0 would read as a cached hash. */
    if (entry) ((PyTupleObject *)entry)->ob_hash = -1;
#endif
    PyObject *word = entry ? PyList_GetItem(words, f->word) : NULL; /* checked: Python code
                                                                       may have run */
    if (!score || !bonus_value || !entry || !word) {
        Py_XDECREF(score);
        Py_XDECREF(bonus_value);
        Py_XDECREF(entry);
        Py_DECREF(path);
        return NULL;
    }
    Py_INCREF(word);
    PyTuple_SET_ITEM(entry, 0, word);
    PyTuple_SET_ITEM(entry, 1, path);
    PyTuple_SET_ITEM(entry, 2, score);
    PyTuple_SET_ITEM(entry, 3, bonus_value);
    if (untrack) PyObject_GC_UnTrack(entry);
    return entry;
}

static PyObject *solve_cells(PyObject *Py_UNUSED(module), PyObject *args) {
    PyObject *trie_obj, *words, *letters, *points_obj;
    PyTypeObject *make;
    int rows, cols, challenge, bonus;
    if (!PyArg_ParseTuple(args, "O!O!OiiiOiO!:solve_cells", &PackedTrieType, &trie_obj,
                          &PyList_Type, &words, &letters, &rows, &cols, &challenge, &points_obj,
                          &bonus, &PyType_Type, &make))
        return NULL;
    PackedTrie *t = (PackedTrie *)trie_obj;
    if (PyList_GET_SIZE(words) != (Py_ssize_t)t->n_words) {
        PyErr_SetString(PyExc_ValueError, "words do not match the trie");
        return NULL;
    }
    if (!PyType_IsSubtype(make, &PyTuple_Type)) {
        PyErr_SetString(PyExc_TypeError, "make must be a tuple subclass of four fields");
        return NULL;
    }
    if (ensure_positions() < 0) return NULL;
    BoardSpec board;
    Walk w;
    if (walk_one(t, letters, rows, cols, challenge, points_obj, bonus, 1, &board, &w) < 0)
        return NULL;
    PyObject *result = NULL;
    uint32_t *order = NULL;
    if (w.oom) {
        PyErr_NoMemory();
        goto done;
    }
    order = sorted_order(&w);
    if (!order) {
        PyErr_NoMemory();
        goto done;
    }
    result = PyList_New((Py_ssize_t)w.nfound);
    if (!result) goto done;
    /* The dictionary's word list is larger than the caches and its strings are scattered
     * over the heap, so taking each word costs two dependent cache misses (its slot in the
     * list, then the string's reference count): measured at a fifth of a solve. Asking for
     * the slot SLOT_AHEAD entries ahead and the string WORD_AHEAD ahead lets those misses
     * overlap instead of queueing one behind the other. The prefetches stay in this loop:
     * GCC deems a helper that only prefetches pure, and drops its calls. */
    for (size_t i = 0; i < SLOT_AHEAD; i++) {
        PyObject **slot = word_slot(words, &w, order, i);
        if (slot) __builtin_prefetch(slot);
    }
    int untrack = make->tp_dictoffset == 0 && make->tp_basicsize == PyTuple_Type.tp_basicsize;
    for (size_t i = 0; i < w.nfound; i++) {
        PyObject **slot = word_slot(words, &w, order, i + SLOT_AHEAD);
        if (slot) __builtin_prefetch(slot);
        slot = word_slot(words, &w, order, i + WORD_AHEAD);
        if (slot) __builtin_prefetch(*slot, 1);
        PyObject *entry = make_entry(make, words, &w, &w.found[order[i]], cols, untrack);
        if (!entry) {
            Py_CLEAR(result);
            goto done;
        }
        PyList_SET_ITEM(result, (Py_ssize_t)i, entry);
    }
done:
    PyMem_RawFree(order);
    PyMem_RawFree(w.found);
    PyMem_RawFree(w.paths);
    return result;
}

static PyObject *score_cells(PyObject *Py_UNUSED(module), PyObject *args) {
    PyObject *trie_obj, *letters, *points_obj;
    int rows, cols, challenge, bonus;
    if (!PyArg_ParseTuple(args, "O!OiiiOi:score_cells", &PackedTrieType, &trie_obj, &letters,
                          &rows, &cols, &challenge, &points_obj, &bonus))
        return NULL;
    BoardSpec board;
    Walk w;
    if (walk_one((PackedTrie *)trie_obj, letters, rows, cols, challenge, points_obj, bonus, 0,
                 &board, &w) < 0)
        return NULL;
    return PyLong_FromLongLong(w.total);
}

/* How a batch reads its board `index` into `b`, with the GIL: 0, or -1 with an exception. */
typedef int (*BoardReader)(void *source, Py_ssize_t index, BoardSpec *b);

/* Score `n` boards that `read` takes from `source`, BATCH_CHUNK at a time: read with the GIL,
 * walked without it. A list of totals, or of (total, count) pairs with `with_counts`. The one
 * loop of every batch form: cell tuples here, texts and lines in _solve_c_text.h. */
static PyObject *score_boards(PackedTrie *t, Py_ssize_t n, PyObject *points_obj, int bonus,
                              int with_counts, BoardReader read, void *source) {
    if (bonus < 0 || bonus > 1000000) {
        PyErr_SetString(PyExc_ValueError, "bonus must be 0-1000000");
        return NULL;
    }
    int npoints;
    int32_t *points = read_points(points_obj, &npoints);
    if (!points) return NULL;
    PyObject *result = PyList_New(n);
    BoardSpec *specs = PyMem_RawMalloc(sizeof(BoardSpec) * BATCH_CHUNK);
    long long *totals = PyMem_RawMalloc(sizeof(long long) * BATCH_CHUNK);
    long long *counts = PyMem_RawMalloc(sizeof(long long) * BATCH_CHUNK);
    Walk w;
    walk_init(&w, t, points, npoints, bonus);
    Marks marks;
    int marked = marks_alloc(&marks, t->n_words);
    w.marks = &marks;
    if (!result || !specs || !totals || !counts || marked < 0) {
        if (result) PyErr_NoMemory();
        Py_CLEAR(result);
        goto done;
    }
    for (Py_ssize_t start = 0; start < n; start += BATCH_CHUNK) {
        Py_ssize_t count = n - start < BATCH_CHUNK ? n - start : BATCH_CHUNK;
        for (Py_ssize_t i = 0; i < count; i++) {
            if (read(source, start + i, &specs[i]) < 0) {
                Py_CLEAR(result);
                goto done;
            }
        }
        Py_BEGIN_ALLOW_THREADS
        for (Py_ssize_t i = 0; i < count; i++) {
            walk_board(&w, &specs[i]);
            totals[i] = w.total;
            counts[i] = w.count;
        }
        Py_END_ALLOW_THREADS
        for (Py_ssize_t i = 0; i < count; i++) {
            PyObject *value = with_counts ? Py_BuildValue("(LL)", totals[i], counts[i])
                                          : PyLong_FromLongLong(totals[i]);
            if (!value) {
                Py_CLEAR(result);
                goto done;
            }
            PyList_SET_ITEM(result, start + i, value);
        }
    }
done:
    PyMem_RawFree(points);
    PyMem_RawFree(specs);
    PyMem_RawFree(totals);
    PyMem_RawFree(counts);
    marks_free(&marks);
    return result;
}

/* Board `index` of a tuple of (letters, rows, cols, challenge). */
static int read_cell_tuple(void *source, Py_ssize_t index, BoardSpec *b) {
    PyObject *item = PyTuple_GET_ITEM((PyObject *)source, index), *letters;
    int rows, cols, challenge;
    if (!PyTuple_Check(item) ||
        !PyArg_ParseTuple(item, "Oiii", &letters, &rows, &cols, &challenge) ||
        read_board(letters, rows, cols, challenge, b) < 0) {
        if (!PyErr_Occurred() || PyErr_ExceptionMatches(PyExc_TypeError)) {
            PyErr_Clear();
            PyErr_Format(PyExc_TypeError, "board %zd must be (letters, rows, cols, challenge)",
                         index);
        }
        return -1;
    }
    return 0;
}

/* score_batch(trie, boards, points, bonus): boards is a list of (letters, rows, cols,
 * challenge); the walk runs without the GIL, a chunk of boards at a time. */
static PyObject *batch(PyObject *args, const char *format, int with_counts) {
    PyObject *trie_obj, *boards, *points_obj;
    int bonus;
    if (!PyArg_ParseTuple(args, format, &PackedTrieType, &trie_obj, &PyList_Type, &boards,
                          &points_obj, &bonus))
        return NULL;
    /* A tuple copy: reading the boards may run Python code that changes the list. */
    PyObject *items = PySequence_Tuple(boards);
    if (!items) return NULL;
    PyObject *result = score_boards((PackedTrie *)trie_obj, PyTuple_GET_SIZE(items), points_obj,
                                    bonus, with_counts, read_cell_tuple, items);
    Py_DECREF(items);
    return result;
}

static PyObject *score_batch(PyObject *Py_UNUSED(module), PyObject *args) {
    return batch(args, "O!O!Oi:score_batch", 0);
}

/* tally_batch(trie, boards, points, bonus): (total, words with points) for each board. */
static PyObject *tally_batch(PyObject *Py_UNUSED(module), PyObject *args) {
    return batch(args, "O!O!Oi:tally_batch", 1);
}

/* walk_variant(name=None) -> str: the bit-counting build of the walk in use ("popcnt" or
 * "portable"); with a name, switch to it first. For tests, which check both builds agree. */
static PyObject *walk_variant(PyObject *Py_UNUSED(module), PyObject *args) {
    const char *name = NULL;
    if (!PyArg_ParseTuple(args, "|z:walk_variant", &name)) return NULL;
    if (name) {
        if (strcmp(name, "portable") == 0) {
            walk_board = walk_board_portable;
            walk_alternatives = walk_board_portable_alternatives;
        }
#ifdef HAVE_POPCNT_BUILD
        else if (strcmp(name, "popcnt") == 0 && __builtin_cpu_supports("popcnt")) {
            walk_board = walk_board_popcnt;
            walk_alternatives = walk_board_popcnt_alternatives;
        }
#endif
        else {
            PyErr_Format(PyExc_ValueError, "walk variant %R is not available here", PyTuple_GET_ITEM(args, 0));
            return NULL;
        }
    }
#ifdef HAVE_POPCNT_BUILD
    if (walk_board == walk_board_popcnt) return PyUnicode_FromString("popcnt");
#endif
    return PyUnicode_FromString("portable");
}

/* The board's total with each of `faces` at `cell` (challenge and bonus play no part). */
static PyObject *score_alternatives(PyObject *Py_UNUSED(module), PyObject *args) {
    PyObject *trie_obj, *letters, *faces_obj, *points_obj;
    int rows, cols, cell;
    if (!PyArg_ParseTuple(args, "O!OiiiOO:score_alternatives", &PackedTrieType, &trie_obj,
                          &letters, &rows, &cols, &cell, &faces_obj, &points_obj))
        return NULL;
    PackedTrie *t = (PackedTrie *)trie_obj;
    BoardSpec board;
    if (read_board(letters, rows, cols, -1, &board) < 0) return NULL;
    if (cell < 0 || cell >= board.ncells) {
        PyErr_Format(PyExc_ValueError, "cell %d is off the board", cell);
        return NULL;
    }
    AltWalk a;
    memset(&a, 0, offsetof(AltWalk, used));
    PyObject *seq = PySequence_Fast(faces_obj, "faces must be a sequence of strings");
    if (!seq) return NULL;
    Py_ssize_t nfaces = PySequence_Fast_GET_SIZE(seq);
    if (nfaces < 1 || nfaces > MAX_ALTERNATIVES) {
        Py_DECREF(seq);
        PyErr_Format(PyExc_ValueError, "faces must have 1-%d entries, not %zd", MAX_ALTERNATIVES,
                     nfaces);
        return NULL;
    }
    for (Py_ssize_t i = 0; i < nfaces; i++) {
        PyObject *item = PySequence_Fast_GET_ITEM(seq, i);
        Py_ssize_t len;
        const char *s = PyUnicode_Check(item) ? PyUnicode_AsUTF8AndSize(item, &len) : NULL;
        int k = s ? tokenize(s, len, a.face_tok[i], MAX_FACE_TOKENS) : -1;
        if (k < 0) {
            Py_DECREF(seq);
            if (!PyErr_Occurred())
                PyErr_Format(PyExc_ValueError, "face %zd: %R is not a face of 0-3 letters a-z", i,
                             item);
            return NULL;
        }
        a.face_ntok[i] = (uint8_t)k;
    }
    Py_DECREF(seq);
    int npoints;
    int32_t *points = read_points(points_obj, &npoints);
    if (!points) return NULL;
    if (!t->faces_of) {
        t->faces_of = PyMem_RawMalloc((t->n_words ? t->n_words : 1) * sizeof(uint32_t));
        if (!t->faces_of) {
            PyMem_RawFree(points);
            return PyErr_NoMemory();
        }
    }
    int32_t points_by_letters[256];
    for (int n = 0; n < 256; n++)
        points_by_letters[n] = n < npoints ? points[n] : points[npoints - 1];
    PyMem_RawFree(points);
    Shape shape;
    shape.rows = shape.cols = 0;
    walk_board_portable_shape(&shape, rows, cols);
    if (++t->stamp == 0) { /* as next_stamp: every stamp the trie's calls share starts afresh */
        memset(t->seen, 0, t->n_words * sizeof(uint32_t));
        t->stamp = 1;
    }
    a.nodes = t->nodes;
    a.board = &board;
    a.shape = &shape;
    a.cell = cell;
    a.nfaces = (int)nfaces;
    a.points_by_letters = points_by_letters;
    a.seen = t->seen;
    a.faces_of = t->faces_of;
    a.stamp = t->stamp;
    walk_alternatives(&a);
    if (a.oom) {
        PyMem_RawFree(a.words);
        return PyErr_NoMemory();
    }
    long long every = 0, only[MAX_ALTERNATIVES] = {0};
    for (size_t i = 0; i < a.nwords; i++) {
        uint32_t faces = t->faces_of[a.words[i].word];
        if (faces & ALT_ANY) {
            every += a.words[i].points;
            continue;
        }
        for (int f = 0; faces; f++, faces >>= 1)
            if (faces & 1) only[f] += a.words[i].points;
    }
    PyMem_RawFree(a.words);
    PyObject *result = PyList_New(nfaces);
    if (!result) return NULL;
    for (Py_ssize_t i = 0; i < nfaces; i++) {
        PyObject *value = PyLong_FromLongLong(every + only[i]);
        if (!value) {
            Py_DECREF(result);
            return NULL;
        }
        PyList_SET_ITEM(result, i, value);
    }
    return result;
}

/* Board texts and lines of them straight to the walk: parse_text, score_texts, tally_texts,
 * score_lines, tally_lines (see the header). */
#include "_solve_c_text.h"

static PyMethodDef module_methods[] = {
    TEXT_METHODS
    {"walk_variant", walk_variant, METH_VARARGS,
     "walk_variant(name=None) -> str: the build of the walk in use; switch with a name."},
    {"solve_cells", solve_cells, METH_VARARGS,
     "solve_cells(trie, words, letters, rows, cols, challenge, points, bonus, make) -> list:\n"
     "every word with points, as make(word, path, score, bonus), best first."},
    {"score_cells", score_cells, METH_VARARGS,
     "score_cells(trie, letters, rows, cols, challenge, points, bonus) -> int: total points."},
    {"score_alternatives", score_alternatives, METH_VARARGS,
     "score_alternatives(trie, letters, rows, cols, cell, faces, points) -> list[int]: the\n"
     "total with each of faces at cell, in one walk."},
    {"score_batch", score_batch, METH_VARARGS,
     "score_batch(trie, boards, points, bonus) -> list[int]: totals, without the GIL."},
    {"tally_batch", tally_batch, METH_VARARGS,
     "tally_batch(trie, boards, points, bonus) -> list[(total, words)], without the GIL."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT,
    .m_name = "bigboggle._solve_c",
    .m_doc = "The compiled solver core of bigboggle (same contract as bigboggle._solve_py).",
    .m_size = -1,
    .m_methods = module_methods,
};

PyMODINIT_FUNC PyInit__solve_c(void) {
    choose_walk();
    if (PyType_Ready(&PackedTrieType) < 0) return NULL;
    PyObject *m = PyModule_Create(&module_def);
    if (!m) return NULL;
    Py_INCREF(&PackedTrieType);
    if (PyModule_AddObject(m, "PackedTrie", (PyObject *)&PackedTrieType) < 0) {
        Py_DECREF(&PackedTrieType);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
