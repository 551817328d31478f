/*
 * The benchmarks' command lines: "--quick" (the smoke run's settings) and
 * "--name value" options read from a table, so a benchmark lists its
 * options once and its usage line says the rest.
 */
#ifndef LOCI_BENCH_ARGUMENTS_H
#define LOCI_BENCH_ARGUMENTS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One "--name value" option: 's' a string, 'i' an int, 'u' a uint64_t, 'd' a double, 'm' MiB into a size_t. */
typedef struct {
    const char *name;
    char type;
    void *value;
} bench_opt_t;

/* Read argv: "--quick" runs quick(), the rest fills opts (a table ended by
 * a NULL name). 0, or -1 at the first argument that is neither (or lacks its
 * value): the caller prints its usage and ends the job its own way. */
static inline int bench_parse_arguments(int argc, char **argv, const bench_opt_t *opts, void (*quick)(void))
{
    for (int i = 1; i < argc; i++) {
        const bench_opt_t *o = opts;
        if (!strcmp(argv[i], "--quick")) {
            quick();
            continue;
        }
        while (o->name && (strcmp(argv[i], o->name) || i + 1 >= argc))
            o++;
        if (!o->name)
            return -1;
        const char *v = argv[++i];
        switch (o->type) {
        case 's': *(const char **)o->value = v; break;
        case 'i': *(int *)o->value = atoi(v); break;
        case 'u': *(uint64_t *)o->value = strtoull(v, NULL, 10); break;
        case 'd': *(double *)o->value = strtod(v, NULL); break;
        default: *(size_t *)o->value = (size_t)strtoull(v, NULL, 10) << 20; break;
        }
    }
    return 0;
}

/* The same, and on a wrong command line "usage: USAGE" on stderr (when tell:
 * one process of a job says it) and stop(2), which ends the job. */
static inline void bench_arguments(int argc, char **argv, const bench_opt_t *opts, void (*quick)(void),
                                   const char *usage, bool tell, void (*stop)(int code))
{
    if (bench_parse_arguments(argc, argv, opts, quick) == 0)
        return;
    if (tell)
        fprintf(stderr, "usage: %s\n", usage);
    stop(2);
}

#endif
