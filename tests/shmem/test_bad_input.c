/*
 * Bad input to the partition calls, under oshrun (2..4 PEs): every refusal
 * returns -1 / NULL (with errno) on the PEs concerned — on every PE for the
 * collective calls — with a message naming what was wrong, and leaves
 * everything as it was: refused creates use up no id, refused frees and
 * reallocs leave the block live and its bytes unchanged, and the
 * partitions still work afterwards.
 */
#include "check.h"

#include <errno.h>
#include <loci_shmem.h>
#include <stdlib.h>
#include <string.h>

enum { MIB = 1 << 20 };

static int me, npes, last;

static void expect_message(const char *what, const char *needle)
{
    const char *msg = shmemx_hhm_last_error();
    CHECK(strstr(msg, needle), "%s: the message \"%s\" does not say \"%s\"", what, msg, needle);
}

static void refused_create(const char *what, const char *intent, size_t size, const char *needle)
{
    CHECK(shmemx_hhm_create(intent, size) == -1, "%s: created", what);
    expect_message(what, needle);
}

static void expect_null(const char *what, void *p, int err, const char *needle)
{
    CHECK(p == NULL && errno == err, "%s: %p, errno %d (expected NULL, %d)", what, p, errno, err);
    expect_message(what, needle);
}

static void creates(void)
{
    CHECK(shmemx_hhm_last_error()[0] == '\0', "a message before any failure");
    refused_create("NULL intent", NULL, MIB, "intent is NULL");
    refused_create("size 0", "near=pe", 0, "size 0");
    refused_create("misspelt key", "bandwith=high", MIB, "unknown key 'bandwith'");
    refused_create("unknown target", "target=nosuch", MIB, "nosuch");
    refused_create("file tier", "persist", MIB, "only NUMA memory can hold");
    refused_create("larger than the symmetric heap", "near=pe", (size_t)1 << 40, "SMA_SYMMETRIC_SIZE");

    /* not collective: the PEs disagree, every PE refuses, and says with whom */
    CHECK(shmemx_hhm_create("near=pe", me == last ? 2 * MIB : MIB) == -1, "sizes differ: created");
    expect_message("sizes differ", me == last ? "PE 0 asked for 1048576 bytes, this PE for 2097152" : "bytes");
    CHECK(shmemx_hhm_create(me == last ? "latency=low" : "near=pe", MIB) == -1, "intents differ: created");
    expect_message("intents differ", "passed another intent");
    CHECK(shmemx_hhm_create(me == last ? "bogus=1" : "near=pe", MIB) == -1, "one PE's intent bad: created");
    expect_message("one PE's intent bad", me == last ? "unknown key 'bogus'" : "refused this call");
}

/* shmemx_partition_create, _destroy and _last_error (include/loci_shmem.h, "Names") are SharP's
 * shmemx_hhm_* under the one noun: the same answer to the same call, and one message. Run when no
 * partition is left, so ids start at 0 again. */
static void aliases(void)
{
    CHECK(shmemx_partition_create(NULL, MIB) == -1, "NULL intent through shmemx_partition_create: created");
    CHECK(shmemx_partition_last_error() == shmemx_hhm_last_error(), "two last-error messages");
    expect_message("NULL intent through shmemx_partition_create", "intent is NULL");
    int id = shmemx_partition_create("near=pe", MIB);
    CHECK(id == 0, "shmemx_partition_create gave id %d, expected 0: %s", id, shmemx_partition_last_error());
    char *p = shmemx_partition_malloc(id, MIB);
    CHECK(p, "the whole partition made by shmemx_partition_create: %s", shmemx_partition_last_error());
    shmemx_partition_free(id, p);
    CHECK(shmemx_partition_destroy(id) == 0, "shmemx_partition_destroy: %s", shmemx_partition_last_error());
    CHECK(shmemx_hhm_create("near=pe", MIB) == id, "shmemx_hhm_create after it: another id");
    CHECK(shmemx_hhm_destroy(id) == 0, "shmemx_hhm_destroy: %s", shmemx_hhm_last_error());
    CHECK(shmemx_partition_destroy(id) == -1, "shmemx_partition_destroy: destroyed twice");
    expect_message("shmemx_partition_destroy twice", "partition id 0 does not exist (live partitions: none)");
}

