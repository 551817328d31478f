/*
 * Shared arenas under the real kernel (issue: arenas, SICM §2.5).
 *
 *   vm_arena_shared pair NODE   a shared arena on NODE; a second process attaches it by name and
 *                               both allocate, hand each other blocks (pointers stored in the
 *                               arena itself), read and free them, at once; every page of every
 *                               block on NODE, seen from both processes
 *   vm_arena_shared kill NODE   a process is killed (SIGKILL) while it holds the arena's lock;
 *                               the other repairs the state and carries on
 *
 * Segments go to $LOCI_SHM_DIR (the guest has no /dev/shm). Exit 0 ok, 1 a check failed, 2 setup.
 * Holding the lock on purpose needs shheap_lock(), so this program links loci's internals.
 */
#include "arena/arena.h"
#include "page_nodes.h"

#include <loci.h>

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static int failures;

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "vm_arena_shared: %s:%d: ", __FILE__, __LINE__);                      \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fputc('\n', stderr);                                                                   \
            failures++;                                                                            \
        }                                                                                          \
    } while (0)

static loci_arena_t *create(const char *name, int node, size_t size)
{
    char intent[32];
    snprintf(intent, sizeof intent, "target=node:%d", node);
    loci_arena_unlink_shared(name); /* a previous run's */
    loci_arena_t *ar = loci_arena_create_shared(name, intent, size);
    if (!ar) {
        fprintf(stderr, "vm_arena_shared: create %s: %s\n", name, loci_last_error());
        exit(2);
    }
    return ar;
}

/* In a child: give up what fork handed over and attach by name, as an unrelated process would. */
static loci_arena_t *reattach(loci_arena_t *inherited, const char *name)
{
    loci_arena_destroy(inherited);
    loci_arena_t *ar = loci_arena_attach(name);
    if (!ar)
        fprintf(stderr, "vm_arena_shared: attach %s: %s\n", name, loci_last_error());
    return ar;
}

/* ---- pair: two processes at once ------------------------------------------------------- */

enum { ROUNDS = 2000, SLOTS = 64 };

/* The mailbox lives in the arena: each process posts pointers there for the other. */
typedef struct {
    _Atomic(unsigned *) slot[2][SLOTS]; /* [to whom][i] */
} mailbox_t;

static int converse(loci_arena_t *ar, mailbox_t *box, int me, int node)
{
    int bad = 0, misplaced = 0;
    unsigned tag = 0x5a5a0000u | (unsigned)me;
    for (unsigned i = 0; i < ROUNDS; i++) {
        size_t n = 16 + (i * 2654435761u) % (i % 40 == 0 ? 40000 : 1500);
        unsigned *p = loci_arena_alloc(ar, n);
        if (!p) {
            fprintf(stderr, "vm_arena_shared: %d: alloc: %s\n", me, loci_last_error());
            return 1;
        }
        n = loci_usable_size(p); /* all of it stamped: the other reads all of it */
        for (size_t k = 0; k < n / sizeof *p; k++)
            p[k] = tag ^ (unsigned)k;
        misplaced += !pages_on_node("a block just written", p, n, node);
        /* post it; take what the other posted in the same slot, if anything */
        unsigned *q = atomic_exchange(&box->slot[1 - me][i % SLOTS], p);
        if (q) /* a block of ours the other did not take yet: ours to free */
            loci_free(q);
        unsigned *r = atomic_exchange(&box->slot[me][i % SLOTS], NULL);
        if (r) {
            size_t m = loci_usable_size(r) / sizeof *r;
            bad += m == 0 || loci_arena_of(r) != ar;
            for (size_t k = 0; k < m; k++) /* (which also maps its pages here: move_pages sees them) */
                bad += r[k] != ((tag ^ 1) ^ (unsigned)k);
            misplaced += !pages_on_node("a block of the other process", r, m * sizeof *r, node);
            loci_free(r);
        }
    }
    CHECK(bad == 0, "process %d: %d blocks of the other process read wrong", me, bad);
    CHECK(misplaced == 0, "process %d: %d blocks not on node %d", me, misplaced, node);
    return bad || misplaced;
}

