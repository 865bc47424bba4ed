/* dataset.c -- a genotype source (PLINK fileset or VCF/BCF) with a case/control
 * status per sample and the selection applied.
 *
 * Opening a dataset decides who is analysed (status from .fam column 6 or
 * from a --pheno file, then --keep/--remove and --mind), which variants are
 * (--chr, --from/--to, --snps, --extract/--exclude, --geno/--hwe/--maf;
 * formats/filter.c), in PLINK 1.9's order, and where each kept sample lands
 * in the packed bit planes (cases first, each class padded to ES_PAD_BITS).  Selection never copies genotypes: removed samples get no
 * plane slot and kept variants reach their source rows through var_src.
 * es_dataset_decode() is the plain reference decoder used by tests and
 * tools, not by the scan's hot path (src/pack.c). */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "data.h"

/* PLINK 2-bit code -> copies of A1: 00 hom A1 (2), 01 missing (3),
 * 10 het (1), 11 hom A2 (0); 0x1E packs these four 2-bit answers. */
#define DEC(c) ((0x1E >> (2 * (c))) & 3)
/* One .bed byte holds 4 samples, the first in the low bits. */
#define DEC4(b) {DEC((b) & 3), DEC(((b) >> 2) & 3), DEC(((b) >> 4) & 3), DEC(((b) >> 6) & 3)}
#define DEC16(b) DEC4(b), DEC4((b) + 1), DEC4((b) + 2), DEC4((b) + 3)
#define DEC64(b) DEC16(b), DEC16((b) + 4), DEC16((b) + 8), DEC16((b) + 12)
#define DEC256(b) DEC64(b), DEC64((b) + 16), DEC64((b) + 32), DEC64((b) + 48)
static const uint8_t decode_lut[256][4] = {DEC256(0), DEC256(64), DEC256(128), DEC256(192)};

/* es_dataset_any_missing()'s last answer (-1: none yet) and what it was for */
struct es_missing_memo {
    int answer;
    uint32_t n_variants, n_samples;
};

/* Variants per OpenMP chunk in es_dataset_any_missing(): large enough to
 * amortise scheduling, small enough to stop soon after the first hit. */
#define MISSING_CHUNK 256

/* .fam column 6 read as PLINK's --1 codes it: 0 control, 1 case, anything
 * else missing (one warning for values other than -9/NA, which a file coded
 * 1/2 by mistake would have). */
static int fam_status_01(es_dataset_t *ds)
{
    const es_fileset_t *p = ds->plink;
    uint32_t other = 0, first = 0;
    char b[32];
    for (uint32_t s = 0; s < p->n_samples; s++) {
        int8_t c = p->fam_pheno01 ? p->fam_pheno01[s] : -1;
        ds->status[s] = c >= 0 ? c : -1;
        if (c == -3 && other++ == 0) first = s;
    }
    if (other)
        es_warn("%s: %s sample%s with a column 6 value other than 0 (control), 1 (case), -9 or "
                "NA counted as without phenotype (--1, as in PLINK 1.9); first: '%s %s'",
                p->fam_path, es_fmt_count(other, b), other == 1 ? "" : "s", p->fid[first],
                p->iid[first]);
    return ES_OK;
}

/* Status from the phenotype file, .fam column 6, or nothing (a VCF without
 * --pheno, allowed only when no phenotype is required). */
static int assign_status_qt(es_dataset_t *ds, const es_input_opt_t *opt);

static int assign_status(es_dataset_t *ds, const es_input_opt_t *opt)
{
    const es_fileset_t *p = ds->plink;
    if (opt->qt != ES_QT_NO && (opt->pheno || !opt->vcf)) return assign_status_qt(ds, opt);
    if (opt->pheno)
        return es_pheno_read_coded(opt->pheno, opt->pheno_name, opt->pheno_01 != 0, p,
                                   ds->status);
    if (opt->vcf) {
        memset(ds->status, 0xff, p->n_samples); /* -1: no phenotype */
        return ES_OK;
    }
    if (opt->pheno_01) return fam_status_01(ds);
    if (p->fam_pheno_quantitative) {
        if (opt->require_pheno) {
            es_error("%s: phenotype in .fam column 6 is not case/control (1/2): a quantitative "
                 "trait, which `epistream scan` analyses (--stat linear); give --pheno for a "
                 "case/control one", p->fam_path);
            return ES_ERR_DATA;
        }
        es_warn("%s: phenotype in .fam column 6 is not case/control (1/2); every sample is "
                "counted as without phenotype", p->fam_path);
        memset(ds->status, 0xff, p->n_samples);
        return ES_OK;
    }
    memcpy(ds->status, p->fam_pheno, p->n_samples);
    return ES_OK;
}

/* A phenotype that may be quantitative (ES_QT_AUTO: when a value is not
 * case/control coding; ES_QT_YES: always): the values go to ds->qt_y, and
 * every sample with one is in class 0 (status 0), so the planes hold one
 * class.  A case/control phenotype under ES_QT_AUTO is coded as before. */
