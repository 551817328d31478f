/*
 * Two-level segregated fit over offsets, bookkeeping out of band (heap.h).
 *
 * Free blocks sit in bins: below 256 bytes one bin per 16-byte size; above,
 * 16 bins per power of two. A search looks at the first few blocks of the
 * request's own bin, then rounds the request up to the next bin boundary,
 * so that the first block of any non-empty bin at or above it fits (two
 * bitmaps find that bin in O(1)); only when that fails is the rest of the
 * request's own bin scanned. Blocks know their neighbours in the range, so
 * a freed block merges with free neighbours at once: two free blocks are
 * never adjacent. Lists are LIFO and nothing depends on addresses of the
 * bookkeeping: the same calls give the same offsets.
 */
#include "heap.h"

#include <stdint.h>
#include <stdlib.h>

enum {
    GRANULE_LOG = 4,
    SL_LOG = 4, /* 16 bins per power of two */
    SL_COUNT = 1 << SL_LOG,
    FL_SHIFT = SL_LOG + GRANULE_LOG, /* below 2^FL_SHIFT bytes: bins of one granule */
    FL_COUNT = 47 - FL_SHIFT + 2,    /* sizes up to HEAP_MAX_SIZE */
    DESC_CHUNK = 256,                /* descriptors malloc'd at a time */
    LIVE_MIN_SLOTS = 1024,
};

typedef struct block {
    size_t off, size;
    struct block *prev, *next;           /* neighbours in the range, NULL at its ends */
    struct block *free_prev, *free_next; /* in a bin while free; free_next also chains spare descriptors */
    bool free;
} block_t;

typedef struct chunk {
    struct chunk *next;
    block_t desc[DESC_CHUNK];
} chunk_t;

struct heap {
    size_t size, in_use;
    uintptr_t origin;
    uint64_t fl_map;           /* bit f: some bin of level f is non-empty */
    uint32_t sl_map[FL_COUNT]; /* bit s of level f: bins[f][s] is non-empty */
    block_t *bins[FL_COUNT][SL_COUNT];
    block_t **live; /* open addressing by offset (linear probing); NULL = empty */
    size_t live_mask, live_count;
    block_t *spare;
    chunk_t *chunks;
};

static int log2_floor(size_t v) { return 63 - __builtin_clzll((unsigned long long)v); }

static size_t round_up(size_t v, size_t to) { return (v + to - 1) & ~(to - 1); }

static void bin_of(size_t size, int *fl, int *sl)
{
    if (size < (size_t)1 << FL_SHIFT) {
        *fl = 0;
        *sl = (int)(size >> GRANULE_LOG);
    } else {
        int f = log2_floor(size);
        *sl = (int)(size >> (f - SL_LOG)) ^ SL_COUNT;
        *fl = f - FL_SHIFT + 1;
    }
}

/* --- descriptors ----------------------------------------------------------- */

static block_t *desc_new(heap_t *h)
{
    if (!h->spare) {
        chunk_t *c = malloc(sizeof *c);
        if (!c)
            return NULL;
        c->next = h->chunks;
        h->chunks = c;
        for (int i = DESC_CHUNK - 1; i >= 0; i--) {
            c->desc[i].free_next = h->spare;
            h->spare = &c->desc[i];
        }
    }
    block_t *b = h->spare;
    h->spare = b->free_next;
    return b;
}

static void desc_put(heap_t *h, block_t *b)
{
    b->free_next = h->spare;
    h->spare = b;
}

/* --- bins -------------------------------------------------------------------- */

static void bin_insert(heap_t *h, block_t *b)
{
    int fl, sl;
    bin_of(b->size, &fl, &sl);
    b->free = true;
    b->free_prev = NULL;
    b->free_next = h->bins[fl][sl];
    if (b->free_next)
        b->free_next->free_prev = b;
    h->bins[fl][sl] = b;
    h->fl_map |= 1ull << fl;
    h->sl_map[fl] |= 1u << sl;
}

static void bin_remove(heap_t *h, block_t *b)
{
    int fl, sl;
    bin_of(b->size, &fl, &sl);
    if (b->free_prev)
        b->free_prev->free_next = b->free_next;
    else
        h->bins[fl][sl] = b->free_next;
    if (b->free_next)
        b->free_next->free_prev = b->free_prev;
    if (!h->bins[fl][sl]) {
        h->sl_map[fl] &= ~(1u << sl);
        if (!h->sl_map[fl])
            h->fl_map &= ~(1ull << fl);
    }
    b->free = false;
}

