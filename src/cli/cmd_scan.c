/* cmd_scan.c -- `epistream scan`: the exhaustive 2-way scan and its output files. */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "cli.h"
#include "dist.h"
#include "output.h"

static void scan_usage(FILE *fp)
{
    fprintf(fp,
            "Usage: epistream scan (--bfile PREFIX | --vcf FILE --pheno FILE) --out PREFIX [options]\n"
            "\n"
            "Exhaustive scan of all variant pairs (or, with --order 3, triples) of a\n"
            "case/control dataset, or the pairs of a quantitative trait.\n"
            "\n");
    es_cli_input_usage(fp, 1);
    fprintf(fp,
            "Analysis:\n"
            "  --stat S             boost (default; PLINK --fast-epistasis boost), chi2\n"
            "                       (the default with --order 3), mi, ig (information gain\n"
            "                       over the better single variant; p-value df 6, fewer\n"
            "                       with empty genotype levels), k2, logistic (PLINK 1.9\n"
            "                       --epistasis: the A x B term of a logistic regression,\n"
            "                       Wald (beta/se)^2, column BETA_INT, the log odds\n"
            "                       ratio; CPU only); for a quantitative\n"
            "                       trait: linear (the default there; PLINK 1.9 --epistasis:\n"
            "                       the A x B term of Y ~ A + B + AB, STAT (beta/se)^2, P\n"
            "                       from chi-square 1 df, column BETA_INT; also on a GPU\n"
            "                       where no call is missing) or linear4 (the 4-df\n"
            "                       genotypic interaction F test; CPU only); --refine needs\n"
            "                       a case/control class\n"
            "  --qt                 the phenotype is a quantitative trait even when coded\n"
            "                       1/2 (without it: when any value is not 1, 2, 0, -9, NA)\n"
            "  --covar FILE         covariates (PLINK's 'FID IID c1 c2 ...', optional header;\n"
            "                       -9/NA missing: such samples are left out): every pair is\n"
            "                       screened (a quantitative trait: --stat linear on the\n"
            "                       trait residualised on the covariates; case/control: the\n"
            "                       chosen statistic), then y ~ A + B + AB + covariates is\n"
            "                       fitted exactly (least squares; logistic for case/control)\n"
            "                       for the --exact-top best; .top.tsv lists the --top best by\n"
            "                       its P with columns BETA_INT SE_INT P_INT\n"
            "  --covar-name LIST    the covariates to use: names, NAME1-NAME2 ranges or\n"
            "                       1-based column numbers (default: all)\n"
            "  --exact-top K        pairs of the screen the exact model fits (default --top)\n"
            "  --order N            2 (default): variant pairs; 3: variant triples, each\n"
            "                       with its 2x27 table (chi2, mi, ig, k2; not boost).\n"
            "                       Exhaustive 3-way is for up to about 10^4 variants (M\n"
            "                       variants give M^3/6 triples: 1.7e11 at 10^4, 1.7e17 at\n"
            "                       10^6); beyond, seed it with pairs:\n"
            "  --pairs-from FILE    order 3: only the triples that extend the pairs of FILE\n"
            "                       (a .top.tsv or .sig.tsv of a 2-way scan) by every other\n"
            "                       variant, each triple once\n"
            "  --pairs-top K        order 3: the same with the K best pairs of a 2-way scan\n"
            "                       of the same data and statistic, run first\n"
            "  --top K              pairs (triples) kept in the ranked list (default 1000)\n"
            "  --p-threshold P      also write every pair with p <= P to PREFIX.sig.tsv (in\n"
            "                       variant order; with --format plink: PREFIX.epi.cc)\n"
            "  --epi1 P             PLINK's name for --p-threshold (default with --format\n"
            "                       plink: 5e-6, PLINK's for boost); the last one given counts\n"
            "  --epi2 P             N_SIG in the summary counts pairs with p <= P (default:\n"
            "                       the --p-threshold; with --format plink 0.01, as PLINK)\n"
            "  --threads T          CPU threads, also VCF decompression (default: all)\n"
            "  --device D           auto (default: every GPU when that is estimated to be\n"
            "                       faster for this scan, else the CPU; --verbose says why),\n"
            "                       cpu, gpu (every visible GPU) or gpu:0,2 (those GPUs)\n"
            "  --gpu-kernel K       GPU counting kernel: auto (default: by compute\n"
            "                       capability; on Hopper ws for boost with no\n"
            "                       missing call and 8 or more slices of 1,024 samples in\n"
            "                       its two classes (each rounded up), where it\n"
            "                       measured faster, else wgmma), wgmma (Hopper tensor\n"
            "                       cores, sm_90a), ws (wgmma, persistent and\n"
            "                       warp-specialised: the statistic overlaps the next tile;\n"
            "                       no missing call, at most 65,280 samples a class, else\n"
            "                       as wgmma), mma (tensor cores, sm_80+) or popc (CUDA\n"
            "                       cores).  --order 3 runs on the GPU too: mma (wgmma and\n"
            "                       ws mean mma there) when no call is missing, popc\n"
            "                       (several times slower) otherwise\n"
            "  --gpu-mem BYTES      device memory for variant blocks per GPU (suffix K, M, G;\n"
            "                       default: what is free); data larger than this is streamed\n"
            "                       through it (a block: its planes + about 280 bytes a\n"
            "                       variant, or + 24 where that fits more blocks, the\n"
            "                       constants then built per block beside the tiles)\n"
            "  --host-mem BYTES     packed genotypes to keep in memory (suffix K, M, G; default:\n"
            "                       half the physical memory); beyond it they go to an unlinked\n"
            "                       temporary file that the system pages in and out\n"
            "  --memory MB          PLINK's name for --host-mem MB x 2^20 (the last one given\n"
            "                       counts)\n"
            "  --tmp-dir DIR        where that file goes (default: $TMPDIR, else /tmp); its\n"
            "                       size is reserved first (\"no space left on DIR\" if not)\n"
            "  --block B            variants per tile side (default 0: automatic; output does\n"
            "                       not depend on it)\n"
            "  --refine METHOD:K    then select K of the variants of the top pairs by mutual\n"
            "                       information (METHOD: mrmr, jmi, disr, cmim, icap, condmi,\n"
            "                       mim; e.g. mrmr:20); the same as 'epistream select --from\n"
            "                       PREFIX.top.tsv' afterwards; writes PREFIX.select.tsv;\n"
            "                       runs on the first GPU of --device (the CPU with cpu)\n"
            "  --fixed-point        with --refine: fixed-point entropies (see select --help)\n"
            "Output:\n"
            "  --out PREFIX         writes PREFIX.top.tsv, PREFIX.summary.tsv, PREFIX.log\n"
            "                       (and PREFIX.sig.tsv with --p-threshold, PREFIX.select.tsv\n"
            "                       with --refine; see --format), all or none; then removes\n"
            "                       the outputs of an earlier run of that PREFIX that it did\n"
            "                       not write (PREFIX ends in a file name: not \"\" or DIR/)\n"
            "  --format F           tsv (default) or plink: PLINK 1.9's files, PREFIX.epi.cc\n"
            "                       (the pairs with p <= --epi1, in variant order) and\n"
            "                       PREFIX.epi.cc.summary instead of .sig.tsv and .summary.tsv\n"
            "  --plink-compat       --format plink, and skip what PLINK skips: variants on X\n"
            "                       and Y, and variants with fewer than two genotypes (logged)\n"
            "  --tables             add each line's table to .top.tsv and .sig.tsv: columns\n"
            "                       CTRL_00 .. CTRL_22, CASE_00 .. CASE_22 (genotypes of\n"
            "                       variants 1, 2; --order 3: CTRL_000 .. CASE_222)\n"
            "Clusters and long runs (README \"Running on a cluster\"):\n"
            "  --checkpoint FILE    write the scan's state to FILE (atomically) every\n"
            "                       --checkpoint-every seconds; removed after success\n"
            "  --checkpoint-every S seconds between checkpoints (default 600; 0: after\n"
            "                       every tile)\n"
            "  --resume             continue from the --checkpoint FILE (from the start if it\n"
            "                       does not exist yet); refused if the data or options differ\n"
            "  --shard I/N          compute shard I (1..N) of N: a deterministic 1/N of the\n"
            "                       tiles, its state in PREFIX.shard-I-of-N.state (no other\n"
            "                       output); 'epistream merge' joins the N into the outputs\n"
            "                       of one run (give every shard the same --block when some\n"
            "                       run on GPUs and some on CPUs).  Under mpirun, ranks take\n"
            "                       tiles from rank 0, which writes the outputs\n"
            "  --report             then draw the run's report into PREFIX.report/report.html\n"
            "                       (the plots and tables of 'epistream report PREFIX'; needs\n"
            "                       a build with cairo)\n"
            "  --quiet              only errors on stderr, no progress line\n"
            "  --verbose            informational messages on stderr (the time to set up\n"
            "                       the scan, to write and to commit the outputs; with a\n"
            "                       GPU: time in the kernels, candidates, pairs passing\n"
            "                       the screen, candidates decided and dropped on the\n"
            "                       device)\n"
            "  -h, --help           this help\n"
            "Environment: EPISTREAM_GPU_TRACE=1 prints one line per GPU tile on stderr;\n"
            "  EPISTREAM_GPU_LOAD=cp|tma1|tma2|tma4 picks how H100/H200 tiles load their\n"
            "  operands (default cp; for benchmarks, same results); EPISTREAM_GPU_EXACT=0\n"
            "  sends every candidate pair to the host instead of scoring them exactly on\n"
            "  the device first; EPISTREAM_GPU_FITS=0 has the host fit BOOST's model again\n"
            "  instead of taking the device's fit; EPISTREAM_GPU_SCORE_CHUNK=N scores a GPU\n"
            "  tile's candidates on a thread per N of them (default 512; 0: as before);\n"
            "  EPISTREAM_GPU_PREPASS=0|1 never / always runs the diagonal GPU tiles twice;\n"
            "  EPISTREAM_GPU_PREPASS_BAND=N: their first run covers the pairs within N\n"
            "  variants of the diagonal (default 1024; 0: all, as before);\n"
            "  EPISTREAM_GPU_ORDER=diag takes every diagonal GPU tile first, then rows,\n"
            "  instead of by growing squares (where the device holds every block);\n"
            "  EPISTREAM_GPU_WARM=0 loads the GPU kernels at their first launch and makes\n"
            "  the host's candidate buffers in the first tiles, not on threads of their\n"
            "  own while the blocks are packed (=open: from the opening on, as before;\n"
            "  =kernels: the kernels only; =late: the buffers once the device holds its\n"
            "  first tiles); EPISTREAM_GPU_CLOSE=now closes the GPUs before the scan\n"
            "  returns, as before, not on a thread of their own beside the writing;\n"
            "  EPISTREAM_GPU_SLOTPRE=1 keeps streamed blocks' per-variant constants in\n"
            "  the GPU cache's slots, as before, not built per block beside them;\n"
            "  EPISTREAM_GPU_MC=0|2|4|8|16: column tiles an H100/H200 tile CTA scores\n"
            "  (default 16 where a class has at most 1,024 samples; 0: one, as before);\n"
            "  EPISTREAM_GPU_PUBLISH=0 clears and copies each GPU tile's counts with a\n"
            "  memset and a copy, as before; EPISTREAM_GPU_STAGE2=inline runs each GPU\n"
            "  tile's exact second stage after it, as before, not beside the next tile;\n"
            "  EPISTREAM_GPU_FOLD=0 folds each GPU tile's results on the thread that\n"
            "  scores it, as before, not on one of their own;\n"
            "  EPISTREAM_GPU_TILEFIT=1 fits BOOST's lower bounds in every\n"
            "  GPU tile and judges the device's exact candidates in one pass, as before;\n"
            "  EPISTREAM_GPU_EPILOGUE=1 runs the previous GPU tile epilogue;\n"
            "  EPISTREAM_GPU_WS=fits|spin runs --gpu-kernel ws as before (same results;\n"
            "  noepi|nomma: timing probes with wrong results);\n"
            "  EPISTREAM_GPU_QT_KERNEL=rows|split[/1|/2|/3] picks the --stat linear GPU\n"
            "  kernels and EPISTREAM_GPU_QT_SERIAL=1 scores each of their\n"
            "  tiles before the next starts; EPISTREAM_PACK_OVERLAP=0 packs every block\n"
            "  before a GPU scan starts instead of beside it, and EPISTREAM_GPU_PRELOAD=0\n"
            "  uploads the blocks from the thread that scores the tiles instead of one\n"
            "  of their own (for comparisons, same results).\n");
}

