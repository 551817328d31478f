/*
 * shmem_putmem bandwidth and message rate (SharP §6.2) into partition
 * memory vs the default symmetric heap: PE 0 puts messages of 8 B .. 1 MiB
 * into PE 1, 10,000 per size, shmem_quiet every 64 puts; each cell is the
 * median of the repeats, the two placements side by side in the same run
 * (order rotated per repeat). Source and target of a variant are both
 * symmetric blocks of it, page-aligned: shmem_align for "heap", a
 * partition by INTENT for "partition". On a machine whose NIC is on another node than the PEs
 * this is SharP's experiment; where the intent resolves to the memory the
 * heap has anyway it shows what the partition path costs (nothing, the
 * puts are the same).
 *
 * usage: oshrun -np 2 bench_shmem_put [--quick] [--sizes 8-1M] [--ops 10000] [--repeats 11] [--intent near=nic]
 */
#include "bench_shmem.h"

enum { HEAP, PARTITION, NVARIANTS, MAX_SIZES = 32, MAX_REPEATS = 101, QUIET_EVERY = 64 };

static int me;

/* Seconds for `ops` puts of `size` bytes into PE 1 (on PE 0; 0 elsewhere). */
static double timed_puts(char *dst, const char *src, size_t size, int ops)
{
    shmem_barrier_all();
    if (me != 0)
        return 0;
    double t0 = clock_mono_s();
    for (int i = 0; i < ops; i++) {
        shmem_putmem(dst, src, size, 1);
        if ((i + 1) % QUIET_EVERY == 0)
            shmem_quiet();
    }
    shmem_quiet();
    return clock_mono_s() - t0;
}

static const char *sizes_arg = "8-1M", *intent = "near=nic";
static int ops = 10000, repeats = 11;

static void quick(void)
{
    sizes_arg = "8,512,32K,1M";
    ops = 1000;
    repeats = 1;
}

int main(int argc, char **argv)
{
    shmem_init();
    me = shmem_my_pe();
    const bench_opt_t opts[] = {{"--sizes", 's', &sizes_arg}, {"--ops", 'i', &ops}, {"--repeats", 'i', &repeats},
                                {"--intent", 's', &intent}, {NULL, 0, NULL}};
    bench_arguments(argc, argv, opts, quick,
                  "bench_shmem_put [--quick] [--sizes 8-1M] [--ops 10000] [--repeats 11] [--intent near=nic]",
                  shmem_my_pe() == 0, shmem_global_exit);
    if (shmem_n_pes() < 2 || repeats < 1 || repeats > MAX_REPEATS || ops < 1) {
        if (me == 0)
            fprintf(stderr, "bench_shmem_put: needs 2 PEs, --repeats 1..%d, --ops >= 1\n", MAX_REPEATS);
        shmem_global_exit(2);
    }
    size_t sizes[MAX_SIZES];
    int nsizes = bench_sizes("bench_shmem_put", sizes_arg, sizes, MAX_SIZES, shmem_my_pe() == 0,
                             shmem_global_exit);
    size_t max = 0;
    for (int s = 0; s < nsizes; s++)
        max = sizes[s] > max ? sizes[s] : max;
    int part = shmemx_hhm_create(intent, 2 * (max + SYM_ALIGN));
    if (part < 0) {
        fprintf(stderr, "PE %d: bench_shmem_put: %s\n", me, shmemx_hhm_last_error());
        shmem_global_exit(2);
    }
    char *src[NVARIANTS], *dst[NVARIANTS];
    for (int k = 0; k < NVARIANTS; k++) {
        int from = k == HEAP ? -1 : part;
        src[k] = sym_alloc(from, max);
        dst[k] = sym_alloc(from, max);
        memset(src[k], me, max); /* first touch: placed now, not during the timing */
        memset(dst[k], me, max);
    }
    if (me == 0) {
        printf("shmem_putmem PE 0 -> 1, %d puts per size, quiet every %d, median of %d; %s; heap: shmem_align, "
               "partition: \"%s\" (%s)\n", ops, QUIET_EVERY, repeats, oshmem_version(), intent, target_of(intent));
        printf("%8s %12s %12s %8s %11s %11s %8s\n", "size", "heap MB/s", "part MB/s", "part/heap", "heap Mmsg/s",
               "part Mmsg/s", "part/heap");
    }
    for (int s = 0; s < nsizes; s++) {
        double t[NVARIANTS][MAX_REPEATS];
        for (int k = 0; k < NVARIANTS; k++) /* warm-up */
            timed_puts(dst[k], src[k], sizes[s], ops / 10 + 1);
        for (int r = 0; r < repeats; r++)
            for (int j = 0; j < NVARIANTS; j++) {
                int k = (j + r) % NVARIANTS;
                t[k][r] = timed_puts(dst[k], src[k], sizes[s], ops);
            }
        if (me == 0) {
            double bw[NVARIANTS], rate[NVARIANTS];
            for (int k = 0; k < NVARIANTS; k++) {
                double sec = bench_median(t[k], repeats);
                bw[k] = (double)sizes[s] * ops / sec / 1e6;
                rate[k] = ops / sec / 1e6;
            }
            char sz[32];
            bench_size_label(sizes[s], false, sz, sizeof sz);
            printf("%8s %12.1f %12.1f %8.3fx %11.3f %11.3f %8.3fx\n", sz, bw[HEAP], bw[PARTITION],
                   bw[PARTITION] / bw[HEAP], rate[HEAP], rate[PARTITION], rate[PARTITION] / rate[HEAP]);
            fflush(stdout);
            fprintf(stderr, "bench_shmem_put: %d/%d sizes\r", s + 1, nsizes);
        }
    }
    shmem_barrier_all();
    for (int k = 0; k < NVARIANTS; k++) {
        sym_free(k == HEAP ? -1 : part, dst[k]);
        sym_free(k == HEAP ? -1 : part, src[k]);
    }
    shmemx_hhm_destroy(part);
    shmem_finalize();
    return 0;
}
