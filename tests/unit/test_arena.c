/*
 * Private arenas as a user sees them (docs/ARENAS.md): allocation, lookup,
 * isolation, max_bytes, bad input, the intent's fallback for an empty arena
 * (a capped hbm0 makes "full" deterministic), moves and their refusals,
 * asynchronous moves, concurrency. Real page placement is checked in the VM
 * (tests/vm/vm_arena.c); here NUMA moves run on a simulated KNL
 * (LOCI_TOPOLOGY: placement recorded, not applied), and moves between DRAM
 * and the ssd0 file tier run for real on this machine.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "arena/arena.h"
#include "loci.h"
#include "support/child.h"
#include "support/scratch.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* Simulated KNL (dram0 = node 0, hbm0 = node 1), with hbm0 capped by the
 * admin at 64 MiB when `capped`. */
static void use_knl(bool capped)
{
    use_topology("knl-flat.xml", capped ? "[target hbm0]\nnuma_node = 1\ncapacity = 64MiB\n" : "");
}


static const char *name_of(const loci_target_t *t)
{
    static __thread loci_target_info_t info;
    if (!t || loci_target_info(t, &info) != 0)
        return "(none)";
    return info.name;
}

static loci_arena_t *arena(const char *intent, size_t max_bytes)
{
    loci_arena_t *ar = loci_arena_create(intent, max_bytes);
    if (!ar)
        fail_msg("arena \"%s\": %s", intent, loci_last_error());
    return ar;
}

/* ---- objects with a checksum ---------------------------------------------------- */

enum { NOBJ = 1000 };
typedef struct {
    unsigned char *p[NOBJ];
    size_t size[NOBJ];
    uint64_t sum;
} objects_t;

/* Mixed sizes: mostly small, some of several pages, a few big (dedicated extents). */
static size_t mixed_size(unsigned i)
{
    unsigned r = i * 2654435761u;
    return i % 97 == 0 ? (300u << 10) + r % (2u << 20) : i % 7 == 0 ? 4096 + r % 60000 : 1 + r % 700;
}

static uint64_t checksum(const objects_t *o)
{
    uint64_t h = 1469598103934665603ull;
    for (int i = 0; i < NOBJ; i++)
        for (size_t k = 0; k < o->size[i]; k += 61)
            h = (h ^ o->p[i][k]) * 1099511628211ull;
    return h;
}

static void fill(loci_arena_t *ar, objects_t *o)
{
    for (unsigned i = 0; i < NOBJ; i++) {
        o->size[i] = mixed_size(i);
        o->p[i] = loci_arena_alloc(ar, o->size[i]);
        assert_non_null(o->p[i]);
        for (size_t k = 0; k < o->size[i]; k++)
            o->p[i][k] = (unsigned char)(i * 31 + k);
    }
    o->sum = checksum(o);
}

/* Same addresses, same bytes, same arena, and loci's record of the target. */
static void check(loci_arena_t *ar, const objects_t *o, const char *target)
{
    assert_true(checksum(o) == o->sum);
    assert_string_equal(name_of(loci_arena_target(ar)), target);
    for (int i = 0; i < NOBJ; i += 7) {
        assert_ptr_equal(loci_arena_of(o->p[i] + o->size[i] / 2), ar);
        assert_string_equal(name_of(loci_ptr_target(o->p[i])), target);
    }
}

static void release(objects_t *o)
{
    for (int i = 0; i < NOBJ; i++)
        loci_free(o->p[i]);
}

/* ---- tests ----------------------------------------------------------------------- */

