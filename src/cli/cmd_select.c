/* cmd_select.c -- `epistream select`: mutual-information feature selection
 * (mRMR, JMI, DISR, CMIM, ICAP, CondMI, MIM) over a general table, or over the
 * variants that survived a scan (read from its .top.tsv or .summary.tsv).
 * Argument parsing and the survivor files only: the selection, the table of
 * survivors and the output lines are src/select/refine.c's, shared with
 * `scan --refine`; the --method and --refine parsers here are shared too
 * (declared in cli.h). */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "cli.h"
#include "output.h"

#define K_MAX 100000000u

static void select_usage(FILE *fp)
{
    fprintf(fp,
            "Usage: epistream select --table FILE --method M --k K --out PREFIX [options]\n"
            "       epistream select (--bfile PREFIX | --vcf FILE --pheno FILE)\n"
            "                        (--from PREFIX.top.tsv | --from-summary PREFIX.summary.tsv "
            "--n N)\n"
            "                        --method M --k K --out PREFIX [options]\n"
            "\n"
            "Greedy mutual-information feature selection (FEAST semantics, logs base 2):\n"
            "picks K features one at a time, each maximising the method's score given the\n"
            "features already picked and the class.\n"
            "\n"
            "General data:\n"
            "  --table FILE         CSV/TSV with a header line (delimiter tab, comma or ';'),\n"
            "                       ARFF, or LIBSVM (format from .csv/.tsv/.txt/.arff/.libsvm/\n"
            "                       .svm, else sniffed); missing values (empty, NA, ?, nan) are\n"
            "                       a state of their own; LIBSVM indices are dense columns, so\n"
            "                       one over 1024 columns or cells per stored value (beyond\n"
            "                       65,536 columns or 2^26 cells) is refused\n"
            "  --class COL          class column: name or 1-based number (default: the last;\n"
            "                       LIBSVM: the label)\n"
            "  --bins B             equal-width bins for numeric columns that are not\n"
            "                       integer-coded (default 128)\n"
            "Scan survivors (genotypes 0/1/2, a missing call is its own state; the class is\n"
            "case/control; use the same input and selection options as the scan):\n"
            "  --from FILE          the variants of the pairs in a .top.tsv or .epi.cc\n"
            "  --from-summary FILE  the N variants with the best BEST_STAT (higher first) of a\n"
            "                       .summary.tsv; with --n N\n"
            "\n");
    es_cli_input_usage(fp, 1);
    fprintf(fp,
            "Selection:\n"
            "  --method M           mrmr, jmi, disr, cmim, icap, condmi or mim\n"
            "  --k K                features to select (condmi may stop earlier)\n"
            "  --threads T          CPU threads (default: all)\n"
            "  --device D           auto (default: the CPU or GPU 0, whichever is estimated to\n"
            "                       finish sooner, opening the GPU included; the log says\n"
            "                       which and why), cpu, gpu (GPU 0) or gpu:N; every device\n"
            "                       writes the same bytes\n"
            "  --gpu-kernel K       pair-engine kernel for <= 4-state features: auto, wgmma,\n"
            "                       mma or popc (tests and benchmarks)\n"
            "  --gpu-path P         auto (default: the pair engine when every feature has <= 4\n"
            "                       states and the class 2, else histogram kernels), hist or\n"
            "                       pairs (tests and benchmarks)\n"
            "  --fixed-point        entropies from a 16-bit fixed-point log2 table (Q5.11,\n"
            "                       exact sums; cuFEAST's low-precision variant); the double\n"
            "                       selection runs too and the log reports how far they agree\n"
            "Output:\n"
            "  --out PREFIX         writes PREFIX.select.tsv (RANK FEATURE SCORE RELEVANCE)\n"
            "                       and PREFIX.log (PREFIX ends in a file name: not DIR/)\n"
            "  --quiet              only errors on stderr\n"
            "  --verbose            informational messages on stderr\n"
            "  -h, --help           this help\n");
}

/* ---- option parsers shared with scan --refine ---------------------------------- */

