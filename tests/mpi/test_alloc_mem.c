/*
 * MPI_Alloc_mem / MPI_Free_mem through libloci-mpi: memory by info key
 * (loci_intent, mpich_buf_type, mpi_minimum_memory_alignment), plain MPI
 * memory without one, a tier=auto arena of its own for each block whose
 * intent asks for tiering, LOCI_MPI_INTENT as the default, mixed loci, auto
 * and MPI frees in any order, from several threads, with no loci bytes or
 * auto arenas left over.
 *
 * usage: test_alloc_mem info   (LOCI_MPI_INTENT unset)
 *        test_alloc_mem env    (LOCI_MPI_INTENT set to a valid intent)
 *        test_alloc_mem gpu    (a CUDA driver: LOCI_CUDA_LIBRARY, docs/GPU.md)
 * The same source is built linked with the shim and without it (run with
 * LD_PRELOAD): both must pass.
 */
#include "check.h"

#include <pthread.h>
#include <stdint.h>

static void *alloc_mem(MPI_Aint size, const char *key, const char *value)
{
    MPI_Info info = info1(key, value);
    void *p = NULL;
    int rc = MPI_Alloc_mem(size, info, &p);
    CHECK(rc == MPI_SUCCESS && p, "MPI_Alloc_mem(%lld, %s=%s) = %d", (long long)size, key ? key : "-",
          value ? value : "-", rc);
    info_free(&info);
    memset(p, 0xa5, (size_t)size); /* touch it all: it must be real memory */
    return p;
}

static void free_mem(void *p)
{
    int rc = MPI_Free_mem(p);
    CHECK(rc == MPI_SUCCESS, "MPI_Free_mem(%p) = %d", p, rc);
}

static int is_loci(const void *p) { return loci_ptr_target(p) != NULL; }

/* Each key gives loci memory on the target its intent names. */
static void keys(void)
{
    void *p = alloc_mem(1000, "loci_intent", "near=pe");
    CHECK(is_loci(p) && loci_usable_size(p) >= 1000, "loci_intent=near=pe: not loci memory");
    const loci_target_t *expect[1];
    CHECK(loci_allocator_targets(loci_allocator_create("near=pe"), expect, 1) >= 1, "no target for near=pe");
    CHECK(loci_ptr_target(p) == expect[0], "near=pe memory is not on the intent's best target");
    free_mem(p);

    static const char *types[] = {"ddr", "hbm", "network", "shmem", " HBM "};
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++) {
        p = alloc_mem(4096, "mpich_buf_type", types[i]);
        CHECK(is_loci(p), "mpich_buf_type=%s: not loci memory", types[i]);
        free_mem(p);
    }

    p = alloc_mem(100, "mpi_minimum_memory_alignment", "4096");
    CHECK(is_loci(p) && (uintptr_t)p % 4096 == 0, "alignment 4096: %p", p);
    free_mem(p);

    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "loci_intent", "latency=low");
    MPI_Info_set(info, "mpi_minimum_memory_alignment", "2097152");
    CHECK(MPI_Alloc_mem(3 << 20, info, &p) == MPI_SUCCESS, "intent + 2 MiB alignment");
    CHECK(is_loci(p) && (uintptr_t)p % 2097152 == 0, "intent + 2 MiB alignment: %p", p);
    free_mem(p);
    MPI_Info_free(&info);

    p = alloc_mem(0, "loci_intent", "near=pe"); /* malloc(0) semantics: a pointer to free */
    free_mem(p);

    p = alloc_mem(64, "some_other_key", "x"); /* no loci key: the MPI library's memory */
    CHECK(!is_loci(p), "a call without a loci key got loci memory");
    free_mem(p);
}

static uint64_t auto_arenas(void)
{
    loci_tier_totals_t tot;
    CHECK(loci_tier_totals(&tot) == 0, "loci_tier_totals: %s", loci_last_error());
    return tot.arenas;
}

/* tier=auto: each block alone in an auto arena of its own (tiering moves
 * whole arenas), aligned when asked; MPI_Free_mem destroys the arena, and
 * a second MPI_Free_mem of the block is refused, not a crash. */
static void tiered(void)
{
    enum { N = 4 };
    uint64_t before = auto_arenas();
    void *p[N];
    for (int i = 0; i < N; i++) {
        p[i] = alloc_mem((MPI_Aint)(1 + i) << 20, "loci_intent", i % 2 ? "tier=auto" : "bandwidth=high,tier=auto");
        loci_arena_t *ar = loci_ptr_arena(p[i]);
        loci_tier_stats_t st;
        CHECK(ar && loci_tier_stats(ar, &st) == 0, "block %d of tier=auto is not in an auto arena", i);
        CHECK(loci_arena_of((char *)p[i] + ((size_t)(1 + i) << 20) - 1) == ar, "block %d: its end is outside its arena",
              i);
        for (int j = 0; j < i; j++)
            CHECK(loci_ptr_arena(p[j]) != ar, "blocks %d and %d share an auto arena", j, i);
    }
    CHECK(auto_arenas() == before + N, "%llu auto arenas after %d tier=auto blocks (%llu before)",
          (unsigned long long)auto_arenas(), N, (unsigned long long)before);

    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "loci_intent", "tier=auto");
    MPI_Info_set(info, "mpi_minimum_memory_alignment", "2097152");
    void *aligned = NULL;
    CHECK(MPI_Alloc_mem(3 << 20, info, &aligned) == MPI_SUCCESS, "tier=auto + 2 MiB alignment");
    MPI_Info_free(&info);
    CHECK((uintptr_t)aligned % 2097152 == 0 && loci_ptr_arena(aligned), "tier=auto + 2 MiB alignment: %p", aligned);
    void *empty = alloc_mem(0, "loci_intent", "tier=auto"); /* malloc(0) semantics: a pointer to free */
    free_mem(empty);
    free_mem(aligned);

    for (int i = 0; i < N; i++)
        free_mem(p[i]);
    CHECK(auto_arenas() == before, "%llu auto arenas left after MPI_Free_mem of every tier=auto block (%llu before)",
          (unsigned long long)auto_arenas(), (unsigned long long)before);

    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    capture_begin();
    int rc = MPI_Free_mem(p[0]);
    const char *said = capture_end();
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    int errclass = -1;
    MPI_Error_class(rc, &errclass);
    CHECK(errclass == MPI_ERR_ARG && strstr(said, "not a live block"),
          "MPI_Free_mem of a tier=auto block freed already: class %d, said \"%s\"", errclass, said);
}

