/*
 * The walk of score_alternatives: one board's total for each of several faces at one cell, in
 * one walk rather than one walk a face. Included by _solve_c.c once per build of the walk (with
 * WALK_BOARD, WALK_STEP, WALK_POPCOUNT and WALK_TARGET defined, as _solve_c_walk.h is), after
 * AltWalk and alt_record().
 *
 * Why: a best-board search climbs by trying every letter at every cell. The paths that miss the
 * cell are the same whatever its face, so they are walked once; at the cell the walk branches
 * into each face's subtree, carrying which face it took. Each word keeps a mask of the faces
 * that spell it (or "any face", for a path that misses the cell); the totals come from the
 * masks. On ENABLE2K boards this costs a few plain walks for all 26 letters. On boards of up
 * to 64 cells (_alt_narrow) the neighbours to walk come from each node's tokens, as in the
 * score walks.
 */

/* Every path from a cell whose letters led to node `index`; `alt` is the face the path took at
 * the varying cell, or -1 while it has not passed through it. */
WALK_TARGET static void WALK_CAT(WALK_BOARD, _alt_from)(AltWalk *a, uint32_t index, int cell,
                                                         int alt) {
    const Node node = a->nodes[index];
    if (node.word >= 0) alt_record(a, (uint32_t)node.word, node.letters, alt);
    const uint32_t mask = node.mask;
    if (!(mask & a->near[cell])) return; /* no neighbour's face begins with a child's token */
    a->used[cell] = 1;
    const BoardSpec *b = a->board;
    const int k = a->shape->nnb[cell];
    const uint8_t *nb = a->shape->nb[cell];
    for (int i = 0; i < k; i++) {
        const int n = nb[i];
        if (a->used[n]) continue;
        if (n == a->cell) {
            for (int f = 0; f < a->nfaces; f++) {
                uint32_t child =
                    WALK_STEP(a->nodes, mask, node.first, a->face_tok[f], a->face_ntok[f]);
                if (child != UINT32_MAX) WALK_CAT(WALK_BOARD, _alt_from)(a, child, n, f);
            }
        } else if (a->bit[n]) { /* a one-token face: one test of the mask */
            const uint32_t bit = a->bit[n];
            if (mask & bit)
                WALK_CAT(WALK_BOARD, _alt_from)(a, node.first + WALK_POPCOUNT(mask & (bit - 1)),
                                                 n, alt);
        } else {
            uint32_t child = WALK_STEP(a->nodes, mask, node.first, b->tok[n], b->ntok[n]);
            if (child != UINT32_MAX) WALK_CAT(WALK_BOARD, _alt_from)(a, child, n, alt);
        }
    }
    a->used[cell] = 0;
}

/* _alt_from on a board of up to 64 cells: the neighbours to walk come from the node's tokens
 * (as in the score walks), `used` holds the cells of the path so far. */
WALK_TARGET static void WALK_CAT(WALK_BOARD, _alt_narrow)(AltWalk *a, uint32_t index, int cell,
                                                          int alt, uint64_t used) {
    const Node node = a->nodes[index];
    if (node.word >= 0) alt_record(a, (uint32_t)node.word, node.letters, alt);
    const uint32_t mask = node.mask;
    const uint32_t live = mask & a->near[cell];
    if (!live) return; /* no neighbour's face begins with a child's token */
    used |= (uint64_t)1 << cell;
    if (a->vary_near[cell] & ~used) {
        for (int f = 0; f < a->nfaces; f++) {
            uint32_t child = WALK_STEP(a->nodes, mask, node.first, a->face_tok[f], a->face_ntok[f]);
            if (child != UINT32_MAX) WALK_CAT(WALK_BOARD, _alt_narrow)(a, child, a->cell, f, used);
        }
    }
    for (uint32_t tokens = live; tokens; tokens &= tokens - 1) {
        const int token = lowest_bit(tokens);
        uint64_t cells = a->cells_by_token[cell][token] & ~used;
        if (!cells) continue;
        const uint32_t child = node.first + WALK_POPCOUNT(mask & ((1u << token) - 1));
        for (; cells; cells &= cells - 1)
            WALK_CAT(WALK_BOARD, _alt_narrow)(a, child, lowest_bit(cells), alt, used);
    }
    const BoardSpec *b = a->board;
    for (uint64_t cells = a->slow_cells[cell] & ~used; cells; cells &= cells - 1) {
        const int n = lowest_bit(cells);
        uint32_t child = WALK_STEP(a->nodes, mask, node.first, b->tok[n], b->ntok[n]);
        if (child != UINT32_MAX) WALK_CAT(WALK_BOARD, _alt_narrow)(a, child, n, alt, used);
    }
}

/* Every path of the board, the varying cell taking each face in turn. */
WALK_TARGET static void WALK_CAT(WALK_BOARD, _alternatives)(AltWalk *a) {
    const Node *nodes = a->nodes;
    const BoardSpec *b = a->board;
    memset(a->used, 0, (size_t)b->ncells);
    /* Each cell's token bit (one-token faces), and the tokens its neighbours begin with: the
     * varying cell's neighbours may begin with any of its faces' first tokens. */
    uint32_t starts = 0; /* the first tokens of the varying cell's faces */
    for (int f = 0; f < a->nfaces; f++)
        if (a->face_ntok[f]) starts |= 1u << a->face_tok[f][0];
    for (int cell = 0; cell < b->ncells; cell++)
        a->bit[cell] = cell != a->cell && b->ntok[cell] == 1 ? 1u << b->tok[cell][0] : 0;
    for (int cell = 0; cell < b->ncells; cell++) {
        uint32_t near = 0;
        for (int i = 0; i < a->shape->nnb[cell]; i++) {
            const int n = a->shape->nb[cell][i];
            if (n == a->cell) near |= starts;
            else if (b->ntok[n]) near |= 1u << b->tok[n][0];
        }
        a->near[cell] = near;
    }
    const int narrow = b->ncells <= 64;
    if (narrow) {
        neighbours_by_token(a->cells_by_token, a->slow_cells, b, a->shape, a->cell);
        for (int cell = 0; cell < b->ncells; cell++) {
            a->vary_near[cell] = 0;
            for (int i = 0; i < a->shape->nnb[cell]; i++)
                if (a->shape->nb[cell][i] == a->cell) a->vary_near[cell] = (uint64_t)1 << a->cell;
        }
    }
    for (int start = 0; start < b->ncells; start++) {
        if (start == a->cell) {
            for (int f = 0; f < a->nfaces; f++) {
                uint32_t index = WALK_STEP(nodes, nodes[0].mask, nodes[0].first, a->face_tok[f],
                                           a->face_ntok[f]);
                if (index == UINT32_MAX) continue;
                if (narrow) WALK_CAT(WALK_BOARD, _alt_narrow)(a, index, start, f, 0);
                else WALK_CAT(WALK_BOARD, _alt_from)(a, index, start, f);
            }
            continue;
        }
        uint32_t index =
            WALK_STEP(nodes, nodes[0].mask, nodes[0].first, b->tok[start], b->ntok[start]);
        if (index == UINT32_MAX) continue;
        if (narrow) WALK_CAT(WALK_BOARD, _alt_narrow)(a, index, start, -1, 0);
        else WALK_CAT(WALK_BOARD, _alt_from)(a, index, start, -1);
    }
}