/* The first of at most `most` blocks of size's own bin that holds size bytes. */
static block_t *fit_in_own_bin(const heap_t *h, size_t size, int most)
{
    int fl, sl;
    bin_of(size, &fl, &sl);
    for (block_t *b = h->bins[fl][sl]; b && most-- > 0; b = b->free_next)
        if (b->size >= size)
            return b;
    return NULL;
}

/* A free block of at least size bytes, still in its bin; NULL if none. A
 * block of the request's own bin is preferred (a few are looked at): a
 * block just freed is reused, its pages are in memory already, instead of
 * cutting fresh pages off a larger free block. */
static block_t *find_free(const heap_t *h, size_t size)
{
    block_t *own = fit_in_own_bin(h, size, 4);
    if (own)
        return own;
    size_t want = size;
    if (size >= (size_t)1 << FL_SHIFT)
        want += ((size_t)1 << (log2_floor(size) - SL_LOG)) - 1;
    int fl, sl;
    bin_of(want, &fl, &sl);
    if (fl < FL_COUNT) {
        uint32_t sm = h->sl_map[fl] & (~0u << sl);
        if (!sm && fl + 1 < FL_COUNT) {
            uint64_t fm = h->fl_map & (~0ull << (fl + 1));
            if (fm) {
                fl = __builtin_ctzll(fm);
                sm = h->sl_map[fl];
            }
        }
        if (sm)
            return h->bins[fl][__builtin_ctz(sm)];
    }
    /* the request's own bin may hold a fitting block further down its list */
    return fit_in_own_bin(h, size, INT32_MAX);
}

/* --- neighbours ---------------------------------------------------------------- */

/* b swallows its next neighbour (in no bin). */
static void absorb_next(heap_t *h, block_t *b)
{
    block_t *n = b->next;
    b->size += n->size;
    b->next = n->next;
    if (n->next)
        n->next->prev = b;
    desc_put(h, n);
}

/* Cut b (in no bin) to size bytes; the rest becomes free, merged into a free
 * next neighbour. Without a descriptor to spare, b keeps the rest. */
static void split_tail(heap_t *h, block_t *b, size_t size)
{
    size_t rest_size = b->size - size;
    if (rest_size == 0)
        return;
    block_t *n = b->next;
    if (n && n->free) {
        bin_remove(h, n);
        n->off -= rest_size;
        n->size += rest_size;
        b->size = size;
        bin_insert(h, n);
        return;
    }
    block_t *rest = desc_new(h);
    if (!rest)
        return;
    rest->off = b->off + size;
    rest->size = rest_size;
    rest->prev = b;
    rest->next = n;
    if (n)
        n->prev = rest;
    b->next = rest;
    b->size = size;
    bin_insert(h, rest);
}

/* --- live blocks by offset --------------------------------------------------- */

static size_t home(const heap_t *h, size_t off)
{
    return (size_t)(((uint64_t)(off >> GRANULE_LOG) * 0x9E3779B97F4A7C15ull) >> 20) & h->live_mask;
}

/* The slot holding off, or the empty slot where it would go. */
static size_t probe(const heap_t *h, size_t off)
{
    size_t i = home(h, off);
    while (h->live[i] && h->live[i]->off != off)
        i = (i + 1) & h->live_mask;
    return i;
}

/* Room for one more live block (the table at most half full). */
static bool live_reserve(heap_t *h)
{
    if (2 * (h->live_count + 1) <= h->live_mask + 1)
        return true;
    size_t old_slots = h->live_mask + 1;
    block_t **old = h->live, **fresh = calloc(2 * old_slots, sizeof *fresh);
    if (!fresh)
        return false;
    h->live = fresh;
    h->live_mask = 2 * old_slots - 1;
    for (size_t i = 0; i < old_slots; i++)
        if (old[i])
            h->live[probe(h, old[i]->off)] = old[i];
    free(old);
    return true;
}

/* Remove the entry in slot i; entries after it in its probe run move back
 * into the hole unless that would put them before their home slot. */
