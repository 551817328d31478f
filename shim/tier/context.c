/*
 * The calling context of a big allocation: the site that tells one
 * caller's data from another's when both allocate through the same
 * wrapper. From the frame the malloc-family call returns to, the stack is
 * walked outward and the frames of the allocators and language runtimes
 * are looked past (runtime.c: operator new, libc, CPython, NumPy...); up to
 * LOCI_TIER_CONTEXT frames of the program's own code make the context
 * (Jenga hashes up to 10 return addresses; SICM clones call paths to depth
 * 3). Depth gets a context past a program's own forwarding functions (an
 * xmalloc, a make_buffer that returns malloc's block), which nothing marks;
 * a function that ends in a jump to malloc (`return malloc(n)`, compiled
 * as a tail call) has no frame at all, so its caller is the site, as the
 * program's source says. Where the walk reaches CPython's eval loop, the
 * Python frames take over (python.c); a block that a runtime's code
 * allocates while Python code runs on the thread (NumPy's data allocator)
 * goes to them at once, with no native walk.
 *
 * The walk is libgcc's unwinder (_Unwind_Backtrace, DWARF call frame
 * information: frame pointers are usually absent), which with glibc 2.35+
 * finds each frame's unwind tables through _dl_find_object — lock-free and
 * allocating nothing, as inside malloc it must; its one-time set-up takes a
 * lock, so it runs here before main. It interprets each frame's unwind
 * rules anew, some hundreds of nanoseconds a frame (bench/tiering/
 * run-context.sh), so each thread keeps the walks it made last: a walk's
 * result holds again when it starts from the same call at the same stack
 * depth and every return address it read is still in the stack slot it
 * was read from — each slot's place follows from the frames below it, so
 * equal slots mean an equal chain of calls. (Not quite for a frame whose
 * size varies, alloca's: a chain of other callers could then put the same
 * return addresses at the same places by chance, and a block would be
 * filed under the other context's site — nothing worse.) That check reads
 * a few words of this thread's own stack, between its stack pointer and
 * slots that were in use at that very depth. Walks that cross into another
 * stack (a frame over 256 KiB apart: a coroutine's, a signal stack) or
 * reach the interpreter are not kept.
 */
#include "tier.h"

#include <unwind.h>

#define WALK_MAX 48   /* native frames looked at, at most: a bound on the cost */
#define KEPT 8        /* walks a thread keeps */
#define SLOTS_MAX 24  /* frames a kept walk may have read */
#define FRAME_MAX (256 << 10) /* apart more than this: another stack */

/* A walk kept: made from start with this function's CFA at `depth`, it read
 * value[i] at slot[i]; bit i of `program`: value[i] is a frame of the context. */
typedef struct {
    const void *start;
    uintptr_t depth;
    int nslots;
    uint32_t program;
    uintptr_t slot[SLOTS_MAX], value[SLOTS_MAX];
} kept_t;

static __thread kept_t kept[KEPT] __attribute__((tls_model("initial-exec")));
static __thread unsigned kept_next __attribute__((tls_model("initial-exec")));

typedef struct {
    const void *start;
    bool started;  /* start's frame reached: the frames before it are this library's */
    bool python;   /* the walk stopped at CPython's eval loop */
    int seen, depth;
    tier_context_t *context;
    uintptr_t cfa;  /* the last frame's */
    kept_t *keep;   /* what it read, NULL once it cannot be kept */
} walk_t;

/* Where the return address pc was read: libgcc's CFA of a frame is its
 * callee's, the stack pointer before the call that pushed pc (x86-64), so
 * pc lies just below it. Slots below context_capture's own CFA are this
 * library's frames (they differ by the time recall looks). */
static void note(walk_t *w, struct _Unwind_Context *uc, uintptr_t pc, bool program)
{
    uintptr_t cfa = _Unwind_GetCFA(uc);
    kept_t *k = w->keep;
    if (!k || cfa < k->depth)
        return;
    if (k->nslots == SLOTS_MAX || (k->nslots && (cfa <= w->cfa || cfa - w->cfa > FRAME_MAX))) {
        w->keep = NULL; /* too deep to keep, or another stack */
        return;
    }
    k->slot[k->nslots] = cfa - sizeof(uintptr_t);
    k->value[k->nslots] = pc;
    k->program |= (uint32_t)program << k->nslots;
    k->nslots++;
    w->cfa = cfa;
}

