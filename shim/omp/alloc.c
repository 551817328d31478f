/*
 * The allocation routines, with OpenMP 5.1's semantics: zero bytes give NULL;
 * an overflowing size, an absent memory space, a full target or an exhausted
 * pool go through the allocator's fallback trait; omp_realloc moves a block
 * to its new allocator; omp_free takes any block whatever allocator the
 * program names, and reports what it cannot free instead of corrupting
 * anything. Handles and blocks of the runtime go to the runtime; so does
 * everything when loci could not start.
 */
#include "shim.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_HOPS 8     /* allocator_fb chains longer than this loop */
#define BASE_ALIGN 8   /* what every loci block is aligned to at least (libgomp gives the same) */

/* The runtime, or NULL (said once) when the process has none to take a call. */
static const shim_runtime_t *runtime(const char *fn)
{
    const shim_runtime_t *rt = shim_runtime();
    if (rt->aligned_alloc && rt->aligned_calloc && rt->realloc && rt->free && rt->init_allocator &&
        rt->destroy_allocator)
        return rt;
    static atomic_flag said = ATOMIC_FLAG_INIT;
    if (!atomic_flag_test_and_set(&said))
        shim_log(LOCI_LOG_ERROR, "%s: this call is the OpenMP runtime's, and the process has none (%s)", fn,
                 rt->name);
    return NULL;
}

/* Give a block back to whoever made it. */
static void release(const shim_block_t *b)
{
    if (b->runtime) {
        shim_runtime()->free(b->ptr, b->made_by);
        return;
    }
    if (b->tiered) {
        shim_tiered_free(b->ptr);
        return;
    }
    if (b->pinned)
        shim_unpin(b->ptr, b->span);
    if (b->charge) {
        shim_allocator_t *owner = shim_allocator(b->made_by);
        if (owner)
            shim_pool_give(owner, b->charge);
    }
    shim_partition_undo(b->ptr, b->span, &b->undo);
    loci_free(b->ptr);
}

/* ---- one allocator, one try --------------------------------------------- */

/* Why the calling thread's last attempt failed, when the shim (not loci)
 * refused it: a full pool, the memlock limit. */
static _Thread_local char refused[256];

/* Blocks that own their pages (blocked, pinned): size rounded up to pages,
 * alignment to at least a page. false on overflow. */
static bool own_pages(size_t *size, size_t *align)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    if (*size > SIZE_MAX - page)
        return false;
    *size = (*size + page - 1) / page * page;
    if (*align < page)
        *align = page;
    return true;
}

static void *from_pool(shim_allocator_t *al, size_t align, size_t size, shim_block_t *b)
{
    b->charge = shim_pool_charge(b->size, align);
    if (!b->charge || !shim_pool_take(al, 0, b->charge)) {
        snprintf(refused, sizeof refused, "the pool of %lu bytes has %zu in use; %zu more do not fit",
                 (unsigned long)al->traits.pool_size, atomic_load(&al->pool_used), b->charge);
        b->charge = 0;
        errno = ENOMEM;
        return NULL;
    }
    void *p = align > BASE_ALIGN ? loci_arena_aligned_alloc(al->pool, align, size)
                                 : loci_arena_alloc(al->pool, size);
    if (!p) {
        shim_pool_give(al, b->charge);
        b->charge = 0;
    }
    return p;
}

static void *attempt(shim_allocator_t *al, size_t align, bool zero, shim_block_t *b)
{
    size_t size = b->size;
    refused[0] = '\0';
    if (align < al->traits.alignment)
        align = al->traits.alignment;
    bool blocked = al->traits.partition == OMP_ATV_BLOCKED && !al->pool;
    if ((blocked || al->traits.pinned) && !own_pages(&size, &align)) {
        errno = ENOMEM;
        return NULL;
    }
    b->span = size;
    loci_allocator_t *la = NULL;
    void *p;
    if (al->pool) {
        p = from_pool(al, align, size, b);
    } else {
        if (!(la = shim_resolve(al)))
            return NULL;
        p = align > BASE_ALIGN ? loci_aligned_alloc(la, align, size)
            : zero             ? loci_calloc(la, 1, size)
                               : loci_alloc(la, size);
    }
    if (p && blocked)
        shim_partition_blocked(p, size, la, &b->undo);
    if (p && (zero && (al->pool || align > BASE_ALIGN))) /* after the split: pages fault where they belong */
        memset(p, 0, size);
    if (p && al->traits.pinned) {
        if (shim_pin(p, size, refused, sizeof refused) != 0) {
            shim_block_t undo = *b;
            undo.ptr = p;
            release(&undo);
            return NULL;
        }
        b->pinned = true;
    }
    return p;
}

