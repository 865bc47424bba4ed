/* data.h -- the dataset (a fileset, its phenotypes and the samples in the
 * analysis) and its packing into bit planes.  Internal (not installed);
 * depends on formats/ and src/util. */
#ifndef ES_DATA_H
#define ES_DATA_H

#include <stddef.h>
#include <stdint.h>

#include "formats.h"

/* ---- dataset (src/dataset.c) ------------------------------------------- */

struct es_dataset_t {
    es_fileset_t *plink;
    int8_t *status;    /* per input sample: 0 control, 1 case, -1 no phenotype,
                        * -2 removed by --keep/--remove or --mind */
    uint32_t n_case, n_ctrl;
    int require_pheno; /* es_input_opt_t.require_pheno: decides which samples are used */
    /* a quantitative trait (es_input_opt_t.qt): every sample with a value is
     * in class 0 (status 0, n_case 0), qt_y[s] its value per input sample
     * (NaN: none); NULL for case/control */
    int qt;
    double *qt_y;
    /* slot[s]: destination bit of .fam sample s in the packed planes
     * (cases at 0..n_case-1, controls at w_case*64 + 0..n_ctrl-1), or -1 */
    int64_t *slot;
    uint32_t pad_words; /* each class of the planes is padded to a multiple of
                         * this many words (es_dataset_set_pad()) */
    /* es_dataset_any_missing()'s last answer and the variants and samples
     * in the analysis it was for (a filter or a sample dropped since: asked
     * again); NULL until asked */
    struct es_missing_memo *missing_memo;
};

/** Write the samples in the analysis's input (those not removed by --keep/
 *  --remove) and the kept variants of ds as PREFIX.bed/.bim/.fam with
 *  es_plink_write().  @return as es_plink_write() */
int es_dataset_write_plink(const es_dataset_t *ds, const char *prefix);

/** Leave out of the analysis the samples in it whose keep[s] is 0 (per
 *  input sample; e.g. a missing covariate), as if they had no phenotype;
 *  *dropped: how many.  @return ES_OK, ES_ERR_DATA (what is left cannot be
 *  analysed: too few samples, or no case or no control; `why` names the
 *  reason in the message) or ES_ERR_NOMEM. */
int es_dataset_keep_samples(es_dataset_t *ds, const uint8_t *keep, const char *why, uint32_t *dropped);

/* ---- packed planes (src/pack.c) ----------------------------------------- */

/** Samples are reordered cases first; each class is zero-padded to a
 *  multiple of the dataset's pad (ES_PAD_BITS unless es_dataset_set_pad()
 *  chose another): the GPU's tensor-core tiles read 1,024 bits at a time,
 *  the CPU kernels handle any length and take 256 (one AVX2 vector), so that
 *  small cohorts pack densely. */
#define ES_PAD_BITS 1024
#define ES_PAD_WORDS (ES_PAD_BITS / 64)

/** Pad each class of ds's planes to a multiple of `bits` (a multiple of 64
 *  that divides ES_PAD_BITS) from now on; moves the controls' slots.
 *  @return ES_OK or ES_ERR_ARG. */
int es_dataset_set_pad(es_dataset_t *ds, uint32_t bits);
/** Words of one class of n samples in ds's planes. */
static inline uint32_t es_class_words(const es_dataset_t *ds, uint32_t n)
{
    return (uint32_t)(((uint64_t)n + 64u * ds->pad_words - 1) / (64u * ds->pad_words) * ds->pad_words);
}

/**
 * Bit planes of a contiguous range of variants.  Invariant: pad bits are zero.
 * Variant v (relative to first) has n_planes planes of `words` uint64_t each,
 * at planes + (size_t)v * n_planes * words:
 *   plane 0  P1 = [g >= 1]   (g = copies of A1, 0..2)
 *   plane 1  P2 = [g == 2]
 *   plane 2  V  = [called]   (present only when n_planes == 3)
 * A missing call has P1 = P2 = V = 0.  Words [0, w_case) hold cases,
 * [w_case, words) controls.
 */
