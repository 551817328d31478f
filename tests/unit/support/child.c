#include "child.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <grp.h>
#include <poll.h>
#include <signal.h>
#include <time.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

child_t child_spawn(const char *const *args, const char *store_dir, int uid)
{
    char *argv[12] = {"loci-test-child", "--child"};
    int n = 2;
    for (; args[n - 2] && n < 11; n++)
        argv[n] = (char *)args[n - 2];
    argv[n] = NULL;
    char *envp[256], store[600];
    int e = 0;
    for (char **v = environ; *v && e < 250; v++)
        if (!store_dir || strncmp(*v, "LOCI_STORE_DIR=", 15) != 0)
            envp[e++] = *v;
    if (store_dir) {
        snprintf(store, sizeof store, "LOCI_STORE_DIR=%s", store_dir);
        envp[e++] = store;
    }
    envp[e] = NULL;
    int to[2], from[2];
    assert_int_equal(pipe(to), 0);
    assert_int_equal(pipe(from), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        dup2(to[0], 0);
        dup2(from[1], 1);
        if (uid >= 0 && (setgroups(0, NULL) != 0 || setgid((gid_t)uid) != 0 || setuid((uid_t)uid) != 0))
            _exit(97);
        execve("/proc/self/exe", argv, envp);
        _exit(98);
    }
    close(to[0]);
    close(from[1]);
    return (child_t){pid, to[1], from[0]};
}

int child_reap(child_t *k)
{
    int st;
    close(k->in);
    close(k->out);
    assert_int_equal(waitpid(k->pid, &st, 0), k->pid);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

int child_wait_for(child_t *k, unsigned timeout_s, char *out, size_t len)
{
    struct timespec now, end;
    clock_gettime(CLOCK_MONOTONIC, &end);
    end.tv_sec += timeout_s;
    size_t got = 0;
    for (;;) {
        clock_gettime(CLOCK_MONOTONIC, &now);
        long left_ms = (end.tv_sec - now.tv_sec) * 1000 + (end.tv_nsec - now.tv_nsec) / 1000000;
        struct pollfd p = {k->out, POLLIN, 0};
        int ready = left_ms > 0 ? poll(&p, 1, (int)left_ms) : 0;
        if (ready < 0 && errno == EINTR)
            continue;
        if (ready <= 0) {
            kill(k->pid, SIGKILL);
            child_reap(k);
            out[got] = '\0';
            return -1;
        }
        char sink[256];
        bool room = got + 1 < len;
        ssize_t n = read(k->out, room ? out + got : sink, room ? len - 1 - got : sizeof sink);
        if (n <= 0)
            break;
        if (room)
            got += (size_t)n;
    }
    out[got] = '\0';
    return child_reap(k);
}

int child_run(const char *const *args)
{
    child_t k = child_spawn(args, NULL, -1);
    return child_reap(&k);
}

bool child_dispatch(int argc, char **argv, const child_role_t *roles, int *status)
{
    if (argc < 3 || strcmp(argv[1], "--child") != 0)
        return false;
    for (const child_role_t *r = roles; r->name; r++)
        if (strcmp(argv[2], r->name) == 0) {
            if (argc - 3 < r->nargs)
                break;
            *status = r->fn(argv + 3);
            return true;
        }
    fprintf(stderr, "%s: no child role \"%s\" with %d arguments\n", argv[0], argv[2], argc - 3);
    *status = 1;
    return true;
}

int child_fork_stderr(void (*body)(void *), void *arg, char *msg, size_t len)
{
    int err[2];
    if (pipe(err) != 0)
        return -1;
    pid_t pid = fork();
    if (pid == 0) {
        dup2(err[1], 2);
        body(arg);
        _exit(0);
    }
    close(err[1]);
    size_t got = 0;
    for (ssize_t n; got + 1 < len && (n = read(err[0], msg + got, len - 1 - got)) > 0;)
        got += (size_t)n;
    msg[got] = '\0';
    close(err[0]);
    int status = 0;
    if (pid < 0 || waitpid(pid, &status, 0) != pid)
        return -1;
    return WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WEXITSTATUS(status);
}

#if defined(__SANITIZE_THREAD__)
#define UNDER_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define UNDER_TSAN 1
#endif
#endif

bool child_threads_unsupported_after_fork(const char *test)
{
#ifdef UNDER_TSAN
    fprintf(stderr, "%s: skipped under ThreadSanitizer: its forked child starts threads after a fork of a "
                    "multithreaded process, which ThreadSanitizer does not support (the release and ASan stages "
                    "run it)\n", test);
    return true;
#else
    (void)test;
    return false;
#endif
}

#if defined(__SANITIZE_ADDRESS__)
#define UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UNDER_ASAN 1
#endif
#endif

bool child_malloc_unsafe_after_fork(const char *test)
{
#if defined(UNDER_TSAN) || defined(UNDER_ASAN)
    fprintf(stderr, "%s: under a sanitizer the forked children exit at once: its malloc is not fork-safe (a "
                    "child can block in it on a lock a parent thread held at fork); the parent's fork handlers "
                    "still run raced, and the release stage runs the children\n", test);
    return true;
#else
    (void)test;
    return false;
#endif
}