static void alloc_free_realloc(void **state)
{
    use_this_machine();
    loci_arena_t *ar = arena("", 0);
    assert_string_equal(name_of(loci_arena_target(ar)), "dram0");
    void *z1 = loci_arena_alloc(ar, 0), *z2 = loci_arena_alloc(ar, 0);
    assert_non_null(z1);
    assert_ptr_not_equal(z1, z2);
    static const size_t sizes[] = {1, 100, 4096, 300 << 10, 5 << 20};
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
        char *p = loci_arena_alloc(ar, sizes[i]);
        assert_non_null(p);
        memset(p, 0x5a, sizes[i]);
        assert_true(loci_usable_size(p) >= sizes[i]);
        assert_ptr_equal(loci_arena_of(p), ar);
        assert_ptr_equal(loci_arena_of(p + sizes[i] - 1), ar); /* interior pointers too */
        assert_string_equal(name_of(loci_ptr_target(p)), "dram0");
        /* realloc keeps it in the arena, contents included */
        char *q = loci_realloc(p, 2 * sizes[i] + 10);
        assert_non_null(q);
        assert_ptr_equal(loci_arena_of(q), ar);
        assert_int_equal(q[sizes[i] - 1], 0x5a);
        q = loci_realloc(q, 1);
        assert_ptr_equal(loci_arena_of(q), ar);
        assert_int_equal(q[0], 0x5a);
        loci_free(q);
    }
    for (size_t align = 16; align <= (4u << 20); align <<= 1) {
        void *p = loci_arena_aligned_alloc(ar, align, 100);
        assert_non_null(p);
        assert_int_equal((uintptr_t)p % align, 0);
        assert_ptr_equal(loci_arena_of(p), ar);
        loci_free(p);
    }
    loci_stats_t st;
    assert_int_equal(loci_arena_stats(ar, &st), 0);
    assert_true(st.allocations >= 2);
    loci_free(z1);
    loci_free(z2);
    void *gone = loci_arena_alloc(ar, 100);
    loci_arena_destroy(ar); /* releases what is still allocated */
    assert_null(loci_arena_of(gone));
    loci_arena_destroy(NULL);
}

static void lookup(void **state)
{
    use_this_machine();
    loci_arena_t *a = arena("", 0), *b = arena("", 0);
    loci_allocator_t *al = loci_allocator_create("");
    char *pa = loci_arena_alloc(a, 200), *pb = loci_arena_alloc(b, 1 << 20), *pl = loci_alloc(al, 200);
    assert_ptr_equal(loci_arena_of(pa), a);
    assert_ptr_equal(loci_arena_of(pa + 199), a);
    assert_ptr_equal(loci_arena_of(pb + 12345), b);
    int on_stack;
    char *m = malloc(10);
    errno = 0;
    assert_null(loci_arena_of(pl)); /* an allocator's block is in no arena */
    assert_int_equal(errno, ENOENT);
    assert_null(loci_arena_of(&on_stack));
    assert_null(loci_arena_of(m));
    assert_null(loci_arena_of(NULL));
    assert_non_null(strstr(loci_last_error(), "in no arena"));
    free(m);
    loci_free(pl);
    loci_arena_destroy(a);
    loci_arena_destroy(b);
}

/* Blocks of two arenas and an allocator, allocated in turns, never share a page. */
static void isolation(void **state)
{
    use_this_machine();
    loci_arena_t *a = arena("", 0), *b = arena("", 0);
    loci_allocator_t *al = loci_allocator_create("");
    enum { N = 3000 };
    static char *blocks[3][N];
    for (int i = 0; i < N; i++) {
        size_t size = 8 + (size_t)(i % 50) * 40;
        blocks[0][i] = loci_arena_alloc(a, size);
        blocks[1][i] = loci_arena_alloc(b, size);
        blocks[2][i] = loci_alloc(al, size);
    }
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
    for (int k = 0; k < 3; k++)
        for (int i = 0; i < N; i++) {
            /* the first and last page a block touches belong to its owner alone */
            uintptr_t first = (uintptr_t)blocks[k][i] & ~(page - 1);
            uintptr_t last = ((uintptr_t)blocks[k][i] + loci_usable_size(blocks[k][i]) - 1) & ~(page - 1);
            loci_arena_t *want = k == 0 ? a : k == 1 ? b : NULL;
            assert_ptr_equal(loci_arena_of((void *)first), want);
            assert_ptr_equal(loci_arena_of((void *)(last + page - 1)), want);
        }
    for (int i = 0; i < N; i++)
        loci_free(blocks[2][i]);
    loci_arena_destroy(a);
    loci_arena_destroy(b);
}

