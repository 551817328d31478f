/*
 * Moving a private arena to another target, its addresses unchanged, while
 * the program's threads read and write it.
 *
 * NUMA node → NUMA node: the provider's `move` on every extent (a copy under
 * write-protection, or mbind with MPOL_MF_MOVE; then every page's node
 * checked), and the heap re-homed so that later extents are mapped on the
 * destination.
 *
 * NUMA node ↔ file tier: the destination provider `adopt`s each extent, and
 * the source hands it over keeping every store (a copy under
 * write-protection into a new file, or the new memory taking the range
 * first and filled from the file). Where that cannot be done here (no
 * userfaultfd for it, two file tiers), a move that must keep stores — every
 * move loci makes by itself: tiering's, an auto arena's spill, a target gone
 * — is refused before anything moves, and the program's own loci_arena_move
 * copies with nothing touching the arena, as documented: refused with
 * LOCI_EBUSY if another thread is inside it (an allocation, another move).
 *
 * Allocations in the arena wait for the move (the write lock).
 *
 * When an extent fails, those already moved are moved back. What cannot be
 * moved back is named in the message, and the arena still counts as on its
 * old target, where new extents keep going: moving it again finishes it.
 */
#include "arena/arena.h"
#include "heat/heat.h"
#include "units.h"
#include "grow.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    void *base;
    size_t size;
} span_t;

typedef struct {
    const provider_ops_t *from_ops, *to_ops;
    place_t from, to;
    bool remap;                 /* providers differ: adopt, not move */
    bool live;                  /* threads may use the data meanwhile: every store they make must be kept */
    span_t *done;               /* extents moved so far */
    size_t ndone, cap;
    void *failed_at;            /* the extent that failed, NULL before any did */
    size_t failed_size;
    char why[512];              /* its provider's message */
    size_t stuck, stuck_bytes;  /* extents that could not be moved back */
    void *first_stuck;
} move_t;

/* One extent to the destination (back = false) or back to the source. */
static int shift_held(move_t *m, void *base, size_t size, bool back)
{
    const provider_ops_t *into = back ? m->from_ops : m->to_ops, *out = back ? m->to_ops : m->from_ops;
    const place_t *where = back ? &m->from : &m->to;
    if (!m->remap)
        return into->move->move(base, size, where);
    int rc = into->move->adopt(base, size, where, out, m->live);
    if (rc == 0 && out->move->disown)
        out->move->disown(base, size);
    return rc;
}

/* The extent is held still for any heat measurement watching it (the
 * tiering policy, above: heat.h): mbind moves only the pages mapped, and a
 * sampler would unmap some. */
static int shift(move_t *m, void *base, size_t size, bool back)
{
    int rc = heat_hold(base, size);
    if (rc != 0)
        return rc;
    rc = shift_held(m, base, size, back);
    heat_release(base, size);
    return rc;
}

static void roll_back(move_t *m)
{
    /* a failed move may have moved part of its extent; a failed adopt changed nothing */
    span_t failed = {m->failed_at, m->failed_size};
    for (size_t i = m->ndone + !m->remap; i-- > 0;) {
        span_t s = i < m->ndone ? m->done[i] : failed;
        if (shift(m, s.base, s.size, true) != 0) {
            m->stuck++;
            m->stuck_bytes += s.size;
            m->first_stuck = s.base;
        }
    }
}

/* pool_heap_rebase's callback: move one extent, or undo them all. */
static int move_extent(void *base, size_t size, void *arg)
{
    move_t *m = arg;
    span_t *v = grow_for_one(m->done, m->ndone, &m->cap, sizeof *v, 64);
    if (!v)
        return loci__fail(LOCI_ENOMEM, "out of memory listing the extents of a move");
    m->done = v;
    int rc = shift(m, base, size, false);
    if (rc == 0) {
        m->done[m->ndone++] = (span_t){base, size};
        return 0;
    }
    m->failed_at = base;
    m->failed_size = size;
    snprintf(m->why, sizeof m->why, "%s", loci_last_error());
    roll_back(m);
    return rc;
}

void arena_move_place(const loci_arena_t *ar, const struct loci_target *dst, const provider_ops_t *to_ops,
                      place_t *out)
{
    arena_place(dst, ar->pinned, ar->shareable, out);
    out->base_pages = ar->place.base_pages;     /* and memory kept in base pages */
    if (provider_has(to_ops, PROVIDER_FOLLOWS_GPU)) { /* still managed memory, allocated through the same GPU */
        out->managed = true;
        out->cuda_device = ar->place.cuda_device;
        out->policy = PLACE_LOCAL;
    }
}

int arena_move_check(const loci_arena_t *ar, const struct loci_target *dst)
{
    if (!ar || !dst)
        return loci__fail(LOCI_EINVAL, "loci_arena_move: NULL %s (targets come from loci_target_by_name)",
                          ar ? "target" : "arena");
    if (ar->sh)
        return loci__fail(LOCI_ENOTSUP, "arena \"%s\" is shared: it stays on the node it was created on "
                                        "(other processes map its pages)", ar->intent);
    if (ar->paged)
        return loci__fail(LOCI_ENOTSUP, "arena \"%s\" lives in loci's chunk cache (mode=paged), whose pages "
                                        "cannot be handed to another tier keeping their addresses; create it "
                                        "with mode=mmap to move it", ar->intent);
    const struct loci_target *from = loci_arena_target(ar);
    if (provider_has(ar->ops, PROVIDER_NO_CPU))
        return loci__fail(LOCI_ENOTSUP, "arena \"%s\" holds device memory of %s: moved elsewhere it would need "
                                        "other addresses, which an arena keeps; create it with use=cpu+gpu "
                                        "(managed memory) to move it between GPUs and host memory", ar->intent,
                          from->name);
    const provider_ops_t *from_ops = ar->ops, *to_ops = provider_for_move(ar->ops, dst, ar->shareable);
    bool managed = to_ops && provider_has(to_ops, PROVIDER_FOLLOWS_GPU);
    if (!to_ops || !(managed || (dst->flags & LOCI_TARGET_CPU_ACCESSIBLE)))
        return loci__fail(LOCI_ENOTSUP, "cannot move an arena to %s: arenas live on NUMA nodes and file tiers%s",
                          dst->name, dst->kind == KIND_GPU ? " (and managed GPU memory: use=cpu+gpu)" : "");
    bool can = from_ops == to_ops ? provider_can_move(to_ops) : provider_can_adopt(to_ops) && provider_can_adopt(from_ops);
    if (!can)
        return loci__fail(LOCI_ENOTSUP, "cannot move an arena from %s to %s keeping its addresses: the %s "
                                        "provider cannot %s", from->name, dst->name, to_ops->name,
                          from_ops == to_ops ? "move pages" : "take over another provider's memory");
    return 0;
}