/* The significant-pair stream: the list (.sig.tsv or .epi.cc, p <= list_thr)
 * and, with --epi2 or --format plink, the summary's N_SIG (p <= epi2; failed
 * tests never count, as in PLINK). */
typedef struct {
    es_out_t *o;
    es_pair_writer_t pw;
    double list_thr;  /* < 0: no list */
    double epi2;
    uint64_t *n_sig2; /* NULL: N_SIG from the scan's summary */
    int err;
} sig_writer_t;

static int write_sig(const es_pair_t *p, void *ud)
{
    sig_writer_t *w = ud;
    if (w->n_sig2 && p->p <= w->epi2 && p->df > 0) {
        w->n_sig2[p->i]++;
        w->n_sig2[p->j]++;
    }
    if (w->list_thr >= 0 && p->p <= w->list_thr && (w->err = es_pair_writer_put(&w->pw, p))) {
        /* the cause now, from this thread's errno: read after the scan has
         * stopped, other calls (a GPU's teardown) may have changed it */
        if (w->err == ES_ERR_IO) es_out_failed(w->o);
        return -1;
    }
    return 0;
}

static void progress(uint64_t done, uint64_t total, double secs, void *ud)
{
    (void)ud;
    es_cli_progress("scan", "pairs", done, total, secs);
}


static void progress3(uint64_t done, uint64_t total, double secs, void *ud);

/* --refine METHOD:K (k == 0: none) */
typedef struct {
    es_mi_method_t method;
    uint32_t k;
    uint32_t n_var; /* survivors: distinct variants of the top pairs */
    int fixed_point;
    es_select_info_t info;
} refine_t;

/* --refine: select rf->k of the survivors (distinct, ascending) into fp,
 * with a progress line when the scan has one */
static int refine_run(const es_opt_t *opt, refine_t *rf, const es_dataset_t *ds,
                      const uint32_t *survivors, FILE *fp)
{
    es_select_opt_t so;
    es_mi_opt_init(&so);
    so.threads = opt->threads;
    so.device = es_select_device(opt->device, opt->gpu_mask);
    so.gpu_kernel = opt->gpu_kernel;
    so.fixed_point = rf->fixed_point;
    es_cli_picks_t pp = {0, 0};
    if (opt->progress) {
        so.progress = es_cli_picks_progress;
        so.progress_ud = &pp;
    }
    int ret = es_select_variants(ds, survivors, rf->n_var, rf->method, rf->k, &so, fp, &rf->info);
    es_cli_picks_end(&pp);
    return ret;
}

/* What the command line asked for. */
typedef struct {
    es_cli_input_t ci;
    es_opt_t opt;
    refine_t rf;
    const char *out;
    int plink_fmt, plink_compat, quiet, verbose;
    double list_thr; /* --p-threshold / --epi1 (< 0: not given) */
    double epi2;     /* --epi2 (< 0: not given) */
    int tables;      /* --tables */
    const char *pairs_from; /* --pairs-from */
    int epi_given;   /* --epi1 or --epi2 given */
    int stat_given;  /* --stat given (else boost, or chi2 with --order 3, or linear for a
                      * quantitative trait) */
    int epi1_default; /* --format plink set the list's threshold to PLINK's boost default */
    int qt;          /* --qt: the phenotype is a quantitative trait, even if coded 1/2 */
    const char *covar;      /* --covar FILE */
    const char *covar_name; /* --covar-name LIST */
    uint32_t exact_top;     /* --exact-top K (0: --top) */
    uint32_t top_out;       /* --top as given (with --covar the screen keeps more) */
    int report;      /* --report: PREFIX.report/report.html after the run */
    char *shard_path; /* --shard: PREFIX.shard-I-of-N.state */
} scan_args_t;

/* What the scan found beyond its own results, for the log. */
typedef struct {
    uint32_t skip_mono, skip_haploid; /* --plink-compat */
    uint64_t failed;                  /* failed tests (boost) */
    /* --covar */
    uint32_t covar_dropped;           /* samples without every covariate */
    size_t n_adjusted, adjust_failed; /* pairs the exact model fitted, fits that failed */
    double t_adjust;
} scan_notes_t;

/* BOOST's failed tests (es_plink_epi_failed: a pass over every row of the
 * .bed) on a thread of their own: their counts are needed only when the
 * summary is written, so they are found while the scan runs (issue 24). */
typedef struct {
    const es_dataset_t *ds;
    uint64_t *failed; /* one per variant */
    uint64_t total;
    int threads, ret, started, beside;
    double seconds;
    pthread_t th;
} failed_job_t;

static void *failed_main(void *arg)
{
    failed_job_t *j = arg;
    double t0 = es_time_now();
#ifdef _OPENMP
    /* beside the scan: a quarter of the scan's threads (at least one, at
     * most two below eight): it has the whole scan to finish in, and starts
     * beside the packing, which wants every core (a new thread starts from
     * the default team size, not --threads) */
    if (j->beside) {
        int t = j->threads > 0 ? j->threads : omp_get_num_procs();
        omp_set_num_threads(t >= 8 ? t / 4 : t >= 2 ? 2 : 1);
    }
#endif
    j->ret = es_plink_epi_failed(j->ds, j->failed, &j->total);
    j->seconds = es_time_now() - t0;
    return NULL;
}

