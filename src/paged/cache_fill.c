/*
 * Faults, and the chunks they fill (NVMalloc §III-D):
 *
 *  - A missing page faults: its whole chunk is read from the store into a
 *    bounce buffer and installed write-protected (UFFDIO_COPY), evicting the
 *    least recently faulted chunk when no slot is free. Pages that start
 *    dirty (a write fault's, the rest of the chunk for a sequential writer)
 *    are moved in instead where the kernel can (UFFDIO_MOVE: no copy); a
 *    moved page is writable, so a clean page is never moved: a write
 *    between its move and its protection would go unseen. A chunk never
 *    written (fresh) is not read: its pages are copied from a mapping that
 *    was never written (the kernel's zero page, always in the CPU's cache).
 *  - The first write to a clean page faults again: the page is marked dirty
 *    and unprotected (the rest of the chunk too for a sequential writer, the
 *    whole chunk with whole_chunks).
 *  - A fault right after the two chunks before it (a sequential reader)
 *    queues the next chunks for the readahead threads, a batch at a time:
 *    consecutive chunks are read with one store request (one larger read
 *    of a file, or all chunks in flight at once) and installed together.
 *
 * A region may instead be backed by shared memory (shared_backing.c: where
 * the system gives it huge pages): then a fill reads the store straight into
 * the memory file's pages and maps them (UFFDIO_CONTINUE, write-protected but
 * the pages that start dirty), with no bounce buffer and no copy, and a drop
 * removes the file's pages. Everything else — dirty bits, write-behind,
 * evictions — is the same.
 */
#include "paged/paged_internal.h"
#include "os/vm.h"

#include <stdlib.h>
#include <string.h>

/* A bounce buffer, waiting for one when all are in use. */
static void *take_bounce(chunk_cache_t *c)
{
    while (c->bounce_used == (1u << NBOUNCE) - 1)
        wait_change(c);
    unsigned i = (unsigned)__builtin_ctz(~c->bounce_used);
    c->bounce_used |= 1u << i;
    return c->bounce[i];
}

static void give_bounce(chunk_cache_t *c, void *buf)
{
    for (unsigned i = 0; i < NBOUNCE; i++)
        if (c->bounce[i] == buf)
            c->bounce_used &= ~(1u << i);
    pthread_cond_broadcast(&c->changed);
}

/* Is page `p` of chunk `chunk` of r dirty in the cache (p < 0: counted back
 * into the chunks before)? */
static bool page_dirty(chunk_cache_t *c, paged_region_t *r, uint64_t chunk, long p)
{
    for (; p < 0; p += (long)c->pages) {
        if (chunk == 0)
            return false;
        chunk--;
    }
    slot_t *s = lookup(c, r, chunk);
    return s && s->state != SLOT_FILLING && bit(s->dirty, (uint64_t)p);
}

/* The pages [*first, *first + *n) of s's chunk that a write at addr dirties:
 * its own, or the rest of the chunk for a sequential writer (the two pages
 * before are dirty) or with whole_chunks (the whole chunk). */
static void dirty_span(chunk_cache_t *c, const slot_t *s, uintptr_t addr, unsigned *first, unsigned *n)
{
    paged_region_t *r = s->region;
    unsigned npages = (unsigned)(chunk_len(r, s->chunk) / c->page);
    *first = c->whole_chunks ? 0 : (unsigned)((addr - chunk_addr(r, s->chunk)) / c->page);
    *n = 1;
    if (c->whole_chunks || (page_dirty(c, r, s->chunk, (long)*first - 1) && page_dirty(c, r, s->chunk, (long)*first - 2)))
        *n = npages - *first;
}

static void set_dirty(chunk_cache_t *c, slot_t *s, unsigned first, unsigned n)
{
    for (unsigned p = first; p < first + n; p++)
        if (!bit(s->dirty, p)) {
            bit_set(s->dirty, p);
            c->st.pages_dirtied++;
        }
    if (n) {
        set_counted(c, s, true);
        c->newest = s->region;
        c->newest_first = c->newest_last = s->chunk;
    }
}

/* A write to the page at addr: dirty it (or its chunk) and let the writer
 * go on. Under the lock, so that a write-back cannot clear the bit between.
 * A sequential writer (the two pages before are dirty) gets the rest of the
 * chunk at once instead of a fault per page; pages it then leaves alone are
 * written back unchanged, which costs I/O, never data. */
