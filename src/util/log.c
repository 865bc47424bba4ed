/* log.c -- the one leveled logger, error strings and small formatting helpers. */
#define _POSIX_C_SOURCE 200809L
#include <stdarg.h>
#include <stdio.h>
#include <time.h>

#include "util.h"

/* One process-wide knob; written by the CLI before threads start, read after. */
static es_log_level_t log_level = ES_LOG_WARN;

void es_log_set_level(es_log_level_t level) { log_level = level; }

es_log_level_t es_log_get_level(void) { return log_level; }

void es_log(es_log_level_t level, const char *func, const char *fmt, ...)
{
    static const char tag[] = "QEWID";
    if (level > log_level || level <= ES_LOG_QUIET) return;
    char buf[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    /* one fprintf per message so lines from several threads do not interleave */
    fprintf(stderr, "[%c::%s] %s\n", tag[level], func, buf);
}

const char *es_strerror(int err)
{
    switch (err) {
    case ES_OK: return "success";
    case ES_ERR_NOMEM: return "out of memory";
    case ES_ERR_IO: return "input/output error";
    case ES_ERR_FORMAT: return "malformed input";
    case ES_ERR_ARG: return "invalid argument";
    case ES_ERR_GPU: return "GPU error";
    case ES_ERR_UNSUPPORTED: return "not supported";
    case ES_ERR_DATA: return "data cannot be analysed";
    default: return "unknown error";
    }
}

double es_time_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

const char *es_fmt_count(uint64_t n, char *buf)
{
    char tmp[32];
    int len = snprintf(tmp, sizeof tmp, "%llu", (unsigned long long)n);
    int o = 0;
    for (int k = 0; k < len; k++) {
        if (k > 0 && (len - k) % 3 == 0) buf[o++] = ',';
        buf[o++] = tmp[k];
    }
    buf[o] = '\0';
    return buf;
}
