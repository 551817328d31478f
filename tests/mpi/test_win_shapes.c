/*
 * Every window shape MPI test suites use, run once without libloci-mpi and
 * once with it under an active intent (tests/mpi/same-as-plain.sh): parts
 * of 0 bytes on some or all processes (the MPI's own base for them: MPICH
 * gives NULL), MPI_Win_allocate_shared contiguous and alloc_shared_noncontig,
 * MPI_Win_shared_query of every part (empty ones and MPI_PROC_NULL
 * included), windows past 2 GiB, mixed displacement units, info keys loci
 * does not know, window lifetimes that overlap (also from two threads on
 * two communicators), windows of split communicators and MPI_COMM_SELF,
 * MPI 4's _c calls (MPICH), and the flavours the library leaves alone.
 *
 * Each process writes what a program can observe — bases (NULL or not),
 * attributes, queried sizes, displacement units and offsets between parts,
 * MPI_Win_get_info — to OUTDIR/rank.N; the two runs must write the same.
 * Data is checked in the program itself (put, get and load/store through
 * every non-empty part). MODE says where the pages must be: `plain` no
 * policy at all, `placed` the policy of INTENT (the run's LOCI_MPI_INTENT,
 * and the loci_intent key some windows carry in both runs): MPOL_BIND on
 * its node for a constraint, a preference for a hint. (Windows larger than
 * any node: tests/mpi/test_place_range.c; here they would cost minutes, and
 * Open MPI 4.1 hangs on one larger than /dev/shm even without loci.)
 *
 * usage: test_win_shapes OUTDIR plain|placed INTENT
 */
#include "check.h"

#include <numaif.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>

static const char *intent; /* INTENT */
static bool strict;         /* INTENT is a constraint: bound, not preferred */
static int rank, nprocs, placed_node = -1; /* placed_node -1: the plain run */
static size_t page;
static FILE *obs;

static void note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void note(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vfprintf(obs, fmt, ap);
    va_end(ap);
    fputc('\n', obs);
}

/* The policy of the page at p: INTENT's on placed_node, or none in the plain run. */
static void check_policy(const char *what, const void *p)
{
    int mode = -1;
    unsigned long mask[16] = {0};
    CHECK(get_mempolicy(&mode, mask, 16 * 8 * sizeof(unsigned long), (void *)p, MPOL_F_ADDR) == 0,
          "%s: get_mempolicy", what);
    if (placed_node < 0)
        CHECK(mode == MPOL_DEFAULT, "%s: mode %d in the run without loci", what, mode);
    else if (strict)
        CHECK(mode == MPOL_BIND && (mask[0] & (1ul << placed_node)), "%s: mode %d mask %#lx, expected MPOL_BIND on %d",
              what, mode, mask[0], placed_node);
    else /* MPOL_PREFERRED, or MPOL_PREFERRED_MANY (5) where the kernel has it */
        CHECK((mode == MPOL_PREFERRED || mode == 5) && (mask[0] & (1ul << placed_node)),
              "%s: mode %d mask %#lx, expected a preference for %d", what, mode, mask[0], placed_node);
}

static void check_part_placed(const char *name, const char *base, MPI_Aint size)
{
    if (size == 0)
        return; /* nothing to place, whatever the base */
    check_policy(name, base);
    check_policy(name, base + size - 1);
}

/* The byte a process keeps at offset i of its part. */
static unsigned char pattern(int owner, MPI_Aint i)
{
    return (unsigned char)(owner * 31 + i);
}

typedef struct {
    const char *name;
    MPI_Comm comm;
    MPI_Win win;
    char *base;
    MPI_Aint size;
    int disp, rank, nprocs;
    bool shared;
} window_t;

/* The part's first and last 64 bytes (a large part is not written whole). */
static void fill_ends(const window_t *w)
{
    for (MPI_Aint i = 0; i < w->size && i < 64; i++)
        w->base[i] = (char)pattern(w->rank, i);
    for (MPI_Aint i = w->size > 64 ? w->size - 64 : 0; i < w->size; i++)
        w->base[i] = (char)pattern(w->rank, i);
}

/* Every process gets the last unit of every non-empty part and puts a tag
 * at displacement `rank` of it (in that part's units), under fence; shared
 * windows also read the tags by load through the queried bases. */
