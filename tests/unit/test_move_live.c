/*
 * Moves the program's threads never notice (issue 36 item 1): an arena
 * moved between DRAM and the ssd0 file tier, thousands of times, the way
 * tiering moves it (arena_move), while threads store into it flat out.
 * Each writer owns words spread over every page and checks, before each
 * store, that the word still holds its own last store: a store lost to a
 * move shows at once, and every word is checked again at the end.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "arena/arena.h"
#include "loci.h"
#include "support/scratch.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { WRITERS = 3, PAGES = 256, PAGE_WORDS = 4096 / sizeof(uint64_t) };

typedef struct {
    _Atomic uint64_t *words; /* PAGES pages */
    int id;
    _Atomic int *stop;
    long lost, rounds;
    uint64_t last;           /* the value of its last store */
} writer_t;

/* Writer w owns word w of every 8-word run of each page. */
static _Atomic uint64_t *word_of(const writer_t *w, size_t page, size_t k)
{
    return &w->words[page * PAGE_WORDS + k * 8 + (size_t)w->id];
}

static void *writer(void *arg)
{
    writer_t *w = arg;
    while (!atomic_load_explicit(w->stop, memory_order_relaxed)) {
        uint64_t v = w->last + 1;
        for (size_t p = 0; p < PAGES; p++)
            for (size_t k = 0; k < PAGE_WORDS / 8; k += 16) {
                _Atomic uint64_t *x = word_of(w, p, k);
                if (atomic_load_explicit(x, memory_order_relaxed) != w->last)
                    w->lost++;
                atomic_store_explicit(x, v, memory_order_relaxed);
            }
        w->last = v;
        w->rounds++;
    }
    return NULL;
}

static const char *name_of(const loci_target_t *t)
{
    static __thread loci_target_info_t info;
    return t && loci_target_info(t, &info) == 0 ? info.name : "(none)";
}

static void stores_survive_thousands_of_file_tier_moves(void **state)
{
    use_this_machine();
    loci_arena_t *ar = loci_arena_create("", 0);
    assert_non_null(ar);
    _Atomic uint64_t *words = loci_arena_alloc(ar, PAGES * 4096);
    assert_non_null(words);
    memset((void *)words, 0, PAGES * 4096);
    _Atomic int stop = 0;
    writer_t w[WRITERS];
    pthread_t tid[WRITERS];
    for (int i = 0; i < WRITERS; i++) {
        w[i] = (writer_t){.words = words, .id = i, .stop = &stop};
        assert_int_equal(pthread_create(&tid[i], NULL, writer, &w[i]), 0);
    }
    const loci_target_t *to[2] = {loci_target_by_name("ssd0"), loci_target_by_name("dram0")};
    int moves = 0;
    for (int i = 0; i < 2000; i++) {
        int rc = arena_move(ar, to[i % 2], true);
        if (rc != 0)
            fail_msg("move %d to %s: %s", i, name_of(to[i % 2]), loci_last_error());
        moves++;
    }
    atomic_store(&stop, 1);
    long lost = 0, rounds = 0;
    for (int i = 0; i < WRITERS; i++) {
        pthread_join(tid[i], NULL);
        lost += w[i].lost;
        rounds += w[i].rounds;
        for (size_t p = 0; p < PAGES; p++)
            for (size_t k = 0; k < PAGE_WORDS / 8; k += 16)
                if (atomic_load(word_of(&w[i], p, k)) != w[i].last)
                    lost++;
    }
    print_message("%d moves between dram0 and ssd0, %ld rounds of stores by %d threads, %ld lost\n", moves, rounds,
                  WRITERS, lost);
    assert_int_equal(lost, 0);
    loci_arena_destroy(ar);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(stores_survive_thousands_of_file_tier_moves),
    };
    return cmocka_run_group_tests(tests, scratch_setup, scratch_teardown);
}
