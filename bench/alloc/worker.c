/*
 * Worker process: runs the workload for one allocator when the driver asks.
 *
 * Protocol (one line each way, text):
 *   worker -> driver at start:  "ready DESCRIPTION"  or  "unavailable REASON" (then exits)
 *   driver -> worker:           "run SIZE THREADS OPS SEED TOUCH"
 *   worker -> driver:           "ok MAXRSS_KB NS_PER_OP_THREAD0 [NS_PER_OP_THREAD1 ...]"
 *                           or  "fail MAXRSS_KB REASON"
 *   driver -> worker:           "quit" (or end of input)
 *
 * The worker keeps a pool of threads for its whole life, so per-thread caches
 * of every allocator are as warm for run N as for run N+1; thread i of a run
 * replays sequence (seed, size, i). The timed region is each thread's loop;
 * threads start together (barrier) and each times itself. What is live at the
 * end is freed by the same thread, untimed. Bench-owned buffers (operation
 * sequences, live-pointer arrays) come from mmap, never from the allocator
 * under test.
 */
#include "backend.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#define MAX_THREADS 256

typedef struct {
    pthread_t tid;
    int idx;
    int32_t *ops;
    void **live;
    size_t cap;        /* entries in ops and live */
    uint64_t elapsed;  /* ns of the timed loop, 0 if it failed */
    size_t failed_at;
} slot_t;

static struct {
    pthread_mutex_t mu;
    pthread_cond_t cv_job, cv_done;
    uint64_t gen;
    int njob, ndone, quit;
    size_t size, n;
    bench_touch_t touch;
    pthread_barrier_t start;
    const bench_backend_t *be;
} P = {.mu = PTHREAD_MUTEX_INITIALIZER,
       .cv_job = PTHREAD_COND_INITIALIZER,
       .cv_done = PTHREAD_COND_INITIALIZER};

static slot_t slots[MAX_THREADS];
static int nslots;

static void *thread_main(void *arg)
{
    slot_t *s = arg;
    uint64_t seen = 0;
    for (;;) {
        pthread_mutex_lock(&P.mu);
        while (P.gen == seen && !P.quit)
            pthread_cond_wait(&P.cv_job, &P.mu);
        if (P.quit) {
            pthread_mutex_unlock(&P.mu);
            return NULL;
        }
        seen = P.gen;
        int part = s->idx < P.njob;
        size_t n = P.n, size = P.size;
        bench_touch_t touch = P.touch;
        const bench_backend_t *be = P.be;
        pthread_mutex_unlock(&P.mu);
        if (!part)
            continue;

        pthread_barrier_wait(&P.start);
        size_t nlive = 0;
        s->failed_at = 0;
        s->elapsed = be->loop(s->ops, n, size, touch, s->live, &nlive, &s->failed_at);
        for (size_t i = 0; i < nlive; i++) /* untimed */
            be->release(s->live[i]);

        pthread_mutex_lock(&P.mu);
        P.ndone++;
        pthread_cond_signal(&P.cv_done);
        pthread_mutex_unlock(&P.mu);
    }
}