static void max_bytes_is_enforced(void **state)
{
    use_this_machine();
    const size_t cap = 1 << 20;
    loci_arena_t *ar = arena("", cap);
    enum { MAX = 2000 };
    static void *p[MAX];
    int n = 0;
    size_t usable = 0;
    for (; n < MAX && (p[n] = loci_arena_alloc(ar, 1000)); n++)
        usable += loci_usable_size(p[n]);
    assert_true(n < MAX);
    assert_int_equal(errno, ENOMEM);
    assert_non_null(strstr(loci_last_error(), "max_bytes"));
    assert_true(usable <= cap);
    assert_true(usable + 1024 > cap); /* nothing refused below the cap */
    loci_stats_t st;
    assert_int_equal(loci_arena_stats(ar, &st), 0);
    assert_true(st.bytes_in_use <= cap);
    assert_null(loci_arena_alloc(ar, 2 << 20));
    /* realloc past the cap fails and keeps the block */
    memset(p[0], 9, 1000);
    assert_null(loci_realloc(p[0], 900 << 10));
    assert_int_equal(((char *)p[0])[999], 9);
    /* freeing makes room again, from any thread: no lock held anywhere */
    for (int i = 0; i < n / 2; i++)
        loci_free(p[i]);
    for (int i = 0; i < n / 2; i++)
        assert_non_null(p[i] = loci_arena_alloc(ar, 1000));
    assert_null(loci_arena_alloc(ar, 1000));
    for (int i = 0; i < n; i++)
        loci_free(p[i]);
    assert_non_null(p[0] = loci_arena_alloc(ar, 900 << 10)); /* a big block fits once the room is back */
    loci_arena_destroy(ar);
}

struct budget_arg {
    loci_arena_t *ar;
    size_t usable;
    void *p[4000];
    int n;
};

static void *fill_budget(void *arg)
{
    struct budget_arg *b = arg;
    for (b->n = 0; b->n < 4000 && (b->p[b->n] = loci_arena_alloc(b->ar, 64 + (b->n % 8) * 100)); b->n++)
        b->usable += loci_usable_size(b->p[b->n]);
    return NULL;
}

static void max_bytes_across_threads(void **state)
{
    use_this_machine();
    enum { THREADS = 4 };
    const size_t cap = 512 << 10;
    loci_arena_t *ar = arena("", cap);
    static struct budget_arg args[THREADS];
    pthread_t tid[THREADS];
    for (int i = 0; i < THREADS; i++) {
        args[i] = (struct budget_arg){.ar = ar};
        pthread_create(&tid[i], NULL, fill_budget, &args[i]);
    }
    size_t total = 0;
    for (int i = 0; i < THREADS; i++) {
        pthread_join(tid[i], NULL);
        total += args[i].usable;
    }
    assert_true(total <= cap);
    assert_true(total + 4 * 1024 > cap);
    for (int i = 0; i < THREADS; i++)
        for (int k = 0; k < args[i].n; k++)
            loci_free(args[i].p[k]);
    loci_arena_destroy(ar);
}

static void bad_input(void **state)
{
    use_this_machine();
    assert_null(loci_arena_create("bandwith=high", 0));
    assert_int_equal(errno, EINVAL);
    assert_non_null(strstr(loci_last_error(), "did you mean 'bandwidth'"));
    assert_null(loci_arena_create("kind=hbm!", 0));
    assert_int_equal(errno, ENOENT);
    assert_null(loci_arena_alloc(NULL, 10));
    assert_int_equal(errno, EINVAL);
    loci_arena_t *ar = arena("", 0);
    assert_null(loci_arena_aligned_alloc(ar, 48, 10));
    assert_int_equal(errno, EINVAL);
    assert_int_equal(loci_arena_move(NULL, loci_target_by_name("dram0")), LOCI_EINVAL);
    assert_int_equal(loci_arena_move(ar, NULL), LOCI_EINVAL);
    assert_non_null(strstr(loci_last_error(), "NULL target"));
    assert_null(loci_arena_target(NULL));
    loci_stats_t st;
    assert_int_equal(loci_arena_stats(NULL, &st), LOCI_EINVAL);
    assert_null(loci_arena_move_async(NULL, NULL));
    assert_int_equal(errno, EINVAL);
    assert_int_equal(loci_arena_move_wait(NULL), LOCI_EINVAL);
    assert_int_equal(loci_arena_move_done(NULL), LOCI_EINVAL);
    /* moving to where it is: nothing to do */
    assert_int_equal(loci_arena_move(ar, loci_target_by_name("dram0")), 0);
    loci_arena_destroy(ar);
}

