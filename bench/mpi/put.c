/*
 * MPI_Put bandwidth and message rate (SharP §6.2): process 0 puts messages
 * of 8 B .. 1 MiB into process 1's window, 10,000 per size, under a shared
 * lock with a flush every 64 puts; each cell is the median of the repeats.
 * Two placements side by side, the same for the origin buffer
 * (MPI_Alloc_mem) and the window (MPI_Win_allocate), both by loci_intent:
 * near=pe and near=nic. On a machine whose NIC is on another node this is
 * SharP's experiment; where both intents resolve to the same memory it
 * shows the shape and the cost of the path only.
 *
 * usage: mpirun -np 2 bench_mpi_put [--quick] [--sizes 8-1M] [--ops 10000] [--repeats 11]
 */
#include "arguments.h"
#include "median.h"
#include "size_list.h"
#include "timing.h"

#include <loci.h>
#include <mpi.h>

enum { NVARIANTS = 2, MAX_SIZES = 32, MAX_REPEATS = 101, FLUSH_EVERY = 64 };
static const char *intents[NVARIANTS] = {"near=pe", "near=nic"};

typedef struct {
    char *buf; /* origin buffer */
    char *base;
    MPI_Win win;
} variant_t;

static int rank;

static struct {
    const char *sizes; /* as bench_parse_sizes reads them */
    int ops, repeats;
} opt = {"8-1M", 10000, 11};

static void quick(void)
{
    opt.sizes = "8,512,32K,1M";
    opt.ops = 1000;
    opt.repeats = 1;
}

/* How a wrong command line ends the job (bench_arguments, bench_sizes). */
static void stop(int code) { MPI_Abort(MPI_COMM_WORLD, code); }

static void setup(variant_t *v, const char *intent, size_t max)
{
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "loci_intent", intent);
    if (MPI_Alloc_mem((MPI_Aint)max, info, &v->buf) != MPI_SUCCESS ||
        MPI_Win_allocate((MPI_Aint)max, 1, info, MPI_COMM_WORLD, &v->base, &v->win) != MPI_SUCCESS) {
        fprintf(stderr, "bench_mpi_put: buffers by \"%s\" refused\n", intent);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    memset(v->buf, rank, max); /* first touch: placed now, not during the timing */
    memset(v->base, rank, max);
    MPI_Info_free(&info);
}

/* Seconds for `ops` puts of `size` bytes into process 1 (on process 0; 0 elsewhere). */
static double timed_puts(variant_t *v, size_t size, int ops)
{
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank != 0)
        return 0;
    double t0 = clock_mono_s();
    MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, v->win);
    for (int i = 0; i < ops; i++) {
        MPI_Put(v->buf, (int)size, MPI_BYTE, 1, 0, (int)size, MPI_BYTE, v->win);
        if ((i + 1) % FLUSH_EVERY == 0)
            MPI_Win_flush(1, v->win);
    }
    MPI_Win_unlock(1, v->win);
    return clock_mono_s() - t0;
}

/* Where the intent's memory is on this machine, for the table's header. */
static const char *where(const char *intent)
{
    const loci_target_t *t[1];
    loci_target_info_t ti;
    if (loci_allocator_targets(loci_allocator_create(intent), t, 1) < 1 || loci_target_info(t[0], &ti))
        return "?";
    return ti.name;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int nprocs;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    const bench_opt_t opts[] = {
        {"--sizes", 's', &opt.sizes}, {"--ops", 'i', &opt.ops}, {"--repeats", 'i', &opt.repeats}, {NULL, 0, NULL}};
    bench_arguments(argc, argv, opts, quick, "bench_mpi_put [--quick] [--sizes 8-1M] [--ops 10000] [--repeats 11]",
                    rank == 0, stop);
    if (nprocs < 2 || opt.repeats < 1 || opt.repeats > MAX_REPEATS || opt.ops < 1) {
        if (rank == 0)
            fprintf(stderr, "bench_mpi_put: needs 2 processes, --repeats 1..%d, --ops >= 1\n", MAX_REPEATS);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    size_t sizes[MAX_SIZES];
    int nsizes = bench_sizes("bench_mpi_put", opt.sizes, sizes, MAX_SIZES, rank == 0, stop);
    size_t max = 0;
    for (int s = 0; s < nsizes; s++)
        max = sizes[s] > max ? sizes[s] : max;
    variant_t v[NVARIANTS];
    for (int k = 0; k < NVARIANTS; k++)
        setup(&v[k], intents[k], max);

    if (rank == 0) {
        char version[MPI_MAX_LIBRARY_VERSION_STRING];
        int len;
        MPI_Get_library_version(version, &len);
        version[strcspn(version, "\n,")] = '\0';
        printf("MPI_Put 0 -> 1, %d puts per size, flush every %d, median of %d; %s; near=pe: %s, near=nic: %s\n",
               opt.ops, FLUSH_EVERY, opt.repeats, version, where("near=pe"), where("near=nic"));
        printf("%8s %12s %12s %8s %11s %11s %8s\n", "size", "pe MB/s", "nic MB/s", "nic/pe", "pe Mmsg/s",
               "nic Mmsg/s", "nic/pe");
    }
    for (int s = 0; s < nsizes; s++) {
        double t[NVARIANTS][MAX_REPEATS];
        for (int k = 0; k < NVARIANTS; k++) /* warm-up */
            timed_puts(&v[k], sizes[s], opt.ops / 10 + 1);
        for (int r = 0; r < opt.repeats; r++)
            for (int j = 0; j < NVARIANTS; j++) {
                int k = (j + r) % NVARIANTS;
                t[k][r] = timed_puts(&v[k], sizes[s], opt.ops);
            }
        if (rank == 0) {
            double bw[NVARIANTS], rate[NVARIANTS];
            for (int k = 0; k < NVARIANTS; k++) {
                double sec = bench_median(t[k], opt.repeats);
                bw[k] = (double)sizes[s] * opt.ops / sec / 1e6;
                rate[k] = opt.ops / sec / 1e6;
            }
            char sz[32];
            bench_size_label(sizes[s], false, sz, sizeof sz);
            printf("%8s %12.1f %12.1f %7.3fx %11.3f %11.3f %7.3fx\n", sz, bw[0], bw[1], bw[1] / bw[0], rate[0],
                   rate[1], rate[1] / rate[0]);
            fflush(stdout);
            fprintf(stderr, "bench_mpi_put: %d/%d sizes\r", s + 1, nsizes);
        }
    }
    for (int k = 0; k < NVARIANTS; k++) {
        MPI_Win_free(&v[k].win);
        MPI_Free_mem(v[k].buf);
    }
    MPI_Finalize();
    return 0;
}