static void exchange(const window_t *w)
{
    MPI_Aint sizes[4];
    int disps[4];
    MPI_Allgather(&w->size, 1, MPI_AINT, sizes, 1, MPI_AINT, w->comm);
    MPI_Allgather(&w->disp, 1, MPI_INT, disps, 1, MPI_INT, w->comm);
    fill_ends(w);
    MPI_Win_fence(0, w->win);
    unsigned char got[4] = {0}, tag = (unsigned char)(0x80 + w->rank);
    for (int t = 0; t < w->nprocs; t++)
        if (sizes[t] > 0) {
            MPI_Get(&got[t], 1, MPI_BYTE, t, (sizes[t] - 1) / disps[t], 1, MPI_BYTE, w->win);
            MPI_Put(&tag, 1, MPI_BYTE, t, w->rank, 1, MPI_BYTE, w->win);
        }
    MPI_Win_fence(0, w->win);
    for (int t = 0; t < w->nprocs; t++)
        if (sizes[t] > 0) {
            MPI_Aint at = (sizes[t] - 1) / disps[t] * disps[t];
            CHECK(got[t] == pattern(t, at), "%s: get from %d at byte %lld: %d, expected %d", w->name, t,
                  (long long)at, got[t], pattern(t, at));
        }
    for (int r = 0; w->size > 0 && r < w->nprocs; r++)
        CHECK((unsigned char)w->base[(MPI_Aint)r * w->disp] == 0x80 + r, "%s: put from %d: %#x", w->name, r,
              (unsigned char)w->base[(MPI_Aint)r * w->disp]);
    for (int t = 0; w->shared && t < w->nprocs; t++) {
        MPI_Aint size;
        int disp;
        unsigned char *part;
        MPI_Win_shared_query(w->win, t, &size, &disp, &part);
        for (int r = 0; size > 0 && r < w->nprocs; r++)
            CHECK(part[(MPI_Aint)r * disp] == 0x80 + r, "%s: load from %d's part: %#x", w->name, t,
                  part[(MPI_Aint)r * disp]);
    }
    MPI_Win_fence(0, w->win);
}

static const char *null_or_set(const void *p)
{
    return p ? "set" : "NULL";
}

/* What Open MPI 4.1 leaves to chance (it differs from run to run without
 * loci): the base of an empty part of an MPI_Win_allocate window, and
 * osc/sm's blocking_fence info value. MPICH's are fixed (an empty part's
 * base is NULL). */
#ifdef OPEN_MPI
static const bool empty_base_defined = false;
static bool info_value_defined(const char *key)
{
    return strcmp(key, "blocking_fence") != 0;
}
#else
static const bool empty_base_defined = true;
static bool info_value_defined(const char *key)
{
    (void)key;
    return true;
}
#endif

/* What a program sees of the window: attributes and its info. */
static void note_window(const window_t *w)
{
    void *base;
    MPI_Aint *size;
    int *disp, *flavour, *model, flag;
    MPI_Win_get_attr(w->win, MPI_WIN_BASE, &base, &flag);
    CHECK(flag && base == w->base, "%s: MPI_WIN_BASE %p, the call gave %p", w->name, base, (void *)w->base);
    if (w->size > 0 || empty_base_defined)
        note("%s: base %s", w->name, null_or_set(w->base));
    MPI_Win_get_attr(w->win, MPI_WIN_SIZE, &size, &flag);
    MPI_Win_get_attr(w->win, MPI_WIN_DISP_UNIT, &disp, &flag);
    MPI_Win_get_attr(w->win, MPI_WIN_CREATE_FLAVOR, &flavour, &flag);
    MPI_Win_get_attr(w->win, MPI_WIN_MODEL, &model, &flag);
    note("%s: size %lld disp_unit %d flavour %d model %d", w->name, (long long)*size, *disp, *flavour, *model);
    MPI_Info info;
    MPI_Win_get_info(w->win, &info);
    int nkeys;
    MPI_Info_get_nkeys(info, &nkeys);
    for (int i = 0; i < nkeys; i++) {
        char key[MPI_MAX_INFO_KEY + 1], value[MPI_MAX_INFO_VAL + 1];
        MPI_Info_get_nthkey(info, i, key);
        MPI_Info_get(info, key, MPI_MAX_INFO_VAL, value, &flag);
        note("%s: info %s=%s", w->name, key, info_value_defined(key) ? value : "(differs from run to run)");
    }
    MPI_Info_free(&info);
}

/* Every part as MPI_Win_shared_query gives it, bases as offsets from the
 * first non-empty part (what MPI_PROC_NULL gives). */