static void move_between_numa_targets(void **state)
{
    use_knl(false);
    loci_arena_t *ar = arena("kind=hbm", 0);
    static objects_t o;
    fill(ar, &o);
    check(ar, &o, "hbm0");
    loci_stats_t hbm;
    assert_int_equal(loci_target_stats(loci_target_by_name("hbm0"), &hbm), 0);
    assert_true(hbm.bytes_in_use > 0);

    assert_int_equal(loci_arena_move(ar, loci_target_by_name("dram0")), 0);
    check(ar, &o, "dram0");
    char *later = loci_arena_alloc(ar, 1 << 20); /* new memory follows the arena */
    assert_string_equal(name_of(loci_ptr_target(later)), "dram0");
    assert_int_equal(loci_target_stats(loci_target_by_name("hbm0"), &hbm), 0);
    assert_int_equal(hbm.bytes_in_use, 0); /* hbm0's account was handed over */

    assert_int_equal(loci_arena_move(ar, loci_target_by_name("node:1")), 0);
    check(ar, &o, "hbm0");
    assert_string_equal(name_of(loci_ptr_target(later)), "hbm0");
    loci_free(later);
    release(&o);
    loci_arena_destroy(ar);
}

static void move_refused_when_it_cannot_fit(void **state)
{
    use_knl(true);
    loci_arena_t *ar = arena("kind=dram", 0);
    enum { N = 10 };
    char *p[N];
    for (int i = 0; i < N; i++) { /* 100 MiB: more than hbm0's 64 MiB cap */
        p[i] = loci_arena_alloc(ar, 10 << 20);
        memset(p[i], i, 10 << 20);
    }
    assert_int_equal(loci_arena_move(ar, loci_target_by_name("hbm0")), LOCI_ENOMEM);
    assert_non_null(strstr(loci_last_error(), "hbm0"));
    assert_non_null(strstr(loci_last_error(), "cap"));
    /* nothing moved, nothing half done */
    assert_string_equal(name_of(loci_arena_target(ar)), "dram0");
    for (int i = 0; i < N; i++) {
        assert_string_equal(name_of(loci_ptr_target(p[i])), "dram0");
        assert_int_equal(p[i][(10 << 20) - 1], i);
    }
    loci_stats_t hbm;
    assert_int_equal(loci_target_stats(loci_target_by_name("hbm0"), &hbm), 0);
    assert_int_equal(hbm.bytes_in_use, 0);
    /* and a smaller arena fits */
    for (int i = 0; i < N; i++)
        if (i >= 4)
            loci_free(p[i]);
    assert_int_equal(loci_arena_move(ar, loci_target_by_name("hbm0")), 0);
    assert_int_equal(p[3][0], 3);
    for (int i = 0; i < 4; i++)
        loci_free(p[i]);
    loci_arena_destroy(ar);
}

/* An empty arena (no block allocated yet) takes its first block where its
 * intent's fallback says when its best target cannot (hbm0 capped at 64 MiB),
 * and loci_arena_target then names where it is. */
static void empty_arena_follows_its_fallback(void **state)
{
    use_knl(true);
    loci_arena_t *next = arena("bandwidth=high", 0); /* fallback=next by default */
    assert_string_equal(name_of(loci_arena_target(next)), "hbm0");
    char *big = loci_arena_alloc(next, 96 << 20);
    if (!big)
        fail_msg("first 96 MiB of an empty bandwidth=high arena: %s", loci_last_error());
    assert_string_equal(name_of(loci_arena_target(next)), "dram0");
    assert_string_equal(name_of(loci_ptr_target(big)), "dram0");
    assert_ptr_equal(loci_arena_of(big + (50 << 20)), next);
    char *small = loci_arena_alloc(next, 100); /* the rest follows: one arena, one target */
    assert_string_equal(name_of(loci_ptr_target(small)), "dram0");
    loci_stats_t hbm;
    assert_int_equal(loci_target_stats(loci_target_by_name("hbm0"), &hbm), 0);
    assert_int_equal(hbm.bytes_in_use, 0);

    loci_arena_t *dflt = arena("kind=hbm!,fallback=default", 0); /* the local DRAM, though not a candidate */
    char *d = loci_arena_alloc(dflt, 96 << 20);
    if (!d)
        fail_msg("first 96 MiB of an empty fallback=default arena: %s", loci_last_error());
    assert_string_equal(name_of(loci_arena_target(dflt)), "dram0");
    assert_string_equal(name_of(loci_ptr_target(d)), "dram0");

    loci_arena_t *null = arena("bandwidth=high,fallback=null", 0);
    errno = 0;
    assert_null(loci_arena_alloc(null, 96 << 20));
    assert_int_equal(errno, ENOMEM);
    assert_non_null(strstr(loci_last_error(), "fallback=null"));
    assert_non_null(strstr(loci_last_error(), "capacity cap of 64.0 MiB"));
    assert_string_equal(name_of(loci_arena_target(null)), "hbm0"); /* nothing changed */
    char *fits = loci_arena_alloc(null, 1 << 20);
    assert_string_equal(name_of(loci_ptr_target(fits)), "hbm0");
    loci_arena_destroy(next);
    loci_arena_destroy(dflt);
    loci_arena_destroy(null);
}