static int assign_status_qt(es_dataset_t *ds, const es_input_opt_t *opt)
{
    const es_fileset_t *p = ds->plink;
    int quant = 0, ret;
    if (!(ds->qt_y = malloc((p->n_samples ? p->n_samples : 1) * sizeof *ds->qt_y))) return ES_ERR_NOMEM;
    if (opt->pheno) {
        ret = es_pheno_read_values(opt->pheno, opt->pheno_name, opt->pheno_01 != 0, p, ds->status, ds->qt_y,
                                   &quant);
        if (ret != ES_OK) return ret;
    } else {
        quant = p->fam_pheno_quantitative;
        for (uint32_t s = 0; s < p->n_samples; s++) ds->qt_y[s] = p->fam_qt[s];
        if (!quant) {
            if (opt->pheno_01) fam_status_01(ds);
            else memcpy(ds->status, p->fam_pheno, p->n_samples);
        }
    }
    if (!quant && opt->qt != ES_QT_YES) { /* case/control after all */
        free(ds->qt_y);
        ds->qt_y = NULL;
        return ES_OK;
    }
    ds->qt = 1;
    for (uint32_t s = 0; s < p->n_samples; s++) ds->status[s] = isnan(ds->qt_y[s]) ? -1 : 0;
    return ES_OK;
}

/* Cases take bits 0..n_case-1, controls start at the next pad boundary:
 * this is the layout of es_planes_t (w_case words of cases). */
static int assign_slots(es_dataset_t *ds)
{
    uint32_t n = ds->plink->n_samples;
    uint64_t w_case = es_class_words(ds, ds->n_case);
    int64_t next_case = 0, next_ctrl = (int64_t)(w_case * 64);
    if (!ds->slot && !(ds->slot = malloc((size_t)n * sizeof *ds->slot))) return ES_ERR_NOMEM;
    for (uint32_t s = 0; s < n; s++) {
        if (ds->status[s] == 1) ds->slot[s] = next_case++;
        else if (ds->status[s] == 0) ds->slot[s] = next_ctrl++;
        else ds->slot[s] = -1;
    }
    return ES_OK;
}

int es_dataset_keep_samples(es_dataset_t *ds, const uint8_t *keep, const char *why, uint32_t *dropped)
{
    uint32_t n = ds->plink->n_samples, drop = 0, n_case = 0, n_ctrl = 0;
    for (uint32_t s = 0; s < n; s++) {
        if (ds->status[s] >= 0 && !keep[s]) {
            ds->status[s] = -1;
            drop++;
        }
        n_case += ds->status[s] == 1;
        n_ctrl += ds->status[s] == 0;
    }
    *dropped = drop;
    if (ds->qt ? n_ctrl < 5 : n_case == 0 || n_ctrl == 0) {
        if (ds->qt)
            es_error("%s: %u sample(s) left with a quantitative phenotype (%u left out); the regression tests "
                     "need at least 5", why, n_ctrl, drop);
        else
            es_error("%s: %u case(s) and %u control(s) left (%u left out); a case/control scan needs both", why,
                     n_case, n_ctrl, drop);
        return ES_ERR_DATA;
    }
    ds->n_case = n_case;
    ds->n_ctrl = n_ctrl;
    return assign_slots(ds);
}

int es_dataset_set_pad(es_dataset_t *ds, uint32_t bits)
{
    if (!ds || !bits || bits % 64 || ES_PAD_BITS % bits) {
        es_error("invalid plane padding of %u bits (a multiple of 64 that divides %u)", bits, ES_PAD_BITS);
        return ES_ERR_ARG;
    }
    if (ds->pad_words == bits / 64) return ES_OK;
    ds->pad_words = bits / 64;
    return assign_slots(ds);
}

void es_input_opt_init(es_input_opt_t *opt)
{
    memset(opt, 0, sizeof *opt);
    opt->geno = 1;
    opt->mind = 1;
    opt->require_pheno = 1;
}

