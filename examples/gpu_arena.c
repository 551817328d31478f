/*
 * GPU memory by intent (docs/GPU.md): device memory for GPU kernels, and an
 * arena of managed memory that moves between the GPU and host memory
 * keeping its addresses.
 *
 *   gpu_arena [GPU]
 *
 * Without a CUDA driver (or with none of its GPUs) it says so and exits 0.
 * To try it without a GPU, point loci at the driver stand-in the tests build:
 *   LOCI_CUDA_LIBRARY=build/tests/cuda/libcuda.so.1 build/examples/gpu_arena
 */
#include <loci.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { N = 1 << 20 };

static const char *name_of(const loci_target_t *t)
{
    static loci_target_info_t info;
    return t && loci_target_info(t, &info) == 0 ? info.name : "?";
}

int main(int argc, char **argv)
{
    int gpu = argc > 1 ? atoi(argv[1]) : 0;
    char intent[32];

    /* Device memory: for the GPU's kernels; the CPU must not touch it. */
    snprintf(intent, sizeof intent, "use=gpu:%d", gpu);
    loci_allocator_t *device = loci_allocator_create(intent);
    if (!device) {
        printf("no GPU memory here: %s\n", loci_last_error());
        return 0;
    }
    double *d = loci_alloc(device, N * sizeof *d);
    if (!d) {
        printf("%s: %s\n", intent, loci_last_error());
        return 1;
    }
    const loci_target_t *on_gpu = loci_ptr_target(d);
    printf("%s: %zu bytes of device memory on %s\n", intent, loci_usable_size(d), name_of(on_gpu));
    loci_free(d);

    /* Managed memory: CPU and GPU share it; an arena of it moves as a whole. */
    snprintf(intent, sizeof intent, "use=cpu+gpu:%d", gpu);
    loci_arena_t *ar = loci_arena_create(intent, 0);
    double *x = ar ? loci_arena_alloc(ar, N * sizeof *x) : NULL;
    if (!x) {
        printf("%s: %s\n", intent, loci_last_error());
        return 1;
    }
    for (int i = 0; i < N; i++)
        x[i] = i;
    printf("arena \"%s\" on %s, data at %p\n", intent, name_of(loci_arena_target(ar)), (void *)x);
    const loci_target_t *host;
    if (loci_allocator_targets(loci_allocator_create(""), &host, 1) < 1 || loci_arena_move(ar, host) != 0) {
        printf("move to host memory: %s\n", loci_last_error());
        return 1;
    }
    double sum = 0;
    for (int i = 0; i < N; i++) /* CPU work, on host memory now */
        sum += x[i];
    printf("moved to %s, data still at %p, sum %.0f\n", name_of(loci_arena_target(ar)), (void *)x, sum);
    if (loci_arena_move(ar, on_gpu) != 0) {
        printf("move back to %s: %s\n", name_of(on_gpu), loci_last_error());
        return 1;
    }
    printf("moved back to %s, data still at %p\n", name_of(loci_arena_target(ar)), (void *)x);
    loci_arena_destroy(ar);
    return 0;
}
