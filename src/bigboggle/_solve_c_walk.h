/*
 * The walk of one board, included twice by _solve_c.c: once with a portable bit count and once
 * built for CPUs with a popcount instruction. Expects WALK_BOARD, WALK_STEP, WALK_POPCOUNT and
 * WALK_TARGET to be defined, and Walk, BoardSpec, Shape, Node, record(), record_score(),
 * next_stamp() and WALK_CAT().
 *
 * The walk from a cell (FROM_NAME) is itself a template this file instantiates by including
 * itself with WALK_FROM_BODY defined: one walk per kind of call, so that the one a batch runs
 * has no test of its mode per visit.
 *   - score, narrow: scores only, on boards of up to 64 cells; the used cells are a bitmask
 *     passed by value (a register), so nothing is written per visit and nothing undone, and
 *     the neighbours to walk come from the node's tokens (cells_by_token), not from testing
 *     each neighbour: 1.45x the speed of the neighbour loop on 5x5 boards;
 *   - score, wide: scores only, on boards of 65-144 cells, with a byte per used cell;
 *   - paths: words and one path each (solve), on boards of 65-144 cells, with a byte per used
 *     cell (smaller boards: _paths_narrow, below, with a bitmask).
 */

#ifndef WALK_FROM_BODY

/* The node reached from a node (its mask and first child) by a cell's tokens, or UINT32_MAX. */
WALK_TARGET static inline uint32_t WALK_STEP(const Node *nodes, uint32_t mask, uint32_t first,
                                             const uint8_t *tok, int ntok) {
    uint32_t index = UINT32_MAX;
    for (int j = 0; j < ntok; j++) {
        uint32_t bit = 1u << tok[j];
        if (!(mask & bit)) return UINT32_MAX;
        index = first + WALK_POPCOUNT(mask & (bit - 1));
        mask = nodes[index].mask;
        first = nodes[index].first;
    }
    return index;
}

#define WALK_FROM_BODY
#define FROM_NAME WALK_CAT(WALK_BOARD, _score_narrow)
#define FROM_PATHS 0
#define FROM_WIDE 0
#include "_solve_c_walk.h"
#undef FROM_NAME
#undef FROM_PATHS
#undef FROM_WIDE
#define FROM_NAME WALK_CAT(WALK_BOARD, _score_wide)
#define FROM_PATHS 0
#define FROM_WIDE 1
#include "_solve_c_walk.h"
#undef FROM_NAME
#undef FROM_PATHS
#undef FROM_WIDE
#define FROM_NAME WALK_CAT(WALK_BOARD, _paths)
#define FROM_PATHS 1
#define FROM_WIDE 1
#include "_solve_c_walk.h"
#undef FROM_NAME
#undef FROM_PATHS
#undef FROM_WIDE
#undef WALK_FROM_BODY

/* Every path from a cell whose letters led to node `index`, words with one path each, on a
 * board of up to 64 cells: the neighbours to walk come from the node's tokens, as in the
 * narrow score walk, and are walked in ascending cell order, which is the order of nb (the
 * order the paths walk on larger boards and the reference core take), so the path reported
 * for a word is the same. `used` holds the cells of the path so far, `depth` their number. */
WALK_TARGET static void WALK_CAT(WALK_BOARD, _paths_narrow)(Walk *w, uint32_t index, int cell,
                                                            uint64_t used, int depth) {
    const Node node = w->nodes[index];
    used |= (uint64_t)1 << cell;
    w->path[depth] = (uint8_t)cell;
    if (node.word >= 0)
        record(w, (uint32_t)node.word, node.letters, depth + 1, (used & w->challenge_bit) != 0);
    const uint32_t mask = node.mask;
    const uint32_t live = mask & w->near[cell];
    if (!live) return;
    uint64_t cells = w->slow_cells[cell];
    for (uint32_t tokens = live; tokens; tokens &= tokens - 1)
        cells |= w->cells_by_token[cell][lowest_bit(tokens)];
    const BoardSpec *b = w->board;
    for (cells &= ~used; cells; cells &= cells - 1) {
        const int n = lowest_bit(cells);
        const uint32_t bit = w->bit[n];
        uint32_t child;
        if (bit) {
            child = node.first + WALK_POPCOUNT(mask & (bit - 1));
        } else {
            child = WALK_STEP(w->nodes, mask, node.first, b->tok[n], b->ntok[n]);
            if (child == UINT32_MAX) continue;
        }
        WALK_CAT(WALK_BOARD, _paths_narrow)(w, child, n, used, depth + 1);
    }
}