/* Everything that can be refused before a file is opened. */
static int check_opt(const es_input_opt_t *opt)
{
    if (!opt->bfile == !opt->vcf) {
        es_error("give exactly one input: a PLINK fileset (--bfile) or a VCF/BCF (--vcf)");
        return ES_ERR_ARG;
    }
    if (opt->pheno_name && !opt->pheno) {
        es_error("a phenotype column (%s) was named but no phenotype file was given",
                 opt->pheno_name);
        return ES_ERR_ARG;
    }
    if (opt->n_regions < 0 || (opt->n_regions > 0 && !opt->regions)) {
        es_error("%d regions given without a region list", opt->n_regions);
        return ES_ERR_ARG;
    }
    if (opt->n_regions > 0 && !opt->vcf) {
        es_error("%s: regions need an indexed VCF/BCF; select a PLINK fileset with --chr or "
                 "--extract", opt->bfile);
        return ES_ERR_ARG;
    }
    if (!(opt->maf >= 0 && opt->maf <= 0.5)) { /* also refuses NaN */
        es_error("--maf %g: must be in [0, 0.5]", opt->maf);
        return ES_ERR_ARG;
    }
    if (!(opt->geno >= 0 && opt->geno <= 1)) {
        es_error("--geno %g: must be in [0, 1]", opt->geno);
        return ES_ERR_ARG;
    }
    if (!(opt->mind >= 0 && opt->mind <= 1)) {
        es_error("--mind %g: must be in [0, 1]", opt->mind);
        return ES_ERR_ARG;
    }
    if (!(opt->hwe >= 0 && opt->hwe < 1)) {
        es_error("--hwe %g: must be in [0, 1)", opt->hwe);
        return ES_ERR_ARG;
    }
    /* PLINK 1.9 refuses these combinations too */
    if ((opt->from || opt->to) && opt->chr) {
        es_error("--from/--to pick their own chromosome: leave out --chr %s", opt->chr);
        return ES_ERR_ARG;
    }
    if ((opt->from || opt->to) && opt->snps) {
        es_error("--snps cannot be combined with --from/--to");
        return ES_ERR_ARG;
    }
    if (opt->vcf && opt->require_pheno && !opt->pheno) {
        es_error("%s: a VCF has no phenotype; give --pheno FILE with 'IID value' or 'FID IID "
                 "value' lines (IID = the VCF sample name)", opt->vcf);
        return ES_ERR_ARG;
    }
    return ES_OK;
}

/* --keep then --remove (PLINK's order; the result does not depend on it). */
static int select_samples(es_dataset_t *ds, const es_input_opt_t *opt)
{
    int ret = ES_OK;
    const es_fileset_t *p = ds->plink;
    es_strindex_t by_pair = {0}, by_iid = {0};
    uint32_t removed;

    if (!opt->keep && !opt->remove) return ES_OK;
    if ((ret = es_strindex_build(&by_pair, p->fid, p->iid, p->n_samples)) != ES_OK ||
        (ret = es_strindex_build(&by_iid, p->iid, NULL, p->n_samples)) != ES_OK)
        goto out;
    if (opt->keep &&
        (ret = es_filter_samples(opt->keep, 1, p, &by_pair, &by_iid, ds->status, &removed)) !=
            ES_OK)
        goto out;
    if (opt->remove &&
        (ret = es_filter_samples(opt->remove, 0, p, &by_pair, &by_iid, ds->status, &removed)) !=
            ES_OK)
        goto out;
out:
    es_strindex_free(&by_pair);
    es_strindex_free(&by_iid);
    return ret;
}

/* Samples removed so far (status -2). */
static uint32_t count_removed(const es_dataset_t *ds)
{
    uint32_t n = 0;
    for (uint32_t s = 0; s < ds->plink->n_samples; s++) n += ds->status[s] == -2;
    return n;
}

/* Append ", N by OPT" to a removal summary when the filter removed anything
 * or was asked for. */
static void add_removed(char *buf, size_t cap, const char *opt, uint32_t n, int asked)
{
    char b[32];
    size_t used = strlen(buf);
    if (!asked || used >= cap) return;
    snprintf(buf + used, cap - used, "%s%s by %s", used ? ", " : "", es_fmt_count(n, b), opt);
}

/* Variants removed by each filter, for the log and the all-removed error. */
typedef struct {
    uint32_t chr, from_to, snps, ext, exc, geno, hwe, maf;
} removed_t;

/* --chr, --from/--to, --snps, --extract, --exclude: the filters by name and
 * position, in PLINK 1.9's order (none depends on the samples). */
static int variants_by_name(es_dataset_t *ds, const es_input_opt_t *opt, uint8_t *vkeep,
                            removed_t *r)
{
    int ret = ES_OK;
    es_fileset_t *p = ds->plink;
    uint32_t n = p->n_variants;
    es_strindex_t by_id = {0};
    char b1[32], b2[32];

    if (opt->chr) {
        if ((ret = es_filter_chr(opt->chr, p, vkeep, &r->chr)) != ES_OK) goto out;
        es_info("--chr %s: %s of %s variants removed", opt->chr, es_fmt_count(r->chr, b1),
                es_fmt_count(n, b2));
    }
    if (opt->from || opt->to || opt->snps || opt->extract || opt->exclude) {
        if ((ret = es_strindex_build(&by_id, p->id, NULL, n)) != ES_OK) goto out;
    }
    if (opt->from || opt->to) {
        int64_t lo, hi;
        if ((ret = es_filter_from_to(opt->from, opt->to, p, &by_id, vkeep, &lo, &hi,
                                     &r->from_to)) != ES_OK)
            goto out;
        es_info("--from/--to %s..%s: positions %" PRId64 " to %" PRId64 " of chromosome %s; %s "
                "of %s variants removed", opt->from ? opt->from : "(start)",
                opt->to ? opt->to : "(end)", lo, hi,
                p->chr[es_strindex_find(&by_id, opt->from ? opt->from : opt->to, NULL)],
                es_fmt_count(r->from_to, b1), es_fmt_count(n, b2));
    }
    if (opt->snps) {
        if ((ret = es_filter_snps(opt->snps, p, &by_id, vkeep, &r->snps)) != ES_OK) goto out;
        es_info("--snps %s: %s variants removed", opt->snps, es_fmt_count(r->snps, b1));
    }
    if (opt->extract) {
        if ((ret = es_filter_variant_list(opt->extract, 1, p, &by_id, vkeep, &r->ext)) != ES_OK)
            goto out;
        es_info("--extract %s: %s variants removed", opt->extract, es_fmt_count(r->ext, b1));
    }
    if (opt->exclude) {
        if ((ret = es_filter_variant_list(opt->exclude, 0, p, &by_id, vkeep, &r->exc)) != ES_OK)
            goto out;
        es_info("--exclude %s: %s variants removed", opt->exclude, es_fmt_count(r->exc, b1));
    }
out:
    es_strindex_free(&by_id);
    return ret;
}