static void mark_dirty(chunk_cache_t *c, slot_t *s, uintptr_t addr, bool dontwake)
{
    unsigned first, n;
    dirty_span(c, s, addr, &first, &n);
    set_dirty(c, s, first, n);
    uintptr_t at = chunk_addr(s->region, s->chunk) + first * c->page;
    if (uffd_unprotect(c->uffd, (void *)at, n * c->page, dontwake) != 0)
        loci__log(LOCI_LOG_ERROR, "%s", loci_last_error());
}

/* May an eviction drop its dirty chunk when the write-back fails, on the
 * tries-th victim (lock held)? On a full store once every slot was tried
 * (an overwrite may still fit), on one the cache no longer waits for at
 * once (cache_store_given_up: every write fails); never otherwise. */
static bool drop_unwritten(chunk_cache_t *c, int tries)
{
    return c->store_error == LOCI_ENOSPC ? tries >= c->nslots : cache_store_given_up(c);
}

/* A slot for chunk `chunk` of r, hashed and FILLING (lock held). NULL when
 * the caller must look again: it waited, or someone took the chunk meanwhile
 * (the lock is dropped while a victim is written back: an eviction or purge
 * of r may have run then too, which the readahead's epoch tells). `wait`:
 * may wait for a slot when all are busy (else NULL at once: a batch holding
 * slots already must not wait for others that wait for it). */
static slot_t *claim(chunk_cache_t *c, paged_region_t *r, uint64_t chunk, const unsigned *epoch, bool wait)
{
    slot_t *s = NULL;
    if (c->free != NIL) {
        s = &c->slots[c->free];
        c->free = s->next;
    } else {
        s = cache_victim(c);
        if (!s) { /* every slot busy: wait for one */
            if (wait)
                wait_change(c);
            return NULL;
        }
        /* A chunk whose write-back fails stays, most recent: try the others,
         * until one may be dropped (drop_unwritten: its unflushed pages lost,
         * reported), whose slot is then this one; while a failing store has
         * patience left the caller waits for it instead. */
        int e;
        if (!s->counted)
            cache_evict_clean(c, s);
        else
            for (int tries = 1; !cache_evict(c, s, drop_unwritten(c, tries), &e); tries++)
                if (tries >= c->nslots || !(s = cache_victim(c))) {
                    if (wait)
                        wait_change(c);
                    return NULL;
                }
        if (lookup(c, r, chunk) || (epoch && r->epoch != *epoch)) {
            push_free(c, s);
            return NULL;
        }
    }
    s->region = r;
    s->chunk = chunk;
    s->state = SLOT_FILLING;
    memset(s->dirty, 0, c->words * sizeof *s->dirty);
    hash_insert(c, s);
    c->st.resident_bytes += c->chunk;
    if (c->st.resident_bytes > c->st.resident_peak)
        c->st.resident_peak = c->st.resident_bytes;
    return s;
}

/* Read [off, off+len) of r's store into buf, zeros where chunks are fresh
 * (never written), one store request per run of chunks that are not; a
 * failed read reads as zeros, recorded for the next flush (lock not held;
 * `fresh` read under it). */
static uint64_t read_chunks(chunk_cache_t *c, paged_region_t *r, uint64_t first, unsigned m, const bool *fresh,
                            char *buf, size_t len)
{
    uint64_t read = 0;
    for (unsigned i = 0, j; i < m; i = j) {
        for (j = i + 1; j < m && fresh[j] == fresh[i]; j++)
            ;
        size_t at = (size_t)i * c->chunk, n = (j < m ? (size_t)j * c->chunk : len) - at;
        int rc = fresh[i] ? 0 : r->store->ops->read(r->store, (first + i) * c->chunk, buf + at, n);
        if (rc != 0) {
            pthread_mutex_lock(&c->lock);
            record_error(r, rc);
            pthread_mutex_unlock(&c->lock);
            if (worth_logging(&c->read_failures))
                loci__log(LOCI_LOG_ERROR, "mode=paged: reading %u chunk(s) failed, they read as zeros (%llu failed "
                                          "reads so far): %s", j - i,
                          (unsigned long long)atomic_load(&c->read_failures), loci_last_error());
        }
        if (fresh[i] || rc != 0)
            memset(buf + at, 0, n);
        else
            read += n;
    }
    return read;
}

/* Install buf at base (len bytes): write-protected copies (unless r is
 * read-only), but pages [first, first+n) that start dirty are moved in
 * where the kernel can and buf is a bounce buffer (copied, unprotected,
 * where it cannot or buf is the zeros: copying the zero page costs less
 * than refilling the bounce buffer a move empties). */