/* Why al could not serve, for messages. Call right after the failure. */
static const char *reason(shim_allocator_t *al, bool overflow, bool looped, char *buf, size_t len)
{
    const shim_memspace_t *ms = shim_memspace(al->memspace);
    if (overflow)
        snprintf(buf, len, "the size overflows size_t");
    else if (looped)
        snprintf(buf, len, "the fb_data allocators fall back to each other in a loop");
    else if (refused[0])
        snprintf(buf, len, "%s", refused);
    else if (errno == ENOENT && !al->pool && loci_allocator_create(al->intent) == NULL)
        snprintf(buf, len, "%s (\"%s\", %s) is absent here: %s", ms->name, ms->intent, ms->origin,
                 loci_last_error());
    else
        snprintf(buf, len, "%s", loci_last_error());
    return buf;
}

/* Nothing left to try: NULL (said once per allocator), or abort. */
static void *give_up(shim_allocator_t *al, omp_handle_t asked, size_t n, size_t size, unsigned flags,
                     bool overflow, bool looped, const char *fn)
{
    char why[1024], name[64], final[64], amount[64];
    reason(al, overflow, looped, why, sizeof why);
    if (n == 1)
        snprintf(amount, sizeof amount, "%zu bytes", size);
    else
        snprintf(amount, sizeof amount, "%zu x %zu bytes", n, size);
    shim_handle_name(asked, name, sizeof name);
    shim_handle_name(al->handle, final, sizeof final);
    bool directive = (flags & SHIM_DIRECTIVE) && al->traits.fallback == OMP_ATV_NULL_FB;
    if (al->traits.fallback == OMP_ATV_ABORT_FB || directive) {
        fprintf(stderr, "loci-omp: %s(%s, %s): %s%s%s; fallback=abort_fb%s: aborting\n", fn, amount, name,
                al->handle != asked ? final : "", al->handle != asked ? ": " : "", why,
                directive ? " (null_fb in an allocate directive or clause)" : "");
        abort();
    }
    if (!atomic_flag_test_and_set(&al->reported))
        shim_log(LOCI_LOG_WARN, "%s(%s, %s): %s%s%s; returning NULL (said once per allocator)", fn, amount, name,
                 al->handle != asked ? final : "", al->handle != asked ? ": " : "", why);
    errno = ENOMEM;
    return NULL;
}

/* ---- the routines ---------------------------------------------------------- */

static void *runtime_alloc(omp_handle_t a, omp_handle_t asked, size_t align, size_t n, size_t size,
                           unsigned flags, const char *fn)
{
    const shim_runtime_t *rt = runtime(fn);
    if (!rt)
        return NULL;
    void *p = flags & SHIM_ZERO ? rt->aligned_calloc(align, n, size, a) : rt->aligned_alloc(align, size, a);
    if (!p && (flags & SHIM_DIRECTIVE) && n && size) { /* as libgomp's GOMP_alloc does */
        fprintf(stderr, "loci-omp: %s(%zu bytes): %s returned NULL to an allocate directive or clause: aborting\n",
                fn, size, rt->name);
        abort();
    }
    shim_block_t b = {.ptr = p, .size = n * size, .span = n * size, .asked = asked, .made_by = a, .runtime = true, .undo = {-1, 0}};
    if (p && shim_ready() && !shim_block_add(&b)) {
        rt->free(p, a);
        p = NULL;
    }
    return p;
}

