/* dataset.c -- a PLINK fileset with a case/control status per sample.
 *
 * Opening a dataset decides who is analysed (status from .fam column 6 or
 * from a --pheno file) and where each kept sample lands in the packed bit
 * planes (cases first, each class padded to ES_PAD_BITS).  Genotypes stay in
 * the memory-mapped .bed; es_dataset_decode() is the plain reference decoder
 * used by tests and tools, not by the scan's hot path (src/pack.c). */
#include <stdlib.h>
#include <string.h>

#include "es_internal.h"

/* PLINK 2-bit code -> copies of A1: 00 hom A1 (2), 01 missing (3),
 * 10 het (1), 11 hom A2 (0); 0x1E packs these four 2-bit answers. */
#define DEC(c) ((0x1E >> (2 * (c))) & 3)
/* One .bed byte holds 4 samples, the first in the low bits. */
#define DEC4(b) {DEC((b) & 3), DEC(((b) >> 2) & 3), DEC(((b) >> 4) & 3), DEC(((b) >> 6) & 3)}
#define DEC16(b) DEC4(b), DEC4((b) + 1), DEC4((b) + 2), DEC4((b) + 3)
#define DEC64(b) DEC16(b), DEC16((b) + 4), DEC16((b) + 8), DEC16((b) + 12)
#define DEC256(b) DEC64(b), DEC64((b) + 16), DEC64((b) + 32), DEC64((b) + 48)
static const uint8_t decode_lut[256][4] = {DEC256(0), DEC256(64), DEC256(128), DEC256(192)};

/* Variants per OpenMP chunk in es_dataset_any_missing(): large enough to
 * amortise scheduling, small enough to stop soon after the first hit. */
#define MISSING_CHUNK 256

static int assign_status(es_dataset_t *ds, const char *pheno_path, const char *pheno_name)
{
    const es_plink_t *p = ds->plink;
    if (pheno_path) return es_pheno_read(pheno_path, pheno_name, p, ds->status);
    if (p->fam_pheno_quantitative) {
        es_error("%s: phenotype in .fam column 6 is not case/control (1/2); give --pheno",
                 p->fam_path);
        return ES_ERR_DATA;
    }
    memcpy(ds->status, p->fam_pheno, p->n_samples);
    return ES_OK;
}

/* Cases take bits 0..n_case-1, controls start at the next ES_PAD_BITS
 * boundary: this is the layout of es_planes_t (w_case words of cases). */
static int assign_slots(es_dataset_t *ds)
{
    uint32_t n = ds->plink->n_samples;
    uint64_t w_case = ((uint64_t)ds->n_case + ES_PAD_BITS - 1) / ES_PAD_BITS * ES_PAD_WORDS;
    int64_t next_case = 0, next_ctrl = (int64_t)(w_case * 64);
    if (!(ds->slot = malloc((size_t)n * sizeof *ds->slot))) return ES_ERR_NOMEM;
    for (uint32_t s = 0; s < n; s++) {
        if (ds->status[s] == 1) ds->slot[s] = next_case++;
        else if (ds->status[s] == 0) ds->slot[s] = next_ctrl++;
        else ds->slot[s] = -1;
    }
    return ES_OK;
}

int es_dataset_open_bfile(es_dataset_t **out, const char *prefix, const char *pheno_path,
                          const char *pheno_name)
{
    int ret = ES_OK;
    es_dataset_t *ds = NULL;
    char b1[32], b2[32], b3[32], b4[32], b5[32];

    if (!out || !prefix) {
        es_error("no output pointer or fileset prefix given");
        ret = ES_ERR_ARG;
        goto out;
    }
    *out = NULL;
    if (pheno_name && !pheno_path) {
        es_error("a phenotype column (%s) was named but no phenotype file was given", pheno_name);
        ret = ES_ERR_ARG;
        goto out;
    }
    if (!(ds = calloc(1, sizeof *ds))) {
        ret = ES_ERR_NOMEM;
        goto out;
    }
    if ((ret = es_plink_open(&ds->plink, prefix)) != ES_OK) goto out;
    const es_plink_t *p = ds->plink;
    if (!(ds->status = malloc(p->n_samples))) {
        ret = ES_ERR_NOMEM;
        goto out;
    }
    if ((ret = assign_status(ds, pheno_path, pheno_name)) != ES_OK) goto out;

    uint32_t n_case = 0, n_ctrl = 0;
    for (uint32_t s = 0; s < p->n_samples; s++) {
        n_case += ds->status[s] == 1;
        n_ctrl += ds->status[s] == 0;
    }
    ds->n_case = n_case;
    ds->n_ctrl = n_ctrl;
    uint32_t n_miss = p->n_samples - n_case - n_ctrl;
    const char *src = pheno_path ? pheno_path : p->fam_path;
    if (n_case == 0 || n_ctrl == 0) {
        uint32_t other = n_case == 0 ? n_ctrl : n_case;
        es_error("%s: no %s among the %s samples of %s (%s %s%s, %s with missing phenotype); a "
                 "case/control scan needs both cases (2) and controls (1)", src,
                 n_case == 0 ? "cases (phenotype 2)" : "controls (phenotype 1)",
                 es_fmt_count(p->n_samples, b1), p->fam_path, es_fmt_count(other, b2),
                 n_case == 0 ? "control" : "case", other == 1 ? "" : "s",
                 es_fmt_count(n_miss, b3));
        ret = ES_ERR_DATA;
        goto out;
    }
    if ((ret = assign_slots(ds)) != ES_OK) goto out;
    es_info("%s: %s variants, %s samples: %s cases, %s controls, %s without phenotype (from %s)",
            prefix, es_fmt_count(p->n_variants, b1), es_fmt_count(p->n_samples, b2),
            es_fmt_count(n_case, b3), es_fmt_count(n_ctrl, b4), es_fmt_count(n_miss, b5), src);
    *out = ds;
    ds = NULL;
out:
    if (ret == ES_ERR_NOMEM) es_error("out of memory opening %s", prefix ? prefix : "(null)");
    es_dataset_destroy(ds);
    return ret;
}

