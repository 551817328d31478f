/*
 * The process's share of the time it could run (run_share.h), from each
 * thread's schedstat: "ran_ns waited_ns timeslices". Two readings, each
 * sorted by thread id, are walked side by side; a thread id whose counts
 * went down is a new thread that reused it.
 */
#include "os/run_share.h"
#include "grow.h"

#include <dirent.h>
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

/* Thread `tid`'s counts, from the task directory open as `tasks`. */
static bool read_thread(int tasks, const char *tid, run_thread_t *out)
{
    char path[300], text[96];
    snprintf(path, sizeof path, "%s/schedstat", tid);
    int fd = openat(tasks, path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return false; /* gone meanwhile */
    ssize_t got = read(fd, text, sizeof text - 1);
    close(fd);
    unsigned long long ran, waited;
    if (got <= 0)
        return false;
    text[got] = '\0';
    if (sscanf(text, "%llu %llu", &ran, &waited) != 2)
        return false;
    *out = (run_thread_t){(pid_t)atoi(tid), ran, waited};
    return true;
}

/* Every thread's counts now, sorted: false when none could be read. */
static bool read_threads(run_thread_t **out, size_t *n)
{
    *out = NULL;
    *n = 0;
    int tasks = open("/proc/self/task", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    DIR *d = tasks < 0 ? NULL : fdopendir(tasks);
    if (!d) {
        if (tasks >= 0)
            close(tasks);
        return false;
    }
    size_t cap = 0;
    for (struct dirent *e; *n < MOST_THREADS && (e = readdir(d));) {
        run_thread_t t;
        if (e->d_name[0] == '.' || !read_thread(tasks, e->d_name, &t))
            continue;
        run_thread_t *grown = grow_for_one(*out, *n, &cap, sizeof *grown, 16);
        if (!grown)
            break;
        *out = grown;
        (*out)[(*n)++] = t;
    }
    closedir(d);
    if (*n == 0) {
        free(*out);
        *out = NULL;
        return false;
    }
    qsort(*out, *n, sizeof **out, by_tid);
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
    bool first = !r->read;
    free(r->threads);
    *r = (run_share_t){now, n, true};
    if (first || ran + waited == 0)
        return -1;
    return (double)ran / (double)(ran + waited);
}

void run_share_free(run_share_t *r)
{
    free(r->threads);
    *r = (run_share_t){0};
}