void *shim_alloc(omp_handle_t a, size_t align, size_t n, size_t size, unsigned flags, const void *site,
                 const char *fn)
{
    if (!shim_ready())
        return runtime_alloc(a, a, align, n, size, flags, fn);
    if (n == 0 || size == 0)
        return NULL;
    char name[64];
    if (align == 0 || (align & (align - 1))) { /* both runtimes still allocate */
        size_t up = align > SIZE_MAX / 2 ? 0 : align ? (size_t)1 << (64 - __builtin_clzll(align)) : 1;
        shim_log(LOCI_LOG_WARN, "%s: alignment %zu is not a power of two; using %zu", fn, align, up);
        if (!up) {
            errno = EINVAL;
            return NULL;
        }
        align = up;
    }
    size_t bytes;
    bool overflow = __builtin_mul_overflow(n, size, &bytes);
    omp_handle_t asked = a ? a : shim_default_allocator();
    shim_allocator_t *al = NULL;
    a = asked;
    for (int hop = 0;; hop++) {
        if (shim_runtime_allocator(a))
            return runtime_alloc(a, asked, align, n, size, flags, fn);
        if (!(al = shim_allocator(a))) {
            shim_log(LOCI_LOG_WARN, "%s: %s is not an allocator (destroyed, or not from omp_init_allocator); "
                     "returning NULL", fn, shim_handle_name(a, name, sizeof name));
            errno = EINVAL;
            return NULL;
        }
        shim_block_t b = {.size = bytes, .span = bytes, .asked = asked, .made_by = a, .undo = {-1, 0}};
        if (!overflow) /* its site's arena under loci run --tier auto, else the allocator's memory */
            b.tiered = (b.ptr = shim_tiered_alloc(al, site, align, bytes, flags & SHIM_ZERO)) != NULL;
        if (!overflow && (b.ptr || (b.ptr = attempt(al, align, flags & SHIM_ZERO, &b)))) {
            if (shim_block_add(&b))
                return b.ptr;
            release(&b);
            errno = ENOMEM;
        }
        uintptr_t fb = al->traits.fallback;
        if (fb == OMP_ATV_DEFAULT_MEM_FB && a != OMP_DEFAULT_MEM_ALLOC)
            a = OMP_DEFAULT_MEM_ALLOC; /* default traits, null_fb (OpenMP 5.1 Table 2.10) */
        else if (fb == OMP_ATV_ALLOCATOR_FB && hop < MAX_HOPS) /* no fb_data: the default, as libgomp */
            a = al->traits.fb_data ? al->traits.fb_data : shim_default_allocator();
        else
            return give_up(al, asked, n, size, flags, overflow, fb == OMP_ATV_ALLOCATOR_FB, fn);
    }
}

void shim_free(void *p, omp_handle_t a, const char *fn)
{
    if (!p)
        return;
    if (!shim_ready()) {
        const shim_runtime_t *rt = runtime(fn);
        if (rt)
            rt->free(p, a);
        return;
    }
    char name[64], owner[64];
    shim_block_t b;
    if (shim_block_take(p, &b)) {
        if (a && a != b.asked && a != b.made_by)
            shim_log(LOCI_LOG_WARN, "%s(%p, %s): the block was allocated with %s; freed all the same", fn, p,
                     shim_handle_name(a, name, sizeof name), shim_handle_name(b.asked, owner, sizeof owner));
        release(&b);
    } else if (a && shim_runtime_allocator(a)) { /* made by the runtime where loci did not see it */
        const shim_runtime_t *rt = runtime(fn);
        if (rt)
            rt->free(p, a);
    } else if (loci_usable_size(p)) {
        shim_log(LOCI_LOG_WARN, "%s(%p): a loci block not allocated through OpenMP; freed with loci_free", fn, p);
        loci_free(p);
    } else {
        shim_log(LOCI_LOG_WARN, "%s(%p, %s): not a live block from omp_alloc (freed already, or from malloc?); "
                 "ignored: OpenMP leaves this undefined", fn, p, shim_handle_name(a, name, sizeof name));
    }
}

/* Keep the block where it is when it stays with the allocator that made it
 * and the new size fits what it covers: a pool is charged in use - old + new
 * (libgomp's accounting), a pinned block stays locked. A block that would
 * keep more than twice what it needs moves instead, unless it is a pool's. */
