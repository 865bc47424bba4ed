/* draw_stub.c -- the drawing door of a build without cairo: nothing can be
 * drawn, and `epistream report` says so (configure found no cairo, or was
 * given --without-cairo). */
#include "report_internal.h"

int es_rp_can_draw(void) { return 0; }

int es_rp_render(const rp_data_t *d, rp_plot_t k, es_report_format_t fmt, char **buf, size_t *len)
{
    (void)d;
    (void)k;
    (void)fmt;
    *buf = NULL;
    *len = 0;
    return ES_ERR_UNSUPPORTED;
}