/* --geno, --hwe, then --maf (PLINK 1.9's order) over the samples that
 * remain; each counts among the variants the one before left. */
static int variants_by_qc(es_dataset_t *ds, const es_input_opt_t *opt, uint8_t *vkeep,
                          removed_t *r)
{
    int ret = ES_OK;
    es_fileset_t *p = ds->plink;
    uint8_t *used = NULL;
    uint32_t unused;
    char b1[32], b2[32];

    if (!(opt->maf > 0) && !(opt->geno < 1) && !(opt->hwe > 0)) return ES_OK;
    if (!(used = malloc(p->n_samples ? p->n_samples : 1))) return ES_ERR_NOMEM;
    uint64_t n_used = 0;
    for (uint32_t s = 0; s < p->n_samples; s++) {
        used[s] = (uint8_t)es_dataset_sample_used(ds, s);
        n_used += used[s];
    }
    /* without --hwe, one pass does --geno and --maf (its order is the same) */
    int split = opt->hwe > 0;
    if ((ret = es_filter_qc(p, used, split ? 0 : opt->maf, opt->geno, opt->threads, vkeep,
                            &r->geno, split ? &unused : &r->maf)) != ES_OK)
        goto out;
    if (opt->geno < 1)
        es_info("--geno %g: %s variants removed (missing-call rate > %g over %s samples)",
                opt->geno, es_fmt_count(r->geno, b1), opt->geno, es_fmt_count(n_used, b2));
    if (split) {
        int all = 0;
        if ((ret = es_filter_hwe(p, ds->status, opt->hwe, opt->hwe_all, opt->threads, vkeep,
                                 &r->hwe, &all)) != ES_OK)
            goto out;
        es_info("--hwe %g: %s variants removed (exact test p < %g in the %s; chrY and chrMT not "
                "tested)", opt->hwe, es_fmt_count(r->hwe, b1), opt->hwe,
                all ? "founders" : "founder controls");
        if ((ret = es_filter_qc(p, used, opt->maf, 1, opt->threads, vkeep, &unused, &r->maf)) !=
            ES_OK)
            goto out;
    }
    if (opt->maf > 0)
        es_info("--maf %g: %s variants removed (minor allele frequency < %g over %s samples)",
                opt->maf, es_fmt_count(r->maf, b1), opt->maf, es_fmt_count(n_used, b2));
out:
    free(used);
    return ret;
}

/* The last variant step: refuse an empty selection (saying which filter
 * removed what), then compact the fileset to the variants left. */
static int variants_finish(es_dataset_t *ds, const es_input_opt_t *opt, const uint8_t *vkeep,
                           const removed_t *r, const char *name)
{
    es_fileset_t *p = ds->plink;
    uint32_t n = p->n_variants;
    char b3[32];
    uint32_t removed =
        r->chr + r->from_to + r->snps + r->ext + r->exc + r->geno + r->hwe + r->maf;
    if (removed == n) {
        char why[512] = "";
        add_removed(why, sizeof why, "--chr", r->chr, opt->chr != NULL);
        add_removed(why, sizeof why, "--from/--to", r->from_to, opt->from || opt->to);
        add_removed(why, sizeof why, "--snps", r->snps, opt->snps != NULL);
        add_removed(why, sizeof why, "--extract", r->ext, opt->extract != NULL);
        add_removed(why, sizeof why, "--exclude", r->exc, opt->exclude != NULL);
        add_removed(why, sizeof why, "--geno", r->geno, opt->geno < 1);
        add_removed(why, sizeof why, "--hwe", r->hwe, opt->hwe > 0);
        add_removed(why, sizeof why, "--maf", r->maf, opt->maf > 0);
        es_error("%s: no variants left after %s (all %s removed: %s)", name,
                 opt->from || opt->to || opt->snps || opt->hwe > 0
                     ? "the variant filters"
                     : "--chr/--extract/--exclude/--geno/--maf",
                 es_fmt_count(n, b3), why);
        return ES_ERR_DATA;
    }
    return removed ? es_filter_compact(p, vkeep) : ES_OK;
}