static void note_shared_parts(const window_t *w)
{
    MPI_Aint size, asked[4];
    int disp;
    char *first, *part;
    MPI_Allgather(&w->size, 1, MPI_AINT, asked, 1, MPI_AINT, w->comm);
    MPI_Win_shared_query(w->win, MPI_PROC_NULL, &size, &disp, &first);
    note("%s: query MPI_PROC_NULL: size %lld disp_unit %d base %s", w->name, (long long)size, disp,
         null_or_set(first));
    for (int t = 0; t < w->nprocs; t++) {
        MPI_Win_shared_query(w->win, t, &size, &disp, &part);
        if (part && first)
            note("%s: query %d: size %lld disp_unit %d base first%+lld", w->name, t, (long long)size, disp,
                 (long long)(part - first));
        else
            note("%s: query %d: size %lld disp_unit %d base %s", w->name, t, (long long)size, disp,
                 null_or_set(part));
#if MPI_VERSION >= 4
        MPI_Aint size_c, disp_c;
        char *part_c;
        MPI_Win_shared_query_c(w->win, t, &size_c, &disp_c, &part_c);
        CHECK(size_c == size && disp_c == disp && part_c == part, "%s: MPI_Win_shared_query_c of %d differs", w->name,
              t);
#endif
        if (t == w->rank)
            CHECK(part == w->base, "%s: own part queried at %p, MPI_Win_allocate_shared gave %p", w->name,
                  (void *)part, (void *)w->base);
        /* every process sees the owner's binding, of the bytes it asked for (Open MPI's
         * alloc_shared_noncontig reports sizes rounded up to pages) */
        check_part_placed(w->name, part, asked[t]);
    }
}

/* *_C: MPI 4's MPI_Win_allocate_c / MPI_Win_allocate_shared_c (MPICH 4; Open MPI 4.1 is MPI 3.1) */
typedef enum { ALLOCATE, SHARED, NONCONTIG, ALLOCATE_C, SHARED_C } kind_t;

/* info NULL: MPI_INFO_NULL, except that NONCONTIG adds alloc_shared_noncontig. */
static window_t open_window(const char *name, MPI_Comm comm, kind_t kind, MPI_Aint size, int disp, MPI_Info info,
                            bool quiet)
{
    window_t w = {.name = name, .comm = comm, .size = size, .disp = disp,
                  .shared = kind != ALLOCATE && kind != ALLOCATE_C};
    MPI_Comm_rank(comm, &w.rank);
    MPI_Comm_size(comm, &w.nprocs);
    MPI_Info use = info;
    if (kind == NONCONTIG) {
        if (info == MPI_INFO_NULL)
            MPI_Info_create(&use);
        else
            MPI_Info_dup(info, &use);
        MPI_Info_set(use, "alloc_shared_noncontig", "true");
    }
    w.base = (char *)&w; /* must be overwritten by the MPI */
    int rc;
#if MPI_VERSION >= 4
    if (kind == ALLOCATE_C || kind == SHARED_C)
        rc = kind == ALLOCATE_C ? MPI_Win_allocate_c(size, disp, use, comm, &w.base, &w.win)
                                : MPI_Win_allocate_shared_c(size, disp, use, comm, &w.base, &w.win);
    else
#endif
        rc = kind == ALLOCATE ? MPI_Win_allocate(size, disp, use, comm, &w.base, &w.win)
                              : MPI_Win_allocate_shared(size, disp, use, comm, &w.base, &w.win);
    CHECK(rc == MPI_SUCCESS, "%s: window of %lld bytes: error %d", name, (long long)size, rc);
    if (use != info)
        MPI_Info_free(&use);
    if (!quiet) {
        note_window(&w);
        if (w.shared)
            note_shared_parts(&w);
    }
    check_part_placed(name, w.base, size);
    return w;
}

static void shape_on(MPI_Comm comm, const char *name, kind_t kind, MPI_Aint size, int disp, MPI_Info info)
{
    window_t w = open_window(name, comm, kind, size, disp, info, false);
    exchange(&w);
    MPI_Win_free(&w.win);
}

static void shape(const char *name, kind_t kind, MPI_Aint size, int disp, MPI_Info info)
{
    shape_on(MPI_COMM_WORLD, name, kind, size, disp, info);
}

/* Windows of part of the job (odd and even processes, the agreement among
 * them only) and of one process alone, with an empty part. One half after
 * the other: the two halves get the same context id, and Open MPI 4.1's
 * osc/rdma names its /dev/shm segment after host, job and context id only,
 * so two halves' windows alive at once on one host clobber each other's
 * segment (with or without loci). */