int es_cli_method(const char *opt, const char *s, es_mi_method_t *m)
{
    for (int k = 0; k <= (int)ES_MI_MIM; k++) {
        if (strcasecmp(s, es_mi_method_name((es_mi_method_t)k)) == 0) {
            *m = (es_mi_method_t)k;
            return 0;
        }
    }
    fprintf(stderr,
            "[E::options] --%s: expected mrmr, jmi, disr, cmim, icap, condmi or mim, got '%s'\n",
            opt, s);
    return -1;
}

int es_cli_refine(const char *s, es_mi_method_t *m, uint32_t *k)
{
    const char *colon = strchr(s, ':');
    char name[32];
    if (!colon || (size_t)(colon - s) >= sizeof name) {
        fprintf(stderr, "[E::options] --refine: expected METHOD:K (e.g. mrmr:20), got '%s'\n", s);
        return -1;
    }
    memcpy(name, s, (size_t)(colon - s));
    name[colon - s] = '\0';
    if (es_cli_method("refine", name, m)) return -1;
    return es_cli_u32("refine", colon + 1, 1, K_MAX, k);
}

int es_cli_gpu_path(const char *s, int *path)
{
    static const char *const names[] = {"auto", "hist", "pairs"};
    for (int k = 0; k < 3; k++)
        if (!strcmp(s, names[k])) {
            *path = k;
            return 0;
        }
    fprintf(stderr, "[E::options] --gpu-path: expected auto, hist or pairs, got '%s'\n", s);
    return -1;
}

/* ---- survivors from a scan's files ----------------------------------------- */

/* Columns of a header line: index of each wanted name, or -1. */
static void find_cols(char **f, int nf, const char *const *want, int *col, int n_want)
{
    for (int w = 0; w < n_want; w++) {
        col[w] = -1;
        for (int c = 0; c < nf; c++)
            if (strcmp(f[c], want[w]) == 0) {
                col[w] = c;
                break;
            }
    }
}

/* The variant named id (with chr and pos when given, to tell apart variants
 * sharing an ID).  @return ES_OK, or ES_ERR_DATA with the message logged. */
static int map_variant(const es_dataset_t *ds, const es_strindex_t *ix, const char *path,
                       uint64_t line, const char *what, const char *id, const char *chr,
                       const char *pos, uint32_t *out)
{
    uint32_t hit = ES_NO_ITEM, n_hit = 0;
    for (uint32_t v = es_strindex_find(ix, id, NULL); v != ES_NO_ITEM; v = ix->next[v]) {
        es_variant_info_t vi = es_dataset_variant(ds, v);
        if (chr && strcmp(vi.chr, chr) != 0) continue;
        if (pos) {
            char buf[32];
            snprintf(buf, sizeof buf, "%" PRId64, vi.pos);
            if (strcmp(buf, pos) != 0) continue;
        }
        if (!n_hit++) hit = v;
    }
    if (n_hit == 1) {
        *out = hit;
        return ES_OK;
    }
    if (!n_hit)
        es_error("%s: line %" PRIu64 ": variant '%s' (%s%s%s%s%s) is not in the dataset (with "
                 "the input and selection options given)", path, line, id, what,
                 chr ? ", chromosome " : "", chr ? chr : "", pos ? ", position " : "",
                 pos ? pos : "");
    else
        es_error("%s: line %" PRIu64 ": variant '%s' (%s) matches %u variants of the dataset; "
                 "give each variant a distinct ID", path, line, id, what, n_hit);
    return ES_ERR_DATA;
}

/* The text of a scan output, and its header split into fields. */
typedef struct {
    char *text, *q, *end;
    uint64_t line;
    char *f[64];
    int nf;
} scanfile_t;