/* Start the pass: beside the scan on a thread of its own, or here (beside
 * 0, or when no thread can be had).  @return ES_OK, ES_ERR_NOMEM, or the
 * pass's error when it ran here. */
static int failed_start(failed_job_t *j, const es_dataset_t *ds, int threads, int beside)
{
    uint32_t m = es_dataset_n_variants(ds);
    memset(j, 0, sizeof *j);
    j->ds = ds;
    j->threads = threads;
    j->beside = beside;
    if (!(j->failed = calloc(m ? m : 1, sizeof *j->failed))) return ES_ERR_NOMEM;
    if (beside && pthread_create(&j->th, NULL, failed_main, j) == 0) {
        j->started = 1;
        return ES_OK;
    }
    failed_main(j);
    return j->ret;
}

/* Wait for the pass (if it runs).  @return its status. */
static int failed_join(failed_job_t *j)
{
    if (j->started) {
        pthread_join(j->th, NULL);
        j->started = 0;
    }
    return j->ret;
}

/* --covar: read the covariates, leave out the samples that miss one, and
 * (a quantitative trait) keep the trait and screen its residuals. */
static int covar_prepare(const scan_args_t *a, es_dataset_t *ds, es_covar_t *cv, double **trait, scan_notes_t *notes)
{
    const es_fileset_t *p = ds->plink;
    int ret = es_covar_read(a->covar, a->covar_name, p->n_samples, p->fid, p->iid, cv);
    if (ret) return ret;
    if ((ret = es_scan_covar_samples(ds, cv, a->covar, &notes->covar_dropped))) return ret;
    if (notes->covar_dropped)
        es_warn("%s: %u sample(s) without every covariate left out of the analysis", a->covar, notes->covar_dropped);
    if (!es_dataset_is_qt(ds)) return ES_OK;
    if (!(*trait = malloc((p->n_samples ? p->n_samples : 1) * sizeof **trait))) return ES_ERR_NOMEM;
    for (uint32_t s = 0; s < p->n_samples; s++) (*trait)[s] = es_dataset_qt_value(ds, s);
    return es_scan_covar_residualize(ds, cv);
}

static void write_log(FILE *fp, const char *cmdline, const scan_args_t *a,
                      const es_dataset_t *ds, const es_scan_t *scan, const scan_notes_t *notes,
                      const refine_t *rf, double t_open, double t_total)
{
    const es_input_opt_t *in = &a->ci.in;
    const es_opt_t *opt = &a->opt;
    const char *out = a->out;
    char c[32];
    time_t now = time(NULL);
    char date[64];
    strftime(date, sizeof date, "%Y-%m-%d %H:%M:%S %Z", localtime(&now));
    double t_pack, t_scan;
    es_scan_timings(scan, &t_pack, &t_scan);
    uint64_t pairs = es_scan_pairs_done(scan);
    fprintf(fp, "epistream %s\n", ES_VERSION);
    fprintf(fp, "date\t%s\n", date);
    fprintf(fp, "command\t%s\n", cmdline);
    if (in->bfile) {
        fprintf(fp, "bfile\t%s\n", in->bfile);
    } else {
        /* what became of the records with more than two alleles */
        const es_vcf_stats_t *st = &ds->plink->vcf_stats;
        int split = in->vcf_multiallelic == ES_VCF_MULTIALLELIC_SPLIT;
        fprintf(fp, "vcf\t%s\n", in->vcf);
        fprintf(fp, "vcf_multiallelic\t%s\n", split ? "split" : "skip");
        fprintf(fp, "vcf_multiallelic_records\t%" PRIu64 "\n",
                split ? st->split_records : st->multiallelic);
        if (split) fprintf(fp, "vcf_split_variants\t%" PRIu64 "\n", st->split_variants);
    }
    fprintf(fp, "phenotype\t%s\n", in->pheno ? in->pheno : "(.fam column 6)");
    fprintf(fp, "samples_total\t%u\n", es_dataset_n_samples_total(ds));
    if (es_dataset_is_qt(ds)) {
        fprintf(fp, "quantitative_trait\tyes\n");
        fprintf(fp, "samples_with_phenotype\t%u\n", es_dataset_n_controls(ds));
    } else {
        fprintf(fp, "cases\t%u\n", es_dataset_n_cases(ds));
        fprintf(fp, "controls\t%u\n", es_dataset_n_controls(ds));
    }
    fprintf(fp, "samples_left_out\t%u\n",
            es_dataset_n_samples_total(ds) - es_dataset_n_cases(ds) - es_dataset_n_controls(ds));
    if (a->plink_compat) {
        fprintf(fp, "plink_compat_skipped_fewer_than_two_genotypes\t%u\n", notes->skip_mono);
        fprintf(fp, "plink_compat_skipped_x_y\t%u\n", notes->skip_haploid);
    }
    fprintf(fp, "variants\t%u\n", es_dataset_n_variants(ds));
    fprintf(fp, "statistic\t%s\n", es_stat_name(opt->stat));
    if (a->covar) {
        fprintf(fp, "covariates\t%s\n", a->covar);
        fprintf(fp, "covariate_names\t%s\n", a->covar_name ? a->covar_name : "(all)");
        fprintf(fp, "samples_without_covariates\t%u\n", notes->covar_dropped);
        fprintf(fp, "screen\t%s\n", es_dataset_is_qt(ds) ? "linear on the trait residualised on the covariates"
                                                          : es_stat_name(opt->stat));
        fprintf(fp, "exact_model\t%s with the covariates\n", es_dataset_is_qt(ds) ? "least squares" : "logistic");
        fprintf(fp, "exact_top\t%zu\n", notes->n_adjusted);
        fprintf(fp, "exact_fits_failed\t%zu\n", notes->adjust_failed);
        fprintf(fp, "seconds_exact\t%.3f\n", notes->t_adjust);
    }
    fprintf(fp, "top_k\t%u\n", a->top_out);
    if (a->list_thr >= 0) fprintf(fp, "p_threshold\t%g\n", a->list_thr);
    if (a->epi2 >= 0) fprintf(fp, "n_sig_threshold\t%g\n", a->epi2);
    fprintf(fp, "backend\t%s\n", es_scan_backend_name(scan));
    if (!strcmp(es_scan_backend_name(scan), "cpu"))
        fprintf(fp, "popcount\t%s\n", es_scan_device_info(scan));
    else
        fprintf(fp, "gpu\t%s\n", es_scan_device_info(scan));
    fprintf(fp, "pairs\t%s\n", es_fmt_count(pairs, c));
    if (opt->stat == ES_STAT_BOOST) {
        fprintf(fp, "failed_tests\t%s\n", es_fmt_count(notes->failed, c));
        fprintf(fp, "valid_tests\t%s\n", es_fmt_count(pairs - notes->failed, c));
    }
    fprintf(fp, "seconds_open\t%.3f\n", t_open);
    fprintf(fp, "seconds_pack\t%.3f\n", t_pack);
    fprintf(fp, "seconds_scan\t%.3f\n", t_scan);
    fprintf(fp, "seconds_total\t%.3f\n", t_total);
    fprintf(fp, "pairs_per_second\t%.4g\n", t_scan > 0 ? (double)pairs / t_scan : 0.0);
    if (rf->k) {
        fprintf(fp, "refine\t%s:%u\n", es_mi_method_name(rf->method), rf->k);
        fprintf(fp, "refine_variants\t%u\n", rf->n_var);
        es_select_write_log(fp, rf->method, rf->k, &rf->info);
    }
    fprintf(fp, "output\t%s.top.tsv\n", out);
    const char *epi = es_dataset_is_qt(ds) ? ".epi.qt" : ".epi.cc";
    if (a->list_thr >= 0) fprintf(fp, "output\t%s%s\n", out, a->plink_fmt ? epi : ".sig.tsv");
    fprintf(fp, "output\t%s%s%s\n", out, a->plink_fmt ? epi : ".summary.tsv", a->plink_fmt ? ".summary" : "");
    if (rf->k) fprintf(fp, "output\t%s.select.tsv\n", out);
}

/* BYTES with an optional K, M or G (powers of 1024) */
static int parse_bytes(const char *opt, const char *s, size_t *out)
{
    char *end;
    if (*s < '0' || *s > '9') goto bad;
    unsigned long long v = strtoull(s, &end, 10);
    unsigned shift = 0;
    switch (*end) {
    case 'k': case 'K': shift = 10; end++; break;
    case 'm': case 'M': shift = 20; end++; break;
    case 'g': case 'G': shift = 30; end++; break;
    default: break;
    }
    if (*end || v == 0 || v > (~0ull >> 1 >> shift)) goto bad;
    *out = (size_t)(v << shift);
    return 0;
bad:
    fprintf(stderr, "[E::options] --%s: expected a positive byte count (suffix K, M or G), "
                    "got '%s'\n", opt, s);
    return -1;
}


