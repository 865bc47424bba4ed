/* cmd_convert.c -- `epistream convert`: a VCF/BCF, or a selection of a
 * fileset, written as a PLINK 1 fileset, so a large VCF is parsed once and
 * scanned many times. */
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

static void convert_usage(FILE *fp)
{
    fprintf(fp,
            "Usage: epistream convert (--vcf FILE | --bfile PREFIX) --out PREFIX [options]\n"
            "\n"
            "Write the selected samples and variants as a PLINK 1 fileset PREFIX.bed/.bim/.fam\n"
            "(SNP-major, readable by plink1.9).  From a VCF/BCF: biallelic sites with diploid\n"
            "GT calls, A1 = ALT, A2 = REF, ID = the ID column or CHR:POS:REF:ALT when it is\n"
            "'.'; FID = IID = the sample name.  .fam column 6 is 2 case, 1 control, -9 unknown\n"
            "(from --pheno, or .fam column 6 with --bfile).\n"
            "\n");
    es_cli_input_usage(fp, 0);
    fprintf(fp,
            "Output:\n"
            "  --out PREFIX         writes PREFIX.bed, PREFIX.bim, PREFIX.fam (all or nothing;\n"
            "                       PREFIX ends in a file name: not DIR/)\n"
            "  --threads T          VCF/BCF decompression threads (default 0: none)\n"
            "  --quiet              only errors on stderr\n"
            "  --verbose            informational messages on stderr\n"
            "  -h, --help           this help\n");
}

int es_cmd_convert(int argc, char **argv)
{
    enum { O_OUT = 256, O_THREADS, O_QUIET, O_VERBOSE };
    static const struct option lopts[] = {ES_CLI_INPUT_LONGOPTS, ES_CLI_RANGE_LONGOPTS,
                                          {"out", required_argument, 0, O_OUT},
                                          {"threads", required_argument, 0, O_THREADS},
                                          {"quiet", no_argument, 0, O_QUIET},
                                          {"verbose", no_argument, 0, O_VERBOSE},
                                          {"help", no_argument, 0, 'h'},
                                          {0, 0, 0, 0}};
    const char *out = NULL;
    int quiet = 0, verbose = 0, c, r;
    uint32_t u;
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
        case O_OUT: out = optarg; break;
        case O_THREADS:
            if (es_cli_u32("threads", optarg, 0, 4096, &u)) return ES_EXIT_USAGE;
            ci.in.threads = (int)u;
            break;
        case O_QUIET: quiet = 1; break;
        case O_VERBOSE: verbose = 1; break;
        case 'h': convert_usage(stdout); return ES_EXIT_OK;
        default:
            if (es_cli_bad_option("convert", argv[optind - 1])) convert_usage(stderr);
            return ES_EXIT_USAGE;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "[E::options] convert: unexpected argument '%s'\n", argv[optind]);
        return ES_EXIT_USAGE;
    }
    if (!out || !*out) {
        fprintf(stderr, "[E::options] convert: --out is required\n");
        convert_usage(stderr);
        return ES_EXIT_USAGE;
    }
    if (es_cli_out_prefix("convert", out)) return ES_EXIT_USAGE;
    if (es_cli_input_check(&ci, "convert")) {
        convert_usage(stderr);
        return ES_EXIT_USAGE;
    }
    es_log_set_level(quiet ? ES_LOG_ERROR : verbose ? ES_LOG_INFO : ES_LOG_WARN);
    /* conversion keeps every selected sample, with or without a phenotype */
    ci.in.require_pheno = 0;

    es_dataset_t *ds = NULL;
    double t0 = es_time_now();
    int ret = es_dataset_open(&ds, &ci.in);
    if (ret) goto out;
    if ((ret = es_dataset_write_plink(ds, out))) goto out;
    if (!quiet) {
        char a[32], b[32], d[32], e[32];
        const es_fileset_t *p = ds->plink;
        uint32_t n = es_dataset_n_samples_total(ds), kept = 0;
        for (uint32_t s = 0; s < n; s++)
            kept += ds->status[s] != -2;
        fprintf(stderr, "[convert] %s samples, %s variants written to %s.bed/.bim/.fam in %.2f s",
                es_fmt_count(kept, a), es_fmt_count(es_dataset_n_variants(ds), b), out,
                es_time_now() - t0);
        if (ci.in.vcf) {
            /* only the categories that happened, so the usual line stays short */
            const es_vcf_stats_t *st = &p->vcf_stats;
            const struct {
                uint64_t n;
                const char *what;
            } skip[] = {{st->multiallelic, "with more than two alleles"},
                        {st->no_gt, "without GT"},
                        {st->haploid_sites, "all-haploid"}};
            int any = 0;
            fprintf(stderr, "; %s VCF records", es_fmt_count(st->records, a));
            for (size_t k = 0; k < sizeof skip / sizeof skip[0]; k++) {
                if (!skip[k].n) continue;
                fprintf(stderr, "%s %s %s", any ? "," : ", skipped", es_fmt_count(skip[k].n, d),
                        skip[k].what);
                any = 1;
            }
            if (!any) fputs(", none skipped", stderr);
            if (st->haploid_calls)
                fprintf(stderr, "; %s haploid calls set missing",
                        es_fmt_count(st->haploid_calls, e));
        }
        if (kept < n) fprintf(stderr, "; %s samples removed", es_fmt_count(n - kept, a));
        fputc('\n', stderr);
    }
out:
    /* an I/O error was reported with its file and cause: no vaguer echo */
    if (ret && ret != ES_ERR_IO) fprintf(stderr, "[E::convert] failed: %s\n", es_strerror(ret));
    es_dataset_destroy(ds);
    return ret ? ES_EXIT_ERROR : ES_EXIT_OK;
}