/* LOCI_MPI_INTENT serves MPI_INFO_NULL; a loci_intent key still wins. */
static void env_default(void)
{
    const char *env = getenv("LOCI_MPI_INTENT");
    CHECK(env && *env, "run with LOCI_MPI_INTENT set");
    void *p = alloc_mem(512, NULL, NULL);
    const loci_target_t *expect[1];
    loci_allocator_targets(loci_allocator_create(env), expect, 1);
    CHECK(loci_ptr_target(p) == expect[0], "MPI_INFO_NULL with LOCI_MPI_INTENT=%s: not on its target", env);
    free_mem(p);
    p = alloc_mem(512, "loci_intent", "capacity=large");
    CHECK(is_loci(p), "loci_intent under LOCI_MPI_INTENT");
    free_mem(p);
}

/* Loci, auto-arena and MPI blocks of 8 B .. 1 MiB, freed in a scrambled order. */
static void mixed(unsigned seed)
{
    enum { N = 300 };
    void *blocks[N];
    for (int i = 0; i < N; i++) {
        MPI_Aint size = (MPI_Aint)8 << (i % 18);
        blocks[i] = i % 4 == 0   ? alloc_mem(size, NULL, NULL)
                    : i % 4 == 1 ? alloc_mem(size, "loci_intent", "near=pe")
                    : i % 4 == 2 ? alloc_mem(size, "mpich_buf_type", "ddr")
                                 : alloc_mem(size, "loci_intent", "tier=auto");
    }
    for (int i = N - 1; i > 0; i--) {
        seed = seed * 1103515245u + 12345u;
        int j = (int)(seed % (unsigned)(i + 1));
        void *t = blocks[i];
        blocks[i] = blocks[j];
        blocks[j] = t;
    }
    for (int i = 0; i < N; i++)
        free_mem(blocks[i]);
}

/* GPU memory for CUDA-aware MPIs (run with a CUDA driver, the stand-in in
 * the tests): device memory is never touched by the CPU here, managed
 * memory is. */
static void gpu(void)
{
    static const char *intents[] = {"use=gpu", "use=cpu+gpu"};
    for (int i = 0; i < 2; i++) {
        MPI_Info info = info1("loci_intent", intents[i]);
        void *p = NULL;
        int rc = MPI_Alloc_mem(1 << 20, info, &p);
        info_free(&info);
        CHECK(rc == MPI_SUCCESS && p, "MPI_Alloc_mem(1 MiB, loci_intent=%s) = %d: %s", intents[i], rc,
              loci_last_error());
        loci_target_info_t t;
        CHECK(loci_ptr_target(p) && loci_target_info(loci_ptr_target(p), &t) == 0 && strcmp(t.kind, "gpu") == 0 &&
                  t.numa_node < 0,
              "loci_intent=%s: %p is not on a GPU target", intents[i], p);
        CHECK(loci_usable_size(p) >= 1 << 20, "loci_intent=%s: %zu usable bytes", intents[i], loci_usable_size(p));
        if (i == 1)
            memset(p, 0xa5, 1 << 20);
        free_mem(p);
    }
}

static void *thread_main(void *arg)
{
    mixed((unsigned)(uintptr_t)arg);
    return NULL;
}

int main(int argc, char **argv)
{
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &check_rank);
    const char *mode = argc > 1 ? argv[1] : "info";
    uint64_t live = loci_live_bytes();

    if (strcmp(mode, "env") == 0) {
        env_default();
    } else if (strcmp(mode, "gpu") == 0) {
        gpu();
    } else {
        const char *env = getenv("LOCI_MPI_INTENT");
        CHECK(!env || !*env, "mode 'info' runs without LOCI_MPI_INTENT (empty counts as unset)");
        keys();
        tiered();
        mixed((unsigned)check_rank + 1);
        if (provided == MPI_THREAD_MULTIPLE) {
            pthread_t t[3];
            for (uintptr_t i = 0; i < 3; i++)
                pthread_create(&t[i], NULL, thread_main, (void *)(i + 10));
            for (int i = 0; i < 3; i++)
                pthread_join(t[i], NULL);
        } else if (check_rank == 0) {
            printf("threads: skipped, the MPI gives thread level %d, not MPI_THREAD_MULTIPLE\n", provided);
        }
    }
    CHECK(loci_live_bytes() == live, "loci bytes in use: %llu before, %llu after",
          (unsigned long long)live, (unsigned long long)loci_live_bytes());
    CHECK(auto_arenas() == 0, "%llu auto arenas left", (unsigned long long)auto_arenas());
    MPI_Barrier(MPI_COMM_WORLD);
    if (check_rank == 0)
        printf("test_alloc_mem %s: passed\n", mode);
    MPI_Finalize();
    return 0;
}