/* The handlers of the scan's options that need more than storing the value
 * (ctx: the scan_args_t). */

/* a probability in [0, 1] */
static int parse_prob(const char *name, const char *arg, double *out)
{
    if (es_cli_double(name, arg, out)) return -1;
    if (!(*out >= 0 && *out <= 1)) {
        fprintf(stderr, "[E::options] --%s: must be in [0, 1], got %s\n", name, arg);
        return -1;
    }
    return 0;
}

static int set_p_threshold(void *ctx, const char *arg)
{
    return parse_prob("p-threshold", arg, &((scan_args_t *)ctx)->list_thr);
}

/* PLINK's --epi1: the threshold of the list it writes to .epi.cc */
static int set_epi1(void *ctx, const char *arg)
{
    ((scan_args_t *)ctx)->epi_given = 1;
    return parse_prob("epi1", arg, &((scan_args_t *)ctx)->list_thr);
}

/* PLINK's --epi2: the threshold of the summary's N_SIG */
static int set_epi2(void *ctx, const char *arg)
{
    ((scan_args_t *)ctx)->epi_given = 1;
    return parse_prob("epi2", arg, &((scan_args_t *)ctx)->epi2);
}

static int set_stat(void *ctx, const char *arg)
{
    ((scan_args_t *)ctx)->stat_given = 1;
    return es_stat_parse(arg, &((scan_args_t *)ctx)->opt.stat) ? -1 : 0;
}

static int set_device(void *ctx, const char *arg)
{
    return es_device_parse(arg, &((scan_args_t *)ctx)->opt) ? -1 : 0;
}

static int set_gpu_kernel(void *ctx, const char *arg)
{
    return es_gpu_kernel_parse(arg, &((scan_args_t *)ctx)->opt.gpu_kernel) ? -1 : 0;
}

static int set_gpu_mem(void *ctx, const char *arg)
{
    return parse_bytes("gpu-mem", arg, &((scan_args_t *)ctx)->opt.gpu_mem);
}

static int set_host_mem(void *ctx, const char *arg)
{
    return parse_bytes("host-mem", arg, &((scan_args_t *)ctx)->opt.host_mem);
}

/* PLINK's --memory MB: its workspace; here the packed genotypes' */
static int set_memory(void *ctx, const char *arg)
{
    uint32_t mb;
    if (es_cli_u32("memory", arg, 1, UINT32_MAX, &mb)) return -1;
    ((scan_args_t *)ctx)->opt.host_mem = (size_t)mb << 20;
    return 0;
}

static int set_format(void *ctx, const char *arg)
{
    scan_args_t *a = ctx;
    if (!strcmp(arg, "tsv")) a->plink_fmt = 0;
    else if (!strcmp(arg, "plink")) a->plink_fmt = 1;
    else {
        fprintf(stderr, "[E::options] --format: expected tsv or plink, got '%s'\n", arg);
        return -1;
    }
    return 0;
}

static int set_checkpoint_every(void *ctx, const char *arg)
{
    double v;
    if (es_cli_double("checkpoint-every", arg, &v)) return -1;
    if (!(v >= 0 && v <= 1e9)) {
        fprintf(stderr, "[E::options] --checkpoint-every: seconds >= 0, got %s\n", arg);
        return -1;
    }
    ((scan_args_t *)ctx)->opt.checkpoint_every = v;
    return 0;
}

/* --shard I/N, I in 1..N */
static int set_shard(void *ctx, const char *arg)
{
    es_opt_t *o = &((scan_args_t *)ctx)->opt;
    char *end;
    unsigned long i = strtoul(arg, &end, 10), n = 0;
    if (*arg >= '0' && *arg <= '9' && *end == '/' && end[1] >= '0' && end[1] <= '9') {
        n = strtoul(end + 1, &end, 10);
        if (!*end && i >= 1 && i <= n && n <= 1000000) {
            o->shard_i = (uint32_t)(i - 1);
            o->shard_n = (uint32_t)n;
            return 0;
        }
    }
    fprintf(stderr, "[E::options] --shard: expected I/N with 1 <= I <= N (e.g. 3/8), got '%s'\n", arg);
    return -1;
}

static int set_refine(void *ctx, const char *arg)
{
    refine_t *rf = &((scan_args_t *)ctx)->rf;
    return es_cli_refine(arg, &rf->method, &rf->k);
}

static const es_cli_opt_t scan_opts[] = {
    ES_CLI_OPT_FUNC("stat", set_stat),
    ES_CLI_OPT_U32("top", scan_args_t, opt.top_k, 1, 100000000u),
    ES_CLI_OPT_FUNC("p-threshold", set_p_threshold),
    ES_CLI_OPT_FUNC("epi1", set_epi1),
    ES_CLI_OPT_FUNC("epi2", set_epi2),
    ES_CLI_OPT_FLAG("plink-compat", scan_args_t, plink_compat),
    ES_CLI_OPT_INT("threads", scan_args_t, opt.threads, 0, 4096),
    ES_CLI_OPT_FUNC("device", set_device),
    ES_CLI_OPT_U32("block", scan_args_t, opt.block_variants, 0, 65536),
    ES_CLI_OPT_STR("out", scan_args_t, out),
    ES_CLI_OPT_FUNC("format", set_format),
    ES_CLI_OPT_FLAG("quiet", scan_args_t, quiet),
    ES_CLI_OPT_FLAG("verbose", scan_args_t, verbose),
    ES_CLI_OPT_FUNC("refine", set_refine),
    ES_CLI_OPT_FLAG("fixed-point", scan_args_t, rf.fixed_point),
    ES_CLI_OPT_FUNC("gpu-kernel", set_gpu_kernel),
    ES_CLI_OPT_FUNC("gpu-mem", set_gpu_mem),
    ES_CLI_OPT_FUNC("host-mem", set_host_mem),
    ES_CLI_OPT_FUNC("memory", set_memory),
    ES_CLI_OPT_STR("tmp-dir", scan_args_t, opt.tmp_dir),
    ES_CLI_OPT_INT("order", scan_args_t, opt.order, 2, 3),
    ES_CLI_OPT_STR("pairs-from", scan_args_t, pairs_from),
    ES_CLI_OPT_U32("pairs-top", scan_args_t, opt.pairs_top, 1, 10000000u),
    ES_CLI_OPT_FLAG("tables", scan_args_t, tables),
    ES_CLI_OPT_FLAG("qt", scan_args_t, qt),
    ES_CLI_OPT_STR("covar", scan_args_t, covar),
    ES_CLI_OPT_STR("covar-name", scan_args_t, covar_name),
    ES_CLI_OPT_U32("exact-top", scan_args_t, exact_top, 1, 10000000u),
    ES_CLI_OPT_FLAG("report", scan_args_t, report),
    ES_CLI_OPT_STR("checkpoint", scan_args_t, opt.checkpoint),
    ES_CLI_OPT_FUNC("checkpoint-every", set_checkpoint_every),
    ES_CLI_OPT_FLAG("resume", scan_args_t, opt.resume),
    ES_CLI_OPT_FUNC("shard", set_shard),
};

/* Parse and check the command line into a.  @return -1 to go on, else the
 * exit code (help printed, or a usage error reported). */