static void live_delete(heap_t *h, size_t i)
{
    for (size_t j = i;;) {
        h->live[i] = NULL;
        for (;;) {
            j = (j + 1) & h->live_mask;
            if (!h->live[j])
                return;
            size_t k = home(h, h->live[j]->off);
            bool stays = i <= j ? (i < k && k <= j) : (i < k || k <= j);
            if (!stays)
                break;
        }
        h->live[i] = h->live[j];
        i = j;
    }
}

/* --- the interface --------------------------------------------------------------- */

heap_t *heap_create(size_t size, uintptr_t origin)
{
    heap_t *h = calloc(1, sizeof *h);
    if (!h)
        return NULL;
    h->size = size;
    h->origin = origin;
    h->live = calloc(LIVE_MIN_SLOTS, sizeof *h->live);
    block_t *all = h->live ? desc_new(h) : NULL;
    if (!all) {
        heap_destroy(h);
        return NULL;
    }
    h->live_mask = LIVE_MIN_SLOTS - 1;
    *all = (block_t){.off = 0, .size = size};
    bin_insert(h, all);
    return h;
}

void heap_destroy(heap_t *h)
{
    if (!h)
        return;
    for (chunk_t *c = h->chunks, *next; c; c = next) {
        next = c->next;
        free(c);
    }
    free(h->live);
    free(h);
}

size_t heap_alloc(heap_t *h, size_t size, size_t align)
{
    if (align < HEAP_GRANULE)
        align = HEAP_GRANULE;
    if (size > h->size || align > h->size)
        return HEAP_NONE;
    size = size ? round_up(size, HEAP_GRANULE) : HEAP_GRANULE;
    block_t *b = find_free(h, size + align - HEAP_GRANULE);
    if (!b || !live_reserve(h))
        return HEAP_NONE;
    bin_remove(h, b);
    size_t gap = round_up(h->origin + b->off, align) - (h->origin + b->off);
    if (gap) { /* the bytes before the aligned start stay free, as a block of their own */
        block_t *rest = desc_new(h);
        if (!rest) {
            bin_insert(h, b);
            return HEAP_NONE;
        }
        *rest = (block_t){.off = b->off + gap, .size = b->size - gap, .prev = b, .next = b->next};
        if (b->next)
            b->next->prev = rest;
        b->next = rest;
        b->size = gap;
        bin_insert(h, b);
        b = rest;
    }
    split_tail(h, b, size);
    h->live[probe(h, b->off)] = b;
    h->live_count++;
    h->in_use += b->size;
    return b->off;
}

size_t heap_block_size(const heap_t *h, size_t off)
{
    const block_t *b = h->live[probe(h, off)];
    return b ? b->size : 0;
}

bool heap_free(heap_t *h, size_t off)
{
    size_t slot = probe(h, off);
    block_t *b = h->live[slot];
    if (!b)
        return false;
    live_delete(h, slot);
    h->live_count--;
    h->in_use -= b->size;
    if (b->next && b->next->free) {
        bin_remove(h, b->next);
        absorb_next(h, b);
    }
    if (b->prev && b->prev->free) {
        b = b->prev;
        bin_remove(h, b);
        absorb_next(h, b);
    }
    bin_insert(h, b);
    return true;
}

bool heap_resize(heap_t *h, size_t off, size_t size)
{
    block_t *b = h->live[probe(h, off)];
    if (!b || size > h->size)
        return false;
    size = size ? round_up(size, HEAP_GRANULE) : HEAP_GRANULE;
    h->in_use -= b->size;
    if (size > b->size) {
        block_t *n = b->next;
        if (!n || !n->free || b->size + n->size < size) {
            h->in_use += b->size;
            return false;
        }
        bin_remove(h, n);
        absorb_next(h, b);
    }
    split_tail(h, b, size);
    h->in_use += b->size;
    return true;
}

void heap_usage(const heap_t *h, size_t *in_use, size_t *largest_free)
{
    *in_use = h->in_use;
    *largest_free = 0;
    if (!h->fl_map)
        return;
    /* every block of a higher bin is larger than any of a lower one */
    int fl = log2_floor(h->fl_map), sl = log2_floor(h->sl_map[fl]);
    for (const block_t *b = h->bins[fl][sl]; b; b = b->free_next)
        if (b->size > *largest_free)
            *largest_free = b->size;
}
