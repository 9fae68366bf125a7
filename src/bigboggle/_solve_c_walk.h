/*
 * The walk of one board, included twice by _solve_c.c: once with a portable bit count and once
 * built for CPUs with a popcount instruction. Expects WALK_BOARD, WALK_FROM, WALK_STEP,
 * WALK_POPCOUNT and WALK_TARGET to be defined, and Walk, BoardSpec, Node, record() and
 * next_stamp().
 */

/* The node reached from `index` by a cell's tokens, or UINT32_MAX. */
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

/* Every path from a cell whose letters led to node `index`; `depth` cells are already used. */
WALK_TARGET static void WALK_FROM(Walk *w, uint32_t index, int cell, int depth) {
    const Node *nodes = w->nodes;
    const Node node = nodes[index];
    w->used[cell] = 1;
    w->path[depth] = (uint8_t)cell;
    if (node.word >= 0) record(w, (uint32_t)node.word, node.letters, depth + 1);
    uint32_t mask = node.mask;
    if (mask) {
        const BoardSpec *b = w->board;
        int k = w->nnb[cell];
        for (int i = 0; i < k; i++) {
            int n = w->nb[cell][i];
            if (w->used[n]) continue;
            uint32_t bit = w->bit[n];
            if (bit) {
                if (mask & bit)
                    WALK_FROM(w, node.first + WALK_POPCOUNT(mask & (bit - 1)), n, depth + 1);
            } else {
                uint32_t child = WALK_STEP(nodes, mask, node.first, b->tok[n], b->ntok[n]);
                if (child != UINT32_MAX) WALK_FROM(w, child, n, depth + 1);
            }
        }
    }
    w->used[cell] = 0;
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
    next_stamp(w);
    for (int r = 0; r < b->rows; r++) {
        for (int c = 0; c < b->cols; c++) {
            int cell = r * b->cols + c, k = 0;
            for (int dr = -1; dr <= 1; dr++) {
                for (int dc = -1; dc <= 1; dc++) {
                    int rr = r + dr, cc = c + dc;
                    if ((dr || dc) && rr >= 0 && rr < b->rows && cc >= 0 && cc < b->cols &&
                        b->ntok[rr * b->cols + cc]) {
                        w->nb[cell][k++] = (uint8_t)(rr * b->cols + cc);
                    }
                }
            }
            w->nnb[cell] = (uint8_t)k;
            w->used[cell] = 0;
            w->bit[cell] = b->ntok[cell] == 1 ? 1u << b->tok[cell][0] : 0;
        }
    }
    for (int start = 0; start < b->ncells; start++) {
        if (!b->ntok[start]) continue;
        uint32_t index =
            WALK_STEP(nodes, nodes[0].mask, nodes[0].first, b->tok[start], b->ntok[start]);
        if (index != UINT32_MAX) WALK_FROM(w, index, start, 0);
    }
}
