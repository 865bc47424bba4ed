/* scan.h -- the scan driver (es_scan_create/run/destroy of epistream.h), its
 * options (opt.c) and its result files (output.h).  Internal (not installed);
 * depends on src/backend and below.  The public interface is epistream.h. */
#ifndef ES_SCAN_H
#define ES_SCAN_H

#include "backend.h"

#endif /* ES_SCAN_H */