static int scan_parse(int argc, char **argv, scan_args_t *a)
{
    memset(a, 0, sizeof *a);
    a->list_thr = a->epi2 = -1.0;
    es_cli_input_t *ci = &a->ci;
    es_opt_t *opt = &a->opt;
    refine_t *rf = &a->rf;
    es_cli_input_init(ci);
    es_opt_init(opt);
    const es_cli_group_t groups[] = {es_cli_input_group(ci), es_cli_range_group(ci),
                                     ES_CLI_GROUP(scan_opts, a)};
    int r = es_cli_parse("scan", argc, argv, groups, sizeof groups / sizeof *groups, scan_usage);
    if (r >= 0) return r;
    if (rf->fixed_point && !rf->k) {
        fprintf(stderr, "[E::options] scan: --fixed-point goes with --refine\n");
        return ES_EXIT_USAGE;
    }
    if (!a->out) {
        fprintf(stderr, "[E::options] scan: --out is required\n");
        scan_usage(stderr);
        return ES_EXIT_USAGE;
    }
    if (es_cli_out_prefix("scan", a->out)) return ES_EXIT_USAGE;
    if (opt->resume && !opt->checkpoint && !opt->shard_n) {
        fprintf(stderr, "[E::options] scan: --resume continues from a checkpoint: give --checkpoint FILE "
                        "(or --shard I/N, whose state is its checkpoint)\n");
        return ES_EXIT_USAGE;
    }
    if (opt->shard_n) {
        if (opt->checkpoint) {
            fprintf(stderr, "[E::options] scan: a shard keeps its state in PREFIX.shard-I-of-N.state; "
                            "not with --checkpoint\n");
            return ES_EXIT_USAGE;
        }
        if (a->report || a->rf.k) {
            fprintf(stderr, "[E::options] scan: %s works on a whole scan's results; give it to "
                            "'epistream merge' (it reads the shards' command line)\n",
                    a->report ? "--report" : "--refine");
            return ES_EXIT_USAGE;
        }
        size_t n = strlen(a->out) + 64;
        if (!(a->shard_path = malloc(n))) return ES_EXIT_ERROR;
        snprintf(a->shard_path, n, "%s.shard-%u-of-%u.state", a->out, opt->shard_i + 1, opt->shard_n);
        opt->checkpoint = a->shard_path;
    }
    if (es_cli_input_check(ci, "scan")) return ES_EXIT_USAGE;
    if (a->report && !es_report_available()) {
        fprintf(stderr, "[E::options] scan: --report draws with cairo, and this epistream was "
                        "built without it (install libcairo2-dev, then configure and build "
                        "again)\n");
        return ES_EXIT_USAGE;
    }
    if (opt->order == 3) {
        const char *bad = a->plink_compat ? "--plink-compat" : a->plink_fmt ? "--format plink"
                          : a->epi_given ? "--epi1/--epi2" : NULL;
        if (bad) {
            fprintf(stderr, "[E::options] scan: %s is PLINK's 2-way output; with --order 3 use "
                            "--p-threshold (PREFIX.sig.tsv)\n", bad);
            return ES_EXIT_USAGE;
        }
        if (!a->stat_given) opt->stat = ES_STAT_CHI2; /* boost has no 3-way form */
        if (a->pairs_from && opt->pairs_top) {
            fprintf(stderr, "[E::options] scan: --pairs-from and --pairs-top are two ways to seed "
                            "a 3-way scan; give one\n");
            return ES_EXIT_USAGE;
        }
    } else if (a->pairs_from || opt->pairs_top) {
        fprintf(stderr, "[E::options] scan: %s seeds a 3-way scan; it needs --order 3\n",
                a->pairs_from ? "--pairs-from" : "--pairs-top");
        return ES_EXIT_USAGE;
    }
    if ((a->covar_name || a->exact_top) && !a->covar) {
        fprintf(stderr, "[E::options] scan: %s needs --covar FILE\n", a->covar_name ? "--covar-name" : "--exact-top");
        return ES_EXIT_USAGE;
    }
    if (a->covar && (a->plink_fmt || a->plink_compat || opt->order == 3 || a->tables)) {
        fprintf(stderr, "[E::options] scan: --covar fits the best pairs of a 2-way scan again with the "
                        "covariates; not with %s\n",
                a->plink_fmt || a->plink_compat ? "--format plink (PLINK's --epistasis has no covariates)"
                : opt->order == 3                ? "--order 3"
                                                 : "--tables");
        return ES_EXIT_USAGE;
    }
    a->top_out = opt->top_k;
    if (a->covar) {
        if (!a->exact_top) a->exact_top = opt->top_k;
        if (a->exact_top < opt->top_k) {
            fprintf(stderr, "[E::options] scan: --exact-top %u is below --top %u (the pairs written are the "
                            "--top best of the --exact-top the exact model fits)\n", a->exact_top, opt->top_k);
            return ES_EXIT_USAGE;
        }
        opt->top_k = a->exact_top; /* the screen keeps the survivors */
    }
    if (a->tables && (a->plink_fmt || a->plink_compat)) {
        fprintf(stderr, "[E::options] scan: --tables adds columns to the TSV files; not with "
                        "--format plink\n");
        return ES_EXIT_USAGE;
    }
    if (a->plink_compat) a->plink_fmt = 1;
    /* PLINK's defaults: the .epi.cc list at 5e-6 (--fast-epistasis boost),
     * N_SIG at 0.01 */
    if (a->plink_fmt) {
        a->epi1_default = a->list_thr < 0;
        if (a->list_thr < 0) a->list_thr = 5e-6;
        if (a->epi2 < 0) a->epi2 = 0.01;
        if (!es_stat_has_p(opt->stat)) {
            fprintf(stderr, "[E::options] scan: --format plink lists pairs by p-value; --stat %s "
                            "has none\n", es_stat_name(opt->stat));
            return ES_EXIT_USAGE;
        }
    }
    if (a->epi2 >= 0 && !es_stat_has_p(opt->stat)) {
        fprintf(stderr, "[E::options] scan: --epi2 needs a statistic with a p-value; %s has none\n",
                es_stat_name(opt->stat));
        return ES_EXIT_USAGE;
    }
    /* the scan streams every pair at the larger threshold; the list and N_SIG
     * are cut from that stream */
    opt->p_threshold = a->list_thr > a->epi2 ? a->list_thr : a->epi2;
    /* VCF decompression threads: as many as the scan's (0 = all CPUs) */
    ci->in.threads = opt->threads ? opt->threads : (int)sysconf(_SC_NPROCESSORS_ONLN);
    es_log_set_level(a->quiet ? ES_LOG_ERROR : a->verbose ? ES_LOG_INFO : ES_LOG_WARN);
    opt->progress = !a->quiet && isatty(STDERR_FILENO);
    es_cli_input_progress(ci, opt->progress);
    if (es_opt_check(opt)) return ES_EXIT_USAGE;
    return -1;
}

/* Every file a scan may write under its prefix: a run removes the .tmp files
 * of all of them that a killed run left, and after it succeeded the ones it
 * did not write (an earlier run's, which would not match). */
static const char *const scan_suffixes[] = {".top.tsv",     ".epi.cc",      ".epi.cc.summary", ".epi.qt",
                                            ".epi.qt.summary", ".sig.tsv", ".summary.tsv",  ".select.tsv",
                                            ".log"};
#define N_SCAN_SUFFIXES (sizeof scan_suffixes / sizeof *scan_suffixes)

/* A run that writes no results: an MPI rank other than 0 (rank 0 writes
 * them), or a shard (its state is its result).  @return the exit code. */
static int scan_no_results(const scan_args_t *a, es_scan_t *scan)
{
    const es_opt_t *opt = &a->opt;
    int worker = es_dist_is_worker();
    if (!worker && opt->progress)
        es_scan_set_progress_callback(scan, opt->order == 3 ? progress3 : progress, NULL);
    int ret = es_scan_run(scan);
    if (ret) {
        if (ret != ES_ERR_IO) fprintf(stderr, "[E::scan] failed: %s\n", es_strerror(ret));
        return ES_EXIT_ERROR;
    }
    if (!worker && !a->quiet) {
        char num[32];
        double tp, ts;
        es_scan_timings(scan, &tp, &ts);
        fprintf(stderr, "[scan] shard %u of %u: %s %s in %.2f s; state in %s (merge the %u with "
                        "'epistream merge %s.shard-*-of-%u.state')\n",
                opt->shard_i + 1, opt->shard_n, es_fmt_count(es_scan_pairs_done(scan), num),
                opt->order == 3 ? "triples" : "pairs", ts, a->shard_path, opt->shard_n, a->out, opt->shard_n);
    }
    return ES_EXIT_OK;
}