static int install(chunk_cache_t *c, paged_region_t *r, uintptr_t base, char *buf, size_t len, unsigned first,
                   unsigned n)
{
    size_t from = (size_t)first * c->page, to = from + (size_t)n * c->page;
    bool move = n && c->move && buf != c->zeros;
    size_t moved = move ? uffd_move(c->uffd, (void *)(base + from), buf + from, to - from) : 0;
    int rc = uffd_copy(c->uffd, (void *)base, buf, from, !r->readonly);
    if (rc == 0 && moved < to - from)
        rc = uffd_copy(c->uffd, (void *)(base + from + moved), buf + from + moved, to - from - moved, false);
    if (rc == 0)
        rc = uffd_copy(c->uffd, (void *)(base + to), buf + to, len - to, !r->readonly);
    return rc;
}

/* Read the m consecutive chunks of slots run[] (one region, FILLING) and
 * install them (lock held, dropped for the I/O). `f`: the fault that asked
 * for them (m == 1), whose thread writes: its page is dirty at once. */
static void fill(chunk_cache_t *c, slot_t *const *run, unsigned m, const uffd_fault_t *f)
{
    paged_region_t *r = run[0]->region;
    uint64_t first = run[0]->chunk;
    uintptr_t base = chunk_addr(r, first);
    size_t len = (size_t)(m - 1) * c->chunk + chunk_len(r, first + m - 1);
    bool fresh[m];
    for (unsigned i = 0; i < m; i++)
        fresh[i] = r->fresh && bit(r->fresh, first + i);
    unsigned dfirst = 0, dn = 0; /* the pages the faulting write dirties */
    if (f && f->write && !r->readonly)
        dirty_span(c, run[0], f->addr, &dfirst, &dn);
    if (dn && m > 1) /* a sequential writer's fresh chunks after its own (writer_run): dirty through them */
        dn = (unsigned)(len / c->page) - dfirst;
    for (unsigned i = 0; dn && i < m; i++) /* the writer was let through the dirty limit for them */
        set_counted(c, run[i], true);
    bool all_fresh = true; /* nothing to read: copied from the zero page (shared memory: its new pages) */
    for (unsigned i = 0; i < m; i++)
        all_fresh = all_fresh && fresh[i];
    bool bounced = !r->alias && !all_fresh;
    char *buf = r->alias ? NULL : bounced ? take_bounce(c) : c->zeros;
    pthread_mutex_unlock(&c->lock);

    uint64_t read = 0;
    int rc = 0;
    if (r->alias) { /* read in place, then mapped at the region: no copy */
        buf = backing_fill_at(r, base, len);
        rc = buf ? 0 : LOCI_ENOMEM;
        if (rc == 0 && !all_fresh)
            read = read_chunks(c, r, first, m, fresh, buf, len);
        if (rc == 0)
            rc = backing_install(c->uffd, r, base, len, (size_t)dfirst * c->page, (size_t)(dfirst + dn) * c->page);
    } else {
        read = all_fresh ? 0 : read_chunks(c, r, first, m, fresh, buf, len);
        rc = install(c, r, base, buf, len, dfirst, dn);
    }

    pthread_mutex_lock(&c->lock);
    if (bounced)
        give_bounce(c, buf);
    for (unsigned i = 0; i < m; i++) {
        slot_t *s = run[i];
        if (rc != 0) { /* the faulting threads will fault again and retry */
            hash_remove(c, s);
            set_counted(c, s, false);
            s->region = NULL;
            s->state = SLOT_FREE;
            c->st.resident_bytes -= c->chunk;
            push_free(c, s);
            continue;
        }
        s->state = SLOT_RESIDENT;
        lru_push(c, s);
        c->st.misses++;
    }
    if (rc != 0)
        loci__log(LOCI_LOG_ERROR, "%s", loci_last_error());
    else {
        c->st.bytes_read += read;
        for (unsigned i = m; dn && i-- > 1;)
            set_dirty(c, run[i], 0, (unsigned)(chunk_len(r, run[i]->chunk) / c->page));
        set_dirty(c, run[0], dfirst, dn && m > 1 ? c->pages - dfirst : dn);
        if (dn) /* the writer is in the first and goes on through the others without a fault */
            c->newest_last = run[m - 1]->chunk;
    }
    uffd_wake(c->uffd, (void *)base, len);
    uint64_t number = cache_install_done(); /* after the wake: see cache_install_stamp */
    for (unsigned i = 0; i < m && rc == 0; i++)
        run[i]->installed = number;
    pthread_cond_broadcast(&c->changed);
}

/* A missing page in a resident chunk that no install has answered (those are
 * stale: stale_faults.c): its page was dropped behind loci's back (an
 * application's madvise) and comes back from the store — or, in shared
 * memory, which kept it, is mapped again. */
