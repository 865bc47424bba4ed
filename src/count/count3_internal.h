/* count3_internal.h -- the run loop of count3.c, included once per kernel with
 * RUN3_SOA_NAME (the function), RUN3_TARGET (its target attribute, may be
 * empty) and RUN3_PROD8 (the 8-product step) defined; private to src/count.
 * It writes the run cell by cell: the cumulative counts of every triple first,
 * then the inclusion-exclusion differences a cell at a time over the whole run
 * (loops the compiler vectorises). */
RUN3_TARGET static void RUN3_SOA_NAME(const es_pair3_t *p, const es_planes_t *pc, uint32_t c0, uint32_t nc,
                                      const es_cum2_t *ac, const es_cum2_t *bc, es_table3_soa_t *soa)
{
    size_t w = p->words;
    /* cells of the 8 products, in RUN3_PROD8's order */
    static const uint8_t cell8[8] = {13, 14, 16, 17, 22, 23, 25, 26};
    uint8_t fix[ES_RUN3]; /* counted as if fully called, corrected below */
    for (uint32_t k = 0; k < nc; k++) {
        uint32_t c = c0 + k;
        fix[k] = (p->missing || pc->miss_ct[c]) && (!p->missing || p->sparse) && es_planes_sparse(pc, c);
    }
    for (int y = 0; y < 2; y++) {
        uint32_t(*C)[ES_RUN3] = soa->n[y];
        uint32_t prod[ES_RUN3][8];
        uint32_t lo = p->off[y], hi = p->off[y] + p->nw[y];
        /* the pair (a, b), single variants a and b, the class: the same for the run */
        const uint32_t fill[9][2] = {{12, p->cum_ab[y][0]}, {15, p->cum_ab[y][1]}, {21, p->cum_ab[y][2]},
                                     {24, p->cum_ab[y][3]}, {9, p->ga[y][1] + p->ga[y][2]}, {18, p->ga[y][2]},
                                     {3, p->gb[y][1] + p->gb[y][2]}, {6, p->gb[y][2]}, {0, p->cls[y]}};
        for (int f = 0; f < 9; f++) cells_fill(C[fill[f][0]], fill[f][1]);
        for (uint32_t k = 0; k < nc; k++) {
            uint32_t c = c0 + k;
            const uint32_t(*gc)[3] = pc->gcount[c];
            /* t = V: the pair (a, c); s = V: the pair (b, c); two V: c alone */
            C[10][k] = ac[k].c[y][0], C[11][k] = ac[k].c[y][1];
            C[19][k] = ac[k].c[y][2], C[20][k] = ac[k].c[y][3];
            C[4][k] = bc[k].c[y][0], C[5][k] = bc[k].c[y][1];
            C[7][k] = bc[k].c[y][2], C[8][k] = bc[k].c[y][3];
            C[1][k] = gc[y][1] + gc[y][2], C[2][k] = gc[y][2];
            if ((p->missing || pc->miss_ct[c]) && !fix[k]) {
                const uint64_t *kc[3] = {pc->n_planes == 3 ? es_plane(pc, c, 2) : p->x + 9 * w,
                                         es_plane(pc, c, 0), es_plane(pc, c, 1)};
                uint32_t all[27];
                prod27(p->x, w, kc, lo, hi, all);
                for (int q = 0; q < 27; q++) C[q][k] = all[q];
                for (int r = 0; r < 8; r++) prod[k][r] = all[cell8[r]];
            } else {
                RUN3_PROD8(p->x, w, es_plane(pc, c, 0), es_plane(pc, c, 1), lo, hi, prod[k]);
            }
        }
        for (int r = 0; r < 8; r++)
            for (uint32_t k = 0; k < nc; k++) C[cell8[r]][k] = prod[k][r];
        /* the cells from the cumulative counts, a cell at a time over the whole run (the lanes past nc
         * hold leftovers and are never read): along u, then t, then s */
        for (int st = 0; st < 9; st++) {
            cells_sub(C[st * 3], C[st * 3 + 1]);
            cells_sub(C[st * 3 + 1], C[st * 3 + 2]);
        }
        for (int q = 0; q < 9; q++) {
            int s0 = q / 3 * 9 + q % 3;
            cells_sub(C[s0], C[s0 + 3]);
            cells_sub(C[s0 + 3], C[s0 + 6]);
        }
        for (int tu = 0; tu < 18; tu++) cells_sub(C[tu], C[9 + tu]);
    }
    for (uint32_t k = 0; k < nc; k++)
        if (fix[k]) fix_missing(p, pc, c0 + k, soa, k);
}

#undef RUN3_SOA_NAME
#undef RUN3_TARGET
#undef RUN3_PROD8
