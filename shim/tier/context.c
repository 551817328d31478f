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
 * lock, so it runs here before main. It costs about a microsecond per frame
 * on a loaded 2-core host (bench/tiering/context_cost.c): paid only by
 * blocks of at least the threshold, whose pages cost more.
 */
#include "tier.h"

#include <unwind.h>

#define WALK_MAX 48 /* native frames looked at, at most: a bound on the cost */

typedef struct {
    const void *start;
    bool started;  /* start's frame reached: the frames before it are this library's */
    bool python;   /* the walk stopped at CPython's eval loop */
    int seen, depth;
    tier_context_t *context;
} walk_t;

static _Unwind_Reason_Code step(struct _Unwind_Context *uc, void *arg)
{
    walk_t *w = arg;
    const void *pc = (const void *)_Unwind_GetIP(uc);
    if (!pc || ++w->seen > WALK_MAX)
        return _URC_END_OF_STACK;
    if (!w->started && pc != w->start)
        return _URC_NO_REASON;
    w->started = true;
    switch (runtime_code_kind(pc)) {
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

static uint64_t mix(uint64_t h, uint64_t v)
{
    h ^= v + 0x9E3779B97F4A7C15ull + (h << 6) + (h >> 2);
    return h * 0xBF58476D1CE4E5B9ull;
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
        walk_t w = {.start = start, .depth = depth, .context = out};
        _Unwind_Backtrace(step, &w);
        if (w.python)
            out->n += python_frames(out->frames + out->n, depth - out->n);
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
