/*
 * What crosses files in libloci-tier.so, the malloc interposer of
 * `loci run --tier auto` (include/loci_tier.h, docs/TIERING.md).
 *
 * The exported malloc family (entry_malloc.c) sends a block of at least the
 * threshold (settings.c) to its site's arena (place.c, sites.c) and every
 * other block to the allocator underneath (libc.c). A site is the block's
 * calling context (context.c): the program's frames past the runtimes'
 * (runtime.c), native or Python (python.c). Calls into loci run with this
 * thread marked (settings.c: tier_enter/tier_leave), so that whatever loci
 * allocates meanwhile goes underneath too. Files call down this list:
 * entry_*, place, sites, context, python, runtime, settings, libc.
 */
#ifndef LOCI_TIER_SHIM_H
#define LOCI_TIER_SHIM_H

#include "log.h" /* src/util */

#include <loci.h>
#include <loci_tier.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Everything is hidden (-fvisibility=hidden) but the interposed entry points. */
#define TIER_EXPORT __attribute__((visibility("default")))

/** "loci-tier: <level>: message" on stderr, filtered by LOCI_LOG. */
#define tier_log(level, ...) loci__log_as("loci-tier", level, __VA_ARGS__)

/* --- libc.c: the allocator underneath ------------------------------------- */

/** The next definitions after ours (dlsym RTLD_NEXT): libc's, or those of
 *  an allocator preloaded after this library. While dlsym itself allocates
 *  (before they are known) blocks come from a small static buffer. */
void *libc_malloc(size_t size);
void *libc_calloc(size_t n, size_t size);
void *libc_realloc(void *p, size_t size);
void libc_free(void *p);
void *libc_memalign(size_t alignment, size_t size);
size_t libc_usable_size(void *p);

/** Look the definitions up (the constructor does; harmless to repeat). */
void libc_resolve(void);

/* --- settings.c: the environment, loci, this thread ----------------------- */

/** Blocks of at least this many bytes go to site arenas; SIZE_MAX before
 *  the constructor, with LOCI_TIER=off, or once loci could not start. */
size_t tier_threshold(void);

/** Place nothing from now on (what is placed stays and is freed as usual). */
void tier_give_up(void);

/** The intent of every site's arena: LOCI_TIER_INTENT's terms, LOCI_TIER_TERM. */
const char *tier_intent(void);

/** Whether a call from `caller` may be placed: not from inside loci (its
 *  own threads included) nor while this thread is in a loci call. */
bool tier_may_place(const void *caller);

/** loci is started (first call: starts it). false: it cannot, said once,
 *  and the threshold is SIZE_MAX from now on. */
bool tier_started(void);

/** Mark this thread inside loci (nested calls fine) / no longer. */
void tier_enter(void);
void tier_leave(void);
/** Whether this thread is inside loci now. */
bool tier_inside(void);

/** Frames of the program's own code a calling context holds (LOCI_TIER_CONTEXT). */
int tier_context_depth(void);

/* --- runtime.c: whose code a return address is ----------------------------- */

typedef enum {
    CODE_PROGRAM,     /* the program's: a frame of its calling contexts */
    CODE_RUNTIME,     /* an allocator's or a language runtime's: looked past */
    CODE_INTERPRETER, /* CPython's eval loop: the Python frames take over */
} code_kind_t;

/** Know the interpreter's module, given an address in it (NULL: none). */
void runtime_setup(const void *interpreter);

/** Whose code pc is. Lock-free, allocates nothing. */
code_kind_t runtime_code_kind(const void *pc);

/* --- python.c: the Python code that allocates ------------------------------ */

/** One frame of a calling context: a native return address, or a Python
 *  code object and a line of it. */
typedef struct {
    const void *pc;   /* native; NULL for a Python frame */
    const void *code; /* Python: its PyCodeObject */
    uintptr_t line;   /* Python: the line running */
} tier_frame_t;

/** Find CPython in the process (the constructor: before main). Returns an
 *  address in its eval loop for runtime_setup, NULL when it is not Python. */
const void *python_setup(void);

/** This thread's Python frames of the program's own code (not the standard
 *  library's or installed packages'; those only when nothing else runs),
 *  innermost first, into out[0..max-1]: how many (0: no Python code runs on
 *  this thread). Lock-free, allocates nothing. */
int python_frames(tier_frame_t *out, int max);

/** File (UTF-8: in buf, or the interpreter's own string) and line of a
 *  frame python_frames gave, while it is still on this thread's stack. */
const char *python_describe(const tier_frame_t *f, char *buf, size_t len, unsigned *line);

/* --- context.c: the calling context of an allocation ------------------------ */

typedef struct {
    tier_frame_t frames[LOCI_TIER_CONTEXT_MAX];
    int n;
    uint64_t key; /* the frames hashed: this process's name for the context */
} tier_context_t;

/** The calling context of an allocation whose malloc-family call returns
 *  to `start` (past this library's frames): the program's frames from
 *  there, Python's where the interpreter runs them; `start` alone when
 *  nothing else is found. Lock-free, allocates nothing. */
void context_capture(const void *start, tier_context_t *out);

/* --- sites.c: the table of allocation sites ------------------------------- */

typedef struct tier_site tier_site_t;

/** The site of (calling context, size class of size), made on first use;
 *  the overflow site once LOCI_TIER_MAX_SITES are taken. */
tier_site_t *site_for(const tier_context_t *context, const void *caller, size_t size);

/** Its arena (made on first use, under tier_enter); NULL when it could not
 *  be made (said once for the process). */
loci_arena_t *site_arena(tier_site_t *s);

/** The site whose arena is ar, NULL if none is. */
tier_site_t *site_of_arena(const loci_arena_t *ar);

/** Count a block of `bytes` usable bytes made in / freed from s. */
void site_count_alloc(tier_site_t *s, size_t bytes);
void site_count_free(tier_site_t *s, size_t bytes);
/** A block of s resized in place or within its arena. */
void site_count_resize(tier_site_t *s, size_t before, size_t after);

/** Fill out[0..max-1] and return how many sites there are. */
int site_list(loci_tier_site_t *out, int max);

/* --- place.c: blocks in site arenas ---------------------------------------- */

/** A block of size bytes (alignment: a power of two, <= 16 for malloc's)
 *  in the arena of its site, the calling context from caller's frame on
 *  (the malloc-family call's return address); zeroed if zero. NULL:
 *  allocate it underneath (the arena could not take it). size >= the
 *  threshold. */
void *place_alloc(const void *caller, size_t alignment, size_t size, bool zero);

/** Whether p is a block of a site arena's (or of loci's, in a granule where
 *  one was). */
bool place_owns(const void *p);

/** Usable bytes of p, which place_owns. */
size_t place_usable(const void *p);

/** Free p, which place_owns, counting it off its site. */
void place_free(void *p);

/** Resize p, which place_owns: in its arena while size stays at least the
 *  threshold (NULL + ENOMEM if it cannot grow there; p untouched), else
 *  copied underneath and freed. */
void *place_realloc(void *p, size_t size);

#endif