/* The neighbours of every cell of a rows x cols board, unless the Walk holds them already. */
static void WALK_CAT(WALK_BOARD, _shape)(Shape *s, int rows, int cols) {
    if (s->rows == rows && s->cols == cols) return;
    for (int r = 0; r < rows; r++) {
        for (int c = 0; c < cols; c++) {
            int cell = r * cols + c, k = 0;
            for (int dr = -1; dr <= 1; dr++) {
                for (int dc = -1; dc <= 1; dc++) {
                    int rr = r + dr, cc = c + dc;
                    if ((dr || dc) && rr >= 0 && rr < rows && cc >= 0 && cc < cols)
                        s->nb[cell][k++] = (uint8_t)(rr * cols + cc);
                }
            }
            s->nnb[cell] = (uint8_t)k;
        }
    }
    s->rows = rows;
    s->cols = cols;
}

/* Every path of one board. */
WALK_TARGET static void WALK_BOARD(Walk *w, const BoardSpec *b) {
    const Node *nodes = w->nodes;
    w->board = b;
    w->challenge = b->challenge;
    w->total = 0;
    w->count = 0;
    w->nfound = 0;
    w->paths_len = 0;
    if (w->with_paths) next_stamp(w); /* score walks keep marks, and have no stamps */
    WALK_CAT(WALK_BOARD, _shape)(&w->shape, b->rows, b->cols);
    const int ncells = b->ncells;
    /* The board's own tables: the shape's neighbours less the blanks. */
    for (int cell = 0; cell < ncells; cell++)
        w->bit[cell] = b->ntok[cell] == 1 ? 1u << b->tok[cell][0] : 0;
    for (int cell = 0; cell < ncells; cell++) {
        int k = 0, nfast = 0, nslow = 0, all = w->shape.nnb[cell];
        uint32_t near = 0;
        for (int i = 0; i < all; i++) {
            int n = w->shape.nb[cell][i];
            if (!b->ntok[n]) continue;
            w->nb[cell][k++] = (uint8_t)n;
            near |= 1u << b->tok[n][0];
            if (w->bit[n]) {
                w->fast_bit[cell][nfast] = w->bit[n];
                w->fast[cell][nfast++] = (uint8_t)n;
            } else {
                w->slow[cell][nslow++] = (uint8_t)n;
            }
        }
        w->nnb[cell] = (uint8_t)k;
        w->nfast[cell] = (uint8_t)nfast;
        w->nslow[cell] = (uint8_t)nslow;
        w->near[cell] = near;
    }
    const int narrow = ncells <= 64; /* the used cells fit a bitmask */
    w->challenge_bit = narrow && b->challenge >= 0 ? (uint64_t)1 << b->challenge : 0;
    if (narrow) {
        neighbours_by_token(w->cells_by_token, w->slow_cells, b, &w->shape, -1);
    } else {
        memset(w->used, 0, (size_t)ncells);
    }
    for (int start = 0; start < ncells; start++) {
        if (!b->ntok[start]) continue;
        uint32_t index =
            WALK_STEP(nodes, nodes[0].mask, nodes[0].first, b->tok[start], b->ntok[start]);
        if (index == UINT32_MAX) continue;
        if (w->with_paths && narrow) WALK_CAT(WALK_BOARD, _paths_narrow)(w, index, start, 0, 0);
        else if (w->with_paths) WALK_CAT(WALK_BOARD, _paths)(w, index, start, 0);
        else if (narrow) WALK_CAT(WALK_BOARD, _score_narrow)(w, index, start, 0);
        else WALK_CAT(WALK_BOARD, _score_wide)(w, index, start, 0);
    }
    if (!w->with_paths) marks_clear(w->marks);
}

#else /* WALK_FROM_BODY: one walk from a cell */

#if FROM_WIDE
#define FROM_IS_USED(n) (w->used[n])
#else
#define FROM_IS_USED(n) ((used >> (n)) & 1)
#endif