/* Refuse when the destination has less room than the arena's memory. */
static int check_room(loci_arena_t *ar, const move_t *m, const struct loci_target *dst)
{
    pool_stats_t st;
    uint64_t avail;
    if (pool_stats_heap(ar->heap, &st) != 0 || m->to_ops->available(&m->to, &avail) != 0)
        return 0; /* unknown: the providers will say */
    /* an adopted extent is copied whole; a moved one only has its resident pages */
    uint64_t need = m->remap ? st.bytes_mapped : st.bytes_committed;
    if (avail >= need)
        return 0;
    char n[32], a[32];
    return loci__fail(LOCI_ENOMEM, "%s has %s free, the arena needs %s there", dst->name,
                      units_format_size(avail, a, sizeof a), units_format_size(need, n, sizeof n));
}

static int report(loci_arena_t *ar, const move_t *m, int rc, const struct loci_target *from,
                  const struct loci_target *dst)
{
    char why[600], sz[32], stuck[32];
    snprintf(why, sizeof why, "%s", m->failed_at ? m->why : loci_last_error());
    const char *head = "cannot move arena";
    if (!m->failed_at) /* refused before anything moved */
        return loci__fail(rc, "%s \"%s\" from %s to %s: %s", head, ar->intent, from->name, dst->name, why);
    units_format_size(m->failed_size, sz, sizeof sz);
    if (m->stuck == 0)
        return loci__fail(rc, "%s \"%s\" from %s to %s: the extent at %p (%s) failed: %s; the %zu extents "
                              "moved before it were moved back: the arena is still wholly on %s",
                          head, ar->intent, from->name, dst->name, m->failed_at, sz, why, m->ndone, from->name);
    units_format_size(m->stuck_bytes, stuck, sizeof stuck);
    return loci__fail(rc, "%s \"%s\" from %s to %s: the extent at %p (%s) failed: %s; then %zu extents (%s, "
                          "one at %p) could not be moved back and stay on %s; the arena still counts as on %s, "
                          "where its new memory goes: move it again to finish",
                      head, ar->intent, from->name, dst->name, m->failed_at, sz, why, m->stuck, stuck,
                      m->first_stuck, dst->name, from->name);
}

int arena_move(loci_arena_t *ar, const struct loci_target *dst, bool keep_stores)
{
    int rc = arena_move_check(ar, dst);
    if (rc != 0)
        return rc;
    const provider_ops_t *to_ops = provider_for_move(ar->ops, dst, ar->shareable);
    const char *not_live = provider_why_not_live(ar->ops, to_ops);
    if (not_live && keep_stores)
        return loci__fail(LOCI_ENOTSUP, "cannot move arena \"%s\" from %s to %s while the program may use it: "
                                        "%s", ar->intent, loci_arena_target(ar)->name, dst->name, not_live);
    if (!not_live)
        pthread_rwlock_wrlock(&ar->lock);
    else if (pthread_rwlock_trywrlock(&ar->lock) != 0)
        return loci__fail(LOCI_EBUSY, "cannot move arena \"%s\" to %s now: other threads are using it (allocating "
                                      "or moving it), and this move copies its memory with nothing touching it "
                                      "(%s); retry when they are done", ar->intent, dst->name, not_live);
    const struct loci_target *from = loci_arena_target(ar);
    move_t m = {.from_ops = ar->ops, .to_ops = to_ops, .from = ar->place, .remap = ar->ops != to_ops,
                .live = !not_live};
    arena_move_place(ar, dst, to_ops, &m.to);
    /* to where it is already: the walk takes along any of its pages that are
     * elsewhere (a move that failed half-way) */
    if (from == dst || (rc = check_room(ar, &m, dst)) == 0)
        rc = pool_heap_rebase(ar->heap, to_ops, &m.to, move_extent, &m);
    if (from != dst && rc == 0) {
        arena_rehome(ar, dst, to_ops, &m.to);
        ar->moved = true; /* chosen by the caller: an empty arena's fallback no longer applies */
    }
    pthread_rwlock_unlock(&ar->lock);
    free(m.done);
    return rc == 0 ? 0 : report(ar, &m, rc, from, dst);
}

bool arena_moves_live(loci_arena_t *ar, const struct loci_target *dst)
{
    pthread_rwlock_rdlock(&ar->lock);
    bool live = arena_move_check(ar, dst) == 0 &&
                provider_why_not_live(ar->ops, provider_for_move(ar->ops, dst, ar->shareable)) == NULL;
    pthread_rwlock_unlock(&ar->lock);
    return live;
}

int loci_arena_move(loci_arena_t *ar, const loci_target_t *dst) { return arena_move(ar, dst, false); }
