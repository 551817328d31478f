/*
 * Tests that need other processes (a restart, a crash, a second opener) run
 * this very test program again as a child: `<test> --child ARGS...`, which
 * its main() hands to its own child roles.
 */
#ifndef LOCI_TEST_CHILD_H
#define LOCI_TEST_CHILD_H

#include <loci.h>

#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

typedef struct {
    pid_t pid;
    int in, out; /* the child's stdin (write end), stdout (read end) */
} child_t;

/** This program again with "--child" and args (NULL-terminated, at most 9),
 *  its stdin and stdout piped to us. store_dir: its LOCI_STORE_DIR (NULL:
 *  ours); uid >= 0: run as that user (needs root). Exit status 98: the exec
 *  failed, 97: becoming uid failed. */
child_t child_spawn(const char *const *args, const char *store_dir, int uid);

/** Close the pipes, wait: the child's exit status, or 128 + its signal. */
int child_reap(child_t *k);

/** Read the child's stdout into out (NUL-terminated, at most len - 1
 *  bytes) until it ends, then reap it: its exit status as child_reap says.
 *  When it has not ended within timeout_s seconds it is killed and -1
 *  returned: a hang, for a test to report. */
int child_wait_for(child_t *k, unsigned timeout_s, char *out, size_t len);

/** child_spawn(args, NULL, -1) then child_reap. */
int child_run(const char *const *args);

/** In a child role: when cond is false, say where and why (printf-style
 *  details, then loci's last error) on stderr and return 1. */
#define CHECK(cond, ...)                                                      \
    do {                                                                      \
        if (!(cond)) {                                                        \
            fprintf(stderr, "child line %d: %s: ", __LINE__, #cond);          \
            fprintf(stderr, __VA_ARGS__);                                     \
            fprintf(stderr, " (last error: %s)\n", loci_last_error());        \
            return 1;                                                         \
        }                                                                     \
    } while (0)

/** Run body(arg) in a forked child (no exec) with its stderr captured into
 *  msg (NUL-terminated, at most len - 1 bytes): the child's exit status, or
 *  128 + the signal that ended it (e.g. 128 + SIGABRT for fallback=abort). */
int child_fork_stderr(void (*body)(void *), void *arg, char *msg, size_t len);

/** True, with the reason on stderr, when this build runs under
 *  ThreadSanitizer, which kills a child that starts threads after a fork of
 *  a multithreaded process ("starting new threads after multi-threaded fork
 *  is not supported"): a case whose forked child makes loci start a thread
 *  (write-behind, tiering) skips there; the release and ASan stages run it. */
bool child_threads_unsupported_after_fork(const char *test);

/** True, with the reason on stderr, when this build runs under
 *  ThreadSanitizer or AddressSanitizer, whose malloc is not fork-safe in
 *  GCC 12's runtimes: their fork interceptors do not lock the allocator
 *  (later LLVM releases do), so a child of a parent whose other threads are
 *  inside malloc can block forever in its first malloc (seen under both:
 *  TSan in SizeClassAllocator64::GetFromAllocator; ASan's libasan.so.8 has
 *  no fork interceptor at all, and a child hung in about 1 run of 60). A
 *  case that forks while threads allocate keeps its parent side there (the
 *  fork handlers' locking, raced) and leaves the child's allocations to the
 *  release stage. */
bool child_malloc_unsafe_after_fork(const char *test);

/** A role a child can play: `name` with at least `nargs` arguments. */
typedef struct {
    const char *name;
    int nargs;
    int (*fn)(char **args);
} child_role_t;

/** In main(): when argv is "<test> --child ROLE ARGS...", run ROLE from
 *  `roles` (ended by {NULL}) and store its exit status in *status: true.
 *  An unknown role or too few arguments: status 1 and a message. False when
 *  this is no child (run the tests). */
bool child_dispatch(int argc, char **argv, const child_role_t *roles, int *status);

#endif
