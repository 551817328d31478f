/*
 * Bad input to libloci-mpi: malformed or unsatisfiable intents, unknown
 * mpich_buf_type, bad alignments, double frees, foreign and interior
 * pointers, one process of a window refusing. Each must come back as an MPI
 * error class through the error handler, with a message on stderr naming
 * the problem, and leave nothing allocated; no process may hang or crash.
 *
 * usage: test_bad_input info  (LOCI_MPI_INTENT unset)
 *        test_bad_input env   (LOCI_MPI_INTENT malformed)
 */
#include "check.h"

#include <stdbool.h>

static int handled; /* calls of the error handler */

static void count_errors(MPI_Comm *comm, int *code, ...)
{
    (void)comm;
    (void)code;
    handled++;
}

static int error_class(int rc)
{
    int cls = rc;
    if (rc != MPI_SUCCESS)
        MPI_Error_class(rc, &cls);
    return cls;
}

/* MPI_Alloc_mem with one info key must fail with `cls`, saying `needle`. */
static void refused_alloc(const char *key, const char *value, MPI_Aint size, int cls, const char *needle)
{
    MPI_Info info = info1(key, value);
    void *p = &handled; /* must stay untouched */
    int before = handled;
    capture_begin();
    int rc = MPI_Alloc_mem(size, info, &p);
    const char *said = capture_end();
    info_free(&info);
    CHECK(error_class(rc) == cls, "%s=%s: class %d, expected %d", key, value, error_class(rc), cls);
    CHECK(handled == before + 1, "%s=%s: the error handler ran %d times", key, value, handled - before);
    CHECK(p == &handled, "%s=%s: baseptr was written", key, value);
    CHECK(strstr(said, "loci-mpi: MPI_Alloc_mem") && strstr(said, needle),
          "%s=%s: stderr should say '%s', said: %s", key, value, needle, said);
}

static void refused_free(void *p, const char *what)
{
    int before = handled;
    capture_begin();
    int rc = MPI_Free_mem(p);
    const char *said = capture_end();
    CHECK(error_class(rc) == MPI_ERR_ARG, "freeing %s: class %d", what, error_class(rc));
    CHECK(handled == before + 1, "freeing %s: the error handler ran %d times", what, handled - before);
    CHECK(strstr(said, "not a live block"), "freeing %s: stderr said: %s", what, said);
}

static void *alloc_ok(MPI_Aint size, const char *key, const char *value)
{
    MPI_Info info = info1(key, value);
    void *p = NULL;
    CHECK(MPI_Alloc_mem(size, info, &p) == MPI_SUCCESS, "MPI_Alloc_mem(%s=%s)", key ? key : "-", value ? value : "-");
    info_free(&info);
    return p;
}

static void allocations(void)
{
    refused_alloc("loci_intent", "bandwith=high", 64, MPI_ERR_INFO_VALUE, "bandwith");
    refused_alloc("loci_intent", "near=pe,,=!", 64, MPI_ERR_INFO_VALUE, "loci_intent");
    refused_alloc("loci_intent", "target=nosuch!", 64, MPI_ERR_INFO_VALUE, "nosuch");
    refused_alloc("mpich_buf_type", "fast", 64, MPI_ERR_INFO_VALUE, "unknown buffer type");
    refused_alloc("mpich_buf_type", "DDR4", 64, MPI_ERR_INFO_VALUE, "DDR4");
    refused_alloc("mpi_minimum_memory_alignment", "3", 64, MPI_ERR_INFO_VALUE, "power of two");
    refused_alloc("mpi_minimum_memory_alignment", "4k", 64, MPI_ERR_INFO_VALUE, "power of two");
    refused_alloc("mpi_minimum_memory_alignment", "0", 64, MPI_ERR_INFO_VALUE, "power of two");
    refused_alloc("loci_intent", "near=pe", -1, MPI_ERR_ARG, "negative size");
    refused_alloc("loci_intent", "near=pe,fallback=null", (MPI_Aint)1 << 50, MPI_ERR_NO_MEM, "1125899906842624");
    /* tier=auto: refused intents say the allocator's reason; no room leaves no arena behind */
    refused_alloc("loci_intent", "tier=often", 64, MPI_ERR_INFO_VALUE, "tier");
    refused_alloc("loci_intent", "tier=auto,use=gpu", 64, MPI_ERR_INFO_VALUE, "gpu");
    refused_alloc("loci_intent", "tier=auto,fallback=null", (MPI_Aint)1 << 50, MPI_ERR_NO_MEM, "1125899906842624");
}