static void alloc_in_aborting_arena(void *arg)
{
    (void)arg;
    loci_arena_alloc(loci_arena_create("kind=hbm!,fallback=abort", 0), 100 << 20);
}

static void empty_arena_fallback_abort_says_why(void **state)
{
    use_knl(true);
    char msg[2048];
    assert_int_equal(child_fork_stderr(alloc_in_aborting_arena, NULL, msg, sizeof msg), 128 + SIGABRT);
    assert_non_null(strstr(msg, "intent \"kind=hbm!,fallback=abort\": cannot allocate 104857600 bytes"));
    assert_non_null(strstr(msg, "(fallback=abort)"));
}

/* Once an arena has held a block it stays where that block went, emptied or
 * not; and an arena loci_arena_move put somewhere stays there. */
static void arena_that_held_data_never_spills(void **state)
{
    use_knl(true);
    loci_arena_t *ar = arena("bandwidth=high", 0);
    char *p = loci_arena_alloc(ar, 32 << 20);
    assert_string_equal(name_of(loci_ptr_target(p)), "hbm0");
    errno = 0;
    assert_null(loci_arena_alloc(ar, 48 << 20)); /* 32 + 48 > the cap */
    assert_int_equal(errno, ENOMEM);
    assert_non_null(strstr(loci_last_error(), "capacity cap of 64.0 MiB"));
    loci_free(p);
    errno = 0;
    assert_null(loci_arena_alloc(ar, 96 << 20)); /* emptied, but not empty: it stays */
    assert_int_equal(errno, ENOMEM);
    assert_string_equal(name_of(loci_arena_target(ar)), "hbm0");
    loci_arena_destroy(ar);

    loci_arena_t *moved = arena("kind=dram,fallback=default", 0);
    assert_int_equal(loci_arena_move(moved, loci_target_by_name("hbm0")), 0);
    errno = 0;
    assert_null(loci_arena_alloc(moved, 96 << 20));
    assert_int_equal(errno, ENOMEM);
    assert_string_equal(name_of(loci_arena_target(moved)), "hbm0");
    loci_arena_destroy(moved);
}

/* Threads that all miss on the full target at once: one takes the arena to
 * the fallback, the others follow it there. */
struct first_arg {
    loci_arena_t *ar;
    char *p;
};

static void *first_block(void *arg)
{
    struct first_arg *f = arg;
    f->p = loci_arena_alloc(f->ar, 72 << 20);
    return NULL;
}

static void empty_arena_fallback_across_threads(void **state)
{
    use_knl(true);
    enum { THREADS = 4 };
    loci_arena_t *ar = arena("bandwidth=high", 0);
    pthread_t tid[THREADS];
    struct first_arg args[THREADS];
    for (int i = 0; i < THREADS; i++) {
        args[i] = (struct first_arg){ar, NULL};
        pthread_create(&tid[i], NULL, first_block, &args[i]);
    }
    for (int i = 0; i < THREADS; i++) {
        pthread_join(tid[i], NULL);
        assert_non_null(args[i].p);
        assert_string_equal(name_of(loci_ptr_target(args[i].p)), "dram0");
    }
    assert_string_equal(name_of(loci_arena_target(ar)), "dram0");
    loci_arena_destroy(ar);
}