static bool in_place(const shim_block_t *old, omp_handle_t to, size_t size)
{
    shim_allocator_t *al = shim_allocator(to);
    if (old->runtime || old->tiered || to != old->made_by || !al) /* a tiered block moves: its site counts it */
        return false;
    size_t room = old->pinned || old->undo.mode != -1 ? old->span : loci_usable_size(old->ptr);
    if (size > room || (!old->charge && size < room / 2))
        return false;
    size_t charge = old->charge ? old->charge - old->size + size : 0;
    if (old->charge && !shim_pool_take(al, old->charge, charge))
        return false;
    shim_block_resize(old->ptr, size, charge);
    return true;
}

void *shim_realloc(void *p, size_t size, omp_handle_t a, omp_handle_t free_a, const void *site, const char *fn)
{
    if (!shim_ready()) {
        const shim_runtime_t *rt = runtime(fn);
        return rt ? rt->realloc(p, size, a, free_a) : NULL;
    }
    if (!p)
        return shim_alloc(a, 1, 1, size, 0, site, fn);
    if (size == 0) {
        shim_free(p, free_a, fn);
        return NULL;
    }
    char name[64], owner[64];
    shim_block_t old;
    if (!shim_block_find(p, &old)) {
        shim_log(LOCI_LOG_WARN, "%s(%p): not a live block from omp_alloc; returning NULL, the pointer untouched", fn,
                 p);
        errno = EINVAL;
        return NULL;
    }
    if (free_a && free_a != old.asked && free_a != old.made_by)
        shim_log(LOCI_LOG_WARN, "%s(%p, free_allocator %s): the block was allocated with %s; moved all the same", fn,
                 p, shim_handle_name(free_a, name, sizeof name), shim_handle_name(old.asked, owner, sizeof owner));
    omp_handle_t to = a ? a : old.asked; /* null: the block's own allocator */
    if (in_place(&old, to, size))
        return p;
    /* Moving within one pool: the old block's bytes count as given back while the new one
     * is made (in use - old + new); the arena under the pool holds both for that moment. */
    shim_allocator_t *pool = old.charge && to == old.made_by ? shim_allocator(to) : NULL;
    if (pool)
        shim_pool_give(pool, old.charge);
    void *q = shim_alloc(to, 1, 1, size, 0, site, fn);
    if (!q) {
        if (pool)
            shim_pool_keep(pool, old.charge);
        return NULL; /* the old block stays as it was */
    }
    if (pool)
        shim_block_resize(p, old.size, 0); /* its bytes are given back already */
    memcpy(q, p, old.size < size ? old.size : size);
    shim_free(p, OMP_NULL_ALLOCATOR, fn);
    return q;
}

omp_handle_t shim_init_allocator(omp_handle_t m, int n, const omp_trait_t *traits, const char *fn)
{
    if (!shim_ready() || shim_runtime_memspace(m)) {
        const shim_runtime_t *rt = runtime(fn);
        return rt ? rt->init_allocator(m, n, traits) : OMP_NULL_ALLOCATOR;
    }
    const shim_memspace_t *ms = shim_memspace(m);
    if (!ms) {
        shim_log(LOCI_LOG_WARN, "%s: memory space %lu is not one of omp_default_mem_space (0) to "
                 "omp_low_lat_mem_space (4); returning omp_null_allocator", fn, (unsigned long)m);
        return OMP_NULL_ALLOCATOR;
    }
    shim_traits_t t;
    char why[256];
    shim_traits_default(&t);
    if (shim_traits_decode(n, traits, &t, why, sizeof why) != 0) {
        shim_log(LOCI_LOG_WARN, "%s(%s, %d traits): %s; returning omp_null_allocator", fn, ms->name, n, why);
        return OMP_NULL_ALLOCATOR;
    }
    return shim_allocator_create(m, &t, fn);
}

void shim_destroy_allocator(omp_handle_t a, const char *fn)
{
    if (a == OMP_NULL_ALLOCATOR)
        return;
    if (shim_ready() && !shim_runtime_allocator(a)) {
        shim_allocator_destroy(a, fn);
        return;
    }
    const shim_runtime_t *rt = runtime(fn);
    if (rt)
        rt->destroy_allocator(a);
}
