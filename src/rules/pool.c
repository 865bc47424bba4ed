/* pool.c -- the training's worker threads: jobs claimed from one atomic
 * ticket, never a barrier.
 *
 * The training thread publishes a batch of jobs (a refinement's features, a
 * rule's example chunks) and claims jobs itself; the other threads of the
 * training's one OpenMP region spin (then yield the CPU) between batches and
 * claim what they can.  Nothing waits for a thread that has no job: when a
 * core is busy with another program, its thread simply claims fewer jobs, so
 * the training slows by that core's share and not by a time slice per
 * refinement (a barrier waits for every thread, scheduled or not).  Each job
 * writes its own slot, so results do not depend on who ran what.
 *
 * The ticket holds the batch number (high 32 bits) and the next job (low 32):
 * a job is claimed by a compare-and-swap that also checks the batch, so a
 * thread late from the previous batch can never claim a job of the next. */
#include <sched.h>
#include <stdatomic.h>

#include "rules_internal.h"

/* Spin a little, then give the core away. */
static void relax(unsigned *spins)
{
    if (++*spins < 64) {
#if defined(__x86_64__) || defined(__i386__)
        __builtin_ia32_pause();
#endif
        return;
    }
    *spins = 0;
    sched_yield();
}

/* Claim and run jobs of batch `batch` until none is left.  @return 1 if the
 * batch was current when looked at */
static void run_batch(es_rl_pool_t *p, uint32_t batch, void *scratch)
{
    for (;;) {
        uint64_t t = atomic_load_explicit(&p->ticket, memory_order_acquire);
        if ((uint32_t)(t >> 32) != batch) return;
        uint32_t k = (uint32_t)t;
        if (k >= p->n_jobs) return;
        if (!atomic_compare_exchange_weak_explicit(&p->ticket, &t, t + 1, memory_order_acq_rel,
                                                   memory_order_acquire))
            continue;
        p->job(p->arg, k, scratch);
        atomic_fetch_add_explicit(&p->done, 1, memory_order_release);
    }
}

void es_rl_pool_worker(es_rl_pool_t *p, void *scratch)
{
    uint32_t seen = 0;
    unsigned spins = 0;
    for (;;) {
        uint64_t t = atomic_load_explicit(&p->ticket, memory_order_acquire);
        uint32_t batch = (uint32_t)(t >> 32);
        if (batch != seen) {
            seen = batch;
            run_batch(p, batch, scratch);
            spins = 0;
            continue;
        }
        if (atomic_load_explicit(&p->quit, memory_order_acquire)) return;
        relax(&spins);
    }
}

void es_rl_pool_run(es_rl_pool_t *p, uint32_t n_jobs, void (*job)(void *, uint32_t, void *),
                    void *arg, void *scratch)
{
    if (!n_jobs) return;
    uint64_t t = atomic_load_explicit(&p->ticket, memory_order_relaxed);
    uint32_t batch = (uint32_t)(t >> 32) + 1;
    p->n_jobs = n_jobs;
    p->job = job;
    p->arg = arg;
    atomic_store_explicit(&p->done, 0, memory_order_relaxed);
    /* publish: everything above, and whatever the jobs read, before the ticket */
    atomic_store_explicit(&p->ticket, (uint64_t)batch << 32, memory_order_release);
    run_batch(p, batch, scratch);
    unsigned spins = 0;
    while (atomic_load_explicit(&p->done, memory_order_acquire) < n_jobs) relax(&spins);
}

void es_rl_pool_quit(es_rl_pool_t *p)
{
    atomic_store_explicit(&p->quit, 1, memory_order_release);
}
