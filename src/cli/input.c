/* input.c -- the input and selection options shared by scan, info, convert
 * and select, so every subcommand reads data the same way; PLINK 1.9's
 * filters and codings among them keep PLINK's names and meaning. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "nsga.h"
#include "select.h"

/* PLINK 1.9 takes --mind, --geno and --maf without a value (0.1, 0.1, 0.01);
 * here the value is required, so a following option was taken for it. */
static void plink_default_note(const char *opt, const char *arg, const char *dflt)
{
    if (arg[0] == '-' && arg[1] == '-')
        fprintf(stderr, "[E::options] --%s: PLINK's --%s without a value means %s; write it: "
                        "--%s %s\n", opt, opt, dflt, opt, dflt);
}

/* A threshold in [lo, hi] (hi_open: [lo, hi)); prints the error. */
static int threshold(const char *opt, const char *arg, double lo, double hi, int hi_open,
                     double *out)
{
    if (es_cli_double(opt, arg, out)) return -1;
    if (!(*out >= lo && (hi_open ? *out < hi : *out <= hi))) {
        fprintf(stderr, "[E::options] --%s: must be in [%g, %g%c, got %s\n", opt, lo, hi,
                hi_open ? ')' : ']', arg);
        return -1;
    }
    return 0;
}

void es_cli_input_init(es_cli_input_t *ci)
{
    memset(ci, 0, sizeof *ci);
    es_input_opt_init(&ci->in);
    ci->in.regions = ci->regions;
}

/* The handlers of the input options that need more than storing the value
 * (ctx: the es_cli_input_t). */

static int set_pheno_name(void *ctx, const char *arg)
{
    es_cli_input_t *ci = ctx;
    ci->in.pheno_name = ci->pheno_name = arg;
    return 0;
}

static int set_region(void *ctx, const char *arg)
{
    es_cli_input_t *ci = ctx;
    if (ci->in.n_regions >= ES_CLI_MAX_REGIONS) {
        fprintf(stderr, "[E::options] --region: at most %d regions\n", ES_CLI_MAX_REGIONS);
        return -1;
    }
    ci->regions[ci->in.n_regions++] = arg;
    return 0;
}

/* PLINK's --maf, --geno, --mind: a rate in [0, hi]; when the value is not a
 * number, the note on PLINK's default (dflt) follows the error. */
static int plink_rate(const char *opt, const char *arg, double hi, const char *dflt, double *out)
{
    if (es_cli_double(opt, arg, out)) {
        plink_default_note(opt, arg, dflt);
        return -1;
    }
    return threshold(opt, arg, 0, hi, 0, out);
}

static int set_maf(void *ctx, const char *arg)
{
    return plink_rate("maf", arg, 0.5, "0.01", &((es_cli_input_t *)ctx)->in.maf);
}

static int set_geno(void *ctx, const char *arg)
{
    return plink_rate("geno", arg, 1, "0.1", &((es_cli_input_t *)ctx)->in.geno);
}

static int set_mind(void *ctx, const char *arg)
{
    return plink_rate("mind", arg, 1, "0.1", &((es_cli_input_t *)ctx)->in.mind);
}

static int set_hwe(void *ctx, const char *arg)
{
    es_input_opt_t *in = &((es_cli_input_t *)ctx)->in;
    if (!strcmp(arg, "midp") || !strcmp(arg, "include-nonctrl")) {
        fprintf(stderr, "[E::options] --hwe: expected a p-value threshold, got '%s' (PLINK's "
                        "'include-nonctrl' is --hwe-all here; 'midp' is not supported)\n",
                arg);
        return -1;
    }
    return threshold("hwe", arg, 0, 1, 1, &in->hwe);
}

static int set_snps(void *ctx, const char *arg)
{
    if (!arg[strspn(arg, " \t,")]) {
        fprintf(stderr, "[E::options] --snps: expected variant IDs and spans such as "
                        "rs1-rs5,rs9, got '%s'\n", arg);
        return -1;
    }
    ((es_cli_input_t *)ctx)->in.snps = arg;
    return 0;
}

static int set_mpheno(void *ctx, const char *arg)
{
    es_cli_input_t *ci = ctx;
    uint32_t col;
    if (es_cli_u32("mpheno", arg, 1, 2147483647u, &col)) return -1;
    /* --mpheno N is --pheno-name N: the Nth phenotype column */
    ci->in.pheno_name = ci->mpheno = arg;
    return 0;
}

static int set_vcf_multiallelic(void *ctx, const char *arg)
{
    es_cli_input_t *ci = ctx;
    if (!strcmp(arg, "split")) ci->in.vcf_multiallelic = ES_VCF_MULTIALLELIC_SPLIT;
    else if (!strcmp(arg, "skip")) ci->in.vcf_multiallelic = ES_VCF_MULTIALLELIC_SKIP;
    else {
        fprintf(stderr, "[E::options] --vcf-multiallelic: expected split or skip, got '%s'\n",
                arg);
        return -1;
    }
    ci->multiallelic = arg;
    return 0;
}

