/* Subcommands of the `loci` tool and what they share. */
#ifndef LOCI_TOOL_COMMANDS_H
#define LOCI_TOOL_COMMANDS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

int cmd_info(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int cmd_resolve(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_ckpt(int argc, char **argv);
int cmd_weights(int argc, char **argv);

/** bench.c: monotonic seconds, and a qsort comparison of doubles (for medians). */
double bench_now_s(void);
int bench_cmp_double(const void *x, const void *y);

/** `loci bench` of a file tier or store target through loci's chunk cache
 *  (bench_paged.c): sequential read MB/s and the first-touch latency of a
 *  cold chunk, over `bytes`. 0, or -1 having said why. */
int bench_paged_target(const char *name, size_t bytes, uint64_t *bandwidth_mbps, uint64_t *latency_ns);

/** Write s as a JSON string literal (quoted, escaped). */
void json_string(FILE *f, const char *s);

/** Apply `--from NODE` (the initiator to view the machine from); returns 0 or
 *  prints why not and returns 2 (usage error). */
int tool_set_initiator(const char *arg);

#endif