static void sub_communicators(void)
{
    MPI_Comm half;
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
    int hrank;
    MPI_Comm_rank(half, &hrank);
    for (int turn = 0; turn < 2; turn++) {
        if (rank % 2 == turn) {
            shape_on(half, "split.allocate", ALLOCATE, hrank == 0 ? 2 * (MPI_Aint)page : 0, 4, MPI_INFO_NULL);
            shape_on(half, "split.shared", SHARED, hrank == 0 ? 0 : 5000, 1, MPI_INFO_NULL);
        }
        MPI_Barrier(MPI_COMM_WORLD);
    }
    MPI_Comm_free(&half);
    shape_on(MPI_COMM_SELF, "self.allocate_empty", ALLOCATE, 0, 1, MPI_INFO_NULL);
    shape_on(MPI_COMM_SELF, "self.shared", SHARED, (MPI_Aint)page, 8, MPI_INFO_NULL);
}

/* Windows whose lifetimes overlap: created while others are alive, freed
 * out of order, some with empty parts. */
static void overlapping(MPI_Comm comm, const char *name, bool quiet)
{
    int r;
    MPI_Comm_rank(comm, &r);
    for (int round = 0; round < 6; round++) {
        window_t a = open_window(name, comm, ALLOCATE, r == 1 ? 0 : (MPI_Aint)page, 4, MPI_INFO_NULL, quiet);
        window_t b = open_window(name, comm, SHARED, r == 0 ? 0 : 3000 + round, 1, MPI_INFO_NULL, quiet);
        exchange(&a);
        MPI_Win_free(&a.win);
        window_t c = open_window(name, comm, NONCONTIG, r % 2 ? 2 * (MPI_Aint)page : 0, 8, MPI_INFO_NULL, quiet);
        exchange(&b);
        exchange(&c);
        MPI_Win_free(&b.win);
        window_t d = open_window(name, comm, ALLOCATE, 0, 1, MPI_INFO_NULL, quiet);
        MPI_Win_free(&c.win);
        MPI_Win_free(&d.win);
    }
}

static void *overlapping_thread(void *comm)
{
    overlapping(*(MPI_Comm *)comm, "threads", true);
    return NULL;
}

/* Two threads, each on a communicator of its own, creating and freeing
 * windows at the same time. */
static void concurrent(void)
{
    MPI_Comm comms[2];
    MPI_Comm_dup(MPI_COMM_WORLD, &comms[0]);
    MPI_Comm_dup(MPI_COMM_WORLD, &comms[1]);
    pthread_t th;
    CHECK(pthread_create(&th, NULL, overlapping_thread, &comms[1]) == 0, "pthread_create");
    overlapping_thread(&comms[0]);
    pthread_join(th, NULL);
    MPI_Comm_free(&comms[0]);
    MPI_Comm_free(&comms[1]);
    note("threads: done");
}

/* Flavours the library does not wrap: an MPI_Win_create window with an
 * empty part (NULL base) and a dynamic window. */
static void other_flavours(void)
{
    char buf[64] = {0}, *mem = rank == 1 ? NULL : buf;
    window_t w = {.name = "create.one_empty", .comm = MPI_COMM_WORLD, .base = mem, .size = mem ? 64 : 0,
                  .disp = 1, .rank = rank, .nprocs = nprocs};
    MPI_Win_create(mem, w.size, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &w.win);
    note_window(&w);
    exchange(&w);
    MPI_Win_free(&w.win);
    window_t d = {.name = "create_dynamic", .comm = MPI_COMM_WORLD};
    MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &d.win);
    MPI_Win_attach(d.win, buf, sizeof buf);
    note_window(&d);
    MPI_Win_detach(d.win, buf);
    MPI_Win_free(&d.win);
}

