/* main() of a single-allocator worker executable (bench_alloc_jemalloc, ...):
 * BENCH_BACKEND names the backend it was built with. Started by bench_alloc. */
#include "backend.h"

#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    const bench_backend_t *const backends[] = {&BENCH_BACKEND};
    if (argc == 3 && !strcmp(argv[1], "--worker"))
        return bench_worker_main(argv[2], backends, 1);
    fprintf(stderr, "%s: a worker process of bench_alloc (run bench_alloc instead)\n", argv[0]);
    return 2;
}