/* Read path and its first non-blank line (the header).  @return ES_OK or an error (logged) */
static int scanfile_open(scanfile_t *sf, const char *path, const char *what)
{
    size_t len;
    char *ls, *le;
    memset(sf, 0, sizeof *sf);
    int ret = es_text_read(path, what, &sf->text, &len);
    if (ret) return ret;
    sf->q = sf->text;
    sf->end = sf->text + len;
    while ((ls = es_next_line(&sf->q, sf->end, &le))) {
        sf->line++;
        sf->nf = es_split_fields(ls, le, sf->f, 64);
        if (sf->nf) return ES_OK;
    }
    es_error("%s: empty file, expected a %s with a header line", path, what);
    return ES_ERR_FORMAT;
}

/* Locate the wanted header columns (col[w], -1 when absent); the first two are
 * required ("the header has no A and B columns; expected ..." otherwise).
 * *max_c is the largest column index found.  @return ES_OK or ES_ERR_FORMAT. */
static int scanfile_columns(scanfile_t *sf, const char *path, const char *const *want, int *col,
                            int n_want, const char *expected, int *max_c)
{
    find_cols(sf->f, sf->nf < 64 ? sf->nf : 64, want, col, n_want);
    if (col[0] < 0 || col[1] < 0) {
        es_error("%s: line %" PRIu64 ": the header has no %s and %s columns; expected %s", path,
                 sf->line, want[0], want[1], expected);
        return ES_ERR_FORMAT;
    }
    *max_c = 0;
    for (int w = 0; w < n_want; w++)
        if (col[w] > *max_c) *max_c = col[w];
    return ES_OK;
}

/* --from: the variants of the pairs of a .top.tsv or .epi.cc, ascending. */
static int survivors_of_pairs(const es_dataset_t *ds, const es_strindex_t *ix, const char *path,
                      uint32_t **var, uint32_t *n_var)
{
    static const char *const want[] = {"SNP1", "SNP2", "CHR1", "CHR2", "POS1", "POS2"};
    int col[6], ret, max_c = 0;
    scanfile_t sf;
    uint32_t nv = es_dataset_n_variants(ds), n_pairs = 0;
    uint8_t *mark = calloc(nv ? nv : 1, 1);
    char *ls, *le;
    *var = NULL;
    *n_var = 0;
    if (!mark) return ES_ERR_NOMEM;
    if ((ret = scanfile_open(&sf, path, "pair list (.top.tsv or .epi.cc)"))) goto out;
    if ((ret = scanfile_columns(&sf, path, want, col, 6,
                                "the PREFIX.top.tsv (or .epi.cc) of 'epistream scan'", &max_c)))
        goto out;
    while ((ls = es_next_line(&sf.q, sf.end, &le))) {
        char *f[64];
        sf.line++;
        int nf = es_split_fields(ls, le, f, 64);
        if (!nf) continue;
        if (nf <= max_c) {
            es_error("%s: line %" PRIu64 ": %d fields, expected at least %d as in the header",
                     path, sf.line, nf, max_c + 1);
            ret = ES_ERR_FORMAT;
            goto out;
        }
        for (int side = 0; side < 2; side++) {
            uint32_t v;
            const char *chr = col[2 + side] >= 0 ? f[col[2 + side]] : NULL;
            const char *pos = col[4 + side] >= 0 ? f[col[4 + side]] : NULL;
            if ((ret = map_variant(ds, ix, path, sf.line, side ? "SNP2" : "SNP1",
                                   f[col[side]], chr, pos, &v)))
                goto out;
            mark[v] = 1;
        }
        n_pairs++;
    }
    if (!n_pairs) {
        es_error("%s: no pairs after the header", path);
        ret = ES_ERR_FORMAT;
        goto out;
    }
    uint32_t n = 0;
    for (uint32_t v = 0; v < nv; v++) n += mark[v];
    if (!(*var = malloc(n * sizeof **var))) {
        ret = ES_ERR_NOMEM;
        goto out;
    }
    for (uint32_t v = 0; v < nv; v++)
        if (mark[v]) (*var)[(*n_var)++] = v;
    es_info("%s: %u pairs, %u distinct variants", path, n_pairs, n);
out:
    free(sf.text);
    free(mark);
    return ret;
}