#if FROM_WIDE
#define FROM_PARAMS int depth /* cells used before this one */
#define FROM_NEXT depth + 1
#else
#define FROM_PARAMS uint64_t used
#define FROM_NEXT used
#endif

/* Every path from a cell whose letters led to node `index`. */
WALK_TARGET static void FROM_NAME(Walk *w, uint32_t index, int cell, FROM_PARAMS) {
    const Node node = w->nodes[index];
#if FROM_WIDE
    w->used[cell] = 1;
#else
    used |= (uint64_t)1 << cell;
#endif
#if FROM_PATHS
    w->path[depth] = (uint8_t)cell;
#elif FROM_WIDE
    (void)depth;
#endif
    if (node.word >= 0) {
#if FROM_PATHS
        record(w, (uint32_t)node.word, node.letters, depth + 1,
               w->challenge >= 0 && w->used[w->challenge]);
#elif FROM_WIDE
        record_score(w, (uint32_t)node.word, node.letters,
                     w->challenge >= 0 && w->used[w->challenge]);
#else
        record_score(w, (uint32_t)node.word, node.letters, (used & w->challenge_bit) != 0);
#endif
    }
    const uint32_t mask = node.mask;
#if FROM_PATHS
    if (mask & w->near[cell]) {
        const int k = w->nnb[cell];
        const uint8_t *nb = w->nb[cell];
        for (int i = 0; i < k; i++) {
            const int n = nb[i];
            if (FROM_IS_USED(n)) continue;
            const uint32_t bit = w->bit[n];
            if (bit) {
                if (mask & bit)
                    FROM_NAME(w, node.first + WALK_POPCOUNT(mask & (bit - 1)), n, FROM_NEXT);
            } else {
                const BoardSpec *b = w->board;
                uint32_t child = WALK_STEP(w->nodes, mask, node.first, b->tok[n], b->ntok[n]);
                if (child != UINT32_MAX) FROM_NAME(w, child, n, FROM_NEXT);
            }
        }
    }
#else
    /* Scores do not depend on the order paths are walked in: one-token faces first. */
    const uint32_t live = mask & w->near[cell];
#if !FROM_WIDE
    if (live) {
        /* Each token both the node and some neighbour have leads to the neighbours with it. */
        for (uint32_t tokens = live; tokens; tokens &= tokens - 1) {
            const int token = lowest_bit(tokens);
            uint64_t cells = w->cells_by_token[cell][token] & ~used;
            if (!cells) continue;
            const uint32_t child = node.first + WALK_POPCOUNT(mask & ((1u << token) - 1));
            /* A child with nowhere to go from a cell (half of all visits) is not called:
             * its word, if any, is recorded here. */
            const Node *next = &w->nodes[child];
            do {
                const int n = lowest_bit(cells);
                if (next->mask & w->near[n])
                    FROM_NAME(w, child, n, used);
                else if (next->word >= 0)
                    record_score(w, (uint32_t)next->word, next->letters,
                                 ((used | (uint64_t)1 << n) & w->challenge_bit) != 0);
                cells &= cells - 1;
            } while (cells);
        }
#else
    if (live) {
        const int k = w->nfast[cell];
        const uint8_t *to = w->fast[cell];
        const uint32_t *bits = w->fast_bit[cell];
        for (int i = 0; i < k; i++) {
            const uint32_t bit = bits[i];
            if (!(live & bit)) continue;
            const int n = to[i];
            if (FROM_IS_USED(n)) continue;
            FROM_NAME(w, node.first + WALK_POPCOUNT(mask & (bit - 1)), n, FROM_NEXT);
        }
#endif
        const int slow = w->nslow[cell];
        for (int i = 0; i < slow; i++) {
            const int n = w->slow[cell][i];
            if (FROM_IS_USED(n)) continue;
            const BoardSpec *b = w->board;
            uint32_t child = WALK_STEP(w->nodes, mask, node.first, b->tok[n], b->ntok[n]);
            if (child != UINT32_MAX) FROM_NAME(w, child, n, FROM_NEXT);
        }
    }
#endif
#if FROM_WIDE
    w->used[cell] = 0;
#endif
}

#undef FROM_IS_USED
#undef FROM_PARAMS
#undef FROM_NEXT

#endif /* WALK_FROM_BODY */