int es_dataset_open(es_dataset_t **out, const es_input_opt_t *opt)
{
    int ret = ES_OK;
    es_dataset_t *ds = NULL;
    const char *name = NULL;
    uint8_t *vkeep = NULL; /* the variants kept so far (source rows) */
    removed_t rv = {0};
    char b1[32], b2[32], b3[32], b4[32], b5[32], b6[32];

    if (!out || !opt) {
        es_error("no output pointer or input options given");
        ret = ES_ERR_ARG;
        goto out;
    }
    *out = NULL;
    if ((ret = check_opt(opt)) != ES_OK) goto out;
    name = opt->bfile ? opt->bfile : opt->vcf;
    if (!(ds = calloc(1, sizeof *ds)) || !(ds->missing_memo = calloc(1, sizeof *ds->missing_memo))) {
        ret = ES_ERR_NOMEM;
        goto out;
    }
    ds->missing_memo->answer = -1; /* not asked yet */
    ds->require_pheno = opt->require_pheno != 0;
    if (opt->bfile) {
        if ((ret = es_plink_open(&ds->plink, opt->bfile)) != ES_OK) goto out;
    } else {
        /* no stats wanted: the reader logs what it read and, as counted
         * warnings, what it skipped */
        if ((ret = es_vcf_open_progress(&ds->plink, opt->vcf, opt->regions, opt->n_regions, opt->threads,
                                        opt->vcf_multiallelic, NULL, opt->progress, opt->progress_ud)) != ES_OK)
            goto out;
    }
    const es_fileset_t *p = ds->plink;
    const char *sample_src = p->fam_path ? p->fam_path : name;
    uint32_t n_var_in = p->n_variants;
    if (n_var_in == 0) {
        es_error("%s: no variants to analyse", name);
        ret = ES_ERR_DATA;
        goto out;
    }
    if (!(ds->status = malloc(p->n_samples ? p->n_samples : 1))) {
        ret = ES_ERR_NOMEM;
        goto out;
    }

    /* samples */
    if ((ret = assign_status(ds, opt)) != ES_OK) goto out;
    if ((ret = select_samples(ds, opt)) != ES_OK) goto out;
    uint32_t n_removed = count_removed(ds);
    if (n_removed == p->n_samples) {
        es_error("%s: no samples left after --keep/--remove (all %s samples of %s removed)",
                 opt->keep ? opt->keep : opt->remove, es_fmt_count(p->n_samples, b1),
                 sample_src);
        ret = ES_ERR_DATA;
        goto out;
    }

    /* variants by name and position, then --mind over them (PLINK 1.9 runs
     * its sample-missingness filter before the variant QC) */
    int by_name = opt->chr || opt->from || opt->to || opt->snps || opt->extract || opt->exclude;
    int by_qc = opt->maf > 0 || opt->geno < 1 || opt->hwe > 0;
    if ((by_name || by_qc || opt->mind < 1) && !(vkeep = malloc(n_var_in))) {
        ret = ES_ERR_NOMEM;
        goto out;
    }
    if (vkeep) memset(vkeep, 1, n_var_in);
    if (by_name && (ret = variants_by_name(ds, opt, vkeep, &rv)) != ES_OK) goto out;
    if (opt->mind < 1) {
        uint32_t r_mind, n_var = 0;
        for (uint32_t v = 0; v < n_var_in; v++) n_var += vkeep[v];
        if ((ret = es_filter_mind(p, vkeep, opt->mind, opt->threads, ds->status, &r_mind)) !=
            ES_OK)
            goto out;
        es_info("--mind %g: %s of %s samples removed (missing-call rate > %g over %s variants)",
                opt->mind, es_fmt_count(r_mind, b1), es_fmt_count(p->n_samples - n_removed, b2),
                opt->mind, es_fmt_count(n_var, b3));
        n_removed += r_mind;
        if (n_removed == p->n_samples) {
            es_error("%s: no samples left after --mind %g (all %s samples removed; %s by their "
                     "missing-call rate)", sample_src, opt->mind, es_fmt_count(p->n_samples, b1),
                     es_fmt_count(r_mind, b2));
            ret = ES_ERR_DATA;
            goto out;
        }
    }
    uint32_t n_case = 0, n_ctrl = 0;
    for (uint32_t s = 0; s < p->n_samples; s++) {
        n_case += ds->status[s] == 1;
        n_ctrl += ds->status[s] == 0;
    }
    ds->n_case = n_case;
    ds->n_ctrl = n_ctrl;
    uint32_t n_miss = p->n_samples - n_case - n_ctrl - n_removed;
    if (ds->qt && n_ctrl >= 5) {
        double lo = INFINITY, hi = -INFINITY;
        for (uint32_t s = 0; s < p->n_samples; s++)
            if (ds->status[s] == 0) {
                lo = ds->qt_y[s] < lo ? ds->qt_y[s] : lo;
                hi = ds->qt_y[s] > hi ? ds->qt_y[s] : hi;
            }
        if (!(hi > lo)) {
            es_error("%s: every sample has the same quantitative phenotype (%g): nothing to test (a "
                     "case/control phenotype is 1/2 in .fam column 6; or give --pheno)",
                     opt->pheno ? opt->pheno : sample_src, lo);
            ret = ES_ERR_DATA;
            goto out;
        }
    }
    if (ds->qt && n_ctrl < 5) {
        es_error("%s: %s of the %s samples of %s %s a quantitative phenotype; the regression tests "
                 "need at least 5",
                 opt->pheno ? opt->pheno : sample_src, es_fmt_count(n_ctrl, b1), es_fmt_count(p->n_samples, b2),
                 sample_src, n_ctrl == 1 ? "has" : "have");
        ret = ES_ERR_DATA;
        goto out;
    }
    if (opt->require_pheno && !ds->qt && (n_case == 0 || n_ctrl == 0)) {
        const char *src = opt->pheno ? opt->pheno : sample_src;
        uint32_t other = n_case == 0 ? n_ctrl : n_case;
        char rm[64] = "";
        if (n_removed)
            snprintf(rm, sizeof rm, ", %s removed by --keep/--remove%s",
                     es_fmt_count(n_removed, b4), opt->mind < 1 ? "/--mind" : "");
        es_error("%s: no %s among the %s samples of %s (%s %s%s, %s with missing phenotype%s); "
                 "a case/control scan needs both cases (%s) and controls (%s)", src,
                 n_case == 0 ? (opt->pheno_01 ? "cases (phenotype 1)" : "cases (phenotype 2)")
                             : (opt->pheno_01 ? "controls (phenotype 0)"
                                              : "controls (phenotype 1)"),
                 es_fmt_count(p->n_samples, b1), sample_src, es_fmt_count(other, b2),
                 n_case == 0 ? "control" : "case", other == 1 ? "" : "s",
                 es_fmt_count(n_miss, b3), rm, opt->pheno_01 ? "1" : "2",
                 opt->pheno_01 ? "0 with --1" : "1");
        ret = ES_ERR_DATA;
        goto out;
    }

    /* variant QC over the samples left */
    if (by_qc && (ret = variants_by_qc(ds, opt, vkeep, &rv)) != ES_OK) goto out;
    if ((by_name || by_qc) && (ret = variants_finish(ds, opt, vkeep, &rv, name)) != ES_OK)
        goto out;
    ds->pad_words = ES_PAD_WORDS;
    /* --mind and the QC read every row */
    if ((ret = es_fileset_check(p)) != ES_OK) goto out;
    if ((ret = assign_slots(ds)) != ES_OK) goto out;

    char vars[80], rm[64] = "";
    if (p->n_variants == n_var_in)
        snprintf(vars, sizeof vars, "%s variants", es_fmt_count(n_var_in, b1));
    else
        snprintf(vars, sizeof vars, "%s variants (of %s)", es_fmt_count(p->n_variants, b1),
                 es_fmt_count(n_var_in, b2));
    if (n_removed) snprintf(rm, sizeof rm, ", %s removed", es_fmt_count(n_removed, b6));
    if (ds->qt)
        es_info("%s: %s, %s samples: %s with a quantitative phenotype, %s without%s (from %s)", name, vars,
                es_fmt_count(p->n_samples, b3), es_fmt_count(n_ctrl, b4), es_fmt_count(n_miss, b2), rm,
                opt->pheno ? opt->pheno : sample_src);
    else
    es_info("%s: %s, %s samples: %s cases, %s controls, %s without phenotype%s (from %s)", name,
            vars, es_fmt_count(p->n_samples, b3), es_fmt_count(n_case, b4),
            es_fmt_count(n_ctrl, b5), es_fmt_count(n_miss, b2), rm,
            opt->pheno ? opt->pheno : sample_src);
    *out = ds;
    ds = NULL;
out:
    if (ret == ES_ERR_NOMEM) es_error("out of memory opening %s", name ? name : "(no input)");
    free(vkeep);
    es_dataset_destroy(ds);
    return ret;
}