typedef struct {
    double stat;
    uint64_t order;
    uint32_t v;
} ranked_t;

static int cmp_ranked(const void *a, const void *b)
{
    const ranked_t *x = a, *y = b;
    if (x->stat != y->stat) return x->stat > y->stat ? -1 : 1; /* higher first */
    return x->order < y->order ? -1 : x->order > y->order;
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* --from-summary FILE --n N: the N variants with the highest BEST_STAT (ties
 * in file order; NA never chosen), ascending. */
static int survivors_of_summary(const es_dataset_t *ds, const es_strindex_t *ix, const char *path,
                        uint32_t want_n, uint32_t **var, uint32_t *n_var)
{
    static const char *const want[] = {"SNP", "BEST_STAT", "CHR", "POS"};
    int col[4], ret, max_c = 0;
    scanfile_t sf;
    ranked_t *rk = NULL;
    size_t n_rk = 0, cap = 0;
    uint32_t nv = es_dataset_n_variants(ds);
    uint8_t *seen = calloc(nv ? nv : 1, 1);
    char *ls, *le;
    *var = NULL;
    *n_var = 0;
    if (!seen) return ES_ERR_NOMEM;
    if ((ret = scanfile_open(&sf, path, "per-variant summary (.summary.tsv)"))) goto out;
    if ((ret = scanfile_columns(&sf, path, want, col, 4,
                                "the PREFIX.summary.tsv of 'epistream scan'", &max_c)))
        goto out;
    while ((ls = es_next_line(&sf.q, sf.end, &le))) {
        char *f[64], *e;
        uint32_t v;
        sf.line++;
        int nf = es_split_fields(ls, le, f, 64);
        if (!nf) continue;
        if (nf <= max_c) {
            es_error("%s: line %" PRIu64 ": %d fields, expected at least %d as in the header",
                     path, sf.line, nf, max_c + 1);
            ret = ES_ERR_FORMAT;
            goto out;
        }
        const char *st = f[col[1]];
        if (strcmp(st, "NA") == 0) continue; /* no pair tested */
        errno = 0;
        double x = strtod(st, &e);
        if (e == st || *e || errno == ERANGE || isnan(x)) {
            es_error("%s: line %" PRIu64 ": BEST_STAT '%s' is not a number", path, sf.line, st);
            ret = ES_ERR_FORMAT;
            goto out;
        }
        if ((ret = map_variant(ds, ix, path, sf.line, "SNP", f[col[0]],
                               col[2] >= 0 ? f[col[2]] : NULL, col[3] >= 0 ? f[col[3]] : NULL,
                               &v)))
            goto out;
        if (seen[v]) continue;
        seen[v] = 1;
        if (n_rk == cap) {
            size_t nc = cap ? 2 * cap : 1024;
            ranked_t *nr = realloc(rk, nc * sizeof *nr);
            if (!nr) {
                ret = ES_ERR_NOMEM;
                goto out;
            }
            rk = nr;
            cap = nc;
        }
        rk[n_rk] = (ranked_t){x, n_rk, v};
        n_rk++;
    }
    if (!n_rk) {
        es_error("%s: no variant with a BEST_STAT (every line is NA or the file has no lines "
                 "after the header)", path);
        ret = ES_ERR_FORMAT;
        goto out;
    }
    if (n_rk < want_n)
        es_warn("%s: --n %u but only %zu variants have a BEST_STAT: taking them all", path,
                want_n, n_rk);
    qsort(rk, n_rk, sizeof *rk, cmp_ranked);
    uint32_t n = n_rk < want_n ? (uint32_t)n_rk : want_n;
    if (!(*var = malloc(n * sizeof **var))) {
        ret = ES_ERR_NOMEM;
        goto out;
    }
    for (uint32_t i = 0; i < n; i++) (*var)[i] = rk[i].v;
    qsort(*var, n, sizeof **var, cmp_u32);
    *n_var = n;
out:
    free(sf.text);
    free(rk);
    free(seen);
    return ret;
}

/* ---- the subcommand ---------------------------------------------------------- */

static void write_log(FILE *fp, const char *cmdline, const char *table, const es_input_opt_t *in,
                      const char *from, const char *from_summary, uint32_t n, es_mi_method_t m,
                      uint32_t k, const es_select_info_t *info, const char *out, double t_read,
                      double t_total)
{
    time_t now = time(NULL);
    char date[64];
    strftime(date, sizeof date, "%Y-%m-%d %H:%M:%S %Z", localtime(&now));
    fprintf(fp, "epistream %s\n", ES_VERSION);
    fprintf(fp, "date\t%s\n", date);
    fprintf(fp, "command\t%s\n", cmdline ? cmdline : "");
    if (table) {
        fprintf(fp, "table\t%s\n", table);
    } else {
        if (in->bfile) fprintf(fp, "bfile\t%s\n", in->bfile);
        else fprintf(fp, "vcf\t%s\n", in->vcf);
        fprintf(fp, "phenotype\t%s\n", in->pheno ? in->pheno : "(.fam column 6)");
        if (from) fprintf(fp, "from\t%s\n", from);
        else fprintf(fp, "from_summary\t%s\nn\t%u\n", from_summary, n);
    }
    es_select_write_log(fp, m, k, info);
    fprintf(fp, "seconds_read\t%.3f\n", t_read);
    fprintf(fp, "seconds_total\t%.3f\n", t_total);
    fprintf(fp, "output\t%s.select.tsv\n", out);
}

int es_cmd_select(int argc, char **argv)
{
    enum { O_TABLE = 256, O_CLASS, O_BINS, O_FROM, O_FROM_SUMMARY, O_N, O_METHOD, O_K, O_THREADS,
           O_OUT, O_QUIET, O_VERBOSE, O_DEVICE, O_GPU_KERNEL, O_GPU_PATH, O_FIXED };
    static const struct option lopts[] = {
        ES_CLI_INPUT_LONGOPTS,
        {"table", required_argument, 0, O_TABLE},
        {"class", required_argument, 0, O_CLASS},
        {"bins", required_argument, 0, O_BINS},
        {"from", required_argument, 0, O_FROM},
        {"from-summary", required_argument, 0, O_FROM_SUMMARY},
        {"n", required_argument, 0, O_N},
        {"method", required_argument, 0, O_METHOD},
        {"k", required_argument, 0, O_K},
        {"threads", required_argument, 0, O_THREADS},
        {"device", required_argument, 0, O_DEVICE},
        {"gpu-kernel", required_argument, 0, O_GPU_KERNEL},
        {"gpu-path", required_argument, 0, O_GPU_PATH},
        {"fixed-point", no_argument, 0, O_FIXED},
        {"out", required_argument, 0, O_OUT},
        {"quiet", no_argument, 0, O_QUIET},
        {"verbose", no_argument, 0, O_VERBOSE},
        {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0}};
    const char *out = NULL, *table = NULL, *from = NULL, *from_summary = NULL;
    const char *kernel_arg = NULL, *path_arg = NULL; /* --gpu-kernel, --gpu-path as given */
    es_table_opt_t topt = {NULL, 128};
    es_mi_method_t method = ES_MI_MRMR;
    uint32_t k = 0, n_sum = 0, threads = 0;
    int have_method = 0, have_bins = 0, quiet = 0, verbose = 0, c, r;
    es_opt_t dev_opt; /* --device and --gpu-kernel, parsed as the scan does */
    es_opt_init(&dev_opt);
    es_select_opt_t so;
    es_mi_opt_init(&so);
    es_cli_input_t ci;
    es_cli_input_init(&ci);
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "h", lopts, NULL)) != -1) {
        if ((r = es_cli_input_option(&ci, c, optarg)) != 0) {
            if (r < 0) return ES_EXIT_USAGE;
            continue;
        }
        switch (c) {
        case O_TABLE: table = optarg; break;
        case O_CLASS: topt.class_col = optarg; break;
        case O_BINS:
            if (es_cli_u32("bins", optarg, 2, 65535, &topt.bins)) return ES_EXIT_USAGE;
            have_bins = 1;
            break;
        case O_FROM: from = optarg; break;
        case O_FROM_SUMMARY: from_summary = optarg; break;
        case O_N:
            if (es_cli_u32("n", optarg, 1, UINT32_MAX - 1, &n_sum)) return ES_EXIT_USAGE;
            break;
        case O_METHOD:
            if (es_cli_method("method", optarg, &method)) return ES_EXIT_USAGE;
            have_method = 1;
            break;
        case O_K:
            if (es_cli_u32("k", optarg, 1, K_MAX, &k)) return ES_EXIT_USAGE;
            break;
        case O_THREADS:
            if (es_cli_u32("threads", optarg, 0, 4096, &threads)) return ES_EXIT_USAGE;
            break;
        case O_DEVICE:
            if (es_device_parse(optarg, &dev_opt)) return ES_EXIT_USAGE;
            break;
        case O_GPU_KERNEL:
            if (es_gpu_kernel_parse(optarg, &dev_opt.gpu_kernel)) return ES_EXIT_USAGE;
            kernel_arg = optarg;
            break;
        case O_GPU_PATH:
            if (es_cli_gpu_path(optarg, &so.gpu_path)) return ES_EXIT_USAGE;
            path_arg = optarg;
            break;
        case O_FIXED: so.fixed_point = 1; break;
        case O_OUT: out = optarg; break;
        case O_QUIET: quiet = 1; break;
        case O_VERBOSE: verbose = 1; break;
        case 'h': select_usage(stdout); return ES_EXIT_OK;
        default:
            if (es_cli_bad_option("select", argv[optind - 1])) select_usage(stderr);
            return ES_EXIT_USAGE;
        }
    }
    const char *why = NULL;
    int genotypes = ci.in.bfile || ci.in.vcf;
    if (optind < argc) {
        fprintf(stderr, "[E::options] select: unexpected argument '%s'\n", argv[optind]);
        return ES_EXIT_USAGE;
    }
    if (!out || !*out) why = "--out is required";
    else if (!have_method) why = "--method is required";
    else if (!k) why = "--k is required";
    else if (!table == !genotypes) why = "give either --table or a genotype input (--bfile/--vcf)";
    else if (table && (from || from_summary || n_sum))
        why = "--from, --from-summary and --n go with --bfile/--vcf, not --table";
    else if (table && (ci.in.pheno || ci.in.keep || ci.in.remove || ci.in.extract ||
                       ci.in.exclude || ci.in.chr || ci.in.n_regions || ci.in.maf > 0 ||
                       ci.in.geno < 1))
        why = "the input and selection options go with --bfile/--vcf, not --table";
    else if (genotypes && (topt.class_col || have_bins))
        why = "--class and --bins go with --table (the class of genotypes is case/control)";
    else if (genotypes && !from == !from_summary)
        why = "give one of --from PREFIX.top.tsv and --from-summary PREFIX.summary.tsv";
    else if (from_summary && !n_sum) why = "--from-summary needs --n N";
    else if (from && n_sum) why = "--n goes with --from-summary";
    if (why) {
        fprintf(stderr, "[E::options] select: %s\n", why);
        select_usage(stderr);
        return ES_EXIT_USAGE;
    }
    if (es_cli_out_prefix("select", out)) return ES_EXIT_USAGE;
    if (genotypes && es_cli_input_check(&ci, "select")) return ES_EXIT_USAGE;
    /* the GPUs asked for exist and the GPU-only options have one to go to
     * (the registry's messages, as for scan) */
    char gpu_opt[64];
    gpu_opt[0] = '\0';
    if (dev_opt.gpu_kernel) snprintf(gpu_opt, sizeof gpu_opt, "--gpu-kernel %s", kernel_arg);
    else if (so.gpu_path) snprintf(gpu_opt, sizeof gpu_opt, "--gpu-path %s", path_arg);
    if (es_backend_check(dev_opt.device, dev_opt.gpu_mask, gpu_opt[0] ? gpu_opt : NULL)) return ES_EXIT_USAGE;
    es_log_set_level(quiet ? ES_LOG_ERROR : verbose ? ES_LOG_INFO : ES_LOG_WARN);
