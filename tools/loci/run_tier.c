/*
 * `loci run --tier auto [--intent TERMS] [--tier-threshold SIZE] -- cmd`:
 * the environment that makes an unmodified program's big heap blocks
 * auto-tiered arenas, one per allocation site — libloci-tier.so first in
 * LD_PRELOAD (ahead of what the user preloads, so that an allocator
 * preloaded there becomes the one underneath it), LOCI_TIER=auto (which the
 * OpenMP front end reads too), LOCI_TIER_INTENT, LOCI_TIER_THRESHOLD — and
 * a warning when the program is one the dynamic loader will not preload
 * anything into (static, or set-user-ID).
 */
#include "intent/intent.h"
#include "commands.h"
#include "units.h"

#include <elf.h>
#include <fcntl.h>
#include <limits.h>
#include <loci_tier.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define LIBRARY "libloci-tier.so"
#define MIN_THRESHOLD 4096 /* as the library: loci places memory by page */

/* Where the library is, relative to this executable's directory: beside it
 * (a flat copy, as the VM tests make), installed, in the build tree. */
static const char *const library_places[] = {LIBRARY, LOCI_TIER_FROM_INSTALLED_BIN, LOCI_TIER_FROM_BUILD_TREE};

/* Whether the ELF file at path names a program interpreter (is dynamic);
 * -1 when it is no ELF file this can read. */
static int dynamic(int fd)
{
    unsigned char id[EI_NIDENT];
    if (pread(fd, id, sizeof id, 0) != (ssize_t)sizeof id || memcmp(id, ELFMAG, SELFMAG) != 0)
        return -1;
    bool wide = id[EI_CLASS] == ELFCLASS64;
    Elf64_Ehdr eh64;
    Elf32_Ehdr eh32;
    if (pread(fd, wide ? (void *)&eh64 : (void *)&eh32, wide ? sizeof eh64 : sizeof eh32, 0) <= 0)
        return -1;
    uint64_t off = wide ? eh64.e_phoff : eh32.e_phoff;
    unsigned size = wide ? eh64.e_phentsize : eh32.e_phentsize, count = wide ? eh64.e_phnum : eh32.e_phnum;
    for (unsigned i = 0; i < count; i++) {
        Elf64_Phdr ph64;
        Elf32_Phdr ph32;
        if (pread(fd, wide ? (void *)&ph64 : (void *)&ph32, wide ? sizeof ph64 : sizeof ph32,
                  (off_t)(off + (uint64_t)i * size)) <= 0)
            return -1;
        if ((wide ? ph64.p_type : ph32.p_type) == PT_INTERP)
            return 1;
    }
    return 0;
}

/* The file execvp would run for name. */
static bool which(const char *name, char *out, size_t len)
{
    if (strchr(name, '/'))
        return snprintf(out, len, "%s", name) < (int)len && access(out, X_OK) == 0;
    const char *path = getenv("PATH");
    for (const char *dir = path ? path : "/usr/local/bin:/usr/bin:/bin"; dir; dir = strchr(dir, ':') ? strchr(dir, ':') + 1 : NULL) {
        size_t dlen = strcspn(dir, ":");
        if (snprintf(out, len, "%.*s/%s", (int)dlen, dlen ? dir : ".", name) < (int)len && access(out, X_OK) == 0)
            return true;
    }
    return false;
}

/* Say so when the dynamic loader will not preload the library into program
 * (followed through one #! line to its interpreter). */
static void check_program(const char *name, int depth)
{
    char path[PATH_MAX];
    struct stat st;
    if (!which(name, path, sizeof path) || stat(path, &st) != 0 || !S_ISREG(st.st_mode))
        return; /* execvp says why it cannot run it */
    if (((st.st_mode & S_ISUID) && st.st_uid != geteuid()) || ((st.st_mode & S_ISGID) && st.st_gid != getegid()))
        fprintf(stderr, "loci run: warning: %s is set-user-ID or set-group-ID: the dynamic loader ignores "
                        "LD_PRELOAD for it, so its heap is not tiered\n", path);
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC); /* what stat saw may have become a FIFO */
    if (fd < 0)
        return;
    char line[PATH_MAX + 2] = "";
    ssize_t got = pread(fd, line, sizeof line - 1, 0);
    int kind = dynamic(fd);
    close(fd);
    if (got > 2 && line[0] == '#' && line[1] == '!' && depth == 0) {
        line[got] = '\0';
        char *interp = line + 2 + strspn(line + 2, " \t");
        interp[strcspn(interp, " \t\n")] = '\0';
        if (*interp)
            check_program(interp, 1);
    } else if (kind == 0) {
        fprintf(stderr, "loci run: warning: %s is statically linked: nothing can be preloaded into it, so its "
                        "heap is not tiered (link it dynamically)\n", path);
    }
}

int run_tier_prepare(const char *terms, const char *threshold, char **command, bool verbose)
{
    char text[INTENT_MAX_TEXT];
    int n = snprintf(text, sizeof text, "%s%s%s", terms ? terms : "", terms && *terms ? "," : "", LOCI_TIER_TERM);
    intent_t in;
    resolution_t res;
    if (n < 0 || (size_t)n >= sizeof text || intent_parse(text, &in) != 0 || intent_resolve(&in, &res) != 0) {
        fprintf(stderr, "loci run: --tier auto: %s\n",
                n < 0 || (size_t)n >= sizeof text ? "the intent is too long" : loci_last_error());
        return 1;
    }
    uint64_t bytes = 0;
    const char *why = NULL;
    bool bad = threshold && !units_parse_size(threshold, &bytes, &why);
    if (threshold && !bad && bytes < MIN_THRESHOLD) {
        bad = true;
        why = "less than a page";
    }
    if (bad) {
        fprintf(stderr, "loci run: --tier-threshold %s: %s; expected a size of at least 4 KiB (loci places memory "
                        "by page), e.g. 64K or 1M\n", threshold, why);
        return 2;
    }
    char library[PATH_MAX];
    if (!tool_find_beside(library_places, sizeof library_places / sizeof *library_places, library, sizeof library)) {
        fprintf(stderr, "loci run: --tier auto needs %s, and it is neither beside this loci command nor where "
                        "it is installed or built (build or install loci's shim/tier)\n", LIBRARY);
        return 1;
    }
    char value[32];
    snprintf(value, sizeof value, "%llu", (unsigned long long)bytes);
    if (tool_env_prepend("LD_PRELOAD", library, ' ', LIBRARY) != 0 || setenv("LOCI_TIER", "auto", 1) != 0 ||
        (terms && setenv("LOCI_TIER_INTENT", terms, 1) != 0) ||
        (threshold && setenv("LOCI_TIER_THRESHOLD", value, 1) != 0)) {
        fprintf(stderr, "loci run: cannot set the environment: %m\n");
        return 1;
    }
    check_program(command[0], 0);
    if (verbose) {
        const char *t = getenv("LOCI_TIER_THRESHOLD");
        char over[256] = "";
        for (int i = 0; i < res.ncandidates; i++) {
            size_t used = strlen(over);
            snprintf(over + used, sizeof over - used, "%s%s", i ? ", " : "", res.candidates[i]->name);
        }
        fprintf(stderr, "loci run: heap blocks of at least %s%s: one arena per allocation site (calling context "
                        "and size class), intent \"%s\", tiered over %s (hot data to the first; LD_PRELOAD=%s)\n",
                t && *t ? t : "64 KiB (the default)", t && *t ? " bytes" : "", in.canonical, over,
                getenv("LD_PRELOAD"));
    }
    return 0;
}
