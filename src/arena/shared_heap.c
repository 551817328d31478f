/*
 * The allocator of a shared arena. Its whole state is in the metadata
 * segment that every attached process maps (sh_meta_t in arena.h); the data
 * segment is never read or written by it. The data is cut into 4 KiB pages;
 * each page is free, a slab of one size class (16 B ... 2 KiB, live blocks
 * in a bitmap beside the page's state), or part of a run of pages holding
 * one bigger block. One process-shared robust mutex guards it all.
 *
 * Crash safety: every change first writes what it is about to do in the
 * journal. A process killed holding the lock leaves at most one change half
 * done; the next process to take the lock gets EOWNERDEAD and repairs: an
 * allocation is undone (the dead process never used the block), a free is
 * finished, then the counters are recounted from the page states and bitmaps
 * and the hints cleared, and the mutex is marked consistent.
 */
#include "arena/arena.h"
#include "provider/named.h"
#include "units.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

#define SH_MAGIC 0x6c6f63692d617265ull /* "loci-are" */
#define SH_VERSION 1u
#define SH_SMALL_MAX 2048u

static const uint16_t class_size[SH_NCLASSES] = {16,  32,  48,  64,  80,  96,   112,  128,  160,  192,  224,  256,
                                                 320, 384, 448, 512, 640, 768, 896, 1024, 1280, 1536, 1792, 2048};

enum { PG_FREE = 0, PG_SLAB = 1u << 28, PG_RUN = 2u << 28, PG_TAIL = 3u << 28 };
#define PG_KIND(e) ((e) & (3u << 28))
#define PG_ARG(e) ((e) & SH_MAX_PAGES) /* slab: its class; run head: its pages */

static size_t round64(size_t n) { return (n + 63) & ~(size_t)63; }

static uint32_t *pages(sh_meta_t *m) { return (uint32_t *)((char *)m + round64(sizeof *m)); }

static uint64_t *bits(sh_meta_t *m, uint64_t page)
{
    char *base = (char *)m + round64(sizeof *m) + round64(m->npages * sizeof(uint32_t));
    return (uint64_t *)base + page * SH_WORDS;
}

static char *page_addr(const sh_meta_t *m, uint64_t page) { return (char *)(m->data_base + page * SH_PAGE); }

static unsigned per_page(unsigned c) { return SH_PAGE / class_size[c]; }

static unsigned live_in(const uint64_t *w)
{
    unsigned n = 0;
    for (unsigned i = 0; i < SH_WORDS; i++)
        n += (unsigned)__builtin_popcountll(w[i]);
    return n;
}

size_t shheap_meta_size(size_t data_size)
{
    size_t npages = data_size / SH_PAGE;
    size_t bytes = round64(sizeof(sh_meta_t)) + round64(npages * sizeof(uint32_t)) + npages * SH_WORDS * 8;
    return (bytes + SH_PAGE - 1) & ~(size_t)(SH_PAGE - 1);
}

int shheap_init(sh_meta_t *m, size_t meta_size, uintptr_t data_base, size_t data_size, bool populate)
{
    m->magic = SH_MAGIC;
    m->version = SH_VERSION;
    m->meta_size = meta_size;
    m->data_base = data_base;
    m->data_size = data_size;
    m->npages = data_size / SH_PAGE;
    m->free_pages = m->npages;
    m->uid = (uint32_t)geteuid();
    m->populate = populate;
    pthread_mutexattr_t attr;
    pthread_mutexattr_init(&attr);
    pthread_mutexattr_setpshared(&attr, PTHREAD_PROCESS_SHARED);
    pthread_mutexattr_setrobust(&attr, PTHREAD_MUTEX_ROBUST);
    int e = pthread_mutex_init(&m->lock, &attr);
    pthread_mutexattr_destroy(&attr);
    return e ? loci__fail(LOCI_ENOTSUP, "cannot make a process-shared robust mutex: %s", strerror(e)) : 0;
}

bool shheap_valid(const sh_meta_t *m, size_t meta_size)
{
    return m->magic == SH_MAGIC && m->version == SH_VERSION && m->meta_size == meta_size &&
           m->data_size % SH_PAGE == 0 && m->npages == m->data_size / SH_PAGE && m->npages <= SH_MAX_PAGES &&
           shheap_meta_size(m->data_size) == meta_size && m->data_base % SH_PAGE == 0 &&
           memchr(m->target, 0, sizeof m->target) && memchr(m->intent, 0, sizeof m->intent);
}