static void test_pair(int node)
{
    loci_arena_t *ar = create("vm-pair", node, 64 << 20);
    mailbox_t *box = loci_arena_alloc(ar, sizeof *box);
    memset(box, 0, sizeof *box);
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        loci_arena_t *mine = reattach(ar, "vm-pair");
        /* box is the arena's first block: the same address here */
        _exit(!mine || converse(mine, box, 1, node));
    }
    int rc = converse(ar, box, 0, node);
    int st;
    waitpid(pid, &st, 0);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "the attached process failed (status %#x)", st);
    for (int w = 0; w < 2; w++) /* what was posted last and never taken */
        for (int i = 0; i < SLOTS; i++)
            loci_free(atomic_exchange(&box->slot[w][i], NULL));
    loci_free(box);
    loci_stats_t s;
    loci_arena_stats(ar, &s);
    CHECK(s.bytes_in_use == 0 && s.allocations == s.frees, "after both: %llu bytes in use, %llu allocations, "
          "%llu frees", (unsigned long long)s.bytes_in_use, (unsigned long long)s.allocations,
          (unsigned long long)s.frees);
    if (!rc && !failures)
        printf("ok   2 processes x %d rounds on node %d: %llu allocations, every block read by the other process, "
               "every page on node %d, nothing left\n", ROUNDS, node, (unsigned long long)s.allocations, node);
    loci_arena_destroy(ar);
}

/* ---- kill: a process dies holding the lock ------------------------------------------------ */

static void test_kill(int node)
{
    loci_arena_t *ar = create("vm-kill", node, 16 << 20);
    char *mine = loci_arena_alloc(ar, 5000);
    strcpy(mine, "survives");
    int ready[2];
    if (pipe(ready) != 0)
        exit(2);
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        loci_arena_t *other = reattach(ar, "vm-kill");
        char *its = other ? loci_arena_alloc(other, 300) : NULL;
        if (!its || shheap_lock(other->sh->meta) != 0)
            _exit(1);
        char c = 1;
        if (write(ready[1], &c, 1) != 1)
            _exit(1);
        pause(); /* holding the lock */
        _exit(1);
    }
    char c;
    CHECK(read(ready[0], &c, 1) == 1, "the child did not take the lock");
    kill(pid, SIGKILL);
    int st;
    waitpid(pid, &st, 0);
    CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL, "the child was not killed (status %#x)", st);
    /* the next allocation gets EOWNERDEAD, repairs, and goes on */
    char *after = loci_arena_alloc(ar, 100000);
    CHECK(after != NULL, "allocation after the kill: %s", loci_last_error());
    if (after) {
        memset(after, 7, 100000);
        CHECK(pages_on_node("allocated after the kill", after, 100000, node), "not on node %d", node);
        loci_free(after);
    }
    CHECK(strcmp(mine, "survives") == 0, "data changed");
    loci_free(mine);
    loci_stats_t s;
    loci_arena_stats(ar, &s);
    /* the dead process's 300-byte block stays allocated (it could have stored it anywhere) */
    CHECK(s.bytes_in_use == 320, "%llu bytes in use, expected the dead process's 320",
          (unsigned long long)s.bytes_in_use);
    if (!failures)
        printf("ok   a process killed holding the lock; the other repaired the arena and went on "
               "(%llu allocations, %llu frees)\n", (unsigned long long)s.allocations, (unsigned long long)s.frees);
    loci_arena_destroy(ar);
}

int main(int argc, char **argv)
{
    if (argc != 3 || loci_init() != 0) {
        fprintf(stderr, "usage: vm_arena_shared pair|kill NODE (%s)\n", loci_last_error());
        return 2;
    }
    if (!strcmp(argv[1], "pair"))
        test_pair(atoi(argv[2]));
    else if (!strcmp(argv[1], "kill"))
        test_kill(atoi(argv[2]));
    else
        return 2;
    loci_fini();
    return failures ? 1 : 0;
}