int main(int argc, char **argv)
{
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    check_rank = rank;
    page = (size_t)sysconf(_SC_PAGESIZE);
    CHECK(argc == 4 && (!strcmp(argv[2], "plain") || !strcmp(argv[2], "placed")) && nprocs >= 2 && nprocs <= 4,
          "usage: test_win_shapes OUTDIR plain|placed INTENT, on 2 to 4 processes");
    intent = argv[3];
    strict = strchr(intent, '!') != NULL;
    if (!strcmp(argv[2], "placed")) {
        const loci_target_t *t[1];
        loci_target_info_t ti;
        CHECK(loci_allocator_targets(loci_allocator_create(intent), t, 1) == 1 && loci_target_info(t[0], &ti) == 0,
              "no target for %s", intent);
        placed_node = ti.numa_node;
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/rank.%d", argv[1], rank);
    obs = fopen(path, "w");
    CHECK(obs != NULL, "cannot write %s", path);
    note("processes %d, thread level %d", nprocs, provided);

    MPI_Aint P = (MPI_Aint)page, big = ((MPI_Aint)2 << 30) + 2 * P; /* past 2^31: MPI_Aint, not int */
    int mixed = rank % 2 ? 1 : 8;
    /* MPI_Win_allocate: MPICH 4.0.2 addresses parts whose size is not a page multiple wrongly (docs/MPI.md) */
    shape("allocate.one_empty", ALLOCATE, rank == 1 ? 0 : (rank + 1) * P, mixed, MPI_INFO_NULL);
    shape("allocate.rank0_empty", ALLOCATE, rank == 0 ? 0 : 2 * P, 4, MPI_INFO_NULL);
    shape("allocate.root_only", ALLOCATE, rank == 0 ? 4 * P : 0, 4, MPI_INFO_NULL);
    shape("allocate.all_empty", ALLOCATE, 0, 1, MPI_INFO_NULL);
    shape("allocate.large", ALLOCATE, rank == 0 ? big : rank == 1 ? 0 : P, 1, MPI_INFO_NULL);
    for (kind_t k = SHARED; k <= NONCONTIG; k++) {
        const char *s = k == SHARED ? "shared" : "noncontig";
        char name[6][64];
        snprintf(name[0], 64, "%s.one_empty", s);
        snprintf(name[1], 64, "%s.rank0_empty", s);
        snprintf(name[2], 64, "%s.root_only", s);
        snprintf(name[3], 64, "%s.all_empty", s);
        snprintf(name[4], 64, "%s.large", s);
        snprintf(name[5], 64, "%s.last_empty", s);
        shape(name[0], k, rank == 1 ? 0 : (rank + 1) * 1000 + 24, mixed, MPI_INFO_NULL);
        shape(name[1], k, rank == 0 ? 0 : 2000 + rank, 1, MPI_INFO_NULL);
        shape(name[2], k, rank == 0 ? 3 * P + 100 : 0, 8, MPI_INFO_NULL);
        shape(name[3], k, 0, 4, MPI_INFO_NULL);
        shape(name[4], k, rank == 0 ? big : rank == 1 ? 0 : 5000, 1, MPI_INFO_NULL);
        shape(name[5], k, rank == nprocs - 1 ? 0 : P, 2, MPI_INFO_NULL);
    }

#if MPI_VERSION >= 4
    shape("allocate_c.one_empty", ALLOCATE_C, rank == 1 ? 0 : (rank + 1) * P, mixed, MPI_INFO_NULL);
    shape("allocate_c.large", ALLOCATE_C, rank == 0 ? big : rank == 1 ? 0 : P, 1, MPI_INFO_NULL);
    shape("shared_c.one_empty", SHARED_C, rank == 1 ? 0 : (rank + 1) * 1000 + 24, mixed, MPI_INFO_NULL);
    shape("shared_c.all_empty", SHARED_C, 0, 4, MPI_INFO_NULL);
#endif

    /* Keys loci does not know reach the MPI as they are; loci_intent (some processes) too. */
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "loci_test_unknown_key", "kept as it is");
    MPI_Info_set(info, "no_locks", "false");
    MPI_Info_set(info, "accumulate_ordering", "rar,raw,war,waw");
    MPI_Info_set(info, "accumulate_ops", "same_op_no_op");
    MPI_Info_set(info, "same_size", "false");
    MPI_Info_set(info, "same_disp_unit", "false");
    MPI_Info_set(info, "alloc_shm", "true");
    MPI_Info_set(info, "mpi_minimum_memory_alignment", "4096"); /* MPI_Alloc_mem's to loci, windows' to the MPI */
    if (rank % 2 == 0)
        MPI_Info_set(info, "loci_intent", intent);
    shape("info.allocate", ALLOCATE, rank == 1 ? 0 : 2 * P, 1, info);
    shape("info.shared", SHARED, rank == 1 ? 0 : 3 * P, 1, info);
    shape("info.noncontig", NONCONTIG, rank == 1 ? 0 : 3 * P, 1, info);
    MPI_Info_free(&info);
    MPI_Info_create(&info); /* a value MPI_Alloc_mem refuses is advice an MPI may ignore in a window */
    MPI_Info_set(info, "mpi_minimum_memory_alignment", "3");
    shape("info.odd_alignment", ALLOCATE, rank == 1 ? 0 : P, 1, info);
    shape("info.odd_alignment_shared", SHARED, rank == 1 ? 0 : P, 1, info);
    MPI_Info_free(&info);

    sub_communicators();
    overlapping(MPI_COMM_WORLD, "overlapping", false);
    if (provided == MPI_THREAD_MULTIPLE)
        concurrent();
    other_flavours();

    fclose(obs);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("test_win_shapes: %s run passed on %d processes\n", argv[2], nprocs);
    MPI_Finalize();
    return 0;
}
