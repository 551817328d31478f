/*
 * SharP §6.1 with OpenSHMEM partitions: the allocation workload of
 * bench/alloc (70 % allocations, 30 % frees of a random live block; 8 B ..
 * 2 MiB; 20,000 operations per size; the first byte of each block written)
 * replayed with the same operations through
 *   shmem      pshmem_malloc / pshmem_free: Open MPI's symmetric heap (the
 *              profiling entry points: libloci-shmem's shmem_free is not in
 *              the figure)
 *   partition  shmemx_partition_malloc / shmemx_partition_free in a
 *              partition by INTENT
 *   loci       loci_alloc / loci_free with the intent's allocator: the floor
 * one PE, variants interleaved per repeat; each cell is the median of the
 * repeats, in ns per operation. The goal (SharP's result): partition <=
 * 1.05 x shmem. The live blocks of a size must fit the symmetric heap: above
 * BUDGET / (0.4 x 20,000) bytes a size runs fewer operations (column ops),
 * the same for every variant.
 *
 * usage: oshrun -np 1 bench_shmem_alloc [--quick] [--sizes 8-2M] [--ops 20000] [--repeats 11]
 *                                        [--intent near=pe] [--budget-mb 2048] [--seed 42]
 *                                        [--touch first|none|pages]
 * Open MPI's heap must hold the partition and the shmem variant's blocks:
 * SMA_SYMMETRIC_SIZE >= 2 x budget + 256M (bench/shmem/run.sh sets it).
 */
#include "bench_shmem.h"
#include "workload.h"

#include <loci.h>
#include <math.h>
#include <pshmem.h>

enum { SHMEM, PARTITION, LOCI, NVARIANTS, MAX_SIZES = 32, MAX_REPEATS = 101 };
static const char *names[NVARIANTS] = {"shmem", "partition", "loci"};

static int part;
static loci_allocator_t *allocator;
static bench_touch_t touching = BENCH_TOUCH_FIRST;

BENCH_DEFINE_LOOP(loop_shmem, pshmem_malloc(size), pshmem_free(p))
BENCH_DEFINE_LOOP(loop_partition, shmemx_partition_malloc(part, size), shmemx_partition_free(part, p))
BENCH_DEFINE_LOOP(loop_loci, loci_alloc(allocator, size), loci_free(p))

/* One timed run: ns per operation; what is left live is freed untimed. */
static double run(int v, const int32_t *ops, size_t n, size_t size, void **live)
{
    size_t nlive = 0, failed = 0;
    uint64_t ns = v == SHMEM       ? loop_shmem(ops, n, size, touching, live, &nlive, &failed)
                  : v == PARTITION ? loop_partition(ops, n, size, touching, live, &nlive, &failed)
                                   : loop_loci(ops, n, size, touching, live, &nlive, &failed);
    for (size_t i = 0; i < nlive; i++) {
        if (v == SHMEM)
            pshmem_free(live[i]);
        else if (v == PARTITION)
            shmemx_partition_free(part, live[i]);
        else
            loci_free(live[i]);
    }
    if (ns == 0) {
        fprintf(stderr, "bench_shmem_alloc: %s: allocation %zu of %zu bytes failed%s%s\n", names[v], failed, size,
                v == PARTITION ? ": " : "", v == PARTITION ? shmemx_hhm_last_error() : "");
        shmem_global_exit(1);
    }
    return (double)ns / (double)n;
}

/* The most blocks live at once in ops[0..n-1]. */
static size_t peak_live(const int32_t *ops, size_t n)
{
    size_t live = 0, peak = 0;
    for (size_t i = 0; i < n; i++) {
        live += ops[i] == BENCH_OP_ALLOC ? 1 : (size_t)-1;
        peak = live > peak ? live : peak;
    }
    return peak;
}

static const char *sizes_arg = "8-2M", *intent = "near=pe", *touch_arg = "first";
static int ops = 20000, repeats = 11;
static size_t budget = (size_t)2 << 30;
static uint64_t seed = 42;

static void quick(void)
{
    sizes_arg = "8,64,512,4K,32K,256K,2M";
    ops = 2000;
    repeats = 3;
    budget = 64 << 20;
}