static void refault_page(chunk_cache_t *c, slot_t *s, const uffd_fault_t *f)
{
    paged_region_t *r = s->region;
    uintptr_t page = f->addr & ~(uintptr_t)(c->page - 1);
    if (r->alias) { /* shared memory keeps the page: mapped again, protected unless dirty */
        bool dirty = bit(s->dirty, (page - chunk_addr(r, s->chunk)) / c->page);
        if (backing_install(c->uffd, r, page, c->page, 0, dirty ? c->page : 0) != 0)
            loci__log(LOCI_LOG_ERROR, "mode=paged: mapping a page again: %s", loci_last_error());
    } else if (vm_page_absent((void *)page)) {
        bit_clear(s->dirty, (page - chunk_addr(r, s->chunk)) / c->page); /* its data is gone */
        recount(c, s);
        void *buf = aligned_alloc(c->page, c->page); /* rare: I/O under the lock keeps s as it is */
        int rc = buf ? r->store->ops->read(r->store, page - r->base, buf, c->page) : LOCI_ENOMEM;
        if (rc == 0 && (rc = uffd_copy(c->uffd, (void *)page, buf, c->page, !r->readonly)) == 0)
            c->st.bytes_read += c->page;
        else
            loci__log(LOCI_LOG_ERROR, "mode=paged: refilling a page: %s", loci_last_error());
        free(buf);
    }
    if (f->write && !r->readonly)
        mark_dirty(c, s, f->addr, true);
    uffd_wake(c->uffd, (void *)page, c->page);
}

/* A fault in chunk `chunk` right after the two before it (cached): a
 * sequential reader (one cached neighbour happens by chance under random
 * access). Have the window of chunks after it read ahead, a whole batch at a
 * time: what was asked before (up to r->ahead) is not asked again, and new
 * chunks are asked once a batch of them fits in the window (lock held). */
static void plan_readahead(chunk_cache_t *c, paged_region_t *r, uint64_t chunk, const uffd_fault_t *f)
{
    if (chunk < 2 || !lookup(c, r, chunk - 1) || !lookup(c, r, chunk - 2))
        return;
    /* A writer entering fresh chunks: nothing to read, and its own fault
     * installs each chunk dirty (no protect, no second fault to unprotect
     * it): read ahead, the chunk would come in clean and protected. */
    if (f->write && !r->readonly && r->fresh && chunk + 1 < r->nchunks && bit(r->fresh, chunk + 1))
        return;
    uint64_t end = chunk + 1 + c->window < r->nchunks ? chunk + 1 + c->window : r->nchunks;
    uint64_t from = r->ahead > chunk + 1 && r->ahead <= end ? r->ahead : chunk + 1; /* else: a new pass */
    if (from >= end || (end - from < c->batch && end < r->nchunks))
        return;
    for (uint64_t k = from; k < end; k++)
        if (!lookup(c, r, k))
            readahead_queue_add(r, k);
    r->ahead = end;
}

/* A slot a readahead may take: free, or clean to evict. A readahead never
 * writes a dirty chunk back to make room (it would wait for the store for a
 * guess, and could take the chunk a writer is still writing). */
static bool room_ahead(chunk_cache_t *c)
{
    slot_t *v = c->free != NIL ? NULL : cache_victim(c);
    return c->free != NIL || (v && !v->counted);
}

/* A sequential writer entering fresh chunks at s (its fault's, claimed;
 * lock held): the fresh chunks after s, claimed to be installed dirty with
 * it in one fill, so that it faults once per batch of chunks instead of once
 * per chunk. As many as the dirty limit leaves room for, and fewer than half
 * the background threshold: the write-behind takes the oldest dirty chunks,
 * never these, the newest. Returns how many, in run[]. */
static unsigned writer_run(chunk_cache_t *c, slot_t *s, const uffd_fault_t *f, slot_t **run)
{
    paged_region_t *r = s->region;
    unsigned first, n;
    if (!f->write || r->readonly || c->whole_chunks || !r->fresh || !bit(r->fresh, s->chunk))
        return 0;
    dirty_span(c, s, f->addr, &first, &n);
    if (first != 0 || n != c->pages) /* not a sequential writer at the chunk's start */
        return 0;
    unsigned max = c->batch - 1, room = c->dirty_max > c->ndirty + 1 ? c->dirty_max - c->ndirty - 1 : 0;
    if (max > c->dirty_bg / 2)
        max = c->dirty_bg / 2;
    if (max > room)
        max = room;
    unsigned k = 0;
    for (uint64_t next = s->chunk + 1; k < max && next < r->nchunks && bit(r->fresh, next) && !lookup(c, r, next) &&
                                       room_ahead(c) && (run[k] = claim(c, r, next, NULL, false));
         next++)
        k++;
    return k;
}