/* Open the dataset, scan, write every output (all or nothing), refine. */
static int scan_run(scan_args_t *a, const char *cmdline)
{
    const es_opt_t *opt = &a->opt;
    refine_t *rf = &a->rf;
    const char *out = a->out;
    int plink_fmt = a->plink_fmt;
    int ret = ES_OK;
    es_dataset_t *ds = NULL;
    es_scan_t *scan = NULL;
    es_out_t o_top, o_sig, o_sum, o_log, o_sel;
    uint32_t *survivors = NULL;
    failed_job_t fj; /* boost: the failed tests, found while the scan runs */
    memset(&fj, 0, sizeof fj);
    es_covar_t cv;
    double *trait = NULL;        /* --covar, a quantitative trait: its values before residualising */
    es_reg_result_t *adj = NULL; /* --covar: the exact model of the screen's best pairs */
    size_t *order = NULL;
    memset(&cv, 0, sizeof cv);
    scan_notes_t notes;
    sig_writer_t sw;
    memset(&notes, 0, sizeof notes);
    memset(&sw, 0, sizeof sw);
    memset(&o_top, 0, sizeof o_top);
    o_sig = o_sum = o_log = o_sel = o_top;
    double t0 = es_time_now();
    /* --device gpu: every GPU the scan uses (gpu_mask 0: each one) starts
     * opening now, on a thread of its own, while the input is read (about
     * 0.2 s each) */
    const es_backend_t *gpu_be = opt->device == ES_DEVICE_GPU ? es_backend_get(ES_DEVICE_GPU) : NULL;
    if (gpu_be && gpu_be->prepare)
        for (int d = 0; d < es_backend_gpu_count() && d < 64; d++)
            if (!opt->gpu_mask || (opt->gpu_mask >> d & 1)) gpu_be->prepare(d);

    a->ci.in.qt = a->qt ? ES_QT_YES : ES_QT_AUTO;
    ret = es_dataset_open(&ds, &a->ci.in);
    if (ret) goto out;
    if (es_dataset_is_qt(ds) && rf->k) {
        es_error("--refine selects variants by mutual information with a case/control class; the phenotype "
                 "is a quantitative trait");
        ret = ES_ERR_ARG;
        goto out;
    }
    if (es_dataset_is_qt(ds) && !a->stat_given) { /* a quantitative trait: linear by default */
        a->opt.stat = ES_STAT_LINEAR;
        es_info("quantitative trait: --stat linear");
    }
    if ((es_dataset_is_qt(ds) || a->opt.stat == ES_STAT_LOGISTIC) && a->epi1_default) {
        /* PLINK --epistasis's list threshold under --format plink */
        a->list_thr = 1e-4;
        a->opt.p_threshold = a->list_thr > a->epi2 ? a->list_thr : a->epi2;
    }
    const char *epi = es_dataset_is_qt(ds) ? ".epi.qt" : ".epi.cc";
    const char *epi_sum = es_dataset_is_qt(ds) ? ".epi.qt.summary" : ".epi.cc.summary";
    if (a->covar && (ret = covar_prepare(a, ds, &cv, &trait, &notes))) goto out;
    /* PLINK pads IDs to a width it takes before skipping variants */
    int plink_w = plink_fmt ? es_plink_snp_width(ds) : 0;
    if (a->plink_compat) {
        if ((ret = es_plink_epi_skip(ds, &notes.skip_mono, &notes.skip_haploid))) goto out;
        if (notes.skip_mono + notes.skip_haploid)
            es_warn("--plink-compat: skipping %u variant(s) with fewer than two genotypes and %u "
                    "on chromosomes X and Y, as PLINK --fast-epistasis does",
                    notes.skip_mono, notes.skip_haploid);
    }
    uint32_t m = es_dataset_n_variants(ds);
    es_info("read the input in %.3f s", es_time_now() - t0);
    double t_open = es_time_now() - t0;
    ret = es_scan_create(&scan, ds, opt);
    if (!ret)
        es_info("the scan set up (backend %s) in %.3f s", es_scan_backend_name(scan), es_time_now() - t0 - t_open);
    /* under MPI every rank opened the data: go on together or stop together */
    ret = es_dist_mpi_agree(ret);
    if (ret) goto out;
    if (es_dist_is_worker() || opt->shard_n) {
        int rc = scan_no_results(a, scan);
        es_scan_destroy(scan);
        es_dataset_destroy(ds);
        return rc;
    }
    /* create every output before the (long) scan so a bad --out fails at once */
    es_out_clear_tmp(out, scan_suffixes, N_SCAN_SUFFIXES);
    if ((ret = es_out_open(&o_top, out, ".top.tsv"))) goto out;
    if ((ret = es_out_open(&o_sum, out, plink_fmt ? epi_sum : ".summary.tsv"))) goto out;
    if ((ret = es_out_open(&o_log, out, ".log"))) goto out;
    if (rf->k && (ret = es_out_open(&o_sel, out, ".select.tsv"))) goto out;
    sw.list_thr = a->list_thr;
    sw.epi2 = a->epi2;
    if (a->epi2 >= 0 && !(sw.n_sig2 = calloc(m ? m : 1, sizeof *sw.n_sig2))) {
        ret = ES_ERR_NOMEM;
        goto out;
    }
    if (a->list_thr >= 0) {
        if ((ret = es_out_open(&o_sig, out, plink_fmt ? epi : ".sig.tsv"))) goto out;
        sw.o = &o_sig;
        if ((ret = es_pair_writer_init(&sw.pw, o_sig.fp, ds, plink_w))) goto out;
        if (!a->covar && (opt->stat == ES_STAT_LINEAR || opt->stat == ES_STAT_LOGISTIC))
            es_pair_writer_beta(&sw.pw, opt->stat);
        if (a->tables && (ret = es_pair_writer_tables(&sw.pw))) goto out;
        if ((ret = es_pair_writer_header(&sw.pw))) goto out;
    }
    if (opt->p_threshold >= 0) es_scan_set_sig_callback(scan, write_sig, &sw);
    if (opt->progress) es_scan_set_progress_callback(scan, progress, NULL);
    /* boost: the tests that fail (written with DF 0, left out of PLINK's
     * N_TOT).  Where no call is missing the pass keeps nothing per call, and
     * runs on a thread of its own while the scan runs; with missing calls it
     * keeps their positions (8 bytes a call), so it runs here, and frees
     * them before the blocks are packed */
    if (opt->stat == ES_STAT_BOOST &&
        (ret = failed_start(&fj, ds, opt->threads, !es_dataset_any_missing(ds))))
        goto out;

    ret = es_scan_run(scan);
    if (ret) {
        if (sw.err == ES_ERR_IO) es_out_failed(&o_sig);
        goto out;
    }
    if (fj.failed) {
        if ((ret = failed_join(&fj))) goto out;
        notes.failed = fj.total;
        es_info("found the tests that fail (a variant with one genotype level) in %.3f s%s", fj.seconds,
                fj.beside ? ", beside the scan" : "");
        if (notes.failed) {
            char num[32];
            es_warn("%s test(s) failed: a variant left with one genotype level among the samples "
                    "called at both (PLINK: nan); written with DF 0%s",
                    es_fmt_count(notes.failed, num),
                    plink_fmt ? " and left out of N_TOT" : ", STAT, P and LOG10P NA");
        }
    }
    if (sw.o) {
        if ((ret = es_pair_writer_finish(&sw.pw)) || es_out_failed(&o_sig)) {
            es_out_failed(&o_sig);
            ret = ES_ERR_IO;
            goto out;
        }
    }

    double t_write = es_time_now();
    const es_pair_t *top = es_scan_top(scan);
    size_t n_top = es_scan_top_count(scan), n_write = n_top;
    if (a->covar) {
        /* the exact model for the screen's --exact-top best, then its --top best */
        if (!(adj = calloc(n_top ? n_top : 1, sizeof *adj)) || !(order = malloc((n_top ? n_top : 1) * sizeof *order))) {
            ret = ES_ERR_NOMEM;
            goto out;
        }
        double ta = es_time_now();
        if ((ret = es_scan_adjust(ds, &cv, trait, top, n_top, opt->threads, adj))) goto out;
        notes.t_adjust = es_time_now() - ta;
        if ((ret = es_adjust_order(adj, n_top, order))) goto out;
        for (size_t k = 0; k < n_top; k++) notes.adjust_failed += adj[k].status != ES_REG_OK;
        notes.n_adjusted = n_top;
        if (n_write > a->top_out) n_write = a->top_out;
    }
    es_pair_writer_t tw;
    if ((ret = es_pair_writer_init(&tw, o_top.fp, ds, 0))) goto out;
    if (a->covar) es_pair_writer_adjusted(&tw);
    else if (opt->stat == ES_STAT_LINEAR || opt->stat == ES_STAT_LOGISTIC) es_pair_writer_beta(&tw, opt->stat);
    if (a->tables) ret = es_pair_writer_tables(&tw);
    if (!ret) ret = es_pair_writer_header(&tw);
    for (size_t k = 0; k < n_write && !ret; k++) {
        if (a->covar) {
            const es_reg_result_t *x = &adj[order[k]];
            ret = es_pair_writer_put_adjusted(&tw, &top[order[k]], x->status == ES_REG_OK, x->beta, x->se, x->p);
        } else {
            ret = es_pair_writer_put(&tw, &top[k]);
        }
    }
    if (!ret) ret = es_pair_writer_finish(&tw);
    es_pair_writer_free(&tw);
    if (ret) goto out;
    const es_summary_t *sum = es_scan_summary(scan);
    if (plink_fmt) {
        /* (--format plink always has an --epi2) */
        ret = es_write_plink_summary(o_sum.fp, ds, plink_w, sum, sw.n_sig2, fj.failed, opt->threads);
    } else {
        ret = es_write_summary(o_sum.fp, ds, sum, sw.n_sig2, opt->threads);
    }
    if (ret) {
        if (!es_out_failed(&o_sum)) es_error("%s: write failed", o_sum.tmp_path);
        goto out;
    }
    es_info("wrote the top pairs and the summary of %u variants in %.3f s", m, es_time_now() - t_write);
    if (rf->k) {
        /* survivors: the distinct variants of the top pairs, by variant index */
        /* with --covar: the pairs written (the exact model's best), not every survivor of the screen */
        es_pair_t *written = NULL;
        if (a->covar) {
            if (!(written = malloc((n_write ? n_write : 1) * sizeof *written))) {
                ret = ES_ERR_NOMEM;
                goto out;
            }
            for (size_t k = 0; k < n_write; k++) written[k] = top[order[k]];
        }
        ret = es_select_pair_variants(ds, written ? written : top, a->covar ? n_write : n_top, &survivors, &rf->n_var);
        free(written);
        if (ret) goto out;
        if ((ret = refine_run(opt, rf, ds, survivors, o_sel.fp))) goto out;
    }
    write_log(o_log.fp, cmdline, a, ds, scan, &notes, rf, t_open, es_time_now() - t0);
    /* commit all or nothing */
    es_out_t *const all[] = {&o_top, &o_sig, &o_sum, &o_sel, &o_log};
    double t_commit = es_time_now();
    if ((ret = es_out_commit_all(all, sizeof all / sizeof *all))) goto out;
    es_out_clear_stale(out, scan_suffixes, N_SCAN_SUFFIXES, all, sizeof all / sizeof *all);
    es_info("committed the outputs (flushed to disk, renamed) in %.3f s", es_time_now() - t_commit);
    /* the results are in place: the checkpoint that led to them goes */
    if (opt->checkpoint) es_dist_remove_checkpoint(opt->checkpoint);
    if (!a->quiet) {
        char num[32];
        double tp, ts;
        es_scan_timings(scan, &tp, &ts);
        fprintf(stderr, "[scan] %s pairs in %.2f s (%.3g pairs/s); results in %s%s\n",
                es_fmt_count(es_scan_pairs_done(scan), num), ts,
                ts > 0 ? (double)es_scan_pairs_done(scan) / ts : 0.0, out,
                plink_fmt ? epi : ".top.tsv");
        if (rf->k)
            fprintf(stderr, "[scan] %s picked %u of the %u variants of the top pairs; results in "
                            "%s.select.tsv\n",
                    es_mi_method_name(rf->method), rf->info.n_selected, rf->n_var, out);
    }
out:
    if (ret) {
        /* the .tmp files go; the previous run's outputs stay as they were */
        es_out_abort(&o_top);
        es_out_abort(&o_sig);
        es_out_abort(&o_sum);
        es_out_abort(&o_sel);
        es_out_abort(&o_log);
        /* an I/O error was reported with its file and cause: no vaguer echo */
        if (ret != ES_ERR_IO) fprintf(stderr, "[E::scan] failed: %s\n", es_strerror(ret));
    } else {
        es_out_close(&o_top);
        es_out_close(&o_sig);
        es_out_close(&o_sum);
        es_out_close(&o_sel);
        es_out_close(&o_log);
    }
    es_pair_writer_free(&sw.pw);
    free(sw.n_sig2);
    failed_join(&fj); /* (an error before the scan's end: it still reads ds) */
    free(fj.failed);
    free(survivors);
    free(adj);
    free(order);
    free(trait);
    es_covar_free(&cv);
    double t_release = es_time_now();
    es_scan_destroy(scan);
    es_dataset_destroy(ds);
    if (!ret) es_info("released the scan and the dataset in %.3f s", es_time_now() - t_release);
    return ret ? ES_EXIT_ERROR : ES_EXIT_OK;
}

