/*
 * Where an auto arena was made, in words that stay the same from one run
 * of the program to the next (profiles, `loci tier`): its calling context,
 * innermost frame first — for native code the module holding each return
 * address (its path; the executable's being /proc/self/exe's target) and
 * the offset in it (addresses differ from run to run: ASLR), for
 * interpreted code (Python) the file and line — hashed into one number,
 * with the size class and the ordinal among the live auto arenas of the
 * same context (a loop making 16 arenas at one line is 16 sites). The
 * frames are also written as a short text, "app+0x1a2f<+0x1b40" (the
 * innermost frame, then its callers, the module named when it changes) or
 * "train.py:12<:40".
 */
#include "tiering/tiering.h"

#include <dlfcn.h>
#include <inttypes.h>
#include <libgen.h>
#include <limits.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <xxhash.h>

#define WHERE_MAX 160 /* the text of a context: enough for its first frames */
#define PATH_LEN 512  /* a frame's path (a longer one is cut, the same way every run): small stacks allocate too */

/* The executable's path: its link map names it "" (glibc), and argv[0]
 * (what dladdr gives) may be relative to a directory long left. */
char *tiering_executable_path(void)
{
    char buf[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
    if (n <= 0)
        return NULL;
    buf[n] = '\0';
    return strdup(buf);
}

/* One frame named: its module's path and the offset in it, or its source
 * file and line. false: nothing names it from run to run (code outside
 * every module, JIT code; a module or file without an absolute path). */
static bool name_frame(const loci_frame_t *f, char *path, size_t len, uint64_t *offset)
{
    if (!f->pc) {
        snprintf(path, len, "%s", f->file ? f->file : "");
        *offset = f->line;
        return f->file && f->file[0] == '/' && !strchr(f->file, '\n');
    }
    Dl_info info;
    struct link_map *map = NULL;
    if (!dladdr1(f->pc, &info, (void **)&map, RTLD_DL_LINKMAP) || !info.dli_fbase || !info.dli_fname)
        return false;
    char *exe = map && map->l_name[0] == '\0' ? tiering_executable_path() : NULL;
    snprintf(path, len, "%s", exe ? exe : info.dli_fname);
    free(exe);
    *offset = (uint64_t)((uintptr_t)f->pc - (uintptr_t)info.dli_fbase);
    return path[0] == '/' && !strchr(path, '\n');
}

/* "+0x1b40" or ":40" after a frame of the same module, else with its file name. */
static void append_frame(char *where, const loci_frame_t *f, const char *path, const char *previous,
                         uint64_t offset)
{
    size_t used = strlen(where);
    if (used >= WHERE_MAX - 1)
        return;
    char copy[PATH_LEN];
    snprintf(copy, sizeof copy, "%s", path);
    const char *name = strcmp(path, previous) == 0 ? "" : basename(copy);
    snprintf(where + used, WHERE_MAX - used, f->pc ? "%s%s+0x%" PRIx64 : "%s%s:%" PRIu64, used ? "<" : "", name,
             offset);
}

void tiering_site_of(const loci_frame_t *frames, int nframes, unsigned size_class, tiering_site_t *out)
{
    *out = (tiering_site_t){.size_class = size_class};
    char where[WHERE_MAX] = "", previous[PATH_LEN] = "";
    uint64_t context = 0;
    for (int i = 0; i < nframes; i++) {
        char path[PATH_LEN];
        uint64_t offset;
        if (!name_frame(&frames[i], path, sizeof path, &offset)) {
            if (i == 0)
                return; /* unknown where it allocates: not profiled */
            snprintf(path, sizeof path, "?"); /* a caller outside every module: the same "?" every run */
            offset = 0;
        }
        /* each frame's path and offset chained into the one number */
        context = XXH3_64bits_withSeed(path, strlen(path) + 1, context);
        context = XXH3_64bits_withSeed(&offset, sizeof offset, context);
        append_frame(where, &frames[i], path, previous, offset);
        snprintf(previous, sizeof previous, "%s", path);
    }
    out->where = nframes > 0 ? strdup(where) : NULL;
    out->context = out->where ? context | 1 : 0; /* never 0: 0 is "unknown" */
}

bool tiering_site_equal(const tiering_site_t *a, const tiering_site_t *b)
{
    return a->context && a->context == b->context && a->size_class == b->size_class && a->ordinal == b->ordinal;
}

void tiering_site_free(tiering_site_t *s)
{
    free(s->where);
    s->where = NULL;
}
