/*
 * The process's share of the time it could run (run_share.h), from each
 * thread's schedstat: "ran_ns waited_ns timeslices". Two readings, each
 * sorted by thread id, are walked side by side; a thread id whose counts
 * went down is a new thread that reused it.
 */
#include "os/run_share.h"
#include "dir.h"
#include "grow.h"
#include "text_file.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* Threads read, of a process with more (the rest are taken to run as these do): each file costs
 * some 10 us to read (1 ms for 100 threads, build host), 2.5 ms a collect at most. */
#define MOST_THREADS 256

static int by_tid(const void *pa, const void *pb)
{
    const run_thread_t *a = pa, *b = pb;
    return (a->tid > b->tid) - (a->tid < b->tid);
}

/* The readings so far, and room for more (dir_each_entry's argument). */
typedef struct {
    run_thread_t *threads;
    size_t n, cap;
} reading_t;

/* Thread `tid`'s counts into the reading: 0 to go on, 1 once it holds MOST_THREADS. */
static int read_thread(int tasks, const char *path, const char *tid, void *arg)
{
    (void)tasks;
    reading_t *r = arg;
    char file[300], text[96];
    unsigned long long ran, waited;
    snprintf(file, sizeof file, "%s/%s/schedstat", path, tid);
    if (!text_first_line(file, text, sizeof text) || sscanf(text, "%llu %llu", &ran, &waited) != 2)
        return 0; /* gone meanwhile */
    run_thread_t *grown = grow_for_one(r->threads, r->n, &r->cap, sizeof *grown, 16);
    if (!grown)
        return 1;
    r->threads = grown;
    r->threads[r->n++] = (run_thread_t){(pid_t)atoi(tid), ran, waited};
    return r->n >= MOST_THREADS;
}

/* Every thread's counts now, sorted: false when none could be read. */
static bool read_threads(run_thread_t **out, size_t *n)
{
    reading_t r = {0};
    int tasks = open("/proc/self/task", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (tasks >= 0) {
        dir_each_entry(tasks, "/proc/self/task", read_thread, &r);
        close(tasks);
    }
    if (r.n == 0) {
        free(r.threads);
        return false;
    }
    qsort(r.threads, r.n, sizeof *r.threads, by_tid);
    *out = r.threads;
    *n = r.n;
    return true;
}

double run_share_next(run_share_t *r)
{
    run_thread_t *now;
    size_t n;
    if (!read_threads(&now, &n))
        return -1;
    uint64_t ran = 0, waited = 0;
    for (size_t i = 0, j = 0; i < n; i++) {
        while (j < r->n && r->threads[j].tid < now[i].tid)
            j++;
        run_thread_t before = {0};
        if (j < r->n && r->threads[j].tid == now[i].tid && r->threads[j].ran_ns <= now[i].ran_ns &&
            r->threads[j].waited_ns <= now[i].waited_ns)
            before = r->threads[j];
        ran += now[i].ran_ns - before.ran_ns;
        waited += now[i].waited_ns - before.waited_ns;
    }
    bool first = r->n == 0;
    free(r->threads);
    *r = (run_share_t){now, n};
    if (first || ran + waited == 0)
        return -1;
    return (double)ran / (double)(ran + waited);
}

void run_share_free(run_share_t *r)
{
    free(r->threads);
    *r = (run_share_t){0};
}
