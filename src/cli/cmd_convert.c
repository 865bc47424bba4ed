/* cmd_convert.c -- `epistream convert`: a VCF/BCF, or a selection of a
 * fileset, written as a PLINK 1 fileset, so a large VCF is parsed once and
 * scanned many times. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

static void convert_usage(FILE *fp)
{
    fprintf(fp,
            "Usage: epistream convert (--vcf FILE | --bfile PREFIX) --out PREFIX [options]\n"
            "\n"
            "Write the selected samples and variants as a PLINK 1 fileset PREFIX.bed/.bim/.fam\n"
            "(SNP-major, readable by plink1.9).  From a VCF/BCF: sites with diploid GT calls,\n"
            "one variant per ALT allele (a site with several is split as bcftools norm -m-\n"
            "does; see --vcf-multiallelic), A1 = ALT, A2 = REF, ID = the ID column or\n"
            "CHR:POS:REF:ALT when it is '.'; FID = IID = the sample name.  .fam column 6 is\n"
            "2 case, 1 control, -9 unknown (from --pheno, or .fam column 6 with --bfile).\n"
            "\n");
    es_cli_input_usage(fp, 0);
    fprintf(fp,
            "Output:\n"
            "  --out PREFIX         writes PREFIX.bed, PREFIX.bim, PREFIX.fam (all or nothing;\n"
            "                       PREFIX ends in a file name: not DIR/)\n"
            "  --threads T          VCF/BCF decompression threads (default 0: none)\n"
            "  --quiet              only errors on stderr (else, on a terminal, a progress\n"
            "                       line while a VCF/BCF is read: bytes, rate, time left)\n"
            "  --verbose            informational messages on stderr\n"
            "  -h, --help           this help\n");
}

typedef struct {
    es_cli_input_t ci;
    const char *out;
    int quiet, verbose;
} convert_args_t;

static const es_cli_opt_t convert_opts[] = {
    ES_CLI_OPT_STR("out", convert_args_t, out),
    ES_CLI_OPT_INT("threads", convert_args_t, ci.in.threads, 0, 4096),
    ES_CLI_OPT_FLAG("quiet", convert_args_t, quiet),
    ES_CLI_OPT_FLAG("verbose", convert_args_t, verbose),
};

int es_cmd_convert(int argc, char **argv)
{
    convert_args_t args;
    memset(&args, 0, sizeof args);
    es_cli_input_init(&args.ci);
    const es_cli_group_t groups[] = {es_cli_input_group(&args.ci), es_cli_range_group(&args.ci),
                                     ES_CLI_GROUP(convert_opts, &args)};
    int r = es_cli_parse("convert", argc, argv, groups, sizeof groups / sizeof *groups,
                         convert_usage);
    if (r >= 0) return r;
    const char *out = args.out;
    int quiet = args.quiet;
    if (!out || !*out) {
        fprintf(stderr, "[E::options] convert: --out is required\n");
        convert_usage(stderr);
        return ES_EXIT_USAGE;
    }
    if (es_cli_out_prefix("convert", out)) return ES_EXIT_USAGE;
    if (es_cli_input_check(&args.ci, "convert")) {
        convert_usage(stderr);
        return ES_EXIT_USAGE;
    }
    es_log_set_level(quiet ? ES_LOG_ERROR : args.verbose ? ES_LOG_INFO : ES_LOG_WARN);
    /* conversion keeps every selected sample, with or without a phenotype */
    args.ci.in.require_pheno = 0;

    es_dataset_t *ds = NULL;
    double t0 = es_time_now();
    es_cli_input_progress(&args.ci, !quiet && isatty(STDERR_FILENO));
    int ret = es_dataset_open(&ds, &args.ci.in);
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
        if (args.ci.in.vcf) {
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
            if (st->split_records)
                fprintf(stderr, ", %s with more than two alleles split into %s variants",
                        es_fmt_count(st->split_records, d), es_fmt_count(st->split_variants, e));
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
