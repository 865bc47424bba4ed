/* pool.c -- the training's worker threads: jobs claimed from one atomic
 * ticket, never a barrier, and a job held by a thread that lost its CPU is
 * run again by the training thread instead of waited for.
 *
 * The training thread publishes a batch of jobs (a refinement's features, a
 * rule's example chunks) and claims jobs itself; the other threads of the
 * training's one OpenMP region spin (then yield the CPU) between batches and
 * claim what they can.  Nothing waits for a thread that has no job, and when
 * the jobs are idempotent (the searches: they only read the training state
 * and write their thread's own result slot) nothing waits long for one that
 * has: after STEAL_US the training thread runs the job itself.  The first
 * thread to finish a job stamps it (batch, thread) with a compare-and-swap;
 * the training thread reads that thread's slot.  A thread that finishes late,
 * even after its batch, stamps nothing and its result is never read.  So a
 * core taken by another program costs its share of the work and not a time
 * slice per refinement, and the results do not depend on who ran what.
 *
 * The ticket holds the batch number (high 32 bits) and the next job (low 32):
 * a job is claimed by a compare-and-swap that also checks the batch, so a
 * thread late from the previous batch can never claim a job of the next. */
#include <sched.h>
#include <stdatomic.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "rules_internal.h"

/* A job held elsewhere is run again after 4 times the longest job this thread
 * ran in the batch, and at least STEAL_US: a worker that is running does
 * not lose its job. */
#define STEAL_US 50.0

/* The job part of a closed batch's ticket: no n_jobs reaches it */
#define ES_RL_CLOSED UINT32_MAX

/* Where publishing a batch may lose the CPU for long (before its ticket);
 * tests/test_rules.c builds this file again with a yield there */
#ifndef ES_RL_POOL_WINDOW
#define ES_RL_POOL_WINDOW() ((void)0)
#endif

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

/* Stamp job k of batch done by slot; a later batch's or an earlier finisher's
 * stamp stays.  @return 1 if this call stamped it */
static int finish(es_rl_pool_t *p, uint32_t k, uint32_t batch, int slot)
{
    uint64_t old = atomic_load_explicit(&p->fin[k], memory_order_acquire);
    for (;;) {
        if ((uint32_t)(old >> 32) >= batch) return 0;
        if (atomic_compare_exchange_weak_explicit(&p->fin[k], &old,
                                                  (uint64_t)batch << 32 | (uint32_t)slot,
                                                  memory_order_acq_rel, memory_order_acquire))
            return 1;
    }
}

/* Claim and run jobs of batch `batch` until none is left to claim.
 * @return the longest job's seconds (timed on the training thread only) */
static double run_batch(es_rl_pool_t *p, uint32_t batch, void *scratch, int slot)
{
    double longest = 0.0;
    for (;;) {
        uint64_t t = atomic_load_explicit(&p->ticket, memory_order_acquire);
        if ((uint32_t)(t >> 32) != batch) return longest;
        /* the batch's job, read before the claim: a claim that succeeds proves the
           batch did not change in between, so these are its own (a thread that
           lost its CPU after claiming must not run the next batch's job) */
        es_rl_job_fn job = atomic_load_explicit(&p->job, memory_order_acquire);
        void *arg = atomic_load_explicit(&p->arg, memory_order_acquire);
        uint32_t k = (uint32_t)t;
        if (k >= atomic_load_explicit(&p->n_jobs, memory_order_acquire)) return longest;
        if (!atomic_compare_exchange_weak_explicit(&p->ticket, &t, t + 1, memory_order_acq_rel,
                                                   memory_order_acquire))
            continue;
        double t0 = slot ? 0.0 : es_time_now();
        job(arg, k, scratch, slot);
        if (!slot && es_time_now() - t0 > longest) longest = es_time_now() - t0;
        finish(p, k, batch, slot);
    }
}

