/*
 * SharP §6.1 through MPI_Alloc_mem: the allocation workload of bench/alloc
 * (70 % allocations, 30 % frees of a random live block; 8 B .. 2 MiB;
 * 20,000 operations per size; the first byte of each block written) replayed
 * with the same operations through
 *   plain   PMPI_Alloc_mem / PMPI_Free_mem: the MPI library, no libloci-mpi
 *   null    MPI_Alloc_mem(MPI_INFO_NULL) through libloci-mpi: the library's
 *           memory plus the shim's bookkeeping (the block record)
 *   intent  MPI_Alloc_mem with info loci_intent=INTENT: loci memory
 *   loci    loci_alloc / loci_free with the intent's allocator: the floor
 * one process, variants interleaved per repeat; each cell is the median of
 * the repeats, in ns per operation. The goal: intent <= 1.05 x plain.
 *
 * usage: bench_mpi_alloc [--quick] [--sizes 8-2M] [--ops 20000] [--repeats 11]
 *                        [--intent near=pe] [--seed 42]
 */
#include "arguments.h"
#include "median.h"
#include "size_list.h"
#include "workload.h"

#include <loci.h>
#include <mpi.h>
#include <math.h>

enum { PLAIN, NULLINFO, INTENT, LOCI, NVARIANTS, MAX_SIZES = 32, MAX_REPEATS = 101 };
static const char *names[NVARIANTS] = {"plain", "null", "intent", "loci"};

static MPI_Info intent_info;
static loci_allocator_t *allocator;

static struct {
    const char *sizes, *intent; /* sizes as bench_parse_sizes reads them */
    int ops, repeats;
    uint64_t seed;
} opt = {"8-2M", "near=pe", 20000, 11, 42};

static void quick(void)
{
    opt.sizes = "8,64,512,4K,32K,256K,2M";
    opt.ops = 2000;
    opt.repeats = 3;
}

/* How a wrong command line ends the job (bench_arguments, bench_sizes). */
static void stop(int code) { MPI_Abort(MPI_COMM_WORLD, code); }

static inline void *mpi_plain(size_t size)
{
    void *p;
    return PMPI_Alloc_mem((MPI_Aint)size, MPI_INFO_NULL, &p) == MPI_SUCCESS ? p : NULL;
}
static inline void *mpi_null(size_t size)
{
    void *p;
    return MPI_Alloc_mem((MPI_Aint)size, MPI_INFO_NULL, &p) == MPI_SUCCESS ? p : NULL;
}
static inline void *mpi_intent(size_t size)
{
    void *p;
    return MPI_Alloc_mem((MPI_Aint)size, intent_info, &p) == MPI_SUCCESS ? p : NULL;
}

BENCH_DEFINE_LOOP(loop_plain, mpi_plain(size), PMPI_Free_mem(p))
BENCH_DEFINE_LOOP(loop_null, mpi_null(size), MPI_Free_mem(p))
BENCH_DEFINE_LOOP(loop_intent, mpi_intent(size), MPI_Free_mem(p))
BENCH_DEFINE_LOOP(loop_loci, loci_alloc(allocator, size), loci_free(p))