static int ensure_slot(int i, size_t n)
{
    slot_t *s = &slots[i];
    if (s->cap < n) {
        if (s->cap) {
            munmap(s->ops, s->cap * sizeof *s->ops);
            munmap(s->live, s->cap * sizeof *s->live);
        }
        s->ops = mmap(NULL, n * sizeof *s->ops, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        s->live = mmap(NULL, n * sizeof *s->live, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (s->ops == MAP_FAILED || s->live == MAP_FAILED) {
            s->cap = 0;
            return -1;
        }
        s->cap = n;
    }
    while (nslots <= i) {
        slots[nslots].idx = nslots;
        if (pthread_create(&slots[nslots].tid, NULL, thread_main, &slots[nslots]) != 0)
            return -1;
        nslots++;
    }
    return 0;
}

static long maxrss_kb(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss;
}

static void run(FILE *out, const bench_backend_t *be, size_t size, int nthreads, size_t n,
                uint64_t seed, bench_touch_t touch)
{
    if (nthreads < 1 || nthreads > MAX_THREADS || n < 1 || n > (size_t)1 << 30 || size < 1) {
        fprintf(out, "fail %ld bad run request\n", maxrss_kb());
        return;
    }
    for (int i = 0; i < nthreads; i++) {
        if (ensure_slot(i, n) != 0) {
            fprintf(out, "fail %ld cannot set up thread %d: %s\n", maxrss_kb(), i, strerror(errno));
            return;
        }
        bench_workload_generate(slots[i].ops, n, seed, size, i);
    }
    pthread_barrier_init(&P.start, NULL, (unsigned)nthreads);
    pthread_mutex_lock(&P.mu);
    P.njob = nthreads;
    P.ndone = 0;
    P.size = size;
    P.n = n;
    P.touch = touch;
    P.be = be;
    P.gen++;
    pthread_cond_broadcast(&P.cv_job);
    while (P.ndone < nthreads)
        pthread_cond_wait(&P.cv_done, &P.mu);
    pthread_mutex_unlock(&P.mu);
    pthread_barrier_destroy(&P.start);

    for (int i = 0; i < nthreads; i++) {
        if (slots[i].elapsed == 0) {
            fprintf(out, "fail %ld allocation %zu of %zu B returned NULL (thread %d)\n", maxrss_kb(),
                    slots[i].failed_at, size, i);
            return;
        }
    }
    fprintf(out, "ok %ld", maxrss_kb());
    for (int i = 0; i < nthreads; i++)
        fprintf(out, " %.3f", (double)slots[i].elapsed / (double)n);
    fputc('\n', out);
}

int bench_worker_main(const char *spec, const bench_backend_t *const *backends, int nbackends)
{
    /* The protocol owns the original stdout; anything a library prints on
     * stdout goes to stderr instead. */
    int fd = dup(1);
    FILE *out = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!out) {
        perror("bench_alloc worker: dup stdout");
        return 1;
    }
    dup2(2, 1);
    setvbuf(out, NULL, _IOLBF, 0);

    char name[64];
    const char *colon = strchr(spec, ':');
    size_t len = colon ? (size_t)(colon - spec) : strlen(spec);
    if (len >= sizeof name)
        len = sizeof name - 1;
    memcpy(name, spec, len);
    name[len] = '\0';
    const char *arg = colon ? colon + 1 : "";

    const bench_backend_t *be = NULL;
    for (int i = 0; i < nbackends; i++)
        if (!strcmp(backends[i]->name, name))
            be = backends[i];
    if (!be) {
        fprintf(out, "unavailable this executable has no allocator named '%s'\n", name);
        return 0;
    }
    char desc[512] = "";
    if (be->init(arg, desc, sizeof desc) != 0) {
        fprintf(out, "unavailable %s\n", desc[0] ? desc : "initialisation failed");
        return 0;
    }
    for (char *c = desc; *c; c++)
        if (*c == '\n')
            *c = ' ';
    fprintf(out, "ready %s\n", desc);

    char line[256];
    while (fgets(line, sizeof line, stdin)) {
        size_t size, n;
        int nthreads;
        unsigned long long seed;
        char touch_s[16];
        bench_touch_t touch;
        if (!strncmp(line, "quit", 4))
            break;
        if (sscanf(line, "run %zu %d %zu %llu %15s", &size, &nthreads, &n, &seed, touch_s) == 5 &&
            bench_touch_parse(touch_s, &touch) == 0)
            run(out, be, size, nthreads, n, seed, touch);
        else
            fprintf(out, "fail %ld cannot parse request: %s", maxrss_kb(), line);
    }
    pthread_mutex_lock(&P.mu);
    P.quit = 1;
    pthread_cond_broadcast(&P.cv_job);
    pthread_mutex_unlock(&P.mu);
    for (int i = 0; i < nslots; i++)
        pthread_join(slots[i].tid, NULL);
    if (be->fini)
        be->fini();
    fclose(out);
    return 0;
}