#define IN_STR(name, f) ES_CLI_OPT_STR(name, es_cli_input_t, in.f)
static const es_cli_opt_t input_opts[] = {
    IN_STR("bfile", bfile),
    IN_STR("vcf", vcf),
    ES_CLI_OPT_FUNC("vcf-multiallelic", set_vcf_multiallelic),
    IN_STR("pheno", pheno),
    ES_CLI_OPT_FUNC("pheno-name", set_pheno_name),
    IN_STR("keep", keep),
    IN_STR("remove", remove),
    IN_STR("extract", extract),
    IN_STR("exclude", exclude),
    IN_STR("chr", chr),
    ES_CLI_OPT_FUNC("region", set_region),
    ES_CLI_OPT_FUNC("maf", set_maf),
    ES_CLI_OPT_FUNC("geno", set_geno),
    ES_CLI_OPT_FUNC("mind", set_mind),
    ES_CLI_OPT_FUNC("hwe", set_hwe),
    ES_CLI_OPT_FLAG("hwe-all", es_cli_input_t, in.hwe_all),
    ES_CLI_OPT_FUNC("snps", set_snps),
    ES_CLI_OPT_FUNC("mpheno", set_mpheno),
    ES_CLI_OPT_FLAG("1", es_cli_input_t, in.pheno_01),
    /* sex never leaves a sample out: nothing to allow */
    ES_CLI_OPT_FLAG("allow-no-sex", es_cli_input_t, allow_no_sex),
};
static const es_cli_opt_t range_opts[] = {IN_STR("from", from), IN_STR("to", to)};
#undef IN_STR

es_cli_group_t es_cli_input_group(es_cli_input_t *ci)
{
    return (es_cli_group_t)ES_CLI_GROUP(input_opts, ci);
}

es_cli_group_t es_cli_range_group(es_cli_input_t *ci)
{
    return (es_cli_group_t)ES_CLI_GROUP(range_opts, ci);
}

int es_cli_input_check(const es_cli_input_t *ci, const char *cmd)
{
    const es_input_opt_t *in = &ci->in;
    if (!in->bfile == !in->vcf) {
        fprintf(stderr, "[E::options] %s: give exactly one of --bfile and --vcf\n", cmd);
        return -1;
    }
    if (ci->mpheno && ci->pheno_name) {
        fprintf(stderr, "[E::options] %s: give one of --mpheno and --pheno-name\n", cmd);
        return -1;
    }
    if (ci->mpheno && !in->pheno) {
        fprintf(stderr, "[E::options] %s: --mpheno needs --pheno (it picks a column of the "
                        "phenotype file)\n", cmd);
        return -1;
    }
    if (in->pheno_name && !in->pheno) {
        fprintf(stderr, "[E::options] %s: --pheno-name needs --pheno\n", cmd);
        return -1;
    }
    /* PLINK 1.9 refuses these combinations too */
    if ((in->from || in->to) && in->chr) {
        fprintf(stderr, "[E::options] %s: --from/--to pick their own chromosome; leave out "
                        "--chr\n", cmd);
        return -1;
    }
    if ((in->from || in->to) && in->snps) {
        fprintf(stderr, "[E::options] %s: give --snps or --from/--to, not both\n", cmd);
        return -1;
    }
    if (ci->multiallelic && !in->vcf) {
        fprintf(stderr, "[E::options] %s: --vcf-multiallelic goes with --vcf (a .bed fileset "
                        "holds biallelic variants only)\n", cmd);
        return -1;
    }
    if (in->n_regions && !in->vcf) {
        fprintf(stderr, "[E::options] %s: --region needs --vcf (an indexed VCF/BCF); "
                        "use --chr or --extract with --bfile\n", cmd);
        return -1;
    }
    return 0;
}