/* The arena's extents as files of the ssd0 tier, or not. */
static int extents_in_files(const objects_t *o)
{
    int n = 0;
    char path[4096];
    for (int i = 0; i < NOBJ; i++)
        n += provider_file_path(o->p[i], path, sizeof path, NULL) == 0;
    return n;
}

static int files_in_store(void)
{
    char cmd[600];
    snprintf(cmd, sizeof cmd, "exit $(ls %s | wc -l)", getenv("LOCI_STORE_DIR"));
    return WEXITSTATUS(system(cmd));
}

static void move_to_ssd_and_back_keeps_addresses(void **state)
{
    use_this_machine();
    int before = files_in_store();
    loci_arena_t *ar = arena("", 0);
    static objects_t o;
    fill(ar, &o);
    assert_int_equal(extents_in_files(&o), 0);

    assert_int_equal(loci_arena_move(ar, loci_target_by_name("ssd0")), 0);
    check(ar, &o, "ssd0");
    assert_int_equal(extents_in_files(&o), NOBJ); /* every block is in a file of the tier now */
    assert_true(files_in_store() > before);
    /* the arena keeps working there */
    char *later = loci_arena_alloc(ar, 3 << 20);
    memset(later, 0x77, 3 << 20);
    assert_string_equal(name_of(loci_ptr_target(later)), "ssd0");
    o.p[0] = loci_realloc(o.p[0], 5000);
    o.size[0] = 1;
    o.sum = checksum(&o);

    assert_int_equal(loci_arena_move(ar, loci_target_by_name("dram0")), 0);
    check(ar, &o, "dram0");
    assert_int_equal(extents_in_files(&o), 0);
    assert_int_equal(later[(3 << 20) - 1], 0x77);
    assert_int_equal(files_in_store(), before); /* the tier's files went with the move back */
    loci_free(later);
    release(&o);
    loci_arena_destroy(ar);
}

static void *hold_read_lock(void *arg)
{
    return (void *)(intptr_t)pthread_rwlock_rdlock(&((loci_arena_t *)arg)->lock);
}

static void *drop_read_lock(void *arg)
{
    return (void *)(intptr_t)pthread_rwlock_unlock(&((loci_arena_t *)arg)->lock);
}

/* Another thread inside the arena (here: holding what an allocation holds).
 * Without a way to keep the stores of threads using the arena while it goes
 * to a file tier (LOCI_ARENA_MOVE=migrate: no copies under userfaultfd), the
 * program's move copies with nothing touching the arena, as documented: it
 * is refused while another thread is inside, and a move loci would make by
 * itself is refused always. */
static void move_to_ssd_refused_while_in_use(void **state)
{
    use_this_machine();
    setenv("LOCI_ARENA_MOVE", "migrate", 1);
    loci_arena_t *ar = arena("", 0);
    char *p = loci_arena_alloc(ar, 1000);
    memset(p, 3, 1000);
    assert_int_equal(arena_move(ar, loci_target_by_name("ssd0"), true), LOCI_ENOTSUP);
    assert_non_null(strstr(loci_last_error(), "while the program may use it"));
    assert_non_null(strstr(loci_last_error(), "LOCI_ARENA_MOVE=migrate"));
    pthread_t t;
    void *rc;
    pthread_create(&t, NULL, hold_read_lock, ar);
    pthread_join(t, &rc);
    assert_int_equal((intptr_t)rc, 0);
    assert_int_equal(loci_arena_move(ar, loci_target_by_name("ssd0")), LOCI_EBUSY);
    assert_non_null(strstr(loci_last_error(), "with nothing touching it"));
    assert_string_equal(name_of(loci_arena_target(ar)), "dram0");
    char path[4096];
    assert_int_equal(provider_file_path(p, path, sizeof path, NULL), LOCI_ENOENT);
    pthread_create(&t, NULL, drop_read_lock, ar);
    pthread_join(t, NULL);
    assert_int_equal(loci_arena_move(ar, loci_target_by_name("ssd0")), 0);
    assert_int_equal(p[999], 3);
    unsetenv("LOCI_ARENA_MOVE");
    loci_arena_destroy(ar);
}

struct mover {
    loci_arena_t *ar;
    _Atomic int done, rc;
};

static void *move_to_ssd(void *arg)
{
    struct mover *m = arg;
    atomic_store(&m->rc, loci_arena_move(m->ar, loci_target_by_name("ssd0")));
    atomic_store(&m->done, 1);
    return NULL;
}

