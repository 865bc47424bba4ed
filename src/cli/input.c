/* cli_input.c -- the input and selection options shared by scan, info and
 * convert, so every subcommand reads data the same way. */
#include <stdio.h>
#include <string.h>

#include "cli.h"

void es_cli_input_init(es_cli_input_t *ci)
{
    memset(ci, 0, sizeof *ci);
    es_input_opt_init(&ci->in);
    ci->in.regions = ci->regions;
}

int es_cli_input_option(es_cli_input_t *ci, int c, const char *arg)
{
    es_input_opt_t *in = &ci->in;
    switch (c) {
    case ES_OPT_BFILE: in->bfile = arg; return 1;
    case ES_OPT_VCF: in->vcf = arg; return 1;
    case ES_OPT_PHENO: in->pheno = arg; return 1;
    case ES_OPT_PHENO_NAME: in->pheno_name = arg; return 1;
    case ES_OPT_KEEP: in->keep = arg; return 1;
    case ES_OPT_REMOVE: in->remove = arg; return 1;
    case ES_OPT_EXTRACT: in->extract = arg; return 1;
    case ES_OPT_EXCLUDE: in->exclude = arg; return 1;
    case ES_OPT_CHR: in->chr = arg; return 1;
    case ES_OPT_REGION:
        if (in->n_regions >= ES_CLI_MAX_REGIONS) {
            fprintf(stderr, "[E::options] --region: at most %d regions\n", ES_CLI_MAX_REGIONS);
            return -1;
        }
        ci->regions[in->n_regions++] = arg;
        return 1;
    case ES_OPT_MAF:
        if (es_cli_double("maf", arg, &in->maf)) return -1;
        if (in->maf < 0 || in->maf > 0.5) {
            fprintf(stderr, "[E::options] --maf: must be in [0, 0.5], got %s\n", arg);
            return -1;
        }
        return 1;
    case ES_OPT_GENO:
        if (es_cli_double("geno", arg, &in->geno)) return -1;
        if (in->geno < 0 || in->geno > 1) {
            fprintf(stderr, "[E::options] --geno: must be in [0, 1], got %s\n", arg);
            return -1;
        }
        return 1;
    default: return 0;
    }
}

int es_cli_input_check(const es_cli_input_t *ci, const char *cmd)
{
    const es_input_opt_t *in = &ci->in;
    if (!in->bfile == !in->vcf) {
        fprintf(stderr, "[E::options] %s: give exactly one of --bfile and --vcf\n", cmd);
        return -1;
    }
    if (in->pheno_name && !in->pheno) {
        fprintf(stderr, "[E::options] %s: --pheno-name needs --pheno\n", cmd);
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
            "  --bfile PREFIX       PLINK 1 fileset PREFIX.bed/.bim/.fam (SNP-major .bed)\n"
            "  --vcf FILE           VCF, bgzipped VCF or BCF; GT as ALT dosage, biallelic\n"
            "                       diploid sites only (others skipped and counted)\n"
            "  --pheno FILE         phenotype file: FID IID values... or IID values...\n"
            "                       (header optional; 1 control, 2 case, 0/-9/NA missing);\n"
            "                       %s\n"
            "  --pheno-name COL     phenotype column name (header) or number (default: first)\n"
            "Selection (applied while reading):\n"
            "  --keep FILE          only the samples listed (FID IID or IID per line)\n"
            "  --remove FILE        leave out the samples listed\n"
            "  --extract FILE       only the variant IDs listed (first field per line)\n"
            "  --exclude FILE       leave out the variant IDs listed\n"
            "  --chr LIST           only these chromosomes, e.g. 1-4,7,X\n"
            "  --region CHR:FROM-TO only this region of an indexed VCF/BCF (repeatable)\n"
            "  --maf X              drop variants with minor allele frequency < X\n"
            "  --geno X             drop variants with missing-call rate > X\n",
            need_pheno ? "with --bfile the default is .fam column 6; required with --vcf"
                       : "optional (.fam column 6 with --bfile)");
}