void es_dataset_destroy(es_dataset_t *ds)
{
    if (!ds) return;
    es_plink_close(ds->plink);
    free(ds->status);
    free(ds->slot);
    free(ds);
}

uint32_t es_dataset_n_variants(const es_dataset_t *ds)
{
    return ds ? ds->plink->n_variants : 0;
}

uint32_t es_dataset_n_samples_total(const es_dataset_t *ds)
{
    return ds ? ds->plink->n_samples : 0;
}

uint32_t es_dataset_n_cases(const es_dataset_t *ds)
{
    return ds ? ds->n_case : 0;
}

uint32_t es_dataset_n_controls(const es_dataset_t *ds)
{
    return ds ? ds->n_ctrl : 0;
}

es_variant_info_t es_dataset_variant(const es_dataset_t *ds, uint32_t idx)
{
    es_variant_info_t v = {"", "", 0, 0.0, "", ""};
    if (!ds || idx >= ds->plink->n_variants) return v; /* contract broken: harmless value */
    const es_plink_t *p = ds->plink;
    v.chr = p->chr[idx];
    v.id = p->id[idx];
    v.pos = p->pos[idx];
    v.cm = p->cm[idx];
    v.a1 = p->a1[idx];
    v.a2 = p->a2[idx];
    return v;
}

int es_dataset_decode(const es_dataset_t *ds, uint32_t idx, uint8_t *out)
{
    if (!ds || !out || idx >= ds->plink->n_variants) {
        es_error("variant index %u out of range (%u variants)", idx,
                 ds ? ds->plink->n_variants : 0);
        return ES_ERR_ARG;
    }
    const es_plink_t *p = ds->plink;
    const uint8_t *row = es_plink_row(p, idx);
    uint32_t n = p->n_samples, full = n / 4, rest = n % 4;
    for (uint32_t b = 0; b < full; b++) memcpy(out + 4 * (size_t)b, decode_lut[row[b]], 4);
    if (rest) memcpy(out + 4 * (size_t)full, decode_lut[row[full]], rest);
    return ES_OK;
}

/* Missing code 01 sits at each sample's even bit with a 0 above it:
 * word & ~(word >> 1) & kept, where kept has each kept sample's even bit.
 * Bits shifted across a byte boundary land on odd positions, which kept
 * never has, so loading with memcpy works whatever the byte order. */
static int row_has_missing(const uint8_t *row, const uint64_t *kept, size_t full_words,
                           size_t tail_bytes)
{
    for (size_t w = 0; w < full_words; w++) {
        uint64_t x;
        memcpy(&x, row + 8 * w, 8);
        if (x & ~(x >> 1) & kept[w]) return 1;
    }
    if (tail_bytes) {
        uint64_t x = 0;
        memcpy(&x, row + 8 * full_words, tail_bytes);
        if (x & ~(x >> 1) & kept[full_words]) return 1;
    }
    return 0;
}

int es_dataset_any_missing(const es_dataset_t *ds)
{
    const es_plink_t *p = ds->plink;
    size_t bpv = p->bytes_per_variant, full_words = bpv / 8, tail = bpv % 8;
    size_t nw = full_words + (tail != 0);
    int found = 0;
    /* Built byte by byte through a uint8_t view: the same byte image as the
     * rows, which is what row_has_missing() relies on. */
    uint64_t *kept = calloc(nw ? nw : 1, sizeof *kept);
    if (!kept) {
        /* Cannot scan: answering "missing" only selects the slower exact path. */
        es_warn("out of memory checking for missing calls; assuming some");
        return 1;
    }
    uint8_t *kept_bytes = (uint8_t *)kept;
    for (uint32_t s = 0; s < p->n_samples; s++)
        if (ds->status[s] >= 0) kept_bytes[s / 4] |= (uint8_t)(1u << (2 * (s % 4)));

    int64_t nv = p->n_variants;
#pragma omp parallel for schedule(dynamic, MISSING_CHUNK) if (nv > 4 * MISSING_CHUNK)
    for (int64_t v = 0; v < nv; v++) {
        int done;
#pragma omp atomic read
        done = found;
        if (done) continue;
        if (row_has_missing(es_plink_row(p, (uint32_t)v), kept, full_words, tail)) {
#pragma omp atomic write
            found = 1;
        }
    }
    free(kept);
    return found;
}
