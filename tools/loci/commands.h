/* Subcommands of the `loci` tool and what they share. */
#ifndef LOCI_TOOL_COMMANDS_H
#define LOCI_TOOL_COMMANDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

int cmd_info(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int cmd_resolve(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_ckpt(int argc, char **argv);
int cmd_weights(int argc, char **argv);
int cmd_devdax(int argc, char **argv);
int cmd_tier(int argc, char **argv);

/** run_tier.c: the environment of `loci run --tier auto` (terms: --intent, threshold:
 *  --tier-threshold, either NULL), checked and set for command. 0, or the exit code
 *  having said why not. */
int run_tier_prepare(const char *terms, const char *threshold, char **command, bool verbose);

/** run_env.c: the first of places (paths relative to this executable's directory) that
 *  exists, resolved into out. */
bool tool_find_beside(const char *const *places, size_t count, char *out, size_t len);
/** run_env.c: value put first in the environment variable, separated by separator from what
 *  it held; nothing when it holds `already`. 0, or 1 having said why not. */
int tool_env_prepend(const char *variable, const char *value, char separator, const char *already);

/** run_memkind.c: the environment of `loci run --memkind`: libmemkind.so.0 on loci first
 *  in LD_LIBRARY_PATH, and, when AUTO_HBW_SIZE is set (memkind's autohbw) and tiering is
 *  false (no --tier auto), the malloc interposer with intent kind=hbm and that threshold.
 *  0, or the exit code having said why not. */
int run_memkind_prepare(char **command, bool tiering, bool verbose);

/** bench.c: monotonic seconds, and a qsort comparison of doubles (for medians). */
double bench_now_s(void);
int bench_cmp_double(const void *x, const void *y);

/** `loci bench` of a file tier or store target through loci's chunk cache
 *  (bench_paged.c): sequential read MB/s and the first-touch latency of a
 *  cold chunk, over `bytes`. 0, or -1 having said why. */
int bench_paged_target(const char *name, size_t bytes, uint64_t *bandwidth_mbps, uint64_t *latency_ns);

/** progress.c: a progress line on stderr for long operations, drawn only when
 *  stderr is a terminal or LOCI_PROGRESS=1 asks for it (LOCI_PROGRESS=0:
 *  never), redrawn in place. progress_on: whether it is drawn. */
bool progress_on(void);
/** The line is this text (printf-style). */
void progress_text(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/** The line is "LABEL [####....] 42% 1.1 GiB of 2.5 GiB, 300 MB/s" (at most 10 redraws a second). */
void progress_bar(const char *label, uint64_t done, uint64_t total);
/** Done: keep the line (a newline after it). */
void progress_end(void);
/** Done: erase the line (what follows on the terminal takes its place). */
void progress_clear(void);

/** Apply `--from NODE` (the initiator to view the machine from, options.c); returns 0 or
 *  prints why not and returns 2 (usage error). */
int tool_set_initiator(const char *arg);
/** argv[*i] when it is an option of the commands that show the machine
 *  (options.c): --json (sets *json) or --from NODE (applied; *i moves past
 *  NODE). 0 taken, -1 none of them, 2 a wrong --from (said why). */
int tool_view_option(int argc, char **argv, int *i, bool *json);

#endif