#ifdef _OPENMP
    if (threads) omp_set_num_threads((int)threads); /* the table reader's parallel steps */
#endif
    ci.in.threads = threads ? (int)threads : (int)sysconf(_SC_NPROCESSORS_ONLN);
    so.threads = (int)threads;
    so.device = es_select_device(dev_opt.device, dev_opt.gpu_mask);
    so.gpu_kernel = dev_opt.gpu_kernel;

    int ret = ES_OK;
    es_dataset_t *ds = NULL;
    es_dtable_t d;
    es_strindex_t ix;
    uint32_t *var = NULL, n_var = 0;
    es_select_info_t info;
    es_out_t o_sel, o_log;
    memset(&d, 0, sizeof d);
    memset(&ix, 0, sizeof ix);
    memset(&info, 0, sizeof info);
    memset(&o_sel, 0, sizeof o_sel);
    o_log = o_sel;
    char *cmdline = es_cli_join(argc, argv);
    double t0 = es_time_now(), t_read;

    /* create the outputs first so a bad --out fails before a long read */
    static const char *const suffixes[] = {".select.tsv", ".log"};
    es_out_clear_tmp(out, suffixes, 2);
    if ((ret = es_out_open(&o_sel, out, ".select.tsv"))) goto out;
    if ((ret = es_out_open(&o_log, out, ".log"))) goto out;
    if (table) {
        if ((ret = es_table_read(table, &topt, &d))) goto out;
        t_read = es_time_now() - t0;
        if (d.n_classes < 2)
            es_warn("%s: the class '%s' has a single value: every score is 0", table,
                    d.class_name ? d.class_name : "");
        if ((ret = es_select_table(&d, method, k, &so, o_sel.fp, &info))) goto out;
    } else {
        if ((ret = es_dataset_open(&ds, &ci.in))) goto out;
        if ((ret = es_strindex_build(&ix, (const char *const *)ds->plink->id, NULL,
                                     es_dataset_n_variants(ds))))
            goto out;
        ret = from ? survivors_of_pairs(ds, &ix, from, &var, &n_var)
                   : survivors_of_summary(ds, &ix, from_summary, n_sum, &var, &n_var);
        if (ret) goto out;
        t_read = es_time_now() - t0;
        if ((ret = es_select_variants(ds, var, n_var, method, k, &so, o_sel.fp, &info)))
            goto out;
    }
    write_log(o_log.fp, cmdline, table, &ci.in, from, from_summary, n_sum, method, k, &info, out,
              t_read, es_time_now() - t0);
    es_out_t *const all[] = {&o_sel, &o_log};
    if ((ret = es_out_commit_all(all, 2))) goto out;
    if (!quiet) {
        char a[32];
        fprintf(stderr, "[select] %s picked %u of %u features (%s samples, %u classes) in %.2f s; "
                        "results in %s.select.tsv\n",
                es_mi_method_name(method), info.n_selected, info.n_features,
                es_fmt_count(info.n_samples, a), info.n_classes, es_time_now() - t0, out);
    }
out:
    if (ret) {
        es_out_abort(&o_sel);
        es_out_abort(&o_log);
        /* an I/O error was reported with its file and cause: no vaguer echo */
        if (ret != ES_ERR_IO) fprintf(stderr, "[E::select] failed: %s\n", es_strerror(ret));
    } else {
        es_out_close(&o_sel);
        es_out_close(&o_log);
    }
    es_dtable_free(&d);
    es_strindex_free(&ix);
    free(var);
    es_dataset_destroy(ds);
    free(cmdline);
    return ret ? ES_EXIT_ERROR : ES_EXIT_OK;
}