/* ---- --order 3 ---------------------------------------------------------------- */

typedef struct {
    es_pair_writer_t pw;
    es_out_t *o;
    int err;
} sig3_writer_t;

static int write_sig3(const es_triple_t *t, void *ud)
{
    sig3_writer_t *w = ud;
    if (!(w->err = es_pair_writer_put3(&w->pw, t))) return 0;
    if (w->err == ES_ERR_IO) es_out_failed(w->o); /* the cause now (write_sig) */
    return -1;
}

static void progress3(uint64_t done, uint64_t total, double secs, void *ud)
{
    (void)ud;
    es_cli_progress("scan", "triples", done, total, secs);
}

static void write_log3(FILE *fp, const char *cmdline, const scan_args_t *a, const es_dataset_t *ds,
                       const es_scan_t *scan, const refine_t *rf, double t_open, double t_total)
{
    const es_opt_t *opt = &a->opt;
    char c[32], date[64];
    time_t now = time(NULL);
    strftime(date, sizeof date, "%Y-%m-%d %H:%M:%S %Z", localtime(&now));
    double t_pack, t_scan;
    es_scan_timings(scan, &t_pack, &t_scan);
    uint64_t n = es_scan_pairs_done(scan);
    size_t n_seeds = 0;
    es_scan_seeds(scan, &n_seeds);
    fprintf(fp, "epistream %s\n", ES_VERSION);
    fprintf(fp, "date\t%s\n", date);
    fprintf(fp, "command\t%s\n", cmdline);
    fprintf(fp, "%s\t%s\n", a->ci.in.bfile ? "bfile" : "vcf", a->ci.in.bfile ? a->ci.in.bfile : a->ci.in.vcf);
    fprintf(fp, "phenotype\t%s\n", a->ci.in.pheno ? a->ci.in.pheno : "(.fam column 6)");
    fprintf(fp, "samples_total\t%u\n", es_dataset_n_samples_total(ds));
    fprintf(fp, "cases\t%u\n", es_dataset_n_cases(ds));
    fprintf(fp, "controls\t%u\n", es_dataset_n_controls(ds));
    fprintf(fp, "variants\t%u\n", es_dataset_n_variants(ds));
    fprintf(fp, "order\t3\n");
    if (a->pairs_from) fprintf(fp, "seeds\t%zu pairs of %s\n", n_seeds, a->pairs_from);
    else if (opt->pairs_top) fprintf(fp, "seeds\t%zu best pairs of a 2-way scan\n", n_seeds);
    else fprintf(fp, "seeds\tnone (exhaustive)\n");
    fprintf(fp, "statistic\t%s\n", es_stat_name(opt->stat));
    fprintf(fp, "top_k\t%u\n", opt->top_k);
    if (a->list_thr >= 0) fprintf(fp, "p_threshold\t%g\n", a->list_thr);
    fprintf(fp, "backend\t%s\n", es_scan_backend_name(scan));
    fprintf(fp, "triples\t%s\n", es_fmt_count(n, c));
    fprintf(fp, "seconds_open\t%.3f\n", t_open);
    fprintf(fp, "seconds_pack\t%.3f\n", t_pack);
    fprintf(fp, "seconds_scan\t%.3f\n", t_scan);
    fprintf(fp, "seconds_total\t%.3f\n", t_total);
    fprintf(fp, "triples_per_second\t%.4g\n", t_scan > 0 ? (double)n / t_scan : 0.0);
    if (rf->k) {
        fprintf(fp, "refine\t%s:%u\n", es_mi_method_name(rf->method), rf->k);
        fprintf(fp, "refine_variants\t%u\n", rf->n_var);
        es_select_write_log(fp, rf->method, rf->k, &rf->info);
    }
    fprintf(fp, "output\t%s.top.tsv\n", a->out);
    if (a->list_thr >= 0) fprintf(fp, "output\t%s.sig.tsv\n", a->out);
    fprintf(fp, "output\t%s.summary.tsv\n", a->out);
    if (rf->k) fprintf(fp, "output\t%s.select.tsv\n", a->out);
}

/* The distinct variants of the top triples, ascending (--refine's survivors). */
static int triple_variants(const es_dataset_t *ds, const es_triple_t *t, size_t n, uint32_t **var,
                           uint32_t *n_var)
{
    uint32_t m = es_dataset_n_variants(ds);
    uint8_t *mark = calloc(m, 1);
    *var = malloc((size_t)m * sizeof **var);
    if (!mark || !*var) {
        free(mark);
        free(*var);
        *var = NULL;
        return ES_ERR_NOMEM;
    }
    for (size_t q = 0; q < n; q++) mark[t[q].i] = mark[t[q].j] = mark[t[q].k] = 1;
    *n_var = 0;
    for (uint32_t v = 0; v < m; v++)
        if (mark[v]) (*var)[(*n_var)++] = v;
    free(mark);
    return ES_OK;
}

