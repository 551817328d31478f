/* CHECK for the plain OpenMP test programs (omp_check.c, conformance.c): say what failed,
 * where, under the program's name, count it, and go on. */
#ifndef LOCI_TESTS_OMP_CHECK_H
#define LOCI_TESTS_OMP_CHECK_H

#include <errno.h>
#include <stdio.h>

static int failures;

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "%s: %s:%d: %s: ", program_invocation_short_name, __FILE__, __LINE__,  \
                    #cond);                                                                        \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fputc('\n', stderr);                                                                   \
            failures++;                                                                            \
        }                                                                                          \
    } while (0)

#endif