/* Where the stores of threads using the arena can be kept (a userfaultfd
 * that write-protects), a move to a file tier waits for an allocation in
 * the arena to end, as a move between NUMA nodes does, instead of refusing. */
static void move_to_ssd_waits_for_allocations(void **state)
{
    use_this_machine();
    loci_arena_t *ar = arena("", 0);
    char *p = loci_arena_alloc(ar, 1000);
    memset(p, 4, 1000);
    if (!arena_moves_live(ar, loci_target_by_name("ssd0"))) {
        loci_arena_destroy(ar);
        print_message("skipped: moves to a file tier cannot keep stores here (no userfaultfd that "
                      "write-protects for this process)\n");
        skip();
    }
    pthread_t t, mover_thread;
    pthread_create(&t, NULL, hold_read_lock, ar);
    pthread_join(t, NULL);
    struct mover m = {ar, 0, -1};
    pthread_create(&mover_thread, NULL, move_to_ssd, &m);
    usleep(100000);
    assert_int_equal(atomic_load(&m.done), 0); /* waiting for the allocation */
    pthread_create(&t, NULL, drop_read_lock, ar);
    pthread_join(t, NULL);
    pthread_join(mover_thread, NULL);
    assert_int_equal(atomic_load(&m.rc), 0);
    assert_string_equal(name_of(loci_arena_target(ar)), "ssd0");
    assert_int_equal(p[999], 4);
    loci_arena_destroy(ar);
}

/* mode=paged: the arena's memory is served by loci's chunk cache, and stays
 * on its file tier (paged pages cannot be handed over keeping addresses). */
static void paged_arena_stays_on_its_tier(void **state)
{
    use_this_machine();
    loci_arena_t *ar = loci_arena_create("kind=ssd,mode=paged!,cache=4MiB", 0);
    if (!ar) { /* mode=paged! is refused only where userfaultfd is */
        print_message("skipped: paged memory cannot run here: %s\n", loci_last_error());
        skip();
    }
    size_t n = 8u << 20; /* twice the cache: chunks go to the store and come back */
    unsigned char *p = loci_arena_alloc(ar, n);
    assert_non_null(p);
    for (size_t i = 0; i < n; i++)
        p[i] = (unsigned char)(i * 7);
    loci_cache_stats_t st;
    assert_int_equal(loci_cache_stats(p, &st), 0);
    assert_true(st.evictions > 0);
    assert_int_equal(loci_arena_move(ar, loci_target_by_name("dram0")), LOCI_ENOTSUP);
    assert_non_null(strstr(loci_last_error(), "mode=paged"));
    assert_string_equal(name_of(loci_arena_target(ar)), "ssd0");
    for (size_t i = 0; i < n; i += 4093)
        assert_int_equal(p[i], (unsigned char)(i * 7));
    loci_arena_destroy(ar);
}

static void async_moves(void **state)
{
    use_knl(true);
    loci_arena_t *ar = arena("kind=dram", 0);
    static objects_t o;
    fill(ar, &o);
    loci_arena_move_t *m = loci_arena_move_async(ar, loci_target_by_name("hbm0"));
    assert_non_null(m);
    while (!loci_arena_move_done(m))
        usleep(100);
    assert_int_equal(loci_arena_move_wait(m), 0);
    check(ar, &o, "hbm0");

    /* a failure comes back from the wait, message included */
    char *big = loci_arena_alloc(ar, 20 << 20);
    if (!big)
        fail_msg("%s", loci_last_error());
    assert_int_equal(loci_arena_move(ar, loci_target_by_name("dram0")), 0);
    char *more = loci_arena_alloc(ar, 40 << 20);
    m = loci_arena_move_async(ar, loci_target_by_name("hbm0"));
    assert_non_null(m);
    assert_int_equal(loci_arena_move_wait(m), LOCI_ENOMEM);
    assert_non_null(strstr(loci_last_error(), "hbm0"));
    check(ar, &o, "dram0");
    loci_free(big);
    loci_free(more);

    /* destroy waits for moves still running */
    m = loci_arena_move_async(ar, loci_target_by_name("hbm0"));
    assert_non_null(m);
    loci_arena_destroy(ar);
    assert_int_equal(loci_arena_move_wait(m), 0);
}

