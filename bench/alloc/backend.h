/*
 * One allocator under test, as seen by a worker process.
 *
 * Every allocator runs in its own worker process (see driver.c for why), so a
 * backend may replace the process's malloc (jemalloc does, by being linked).
 */
#ifndef BENCH_ALLOC_BACKEND_H
#define BENCH_ALLOC_BACKEND_H

#include "workload.h"

typedef uint64_t (*bench_loop_fn)(const int32_t *ops, size_t n, size_t size, bench_touch_t touch,
                                  void **live, size_t *nlive_out, size_t *failed_at);

typedef struct {
    const char *name; /* the NAME of --worker NAME[:ARG] */
    /* Once per process, before any run: prepare the allocator (ARG is the text
     * after ':' or ""). Writes a one-line description (version, what it
     * resolved to) into desc, or the reason it cannot run. 0 = ready. */
    int (*init)(const char *arg, char *desc, size_t desclen);
    bench_loop_fn loop;       /* the timed loop, direct calls (BENCH_DEFINE_LOOP) */
    void (*release)(void *p); /* untimed free of what is live at the end */
    void (*fini)(void);       /* optional, at worker exit (nothing is live then) */
} bench_backend_t;

/* Serve the driver's requests on stdin/stdout (protocol in worker.c).
 * spec = "NAME" or "NAME:ARG". Returns the process exit status. */
int bench_worker_main(const char *spec, const bench_backend_t *const *backends, int nbackends);

extern const bench_backend_t bench_backend_glibc;
extern const bench_backend_t bench_backend_loci;
extern const bench_backend_t bench_backend_jemalloc;
extern const bench_backend_t bench_backend_mimalloc;
extern const bench_backend_t bench_backend_memkind;

#endif