void es_rl_pool_worker(es_rl_pool_t *p, void *scratch, int slot)
{
    uint32_t seen = 0;
    unsigned spins = 0;
    for (;;) {
        uint64_t t = atomic_load_explicit(&p->ticket, memory_order_acquire);
        uint32_t batch = (uint32_t)(t >> 32);
        if (batch != seen) {
            seen = batch;
            run_batch(p, batch, scratch, slot);
            spins = 0;
            continue;
        }
        if (atomic_load_explicit(&p->quit, memory_order_acquire)) return;
        relax(&spins);
    }
}

void es_rl_pool_run(es_rl_pool_t *p, uint32_t n_jobs, es_rl_job_fn job, void *arg, int idempotent,
                    void *scratch)
{
    if (!n_jobs) return;
    uint64_t t = atomic_load_explicit(&p->ticket, memory_order_relaxed);
    uint32_t batch = (uint32_t)(t >> 32) + 1;
    /* Close the previous batch first.  Its ticket (batch - 1, n) was left with
       every job claimed, but a worker that read it and then this batch's larger
       n_jobs would find job n claimable, and its compare-and-swap on the old
       ticket would succeed: it would run this batch's job on state not yet
       published (seen as crashes and other models with 16-32 threads on 2
       CPUs).  A worker that reads any of the stores below (release) now reads
       the closed ticket or a later one in its compare-and-swap, which fails. */
    atomic_store_explicit(&p->ticket, t | ES_RL_CLOSED, memory_order_relaxed);
    atomic_store_explicit(&p->n_jobs, n_jobs, memory_order_release);
    atomic_store_explicit(&p->job, job, memory_order_release);
    atomic_store_explicit(&p->arg, arg, memory_order_release);
    ES_RL_POOL_WINDOW();
    /* publish: everything above, and whatever the jobs read, before the ticket */
    atomic_store_explicit(&p->ticket, (uint64_t)batch << 32, memory_order_release);
    double longest = run_batch(p, batch, scratch, 0), patience = 4.0 * longest;
    if (patience < STEAL_US * 1e-6) patience = STEAL_US * 1e-6;
    /* wait for the jobs others hold; run again an idempotent one that takes too long */
    uint32_t first = 0;
    double since = es_time_now();
    while (first < n_jobs) {
        uint64_t f = atomic_load_explicit(&p->fin[first], memory_order_acquire);
        if ((uint32_t)(f >> 32) == batch) {
            first++;
            since = es_time_now();
            continue;
        }
        if (idempotent && es_time_now() - since > patience) {
            job(arg, first, scratch, 0);
            finish(p, first, batch, 0);
            continue;
        }
#if defined(__x86_64__) || defined(__i386__)
        __builtin_ia32_pause();
#endif
    }
}

int es_rl_pool_slot(const es_rl_pool_t *p, uint32_t k)
{
    return (int)(uint32_t)atomic_load_explicit(&p->fin[k], memory_order_acquire);
}

void es_rl_pool_quit(es_rl_pool_t *p)
{
    atomic_store_explicit(&p->quit, 1, memory_order_release);
}

void es_rl_pool_init(es_rl_pool_t *p, _Atomic uint64_t *fin, size_t max_jobs)
{
    atomic_init(&p->ticket, 0);
    atomic_init(&p->quit, 0);
    atomic_init(&p->n_jobs, 0);
    atomic_init(&p->job, NULL);
    atomic_init(&p->arg, NULL);
    for (size_t k = 0; k < max_jobs; k++) atomic_init(&fin[k], 0);
    p->fin = fin;
}

void es_rl_pool_team(es_rl_pool_t *p, int nt, void (*lead)(void *arg), void *arg, void *scratch,
                     size_t scratch_size)
{
#pragma omp parallel num_threads(nt)
    {
#ifdef _OPENMP
        int tid = omp_get_thread_num();
#else
        int tid = 0;
#endif
        if (tid) {
            es_rl_pool_worker(p, scratch ? (char *)scratch + (size_t)tid * scratch_size : NULL, tid);
        } else {
            lead(arg);
            es_rl_pool_quit(p);
        }
    }
    (void)nt;
}