/* ---- journal and recovery ------------------------------------------------ */

/* Record a change before making it. A process killed between two stores
 * has made exactly those before in program order (the mutex then hands
 * them all to the next holder), so compiler fences are what keeps the
 * journal ahead of the change. */
static void journal(sh_meta_t *m, uint32_t op, uint64_t page, uint64_t n, unsigned bit)
{
    m->journal.page = (uint32_t)page;
    m->journal.n = (uint32_t)n;
    m->journal.bit = bit;
    atomic_signal_fence(memory_order_seq_cst);
    m->journal.op = op;
    atomic_signal_fence(memory_order_seq_cst);
}

static void journal_done(sh_meta_t *m)
{
    atomic_signal_fence(memory_order_seq_cst);
    m->journal.op = SH_OP_NONE;
}

static void runs_free(sh_meta_t *m, uint64_t first, uint64_t n)
{
    uint32_t *pg = pages(m);
    for (uint64_t i = n; i-- > 0;) /* the head last: the run stays whole until then */
        pg[first + i] = PG_FREE;
}

/* Counters from the page states and bitmaps; hints forgotten. */
static void recount(sh_meta_t *m)
{
    uint32_t *pg = pages(m);
    uint64_t in_use = 0, live = 0, free_pages = 0;
    for (uint64_t p = 0; p < m->npages; p++) {
        uint32_t e = pg[p];
        if (PG_KIND(e) == PG_FREE) {
            free_pages++;
        } else if (PG_KIND(e) == PG_SLAB && PG_ARG(e) < SH_NCLASSES) {
            unsigned k = live_in(bits(m, p));
            in_use += (uint64_t)k * class_size[PG_ARG(e)];
            live += k;
        } else if (PG_KIND(e) == PG_RUN) {
            in_use += (uint64_t)PG_ARG(e) * SH_PAGE;
            live++;
        }
    }
    m->in_use = in_use;
    m->free_pages = free_pages;
    m->allocs = m->frees + live;
    if (m->peak < in_use)
        m->peak = in_use;
    memset(m->cur, 0, sizeof m->cur);
    memset(m->npartial, 0, sizeof m->npartial);
    m->scan = 0;
}

static void recover(sh_meta_t *m)
{
    sh_journal_t j = m->journal;
    uint32_t *pg = pages(m);
    bool known = j.page < m->npages;
    if ((j.op == SH_OP_ALLOC_SMALL || j.op == SH_OP_FREE_SMALL) && known && PG_KIND(pg[j.page]) == PG_SLAB &&
        j.bit < 64 * SH_WORDS) {
        /* an allocation never handed out, or a free begun: the block ends free */
        uint64_t *w = bits(m, j.page);
        w[j.bit / 64] &= ~(1ull << (j.bit % 64));
        if (live_in(w) == 0)
            pg[j.page] = PG_FREE;
    } else if ((j.op == SH_OP_ALLOC_RUN || j.op == SH_OP_FREE_RUN) && known && j.n <= m->npages - j.page) {
        if (j.op == SH_OP_FREE_RUN) /* as a free does: the pages go back before the run is free */
            named_purge(page_addr(m, j.page), (size_t)j.n * SH_PAGE);
        runs_free(m, j.page, j.n);
    }
    m->journal.op = SH_OP_NONE;
    recount(m);
}

int shheap_lock(sh_meta_t *m)
{
    int e = pthread_mutex_lock(&m->lock);
    if (e == EOWNERDEAD) {
        loci__log(LOCI_LOG_WARN, "shared arena: a process died holding its lock; repairing its state");
        recover(m);
        e = pthread_mutex_consistent(&m->lock);
    }
    if (e == 0)
        return 0;
    return loci__fail(LOCI_EIO, "cannot take the shared arena's lock: %s%s", strerror(e),
                      e == ENOTRECOVERABLE ? " (a process died holding it and it was never repaired: "
                                             "create the arena anew)" : "");
}

void shheap_unlock(sh_meta_t *m) { pthread_mutex_unlock(&m->lock); }

/* ---- finding room (lock held) ---------------------------------------------- */

/* n free pages in a row whose first address is aligned to `align` pages
 * (a power of two); -1 if none. Looks from the scan hint on, then from 0. */
