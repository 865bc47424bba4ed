/* replay.c -- a main() for the fuzz harnesses without libFuzzer: runs
 * LLVMFuzzerTestOneInput() once on each file named, or on each file of each
 * directory named, so `make check` replays the corpus (seeds and the inputs
 * of past findings) with any compiler, under the sanitizers in that build. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int run_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        perror(path);
        return 1;
    }
    size_t cap = 1 << 16, n = 0;
    uint8_t *buf = malloc(cap);
    for (size_t r; buf && (r = fread(buf + n, 1, cap - n, f)) > 0;) {
        n += r;
        if (n == cap) {
            uint8_t *nb = realloc(buf, cap *= 2);
            if (!nb) free(buf);
            buf = nb;
        }
    }
    fclose(f);
    if (!buf) return 1;
    LLVMFuzzerTestOneInput(buf, n);
    free(buf);
    return 0;
}

int main(int argc, char **argv)
{
    int bad = 0, runs = 0;
    for (int a = 1; a < argc; a++) {
        struct stat st;
        if (stat(argv[a], &st) != 0) {
            perror(argv[a]);
            return 1;
        }
        if (!S_ISDIR(st.st_mode)) {
            bad |= run_file(argv[a]);
            runs++;
            continue;
        }
        struct dirent **ent;
        int ne = scandir(argv[a], &ent, NULL, alphasort); /* a fixed order */
        for (int k = 0; k < ne; k++) {
            char p[4096];
            snprintf(p, sizeof p, "%s/%s", argv[a], ent[k]->d_name);
            if (ent[k]->d_name[0] != '.' && stat(p, &st) == 0 && S_ISREG(st.st_mode)) {
                bad |= run_file(p);
                runs++;
            }
            free(ent[k]);
        }
        free(ent);
    }
    printf("%d inputs run\n", runs);
    return bad;
}