typedef struct {
    uint32_t first, count; /* variant range */
    uint32_t n_case, n_ctrl;
    uint32_t w_case, w_ctrl, words; /* words = w_case + w_ctrl */
    uint32_t n_planes;              /* 2 if no missing call anywhere in the dataset, else 3 */
    uint64_t *planes;               /* 64-byte aligned */
    /* per variant, per class y (0 control, 1 case): called genotype counts */
    uint32_t (*gcount)[2][3];       /* gcount[v][y][g] */
    uint32_t *miss_ct;              /* missing calls among kept samples */
    /* Sparse missing calls: the plane bits (sample slots) of variant v's
     * missing calls are miss_pos[miss_off[v] .. miss_off[v+1]) when it has at
     * most ES_SPARSE_MISS(words) of them (see es_planes_sparse()); the
     * counting kernels then correct the 4-product table instead of counting
     * 9 products.  NULL until es_pack() has run. */
    uint32_t *miss_off;             /* count + 1 offsets */
    uint32_t *miss_pos;
    /* The same calls as words: when they fall in at most ES_MISS_WORDS
     * plane words (miss_nw[v] <= ES_MISS_WORDS; 255: more, or not listed),
     * word indices and masks of the missing slots; unused entries 0. */
    uint32_t *miss_word;            /* [v * ES_MISS_WORDS + k] */
    uint64_t *miss_mask;
    uint8_t *miss_nw;
    size_t mapped;                  /* > 0: planes is a mapping of this many bytes of a file */
} es_planes_t;

/** Allocate planes for `count` variants of ds (free with es_planes_free()). */
int es_planes_alloc(es_planes_t *pl, const es_dataset_t *ds, uint32_t count, uint32_t n_planes);
/** As es_planes_alloc(), with the planes in bytes [offset, offset + size) of
 *  the open file fd (MAP_SHARED; offset a multiple of the page size), so that
 *  the kernel can write them back and drop them under memory pressure. */
int es_planes_alloc_mapped(es_planes_t *pl, const es_dataset_t *ds, uint32_t count, uint32_t n_planes,
                           int fd, size_t offset);
/** Bytes of the planes of `count` variants (what es_planes_alloc() takes). */
size_t es_planes_bytes(const es_dataset_t *ds, uint32_t count, uint32_t n_planes);
/** Free the planes' memory (the struct itself is the caller's). */
void es_planes_free(es_planes_t *pl);
/** Pack variants [first, first+count) of ds into pl (count <= allocated). */
int es_pack(const es_dataset_t *ds, uint32_t first, uint32_t count, es_planes_t *pl);
/** @return 1 if any kept sample has a missing call at any variant (the
 *  answer kept for the next call while the variants and samples in the
 *  analysis stay the same). */
int es_dataset_any_missing(const es_dataset_t *ds);
/** Every variant's genotype level counts over the used samples (lev[v][g]:
 *  samples with g copies of A1) and its missing samples, in sample order:
 *  (*mpos)[moff[v] .. moff[v + 1]) (moff: n_variants + 1 entries; *mpos
 *  malloc'd, NULL when none is missing; the caller frees it).  Read from the
 *  packed rows with popcounts, OpenMP-parallel over variants.
 *  @return ES_OK, ES_ERR_NOMEM, or the fileset's error (es_fileset_check). */
int es_dataset_levels(const es_dataset_t *ds, uint32_t (*lev)[3], size_t *moff, uint32_t **mpos);
/** Most missing calls a variant may have for its positions to be listed:
 *  one per 64-bit word of its planes (1.6 % of the samples), where the
 *  correction costs about what the five extra products would. */
#define ES_SPARSE_MISS(words) ((uint32_t)(words))
/** Words of missing calls the kernels' masked word path takes per variant. */
#define ES_MISS_WORDS 2
/** @return 1 if variant v's missing calls (possibly none) are listed in
 *  miss_pos. */
static inline int es_planes_sparse(const es_planes_t *pl, uint32_t v)
{
    return pl->miss_off && pl->miss_off[v + 1] - pl->miss_off[v] == pl->miss_ct[v];
}
/** @return pointer to plane `plane` of variant v (index relative to pl->first). */
static inline const uint64_t *es_plane(const es_planes_t *pl, uint32_t v, uint32_t plane)
{
    return pl->planes + ((size_t)v * pl->n_planes + plane) * pl->words;
}

#endif /* ES_DATA_H */