static int64_t find_free(sh_meta_t *m, uint64_t n, uint64_t align)
{
    if (m->free_pages < n)
        return -1;
    const uint32_t *pg = pages(m);
    uint64_t phase = (m->data_base / SH_PAGE) & (align - 1); /* alignment is of addresses, not indexes */
    uint64_t from = m->scan < m->npages ? m->scan : 0;
    for (int pass = 0; pass < 2; pass++, from = 0) {
        uint64_t i = ((from + phase + align - 1) & ~(align - 1)) - phase;
        while (i + n <= m->npages) {
            uint64_t j = i + n; /* look backwards: the last page in use tells how far to jump */
            while (j > i && pg[j - 1] == PG_FREE)
                j--;
            if (j == i)
                return (int64_t)i;
            uint32_t e = pg[j - 1];
            uint64_t next = j + (PG_KIND(e) == PG_RUN ? PG_ARG(e) - 1 : 0);
            i = ((next + phase + align - 1) & ~(align - 1)) - phase;
        }
        if (from == 0)
            break;
    }
    return -1;
}

/* A free block in slab page p of class c: its index, or -1. */
static int room_in(sh_meta_t *m, uint64_t p, unsigned c)
{
    if (p >= m->npages || pages(m)[p] != (PG_SLAB | c))
        return -1;
    uint64_t *w = bits(m, p);
    unsigned n = per_page(c);
    for (unsigned i = 0; i < SH_WORDS && i * 64 < n; i++)
        if (~w[i]) {
            unsigned b = i * 64 + (unsigned)__builtin_ctzll(~w[i]);
            return b < n ? (int)b : -1;
        }
    return -1;
}

static int populate(sh_meta_t *m, uint64_t page, uint64_t n)
{
    return m->populate ? named_populate(page_addr(m, page), n * SH_PAGE) : 0;
}

static void count_alloc(sh_meta_t *m, uint64_t bytes)
{
    m->in_use += bytes;
    m->allocs++;
    if (m->in_use > m->peak)
        m->peak = m->in_use;
}

/* ---- allocation and free (lock held) ---------------------------------------- */

/* NULL when there is no room, or (*err set) when the node is full. */
static void *alloc_small(sh_meta_t *m, unsigned c, int *err)
{
    int64_t page = -1;
    int bit = -1;
    bool fresh = false;
    if (m->cur[c] && (bit = room_in(m, m->cur[c] - 1, c)) >= 0)
        page = m->cur[c] - 1;
    while (page < 0 && m->npartial[c]) {
        uint32_t p = m->partial[c][--m->npartial[c]];
        if ((bit = room_in(m, p, c)) >= 0)
            page = p;
    }
    if (page < 0 && (page = find_free(m, 1, 1)) >= 0) {
        fresh = true;
        bit = 0;
        if ((*err = populate(m, (uint64_t)page, 1)) != 0)
            return NULL;
    }
    for (uint64_t p = 0; page < 0 && p < m->npages; p++) /* the hints lost a slab with room */
        if ((bit = room_in(m, p, c)) >= 0)
            page = (int64_t)p;
    if (page < 0)
        return NULL;
    journal(m, SH_OP_ALLOC_SMALL, (uint64_t)page, fresh, (unsigned)bit);
    if (fresh) {
        pages(m)[page] = PG_SLAB | c;
        m->free_pages--;
    }
    bits(m, (uint64_t)page)[bit / 64] |= 1ull << (bit % 64);
    count_alloc(m, class_size[c]);
    m->cur[c] = (uint32_t)page + 1;
    journal_done(m);
    return page_addr(m, (uint64_t)page) + (size_t)bit * class_size[c];
}

static void *alloc_run(sh_meta_t *m, uint64_t n, uint64_t align, int *err)
{
    int64_t first = find_free(m, n, align);
    if (first < 0 || (*err = populate(m, (uint64_t)first, n)) != 0)
        return NULL;
    journal(m, SH_OP_ALLOC_RUN, (uint64_t)first, n, 0);
    uint32_t *pg = pages(m);
    for (uint64_t i = 1; i < n; i++)
        pg[first + (int64_t)i] = PG_TAIL;
    pg[first] = PG_RUN | (uint32_t)n; /* the head last: the run is whole once it is there */
    m->free_pages -= n;
    count_alloc(m, n * SH_PAGE);
    m->scan = (uint64_t)first + n;
    journal_done(m);
    return page_addr(m, (uint64_t)first);
}

