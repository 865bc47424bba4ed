/* sim.h -- the simulator of case/control genotypes with planted interactions
 * (es_sim_opt_t, es_sim_write() in epistream.h: its whole interface is public).
 * Internal (not installed); depends on src/util only. */
#ifndef ES_SIM_H
#define ES_SIM_H

#include "util.h"

#endif /* ES_SIM_H */