int es_dataset_open_bfile(es_dataset_t **out, const char *prefix, const char *pheno_path,
                          const char *pheno_name)
{
    es_input_opt_t opt;
    if (!out || !prefix) {
        es_error("no output pointer or fileset prefix given");
        return ES_ERR_ARG;
    }
    es_input_opt_init(&opt);
    opt.bfile = prefix;
    opt.pheno = pheno_path;
    opt.pheno_name = pheno_name;
    return es_dataset_open(out, &opt);
}

void es_dataset_destroy(es_dataset_t *ds)
{
    if (!ds) return;
    if (ds->plink) {
        /* var_src is the selection's (this file's), freed here whatever
         * es_fileset_close() does with it */
        free(ds->plink->var_src);
        ds->plink->var_src = NULL;
    }
    es_fileset_close(ds->plink);
    free(ds->status);
    free(ds->qt_y);
    free(ds->slot);
    free(ds->missing_memo);
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

int es_dataset_is_qt(const es_dataset_t *ds)
{
    return ds && ds->qt;
}

double es_dataset_qt_value(const es_dataset_t *ds, uint32_t s)
{
    return ds && ds->qt && s < ds->plink->n_samples ? ds->qt_y[s] : NAN;
}

void es_dataset_sample(const es_dataset_t *ds, uint32_t s, const char **fid, const char **iid)
{
    int ok = ds && s < ds->plink->n_samples; /* else: harmless empty IDs */
    if (fid) *fid = ok ? ds->plink->fid[s] : "";
    if (iid) *iid = ok ? ds->plink->iid[s] : "";
}

int es_dataset_sample_used(const es_dataset_t *ds, uint32_t s)
{
    if (!ds || s >= ds->plink->n_samples) return 0;
    /* without a required phenotype, samples without one are still analysed */
    return ds->require_pheno ? ds->status[s] >= 0 : ds->status[s] != -2;
}

es_variant_info_t es_dataset_variant(const es_dataset_t *ds, uint32_t idx)
{
    es_variant_info_t v = {"", "", 0, 0.0, "", ""};
    if (!ds || idx >= ds->plink->n_variants) return v; /* contract broken: harmless value */
    const es_fileset_t *p = ds->plink;
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
    const es_fileset_t *p = ds->plink;
    const uint8_t *row = es_fileset_row(p, idx);
    uint32_t n = p->n_samples, full = n / 4, rest = n % 4;
    for (uint32_t b = 0; b < full; b++) memcpy(out + 4 * (size_t)b, decode_lut[row[b]], 4);
    if (rest) memcpy(out + 4 * (size_t)full, decode_lut[row[full]], rest);
    return es_fileset_check(p);
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

static int any_missing_scan(const es_dataset_t *ds);

int es_dataset_any_missing(const es_dataset_t *ds)
{
    /* asked twice for one scan (by BOOST's failed-test pass and by the
     * packing): the second answer is the first, unless the variants or the
     * samples in the analysis changed (--plink-compat's skips, covariates) */
    struct es_missing_memo *mm = ds->missing_memo;
    uint32_t nv = es_dataset_n_variants(ds), ns = ds->n_case + ds->n_ctrl;
    if (mm && mm->answer >= 0 && mm->n_variants == nv && mm->n_samples == ns) return mm->answer;
    int a = any_missing_scan(ds);
    if (mm) {
        mm->answer = a;
        mm->n_variants = nv;
        mm->n_samples = ns;
    }
    return a;
}

static int any_missing_scan(const es_dataset_t *ds)
{
    const es_fileset_t *p = ds->plink;
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
        if (row_has_missing(es_fileset_row(p, (uint32_t)v), kept, full_words, tail)) {
#pragma omp atomic write
            found = 1;
        }
    }
    free(kept);
    return found;
}

/* The used samples' even bits over a row's bytes (as es_dataset_any_missing
 * builds them), in nw words.  NULL when out of memory. */
static uint64_t *used_mask(const es_dataset_t *ds, size_t nw)
{
    uint64_t *kept = calloc(nw ? nw : 1, sizeof *kept);
    if (!kept) return NULL;
    uint8_t *kb = (uint8_t *)kept;
    for (uint32_t s = 0; s < ds->plink->n_samples; s++)
        if (es_dataset_sample_used(ds, s)) kb[s / 4] |= (uint8_t)(1u << (2 * (s % 4)));
    return kept;
}

/* Word w of row (the last one zero-padded past the row's bytes). */
static inline uint64_t row_word(const uint8_t *row, size_t w, size_t full_words, size_t tail)
{
    uint64_t x = 0;
    memcpy(&x, row + 8 * w, w < full_words ? 8 : tail);
    return x;
}

/* Level and missing counts of variants [v0, v1).  Codes: 11 -> 0 copies of
 * A1, 10 -> 1, 00 -> 2, 01 missing.  Row words before the last are whole;
 * the last is zero-padded (row_word). */
static inline __attribute__((always_inline)) void
levels_rows_body(const es_fileset_t *p, const uint64_t *kept, uint64_t n_used, uint32_t (*lev)[3], size_t *moff,
                 int64_t v0, int64_t v1)
{
    const size_t bpv = p->bytes_per_variant, full_words = bpv / 8, tail = bpv % 8;
    const uint64_t EVEN = 0x5555555555555555ull;
    for (int64_t v = v0; v < v1; v++) {
        const uint8_t *row = es_fileset_row(p, (uint32_t)v);
        uint64_t c0 = 0, c1 = 0, cm = 0;
        for (size_t w = 0; w < full_words; w++) {
            uint64_t x;
            memcpy(&x, row + 8 * w, 8);
            uint64_t lo = x & EVEN, hi = (x >> 1) & EVEN;
            c0 += (uint64_t)__builtin_popcountll(lo & hi & kept[w]);
            c1 += (uint64_t)__builtin_popcountll(~lo & hi & kept[w]);
            cm += (uint64_t)__builtin_popcountll(lo & ~hi & kept[w]);
        }
        if (tail) {
            uint64_t x = row_word(row, full_words, full_words, tail), lo = x & EVEN, hi = (x >> 1) & EVEN;
            c0 += (uint64_t)__builtin_popcountll(lo & hi & kept[full_words]);
            c1 += (uint64_t)__builtin_popcountll(~lo & hi & kept[full_words]);
            cm += (uint64_t)__builtin_popcountll(lo & ~hi & kept[full_words]);
        }
        lev[v][0] = (uint32_t)c0;
        lev[v][1] = (uint32_t)c1;
        lev[v][2] = (uint32_t)(n_used - c0 - c1 - cm);
        moff[v + 1] = (size_t)cm;
    }
}

typedef void (*levels_rows_fn)(const es_fileset_t *p, const uint64_t *kept, uint64_t n_used, uint32_t (*lev)[3],
                               size_t *moff, int64_t v0, int64_t v1);

static void levels_rows_generic(const es_fileset_t *p, const uint64_t *kept, uint64_t n_used, uint32_t (*lev)[3],
                                size_t *moff, int64_t v0, int64_t v1)
{
    levels_rows_body(p, kept, n_used, lev, moff, v0, v1);
}

#if ES_CPU_X86
/* The same loop with the POPCNT instruction: without it each
 * __builtin_popcountll is a libgcc call, and this pass over every row of
 * the .bed took about as long as packing them (issue 24).  (No OpenMP
 * region inside: its outlined body would not inherit the target.) */
ES_TARGET_POPCNT static void levels_rows_popcnt(const es_fileset_t *p, const uint64_t *kept, uint64_t n_used,
                                                uint32_t (*lev)[3], size_t *moff, int64_t v0, int64_t v1)
{
    levels_rows_body(p, kept, n_used, lev, moff, v0, v1);
}
#endif

int es_dataset_levels(const es_dataset_t *ds, uint32_t (*lev)[3], size_t *moff, uint32_t **mpos)
{
    const es_fileset_t *p = ds->plink;
    const size_t bpv = p->bytes_per_variant, full_words = bpv / 8, tail = bpv % 8;
    const size_t nw = full_words + (tail != 0);
    const int64_t nv = p->n_variants;
    *mpos = NULL;
    uint64_t *kept = used_mask(ds, nw);
    if (!kept) return ES_ERR_NOMEM;
    uint64_t n_used = 0;
    for (size_t w = 0; w < nw; w++) n_used += (uint64_t)__builtin_popcountll(kept[w]);
    levels_rows_fn rows = levels_rows_generic;
#if ES_CPU_X86
    /* EPISTREAM_POPCOUNT=scalar: the portable loop (tests compare the two) */
    const char *want = es_env_variant("EPISTREAM_POPCOUNT");
    if (es_cpu_has(ES_CPU_POPCNT) && !(want && !strcmp(want, "scalar"))) rows = levels_rows_popcnt;
#endif
    const int64_t n_chunks = (nv + MISSING_CHUNK - 1) / MISSING_CHUNK;
#pragma omp parallel for schedule(dynamic, 1) if (nv > 4 * MISSING_CHUNK)
    for (int64_t c = 0; c < n_chunks; c++)
        rows(p, kept, n_used, lev, moff, c * MISSING_CHUNK, c + 1 < n_chunks ? (c + 1) * MISSING_CHUNK : nv);
    moff[0] = 0;
    for (int64_t v = 0; v < nv; v++) moff[v + 1] += moff[v];
    int ret = ES_OK;
    if (moff[nv] && !(*mpos = malloc(moff[nv] * sizeof **mpos))) ret = ES_ERR_NOMEM;
    if (ret == ES_OK && moff[nv]) {
        uint32_t *out = *mpos;
#pragma omp parallel for schedule(dynamic, MISSING_CHUNK) if (nv > 4 * MISSING_CHUNK)
        for (int64_t v = 0; v < nv; v++) {
            if (moff[v + 1] == moff[v]) continue;
            const uint8_t *row = es_fileset_row(p, (uint32_t)v);
            size_t k = moff[v];
            for (size_t w = 0; w < nw; w++) {
                uint64_t x = row_word(row, w, full_words, tail);
                for (uint64_t m = x & ~(x >> 1) & kept[w]; m; m &= m - 1)
                    out[k++] = (uint32_t)(w * 32 + (size_t)__builtin_ctzll(m) / 2);
            }
        }
    }
    free(kept);
    if (ret == ES_OK) ret = es_fileset_check(p);
    if (ret) {
        free(*mpos);
        *mpos = NULL;
    }
    return ret;
}

int es_dataset_write_plink(const es_dataset_t *ds, const char *prefix)
{
    if (!ds) return ES_ERR_ARG;
    return es_plink_write(ds->plink, ds->status, prefix);
}