static _Unwind_Reason_Code step(struct _Unwind_Context *uc, void *arg)
{
    walk_t *w = arg;
    const void *pc = (const void *)_Unwind_GetIP(uc);
    if (!pc || ++w->seen > WALK_MAX)
        return _URC_END_OF_STACK;
    if (!w->started && pc != w->start) {
        note(w, uc, (uintptr_t)pc, false);
        return _URC_NO_REASON;
    }
    w->started = true;
    code_kind_t kind = runtime_code_kind(pc);
    note(w, uc, (uintptr_t)pc, kind == CODE_PROGRAM);
    switch (kind) {
    case CODE_INTERPRETER:
        w->python = true;
        return _URC_END_OF_STACK;
    case CODE_RUNTIME:
        return _URC_NO_REASON;
    default:
        w->context->frames[w->context->n++] = (tier_frame_t){.pc = pc};
        return w->context->n < w->depth ? _URC_NO_REASON : _URC_END_OF_STACK;
    }
}

/* The context of a kept walk whose slots hold what it read, if one does. */
static bool recall(const void *start, uintptr_t depth, tier_context_t *out)
{
    for (int i = 0; i < KEPT; i++) {
        const kept_t *k = &kept[i];
        if (k->start != start || k->depth != depth || k->nslots == 0)
            continue;
        int s = 0;
        while (s < k->nslots && *(const uintptr_t *)k->slot[s] == k->value[s])
            s++;
        if (s < k->nslots)
            continue;
        out->n = 0;
        for (s = 0; s < k->nslots; s++)
            if (k->program & (1u << s))
                out->frames[out->n++] = (tier_frame_t){.pc = (const void *)k->value[s]};
        return true;
    }
    return false;
}

static uint64_t mix(uint64_t h, uint64_t v)
{
    h ^= v + 0x9E3779B97F4A7C15ull + (h << 6) + (h >> 2);
    return h * 0xBF58476D1CE4E5B9ull;
}

/* The walk from start, kept when it can be. Inlined: the walk begins at
 * context_capture's own frame, whose CFA is `depth`, so that its first slot
 * is the one recall finds again there. */
__attribute__((always_inline)) static inline void walk(const void *start, uintptr_t depth, int frames, tier_context_t *out)
{
    kept_t *k = &kept[kept_next % KEPT];
    *k = (kept_t){.start = start, .depth = depth};
    walk_t w = {.start = start, .depth = frames, .context = out, .keep = k};
    _Unwind_Backtrace(step, &w);
    if (w.python)
        out->n += python_frames(out->frames + out->n, frames - out->n);
    if (!w.keep || w.python || !w.started)
        k->nslots = 0; /* not kept */
    else
        kept_next++;
}

void context_capture(const void *start, tier_context_t *out)
{
    int depth = tier_context_depth();
    out->n = 0;
    code_kind_t first = runtime_code_kind(start);
    if (first != CODE_PROGRAM)
        out->n = python_frames(out->frames, depth);
    if (out->n == 0 && first == CODE_PROGRAM && depth == 1)
        out->frames[out->n++] = (tier_frame_t){.pc = start};
    else if (out->n == 0) {
        uintptr_t here = (uintptr_t)__builtin_dwarf_cfa(); /* the stack's depth at this call */
        if (!recall(start, here, out))
            walk(start, here, depth, out);
    }
    if (out->n == 0) /* nothing past the runtimes (or no unwind tables): the call itself */
        out->frames[out->n++] = (tier_frame_t){.pc = start};
    uint64_t key = (uint64_t)out->n;
    for (int i = 0; i < out->n; i++) {
        key = mix(key, (uintptr_t)out->frames[i].pc);
        key = mix(key, (uintptr_t)out->frames[i].code);
        key = mix(key, out->frames[i].line);
    }
    out->key = key;
}

static _Unwind_Reason_Code nothing(struct _Unwind_Context *uc, void *arg) { return _URC_END_OF_STACK; }

/* Before main: CPython found, and the unwinder's one-time set-up done. */
__attribute__((constructor)) static void setup(void)
{
    runtime_setup(python_setup());
    _Unwind_Backtrace(nothing, NULL);
}
