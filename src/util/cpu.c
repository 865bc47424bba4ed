/* cpu.c -- the one CPU-feature probe.  Every module with SIMD variants asks
 * es_cpu_has() which it may run, instead of probing on its own, so the same
 * machine gets the same answer everywhere and a forced variant (environment)
 * is read in one way. */
#include <pthread.h>
#include <stdlib.h>

#include "util.h"

static unsigned features;
static pthread_once_t probe_once = PTHREAD_ONCE_INIT;

static void probe(void)
{
    unsigned f = 0;
#if ES_CPU_X86
    __builtin_cpu_init();
    if (__builtin_cpu_supports("popcnt")) f |= ES_CPU_POPCNT;
    if (__builtin_cpu_supports("avx2") && (f & ES_CPU_POPCNT)) f |= ES_CPU_AVX2;
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
        __builtin_cpu_supports("avx512vpopcntdq"))
        f |= ES_CPU_AVX512;
    if ((f & ES_CPU_AVX512) && __builtin_cpu_supports("avx512vnni") && __builtin_cpu_supports("avx512vl"))
        f |= ES_CPU_AVX512VNNI;
#if defined(__x86_64__)
    /* AMD family 15h (Bulldozer) and 17h (Zen 1/2) run PEXT in microcode:
     * BMI2 is only worth using where it is fast. */
    if ((f & ES_CPU_POPCNT) && __builtin_cpu_supports("bmi2") && !__builtin_cpu_is("amdfam15h") &&
        !__builtin_cpu_is("amdfam17h"))
        f |= ES_CPU_FAST_BMI2;
#endif
#endif
    features = f;
}

int es_cpu_has(unsigned feature)
{
    pthread_once(&probe_once, probe);
    return (features & feature) == feature;
}

const char *es_env_variant(const char *name)
{
    const char *v = getenv(name);
    return v && *v ? v : NULL;
}