/* One timed run: ns per operation; what is left live is freed untimed. */
static double run(int v, const int32_t *ops, size_t n, size_t size, void **live)
{
    size_t nlive = 0, failed = 0;
    uint64_t ns = v == PLAIN      ? loop_plain(ops, n, size, BENCH_TOUCH_FIRST, live, &nlive, &failed)
                  : v == NULLINFO ? loop_null(ops, n, size, BENCH_TOUCH_FIRST, live, &nlive, &failed)
                  : v == INTENT   ? loop_intent(ops, n, size, BENCH_TOUCH_FIRST, live, &nlive, &failed)
                                  : loop_loci(ops, n, size, BENCH_TOUCH_FIRST, live, &nlive, &failed);
    for (size_t i = 0; i < nlive; i++) {
        if (v == PLAIN)
            PMPI_Free_mem(live[i]);
        else if (v == LOCI)
            loci_free(live[i]);
        else
            MPI_Free_mem(live[i]);
    }
    if (ns == 0) {
        fprintf(stderr, "bench_mpi_alloc: %s: allocation %zu of %zu bytes failed\n", names[v], failed, size);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    return (double)ns / (double)n;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    const bench_opt_t opts[] = {{"--sizes", 's', &opt.sizes},   {"--ops", 'i', &opt.ops},
                                {"--repeats", 'i', &opt.repeats}, {"--intent", 's', &opt.intent},
                                {"--seed", 'u', &opt.seed},       {NULL, 0, NULL}};
    bench_arguments(argc, argv, opts, quick,
                    "bench_mpi_alloc [--quick] [--sizes 8-2M] [--ops 20000] [--repeats 11] [--intent near=pe] "
                    "[--seed 42]",
                    true, stop);
    if (opt.repeats < 1 || opt.repeats > MAX_REPEATS || opt.ops < 1) {
        fprintf(stderr, "bench_mpi_alloc: --repeats 1..%d and --ops >= 1\n", MAX_REPEATS);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    size_t sizes[MAX_SIZES];
    int nsizes = bench_sizes("bench_mpi_alloc", opt.sizes, sizes, MAX_SIZES, true, stop);
    if (!(allocator = loci_allocator_create(opt.intent))) {
        fprintf(stderr, "bench_mpi_alloc: intent \"%s\": %s\n", opt.intent, loci_last_error());
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    MPI_Info_create(&intent_info);
    MPI_Info_set(intent_info, "loci_intent", opt.intent);
    char version[MPI_MAX_LIBRARY_VERSION_STRING];
    int len;
    MPI_Get_library_version(version, &len);
    version[strcspn(version, "\n,")] = '\0';

    int32_t *opsv = malloc((size_t)opt.ops * sizeof *opsv);
    void **live = malloc((size_t)opt.ops * sizeof *live);
    printf("MPI_Alloc_mem, SharP 6.1 workload: %d ops per size (70%% alloc), median of %d, ns/op; %s; "
           "intent \"%s\"\n", opt.ops, opt.repeats, version, opt.intent);
    printf("%8s %9s %9s %9s %9s %13s %12s\n", "size", "plain", "null", "intent", "loci", "intent/plain",
           "null/plain");
    double log_sum = 0, worst = 0;
    int over = 0; /* sizes above the goal */
    for (int s = 0; s < nsizes; s++) {
        bench_workload_generate(opsv, (size_t)opt.ops, opt.seed, sizes[s], 0);
        double t[NVARIANTS][MAX_REPEATS], med[NVARIANTS];
        for (int v = 0; v < NVARIANTS; v++) /* warm-up: first-time costs out of the figures */
            run(v, opsv, (size_t)opt.ops, sizes[s], live);
        for (int r = 0; r < opt.repeats; r++)
            for (int k = 0; k < NVARIANTS; k++) {
                int v = (k + r) % NVARIANTS; /* rotate the order: no variant always runs first */
                t[v][r] = run(v, opsv, (size_t)opt.ops, sizes[s], live);
            }
        for (int v = 0; v < NVARIANTS; v++)
            med[v] = bench_median(t[v], opt.repeats);
        double ratio = med[INTENT] / med[PLAIN];
        log_sum += log(ratio);
        worst = ratio > worst ? ratio : worst;
        over += ratio > 1.05;
        char sz[32];
        bench_size_label(sizes[s], false, sz, sizeof sz);
        printf("%8s %9.1f %9.1f %9.1f %9.1f %12.3fx %11.3fx\n", sz, med[PLAIN], med[NULLINFO], med[INTENT], med[LOCI],
               ratio, med[NULLINFO] / med[PLAIN]);
        fprintf(stderr, "bench_mpi_alloc: %d/%d sizes\r", s + 1, nsizes);
        fflush(stdout);
    }
    double geo = exp(log_sum / nsizes);
    printf("intent/plain: geometric mean %.3fx, worst %.3fx; goal <= 1.05x: %s on the mean, %d of %d sizes "
           "above it\n", geo, worst, geo <= 1.05 ? "met" : "NOT met", over, nsizes);
    MPI_Info_free(&intent_info);
    free(opsv);
    free(live);
    MPI_Finalize();
    return 0;
}