static int scan3_run(scan_args_t *a, const char *cmdline)
{
    const es_opt_t *opt = &a->opt;
    refine_t *rf = &a->rf;
    const char *out = a->out;
    int ret = ES_OK;
    es_dataset_t *ds = NULL;
    es_scan_t *scan = NULL;
    es_out_t o_top, o_sig, o_sum, o_log, o_sel;
    uint32_t *survivors = NULL, *seeds = NULL;
    size_t n_seeds = 0;
    sig3_writer_t sw;
    es_pair_writer_t tw;
    memset(&sw, 0, sizeof sw);
    memset(&tw, 0, sizeof tw);
    memset(&o_top, 0, sizeof o_top);
    o_sig = o_sum = o_log = o_sel = o_top;
    double t0 = es_time_now();

    ret = es_dataset_open(&ds, &a->ci.in);
    if (!ret) ret = es_scan_create(&scan, ds, opt);
    ret = es_dist_mpi_agree(ret); /* under MPI: every rank opened the data, or none goes on */
    if (ret) goto out;
    if (a->pairs_from) {
        if ((ret = es_select_read_pair_list(ds, a->pairs_from, &seeds, &n_seeds))) goto out;
        if ((ret = es_scan_set_seeds(scan, seeds, n_seeds))) goto out;
    }
    if (es_dist_is_worker() || opt->shard_n) {
        int rc = scan_no_results(a, scan);
        es_scan_destroy(scan);
        free(seeds);
        es_dataset_destroy(ds);
        return rc;
    }
    double t_open = es_time_now() - t0;
    es_out_clear_tmp(out, scan_suffixes, N_SCAN_SUFFIXES);
    if ((ret = es_out_open(&o_top, out, ".top.tsv"))) goto out;
    if ((ret = es_out_open(&o_sum, out, ".summary.tsv"))) goto out;
    if ((ret = es_out_open(&o_log, out, ".log"))) goto out;
    if (rf->k && (ret = es_out_open(&o_sel, out, ".select.tsv"))) goto out;
    if (a->list_thr >= 0) {
        if ((ret = es_out_open(&o_sig, out, ".sig.tsv"))) goto out;
        sw.o = &o_sig;
        if ((ret = es_pair_writer_init(&sw.pw, o_sig.fp, ds, 0))) goto out;
        sw.pw.order = 3;
        if (a->tables && (ret = es_pair_writer_tables(&sw.pw))) goto out;
        if ((ret = es_pair_writer_header(&sw.pw))) goto out;
        es_scan_set_sig3_callback(scan, write_sig3, &sw);
    }
    if (opt->progress) es_scan_set_progress_callback(scan, progress3, NULL);
    ret = es_scan_run(scan);
    if (ret) {
        if (sw.err == ES_ERR_IO) es_out_failed(&o_sig);
        goto out;
    }
    if (a->list_thr >= 0 && ((ret = es_pair_writer_finish(&sw.pw)) || es_out_failed(&o_sig))) {
        es_out_failed(&o_sig);
        ret = ES_ERR_IO;
        goto out;
    }
    const es_triple_t *top = es_scan_top3(scan);
    size_t n_top = es_scan_top3_count(scan);
    if ((ret = es_pair_writer_init(&tw, o_top.fp, ds, 0))) goto out;
    tw.order = 3;
    if (a->tables) ret = es_pair_writer_tables(&tw);
    if (!ret) ret = es_pair_writer_header(&tw);
    for (size_t k = 0; k < n_top && !ret; k++) ret = es_pair_writer_put3(&tw, &top[k]);
    if (!ret) ret = es_pair_writer_finish(&tw);
    if (ret) goto out;
    if ((ret = es_write_summary3(o_sum.fp, ds, es_scan_summary3(scan)))) {
        if (!es_out_failed(&o_sum)) es_error("%s: write failed", o_sum.tmp_path);
        goto out;
    }
    if (rf->k) {
        if ((ret = triple_variants(ds, top, n_top, &survivors, &rf->n_var))) goto out;
        if ((ret = refine_run(opt, rf, ds, survivors, o_sel.fp))) goto out;
    }
    write_log3(o_log.fp, cmdline, a, ds, scan, rf, t_open, es_time_now() - t0);
    es_out_t *const all[] = {&o_top, &o_sig, &o_sum, &o_sel, &o_log};
    if ((ret = es_out_commit_all(all, sizeof all / sizeof *all))) goto out;
    es_out_clear_stale(out, scan_suffixes, N_SCAN_SUFFIXES, all, sizeof all / sizeof *all);
    /* the results are in place: the checkpoint that led to them goes */
    if (opt->checkpoint) es_dist_remove_checkpoint(opt->checkpoint);
    if (!a->quiet) {
        char num[32];
        double tp, ts;
        es_scan_timings(scan, &tp, &ts);
        fprintf(stderr, "[scan] %s triples in %.2f s (%.3g triples/s); results in %s.top.tsv\n",
                es_fmt_count(es_scan_pairs_done(scan), num), ts,
                ts > 0 ? (double)es_scan_pairs_done(scan) / ts : 0.0, out);
    }
out:
    if (ret) {
        es_out_abort(&o_top);
        es_out_abort(&o_sig);
        es_out_abort(&o_sum);
        es_out_abort(&o_sel);
        es_out_abort(&o_log);
        if (ret != ES_ERR_IO) fprintf(stderr, "[E::scan] failed: %s\n", es_strerror(ret));
    } else {
        es_out_close(&o_top);
        es_out_close(&o_sig);
        es_out_close(&o_sum);
        es_out_close(&o_sel);
        es_out_close(&o_log);
    }
    es_pair_writer_free(&tw);
    es_pair_writer_free(&sw.pw);
    free(seeds);
    free(survivors);
    es_scan_destroy(scan);
    es_dataset_destroy(ds);
    return ret ? ES_EXIT_ERROR : ES_EXIT_OK;
}

/* --report: the report of the run just written, in PREFIX.report/ (the
 * results stay whatever becomes of it).  @return the exit code */
static int scan_report(const scan_args_t *a)
{
    char *dir = es_report_default_dir(a->out);
    int ret = dir ? es_report_write(a->out, dir, ES_REPORT_HTML, NULL) : ES_ERR_NOMEM;
    if (ret) fprintf(stderr, "[E::scan] the results are written, but the report failed: %s\n",
                     es_strerror(ret));
    else if (!a->quiet) fprintf(stderr, "[scan] report in %s/report.html\n", dir);
    free(dir);
    return ret ? ES_EXIT_ERROR : ES_EXIT_OK;
}

/* Parse, scan, report (out, shards: a merge's --out and its shard files). */
static int scan_main(int argc, char **argv, const char *out, const char *const *shards)
{
    scan_args_t a;
    int r = scan_parse(argc, argv, &a);
    if (r >= 0) return r;
    a.opt.cmd_argc = argc;
    a.opt.cmd_argv = argv;
    if (shards) {
        if (out) a.out = out;
        a.opt.merge = shards;
        a.opt.device = ES_DEVICE_CPU; /* nothing is computed */
        a.opt.gpu_mask = 0;
        a.opt.gpu_kernel = 0;
    }
    /* only rank 0 says more than errors */
    if (es_dist_is_worker()) {
        es_log_set_level(ES_LOG_ERROR);
        a.opt.progress = 0;
    }
    char *cmdline = es_cli_join(argc, argv);
    r = a.opt.order == 3 ? scan3_run(&a, cmdline) : scan_run(&a, cmdline);
    free(cmdline);
    free(a.shard_path);
    if (r == ES_EXIT_OK && a.report && !es_dist_is_worker()) r = scan_report(&a);
    return r;
}

/* Seconds since this process started (Linux: /proc; -1 elsewhere), for
 * --verbose: the wall a run spends before the scan's clock starts and after
 * it stops (issue 24). */
static double process_seconds(void)
{
    FILE *f = fopen("/proc/self/stat", "r"), *u = fopen("/proc/uptime", "r");
    char buf[1024];
    double up = -1.0, ret = -1.0;
    size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
    buf[n] = 0;
    if (u && fscanf(u, "%lf", &up) != 1) up = -1.0;
    const char *p = strrchr(buf, ')'); /* the command name may hold spaces */
    unsigned long long start = 0;
    long hz = sysconf(_SC_CLK_TCK);
    /* after ") ": the state (field 3), then fields 4..; starttime is field 22 */
    if (p && up >= 0 && hz > 0 &&
        sscanf(p + 2, "%*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %llu",
               &start) == 1)
        ret = up - (double)start / (double)hz;
    if (f) fclose(f);
    if (u) fclose(u);
    return ret;
}

int es_cmd_scan(int argc, char **argv)
{
    /* mpirun -np R epistream scan ...: every rank comes here */
    if (es_dist_mpi_init(&argc, &argv)) return ES_EXIT_ERROR;
    int r = scan_main(argc, argv, NULL, NULL);
    es_dist_mpi_finalize(r != ES_EXIT_OK && r != ES_EXIT_USAGE ? 1 : 0);
    if (es_log_get_level() >= ES_LOG_INFO) es_info("done %.2f s after the process started", process_seconds());
    return r;
}

int es_cli_scan_merge(int argc, char **argv, const char *out, const char *const *shards)
{
    return scan_main(argc, argv, out, shards);
}