void cache_fault(paged_region_t *r, const uffd_fault_t *f, uint64_t stamp)
{
    chunk_cache_t *c = r->cache;
    uint64_t chunk = (f->addr - r->base) / c->chunk;
    bool planned = false, waited = false;
    pthread_mutex_lock(&c->lock);
    if (!f->wp)
        c->st.faults++;
    for (;;) {
        slot_t *s = lookup(c, r, chunk);
        if (!s) {
            if (f->wp || cache_gone_since(c, r, chunk, stamp)) { /* evicted since: the thread faults again if it must */
                uffd_wake(c->uffd, (void *)(f->addr & ~(uintptr_t)(c->page - 1)), c->page);
                break;
            }
            if (f->write && !r->readonly && throttled(c, &waited))
                continue;
            if ((s = claim(c, r, chunk, NULL, true))) {
                if (chunk < r->ahead) /* asked but dropped (evicted, or the queue was full): ask again */
                    r->ahead = chunk + 1;
                plan_readahead(c, r, chunk, f);
                slot_t *run[c->batch];
                run[0] = s;
                fill(c, run, 1 + writer_run(c, s, f, run + 1), f);
                break;
            }
            continue;
        }
        if (s->state == SLOT_FILLING && !f->wp && !planned) { /* caught up with the readahead: keep it ahead */
            plan_readahead(c, r, chunk, f);
            planned = true;
        }
        /* A write to a chunk whose pages a store is sending as they are
         * waits for it: a change now would change the bytes in flight. */
        bool borrowed = s->state == SLOT_WRITING && (f->write || f->wp) && r->store->ops->borrows_pages;
        if (s->state == SLOT_FILLING || s->state == SLOT_EVICTING || borrowed) {
            wait_change(c);
            continue;
        }
        touch(c, s);
        if (f->wp && !s->counted && throttled(c, &waited))
            continue;
        if (f->wp) {
            mark_dirty(c, s, f->addr, false);
            break;
        }
        if (s->installed > stamp) { /* this install woke the thread already */
            uffd_wake(c->uffd, (void *)(f->addr & ~(uintptr_t)(c->page - 1)), c->page);
            break;
        }
        c->st.hits++;
        refault_page(c, s, f);
        break;
    }
    pthread_mutex_unlock(&c->lock);
}

/* Chunks [first, first+n) of r in the cache, those missing filled now, a
 * batch of consecutive ones at a time (lock held) — unless `epoch` (a
 * readahead's) is no longer r's: r was evicted or purged since it was asked,
 * and what it would read must not come back. */
static void fill_range(chunk_cache_t *c, paged_region_t *r, uint64_t first, uint64_t n, const unsigned *epoch)
{
    slot_t *run[c->batch];
    for (uint64_t k = first; k < first + n;) {
        if (epoch && r->epoch != *epoch)
            return;
        if (lookup(c, r, k)) {
            c->st.hits++;
            k++;
            continue;
        }
        unsigned m = 0;
        while (m < c->batch && k + m < first + n && (m == 0 || !unit_start(c, k + m)) && !lookup(c, r, k + m) &&
               (!epoch || room_ahead(c)) && (run[m] = claim(c, r, k + m, epoch, m == 0)))
            m++;
        if (m == 0 && epoch && !room_ahead(c))
            return;
        if (m == 0)
            continue; /* it waited, or the chunk was taken meanwhile: look again */
        fill(c, run, m, NULL);
        c->st.prefetched += m;
        k += m;
    }
}

int cache_prefetch(paged_region_t *r, uintptr_t addr, size_t len)
{
    chunk_cache_t *c = r->cache;
    uint64_t first = (addr - r->base) / c->chunk, last = (addr + len - 1 - r->base) / c->chunk;
    pthread_mutex_lock(&c->lock);
    fill_range(c, r, first, last - first + 1, NULL);
    pthread_mutex_unlock(&c->lock);
    return 0;
}

void cache_readahead(paged_region_t *r, uint64_t chunk, unsigned n, unsigned epoch)
{
    chunk_cache_t *c = r->cache;
    pthread_mutex_lock(&c->lock);
    if (!atomic_load(&r->leaving))
        fill_range(c, r, chunk, n, &epoch);
    pthread_mutex_unlock(&c->lock);
}