static void frees(void)
{
    void *p = alloc_ok(100, "loci_intent", "near=pe");
    CHECK(MPI_Free_mem(p) == MPI_SUCCESS, "first free of a loci block");
    refused_free(p, "a loci block twice");

    p = alloc_ok(100, NULL, NULL);
    CHECK(MPI_Free_mem(p) == MPI_SUCCESS, "first free of an MPI block");
    refused_free(p, "an MPI block twice");

    p = alloc_ok(4096, "loci_intent", "near=pe");
    refused_free((char *)p + 64, "an interior pointer");
    CHECK(MPI_Free_mem(p) == MPI_SUCCESS, "the block after its interior pointer was refused");

    void *m = malloc(100);
    refused_free(m, "malloc memory");
    free(m); /* still ours: the shim did not touch it */
    int local;
    refused_free(&local, "a stack address");
}

static int window(int shared, MPI_Info info, MPI_Win *win)
{
    void *base = NULL;
    return shared ? MPI_Win_allocate_shared(4096, 1, info, MPI_COMM_WORLD, &base, win)
                  : MPI_Win_allocate(4096, 1, info, MPI_COMM_WORLD, &base, win);
}

/* A window by `intent` (this process's) must be refused on every process with
 * MPI_ERR_INFO_VALUE, no window made, the handler run once, stderr saying `needle`. */
static void refused_window(int shared, const char *intent, const char *needle, const char *what)
{
    MPI_Info info = info1("loci_intent", intent);
    MPI_Win win = MPI_WIN_NULL;
    int before = handled;
    capture_begin();
    int rc = window(shared, info, &win);
    const char *said = capture_end();
    info_free(&info);
    CHECK(error_class(rc) == MPI_ERR_INFO_VALUE, "window %s: class %d", what, error_class(rc));
    CHECK(handled == before + 1 && win == MPI_WIN_NULL, "window %s: handler ran %d times", what, handled - before);
    CHECK(strstr(said, needle), "window %s: stderr should say '%s', said: %s", what, needle, said);
}

static void windows(int shared)
{
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    /* one process refuses: all get the error, none hangs */
    bool last = rank == size - 1;
    refused_window(shared, last ? "bandwith=high" : "near=pe", last ? "bandwith" : "another process",
                   "with a refused intent");
    /* an intent loci accepts but cannot bind a window to (a file tier): placed nowhere, freed */
    refused_window(shared, "persist", "NUMA", "by a file tier");
    /* tier=auto: a window's memory is the MPI library's, which loci binds but does not move */
    refused_window(shared, "tier=auto", "tier=auto", "by tier=auto");

    /* and the next window works */
    MPI_Info info = info1("loci_intent", "near=pe");
    MPI_Win win = MPI_WIN_NULL;
    int rc = window(shared, info, &win);
    CHECK(rc == MPI_SUCCESS, "window after a refused one: %d", rc);
    info_free(&info);
    MPI_Win_free(&win);
}

/* LOCI_MPI_INTENT malformed: every call that relies on it is refused, naming it. */
static void bad_env(void)
{
    refused_alloc(NULL, NULL, 64, MPI_ERR_INFO_VALUE, "LOCI_MPI_INTENT");
    void *p = alloc_ok(64, "loci_intent", "near=pe"); /* an info key still works */
    CHECK(MPI_Free_mem(p) == MPI_SUCCESS, "free");
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &check_rank);
    MPI_Errhandler eh;
    MPI_Comm_create_errhandler(count_errors, &eh);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, eh);
    uint64_t live = loci_live_bytes();
    const char *mode = argc > 1 ? argv[1] : "info";
    if (strcmp(mode, "env") == 0) {
        bad_env();
    } else {
        allocations();
        frees();
        windows(0);
        windows(1);
    }
    CHECK(loci_live_bytes() == live, "loci bytes in use: %llu before, %llu after", (unsigned long long)live,
          (unsigned long long)loci_live_bytes());
    loci_tier_totals_t tot;
    CHECK(loci_tier_totals(&tot) == 0 && tot.arenas == 0, "%llu auto arenas left behind", (unsigned long long)tot.arenas);
    MPI_Barrier(MPI_COMM_WORLD);
    if (check_rank == 0)
        printf("test_bad_input %s: passed (%d errors raised through the handler on rank 0)\n", mode, handled);
    MPI_Errhandler_free(&eh);
    MPI_Finalize();
    return 0;
}