/* Threads allocate, write, check and free while the arena moves back and forth. */
struct churn_arg {
    loci_arena_t *ar;
    _Atomic int *stop;
    int bad; /* which check failed: 1 allocation, 2 contents, 4 arena, 8 target */
};

static void *churn(void *arg)
{
    struct churn_arg *c = arg;
    enum { K = 64 };
    unsigned char *p[K] = {0};
    size_t n[K] = {0};
    for (unsigned i = 0; !atomic_load(c->stop); i++) {
        unsigned k = i % K;
        if (p[k]) {
            for (size_t j = 0; j < n[k]; j++)
                c->bad |= (p[k][j] != (unsigned char)(k + n[k])) << 1;
            c->bad |= (loci_arena_of(p[k]) != c->ar) << 2;
            loci_target_info_t info;
            c->bad |= (loci_target_info(loci_ptr_target(p[k]), &info) != 0) << 3;
            loci_free(p[k]);
        }
        n[k] = 1 + (i * 7919u) % (i % 13 == 0 ? 200000 : 3000);
        p[k] = loci_arena_alloc(c->ar, n[k]);
        if (!p[k]) {
            fprintf(stderr, "churn: %s\n", loci_last_error());
            c->bad |= 1;
            break;
        }
        memset(p[k], (unsigned char)(k + n[k]), n[k]);
    }
    for (unsigned k = 0; k < K; k++)
        loci_free(p[k]);
    return NULL;
}

static void moves_under_concurrent_use(void **state)
{
    use_knl(false);
    enum { THREADS = 3 };
    loci_arena_t *ar = arena("kind=dram", 0);
    _Atomic int stop = 0;
    struct churn_arg args[THREADS];
    pthread_t tid[THREADS];
    for (int i = 0; i < THREADS; i++) {
        args[i] = (struct churn_arg){ar, &stop, 0};
        pthread_create(&tid[i], NULL, churn, &args[i]);
    }
    const loci_target_t *to[2] = {loci_target_by_name("hbm0"), loci_target_by_name("dram0")};
    for (int i = 0; i < 40; i++) {
        if (loci_arena_move(ar, to[i % 2]) != 0)
            fail_msg("move %d: %s", i, loci_last_error());
        usleep(2000);
    }
    atomic_store(&stop, 1);
    for (int i = 0; i < THREADS; i++) {
        pthread_join(tid[i], NULL);
        assert_int_equal(args[i].bad, 0);
    }
    loci_stats_t st;
    assert_int_equal(loci_arena_stats(ar, &st), 0);
    assert_int_equal(st.bytes_in_use, 0);
    assert_int_equal(st.allocations, st.frees);
    loci_arena_destroy(ar);
}

static void fini_releases_arenas(void **state)
{
    use_this_machine();
    for (int i = 0; i < 5; i++)
        assert_non_null(loci_arena_alloc(arena("", 0), 1 << 20));
    loci_fini(); /* no leak: every arena and its memory goes */
    assert_int_equal(loci_init(), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(alloc_free_realloc),
        cmocka_unit_test(lookup),
        cmocka_unit_test(isolation),
        cmocka_unit_test(max_bytes_is_enforced),
        cmocka_unit_test(max_bytes_across_threads),
        cmocka_unit_test(bad_input),
        cmocka_unit_test(move_between_numa_targets),
        cmocka_unit_test(move_refused_when_it_cannot_fit),
        cmocka_unit_test(empty_arena_follows_its_fallback),
        cmocka_unit_test(empty_arena_fallback_abort_says_why),
        cmocka_unit_test(arena_that_held_data_never_spills),
        cmocka_unit_test(empty_arena_fallback_across_threads),
        cmocka_unit_test(move_to_ssd_and_back_keeps_addresses),
        cmocka_unit_test(move_to_ssd_refused_while_in_use),
        cmocka_unit_test(move_to_ssd_waits_for_allocations),
        cmocka_unit_test(paged_arena_stays_on_its_tier),
        cmocka_unit_test(async_moves),
        cmocka_unit_test(moves_under_concurrent_use),
        cmocka_unit_test(fini_releases_arenas),
    };
    return cmocka_run_group_tests(tests, scratch_setup, scratch_teardown);
}