void es_cli_input_usage(FILE *fp, int need_pheno)
{
    fprintf(fp,
            "Input (one of --bfile and --vcf):\n"
            "  --bfile PREFIX       PLINK 1 fileset PREFIX.bed/.bim/.fam (SNP-major .bed, a\n"
            "                       regular file: it is memory-mapped)\n"
            "  --vcf FILE           VCF, bgzipped VCF or BCF; GT as ALT dosage, diploid calls\n"
            "                       only (others missing, counted); a record with several\n"
            "                       ALT alleles becomes one variant per ALT, as bcftools\n"
            "                       norm -m- splits it (other ALTs count as REF; the ID is\n"
            "                       kept, so the variants share it unless it is '.')\n"
            "  --vcf-multiallelic M split (default) or skip (leave such records out, counted,\n"
            "                       as PLINK's --biallelic-only strict)\n"
            "  --pheno FILE         phenotype file: FID IID values... or IID values...\n"
            "                       (header optional; 1 control, 2 case, 0/-9/NA missing);\n"
            "                       %s\n"
            "  --pheno-name COL     phenotype column name (header) or number (default: first)\n"
            "  --mpheno N           PLINK's name for --pheno-name N: the Nth phenotype column\n"
            "  --1                  case/control coded 0 control, 1 case (.fam column 6 and\n"
            "                       --pheno; any other value is missing), as in PLINK\n"
            "  --allow-no-sex       accepted, no effect: sex never leaves a sample out (as in\n"
            "                       PLINK with this flag); only --mind and --hwe read it\n"
            "Selection (applied while reading, in PLINK 1.9's order: samples, then variants\n"
            "by name and position, then --mind, then --geno, --hwe, --maf):\n"
            "  --keep FILE          only the samples listed (FID IID or IID per line)\n"
            "  --remove FILE        leave out the samples listed\n"
            "  --extract FILE       only the variant IDs listed (first field per line)\n"
            "  --exclude FILE       leave out the variant IDs listed\n"
            "  --chr LIST           only these chromosomes, e.g. 1-4,7,X\n"
            "  --from ID, --to ID   only the variants of ID's chromosome at positions from\n"
            "                       the --from variant's to the --to variant's (either alone:\n"
            "                       to the end / from the start), as in PLINK; not with --chr\n"
            "                       or --snps, nor in select (its --from is a scan result)\n"
            "  --snps LIST          only these variant IDs and spans in file order, e.g.\n"
            "                       rs1-rs5,rs9 (PLINK's --snps; every ID must exist)\n"
            "  --region CHR:FROM-TO only this region of an indexed VCF/BCF (repeatable)\n"
            "  --maf X              drop variants with minor allele frequency < X\n"
            "  --geno X             drop variants with missing-call rate > X\n"
            "  --mind X             drop samples with missing-call rate > X over the\n"
            "                       variants selected by name and position (chrY: males'\n"
            "                       calls only)\n"
            "  --hwe P              drop variants whose Hardy-Weinberg exact-test p < P in\n"
            "                       the founder controls (all founders when there are no\n"
            "                       controls; chrX: non-males; chrY, MT: not tested)\n"
            "  --hwe-all            --hwe in every founder, cases too (PLINK's\n"
            "                       'include-nonctrl')\n"
            "  Values are required: PLINK's bare --mind, --geno, --maf mean 0.1, 0.1, 0.01.\n",
            need_pheno ? "with --bfile the default is .fam column 6; required with --vcf"
                       : "optional (.fam column 6 with --bfile)");
}

static void read_progress(uint64_t done, uint64_t total, double secs, void *ud)
{
    (void)ud;
    es_cli_progress("read", "bytes", done, total, secs);
}

void es_cli_input_progress(es_cli_input_t *ci, int on)
{
    ci->in.progress = on && ci->in.vcf ? read_progress : NULL;
    ci->in.progress_ud = NULL;
}

/* The variants named in a .select.tsv (FEATURE = variant ID) or a list of IDs,
 * or those of a scan's pair or triple list (nsga and rules --from). */
int es_cli_variants_from(const es_dataset_t *ds, const char *path, uint32_t **var, uint32_t *n_var)
{
    FILE *fp = fopen(path, "r");
    char head[4096];
    int is_pairs = 0;
    if (fp) {
        if (fgets(head, sizeof head, fp)) is_pairs = strstr(head, "SNP1") != NULL;
        fclose(fp);
    }
    if (is_pairs) return es_select_read_pairs(ds, path, var, n_var);
    char **names = NULL;
    uint32_t n = 0, nv = es_dataset_n_variants(ds);
    int ret = es_nsga_read_names(path, &names, &n);
    if (ret) return ret;
    char **ids = malloc((nv ? nv : 1) * sizeof *ids);
    es_strindex_t ix;
    memset(&ix, 0, sizeof ix);
    *var = malloc((n ? n : 1) * sizeof **var);
    if (!ids || !*var) {
        ret = ES_ERR_NOMEM;
        goto out;
    }
    for (uint32_t v = 0; v < nv; v++) ids[v] = (char *)es_dataset_variant(ds, v).id;
    if ((ret = es_strindex_build(&ix, (const char *const *)ids, NULL, nv))) goto out;
    for (uint32_t k = 0; k < n; k++) {
        uint32_t v = es_strindex_find(&ix, names[k], NULL);
        if (v == ES_NO_ITEM) {
            es_error("%s: variant '%s' is not in the input (after its selection options)", path,
                     names[k]);
            ret = ES_ERR_DATA;
            goto out;
        }
        for (uint32_t q = 0; q < k; q++)
            if ((*var)[q] == v) {
                es_error("%s: variant '%s' listed twice", path, names[k]);
                ret = ES_ERR_DATA;
                goto out;
            }
        (*var)[k] = v;
    }
    *n_var = n;
out:
    es_strindex_free(&ix);
    free(ids);
    for (uint32_t k = 0; k < n; k++) free(names[k]);
    free(names);
    if (ret) {
        free(*var);
        *var = NULL;
    }
    return ret;
}