int main(int argc, char **argv)
{
    shmem_init();
    const bench_opt_t opts[] = {{"--sizes", 's', &sizes_arg}, {"--ops", 'i', &ops},
                                {"--repeats", 'i', &repeats}, {"--intent", 's', &intent},
                                {"--budget-mb", 'm', &budget}, {"--seed", 'u', &seed},
                                {"--touch", 's', &touch_arg}, {NULL, 0, NULL}};
    bench_arguments(argc, argv, opts, quick,
                  "bench_shmem_alloc [--quick] [--sizes 8-2M] [--ops 20000] [--repeats 11] [--intent near=pe] "
                  "[--budget-mb 2048] [--seed 42] [--touch first|none|pages]",
                  shmem_my_pe() == 0, shmem_global_exit);
    if (repeats < 1 || repeats > MAX_REPEATS || ops < 1 || budget == 0 || shmem_n_pes() != 1 ||
        bench_touch_parse(touch_arg, &touching) != 0) {
        fprintf(stderr, "bench_shmem_alloc: one PE, --repeats 1..%d, --ops >= 1, --budget-mb >= 1, "
                        "--touch first|none|pages\n", MAX_REPEATS);
        shmem_global_exit(2);
    }
    size_t sizes[MAX_SIZES];
    int nsizes = bench_sizes("bench_shmem_alloc", sizes_arg, sizes, MAX_SIZES, shmem_my_pe() == 0,
                             shmem_global_exit);
    if (!(allocator = loci_allocator_create(intent))) {
        fprintf(stderr, "bench_shmem_alloc: intent \"%s\": %s\n", intent, loci_last_error());
        shmem_global_exit(2);
    }
    /* room for the budget plus what 16-byte rounding adds to the smallest blocks */
    if ((part = shmemx_hhm_create(intent, budget + (size_t)ops * 16)) < 0) {
        fprintf(stderr, "bench_shmem_alloc: %s\n", shmemx_hhm_last_error());
        shmem_global_exit(2);
    }
    int32_t *opsv = malloc((size_t)ops * sizeof *opsv);
    void **live = malloc((size_t)ops * sizeof *live);
    printf("OpenSHMEM partitions, SharP 6.1 workload: up to %d ops per size (70%% alloc), live blocks <= %zu MiB, "
           "median of %d, ns/op, touch %s; %s; intent \"%s\"\n", ops, budget >> 20, repeats, bench_touch_name(touching),
           oshmem_version(), intent);
    printf("%8s %6s %9s %10s %9s %16s\n", "size", "ops", "shmem", "partition", "loci", "partition/shmem");
    double log_sum = 0, worst = 0;
    int over = 0;
    for (int s = 0; s < nsizes; s++) {
        size_t n = (size_t)ops;
        bench_workload_generate(opsv, n, seed, sizes[s], 0);
        while (n > 10 && peak_live(opsv, n) * sizes[s] > budget) { /* fewer operations: the live blocks must fit */
            n = n * 9 / 10;
            bench_workload_generate(opsv, n, seed, sizes[s], 0);
        }
        double t[NVARIANTS][MAX_REPEATS], med[NVARIANTS];
        for (int v = 0; v < NVARIANTS; v++) /* warm-up: first-time costs out of the figures */
            run(v, opsv, n, sizes[s], live);
        for (int r = 0; r < repeats; r++)
            for (int k = 0; k < NVARIANTS; k++) {
                int v = (k + r) % NVARIANTS; /* rotate the order: no variant always runs first */
                t[v][r] = run(v, opsv, n, sizes[s], live);
            }
        for (int v = 0; v < NVARIANTS; v++)
            med[v] = bench_median(t[v], repeats);
        double ratio = med[PARTITION] / med[SHMEM];
        log_sum += log(ratio);
        worst = ratio > worst ? ratio : worst;
        over += ratio > 1.05;
        char sz[32];
        printf("%8s %6zu %9.1f %10.1f %9.1f %15.3fx\n", bench_size_label(sizes[s], false, sz, sizeof sz), n,
               med[SHMEM], med[PARTITION], med[LOCI], ratio);
        fprintf(stderr, "bench_shmem_alloc: %d/%d sizes\r", s + 1, nsizes);
        fflush(stdout);
    }
    double geo = exp(log_sum / nsizes);
    printf("partition/shmem: geometric mean %.3fx, worst %.3fx; goal <= 1.05x: %s on the mean, %d of %d sizes "
           "above it\n", geo, worst, geo <= 1.05 ? "met" : "NOT met", over, nsizes);
    shmemx_hhm_destroy(part);
    free(opsv);
    free(live);
    shmem_finalize();
    return 0;
}