/* Smallest class holding size whose blocks are all aligned to align; -1: a run. */
static int class_for(size_t size, size_t align)
{
    for (unsigned c = 0; c < SH_NCLASSES; c++)
        if (class_size[c] >= size && class_size[c] % align == 0)
            return (int)c;
    return -1;
}

void *shheap_alloc(sh_meta_t *m, size_t align, size_t size)
{
    if (align < 16)
        align = 16;
    int c = class_for(size, align), err = 0;
    void *p = NULL;
    if (c >= 0)
        p = alloc_small(m, (unsigned)c, &err);
    else if (size <= m->data_size)
        p = alloc_run(m, (size + SH_PAGE - 1) / SH_PAGE, align > SH_PAGE ? align / SH_PAGE : 1, &err);
    if (p)
        return p;
    if (err) { /* the node is full: populate said so */
        errno = loci__errno_of(err);
        return NULL;
    }
    char want[32], used[32], cap[32];
    return loci__fail_null(LOCI_ENOMEM, "no room for %s (aligned to %zu) among its %s: %s in use",
                           units_format_size(size, want, sizeof want), align,
                           units_format_size(m->data_size, cap, sizeof cap),
                           units_format_size(m->in_use, used, sizeof used));
}

static int bad_free(const void *p, const char *why)
{
    loci__log(LOCI_LOG_WARN, "free(%p): %s; ignored", p, why);
    return loci__fail(LOCI_EINVAL, "free(%p): %s", p, why);
}

int shheap_free(sh_meta_t *m, void *p)
{
    uint64_t off = (uintptr_t)p - m->data_base, page = off / SH_PAGE;
    unsigned in = (unsigned)(off % SH_PAGE);
    uint32_t e = pages(m)[page];
    if (PG_KIND(e) == PG_SLAB) {
        unsigned c = PG_ARG(e), size = class_size[c], bit = in / size;
        uint64_t *w = bits(m, page);
        if (in % size || bit >= per_page(c))
            return bad_free(p, "points inside a block, not at its start");
        if (!(w[bit / 64] >> (bit % 64) & 1))
            return bad_free(p, "double free (the block is not live)");
        bool was_full = live_in(w) == per_page(c);
        journal(m, SH_OP_FREE_SMALL, page, 0, bit);
        w[bit / 64] &= ~(1ull << (bit % 64));
        if (live_in(w) == 0) {
            pages(m)[page] = PG_FREE;
            m->free_pages++;
        } else if (was_full && m->cur[c] != page + 1 && m->npartial[c] < 16) {
            m->partial[c][m->npartial[c]++] = (uint32_t)page; /* room again: remember it */
        }
        m->in_use -= size;
    } else if (PG_KIND(e) == PG_RUN) {
        if (in)
            return bad_free(p, "points inside a block, not at its start");
        uint64_t n = PG_ARG(e);
        journal(m, SH_OP_FREE_RUN, page, n, 0);
        /* pages back to the system before the run is free: nobody else can have them yet */
        if (named_purge(page_addr(m, page), n * SH_PAGE) != 0)
            loci__log(LOCI_LOG_WARN, "shared arena: %s", loci_last_error());
        runs_free(m, page, n);
        m->free_pages += n;
        m->in_use -= n * SH_PAGE;
    } else {
        return bad_free(p, PG_KIND(e) == PG_TAIL ? "points inside a block, not at its start"
                                                 : "nothing live there: a double free, or never allocated");
    }
    m->frees++;
    journal_done(m);
    return 0;
}

size_t shheap_usable(sh_meta_t *m, const void *p)
{
    uint64_t off = (uintptr_t)p - m->data_base, page = off / SH_PAGE;
    unsigned in = (unsigned)(off % SH_PAGE);
    uint32_t e = pages(m)[page];
    if (PG_KIND(e) == PG_RUN)
        return in ? 0 : (size_t)PG_ARG(e) * SH_PAGE;
    if (PG_KIND(e) != PG_SLAB)
        return 0;
    unsigned size = class_size[PG_ARG(e)], bit = in / size;
    return in % size == 0 && bit < per_page(PG_ARG(e)) && (bits(m, page)[bit / 64] >> (bit % 64) & 1) ? size : 0;
}

void shheap_stats(sh_meta_t *m, loci_stats_t *out)
{
    *out = (loci_stats_t){m->in_use, m->peak, m->allocs, m->frees};
}