int main(void)
{
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    last = npes - 1;
    creates();

    /* the same intent spelt differently on some PEs is the same intent; refusals used up no id */
    int a = shmemx_hhm_create(me % 2 ? " Bandwidth = HIGH" : "bandwidth=high", MIB);
    int b = shmemx_hhm_create("near=pe", MIB);
    CHECK(a == 0 && b == 1, "ids %d and %d after the refusals, expected 0 and 1: %s", a, b, shmemx_hhm_last_error());

    expect_null("id -1", shmemx_partition_malloc(-1, 8), EINVAL,
                "partition id -1 does not exist (live partitions: 0, 1)");
    expect_null("id 7", shmemx_partition_malloc(7, 8), EINVAL, "partition id 7 does not exist");
    expect_null("id 256", shmemx_partition_align(256, 64, 8), EINVAL, "partition id 256 does not exist");
    expect_null("beyond the partition", shmemx_partition_malloc(a, MIB + 1), ENOMEM,
                "1048577 bytes do not fit in partition 0 (1048576 bytes, intent \"bandwidth=high\"");
    expect_null("alignment 24", shmemx_partition_align(a, 24, 8), EINVAL, "alignment 24 is not a power of two");
    expect_null("alignment 0", shmemx_partition_align(a, 0, 8), EINVAL, "alignment 0 is not a power of two");
    expect_null("alignment beyond", shmemx_partition_align(a, 2 * MIB, 8), ENOMEM,
                "8 bytes aligned to 2097152 do not fit in partition 0");

    char *full = shmemx_partition_malloc(a, MIB);
    CHECK(full, "the whole partition: %s", shmemx_hhm_last_error());
    expect_null("no room", shmemx_partition_malloc(a, 16), ENOMEM,
                "no room for 16 bytes (aligned to 16) in partition 0");
    shmemx_partition_free(a, full);

    /* frees of what is not a live block of the partition: refused, nothing freed */
    char *y = shmemx_partition_malloc(b, 100);
    memset(y, 7, 100);
    shmemx_partition_free(a, y);
    expect_message("another partition's block", "belongs to partition 1, not to partition 0: pass id 1");
    CHECK(shmemx_partition_realloc(a, y, 10) == NULL && errno == EINVAL, "realloc in the wrong partition");
    expect_message("realloc in the wrong partition", "belongs to partition 1");
    shmemx_partition_free(9, y);
    expect_message("free with a bad id", "partition id 9 does not exist");
    for (int i = 0; i < 100; i++)
        CHECK(y[i] == 7, "a refused call changed byte %d", i);
    void *heap = shmem_malloc(64), *mine = malloc(64);
    int local;
    void *foreign[] = {heap, mine, &local};
    for (int i = 0; i < 3; i++) {
        shmemx_partition_free(a, foreign[i]);
        expect_message("memory of no partition", "is in no partition: memory from shmem_malloc goes back with "
                                                 "shmem_free, from malloc with free");
        expect_null("realloc of memory of no partition", shmemx_partition_realloc(a, foreign[i], 8), EINVAL,
                    "is in no partition");
    }
    shmem_free(heap);
    free(mine);
    char *z = shmemx_partition_malloc(a, 64);
    shmemx_partition_free(a, z);
    shmemx_partition_free(a, z);
    expect_message("double free", "does not start a live block: freed already, or a pointer into a block");
    z = shmemx_partition_malloc(a, 64);
    shmemx_partition_free(a, z + 16);
    expect_message("pointer into a block", "does not start a live block");
    char *w = shmemx_partition_malloc(a, 100);
    memset(w, 9, 100);
    expect_null("realloc beyond the partition", shmemx_partition_realloc(a, w, 2 * MIB), ENOMEM, "do not fit");
    for (int i = 0; i < 100; i++)
        CHECK(w[i] == 9, "a refused realloc changed byte %d", i);
    shmemx_partition_free(a, w);
    shmemx_partition_free(a, z);
    shmemx_partition_free(b, y);
    for (int id = 0; id < 2; id++) { /* everything refused above was left live, and is freed now */
        char *whole = shmemx_partition_malloc(id, MIB);
        CHECK(whole, "partition %d not whole again: %s", id, shmemx_hhm_last_error());
        shmemx_partition_free(id, whole);
    }

    /* collective misuse of destroy */
    CHECK(shmemx_hhm_destroy(9) == -1, "destroyed id 9");
    expect_message("destroy id 9", "partition id 9 does not exist");
    CHECK(shmemx_hhm_destroy(me == last ? b : a) == -1, "destroy of different ids went through");
    expect_message("destroy of different ids", "partition id");
    long *x = shmemx_partition_malloc(a, sizeof *x); /* both still there, and work */
    *x = -1;
    shmem_barrier_all();
    shmem_long_p(x, me, (me + 1) % npes);
    shmem_barrier_all();
    CHECK(*x == (me + npes - 1) % npes, "put after the refusals: %ld", *x);
    CHECK(shmemx_hhm_destroy(a) == 0 && shmemx_hhm_destroy(b) == 0, "destroy: %s", shmemx_hhm_last_error());
    CHECK(shmemx_hhm_destroy(a) == -1, "destroyed twice");
    expect_message("destroyed twice", "partition id 0 does not exist (live partitions: none)");
    aliases();
    if (me == 0)
        printf("test_bad_input: passed on %d PEs\n", npes);
    shmem_finalize();
    return 0;
}
