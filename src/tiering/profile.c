/*
 * Tiering profiles (LOCI_TIER_PROFILE, docs/TIERING.md "Profiles"): at exit
 * (or loci_fini) what this run learned — per site (site.c) the target its
 * arena ended on, by name and kind, the most bytes it held and its heat —
 * is written to the file the variable names; the next run of the same
 * program reads it with its first auto arena and starts each site's arena
 * on that target when its budget allows (create.c) — the hottest of the
 * profile's sites there first, in whatever order the program makes them —
 * with the profile's heat as the arena's first; measurement corrects both
 * from then on.
 *
 * The file is text, one site a line, and ends in an XXH3 checksum of what
 * comes before; it is written to a new name (O_CREAT|O_EXCL|O_NOFOLLOW,
 * 0600) and renamed over the old one, so a reader sees a whole profile or
 * the previous one (owned_file_replace). It is read only when it is a
 * regular file of the user's, writable by nobody else (opened O_NONBLOCK:
 * a FIFO planted there cannot hang the first auto arena), whose checksum
 * matches and whose program line names this executable with its size and
 * time: anything else is ignored with a warning, and replaced at exit only
 * when it is a regular file of the user's — another user's file, a FIFO,
 * a device or a link is left alone and no profile written. Sites of the
 * profile this run did not reach are kept. A forked child neither reads
 * nor writes its parent's profile. State under the registry lock.
 */
#include "tiering/tiering.h"
#include "grow.h"
#include "owned_file.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

#define MAGIC "loci-tier-profile 2" /* 1: sites of one frame (module and offset), before calling contexts */
#define MAX_FILE (64u << 20)

typedef struct {
    tiering_site_t site;
    char target[sizeof ((struct loci_target *)0)->name], kind[16];
    uint64_t bytes;
    double heat;
} entry_t;

static struct {
    bool loaded;        /* this process looked (the first auto arena) */
    pid_t pid;          /* the process that did: a forked child writes nothing */
    char *path;         /* absolute; NULL: no profile asked for */
    char *exe;          /* this executable's path, and */
    char *build;        /* "build SIZE MTIME" of it: whose profile it is */
    entry_t *v;
    size_t n, cap;
} prof;

/* The executable this process runs: its path and "build SIZE SEC.NSEC". */
static bool identify_program(void)
{
    struct stat st;
    prof.exe = tiering_executable_path();
    if (!prof.exe || stat(prof.exe, &st) != 0 ||
        asprintf(&prof.build, "build %lld %lld.%09ld", (long long)st.st_size, (long long)st.st_mtim.tv_sec,
                 st.st_mtim.tv_nsec) < 0) {
        prof.build = NULL;
        return false;
    }
    return true;
}

static entry_t *find(const tiering_site_t *s)
{
    for (size_t i = 0; i < prof.n; i++)
        if (tiering_site_equal(&prof.v[i].site, s))
            return &prof.v[i];
    return NULL;
}

static entry_t *add(void)
{
    entry_t *v = grow_for_one(prof.v, prof.n, &prof.cap, sizeof *v, 64);
    if (!v)
        return NULL;
    prof.v = v;
    prof.v[prof.n] = (entry_t){0};
    return &prof.v[prof.n++];
}

static void drop_entries(void)
{
    for (size_t i = 0; i < prof.n; i++)
        tiering_site_free(&prof.v[i].site);
    prof.n = 0;
}

/* ---- reading ------------------------------------------------------------------ */

/* The file's text, NUL-terminated, when it is safe to believe; NULL with a
 * warning otherwise, or silently when there is none yet. Opened so that
 * nothing planted at the name (a FIFO, a device, a link) blocks or feeds
 * this process, checked before a byte is read (owned_file.h). */
static char *read_trusted(const char *path, size_t *len)
{
    int fd = owned_file_open(path, O_RDONLY, OWNED_BY_ME, S_IWGRP | S_IWOTH, "LOCI_TIER_PROFILE");
    if (fd == LOCI_ENOENT) {
        loci__log(LOCI_LOG_INFO, "LOCI_TIER_PROFILE=%s: none yet; this run's is written at exit", path);
        return NULL;
    }
    if (fd < 0) {
        loci__log(LOCI_LOG_WARN, "%s: ignored", loci_last_error());
        return NULL;
    }
    struct stat st;
    char *text = NULL;
    if (fstat(fd, &st) != 0)
        loci__log(LOCI_LOG_WARN, "LOCI_TIER_PROFILE=%s: cannot stat it (%s): ignored", path, strerror(errno));
    else if ((uint64_t)st.st_size > MAX_FILE)
        loci__log(LOCI_LOG_WARN, "LOCI_TIER_PROFILE=%s: %lld bytes, more than any profile: ignored", path,
                  (long long)st.st_size);
    else if ((text = malloc((size_t)st.st_size + 1))) {
        ssize_t got = pread(fd, text, (size_t)st.st_size, 0);
        if (got != st.st_size) {
            loci__log(LOCI_LOG_WARN, "LOCI_TIER_PROFILE=%s: cannot read it: ignored", path);
            free(text);
            text = NULL;
        } else {
            text[got] = '\0';
            *len = (size_t)got;
        }
    }
    close(fd);
    return text;
}

/* The body before the last line "checksum HEX\n" when that is its XXH3. */
static bool checksum_ok(const char *text, size_t len, size_t *body)
{
    if (len < 2 || text[len - 1] != '\n')
        return false;
    size_t start = len - 1;
    while (start > 0 && text[start - 1] != '\n')
        start--;
    unsigned long long sum;
    char tail;
    if (sscanf(text + start, "checksum %16llx%c", &sum, &tail) != 2 || tail != '\n')
        return false;
    *body = start;
    return XXH3_64bits(text, start) == sum;
}

/* One "site" line into a new entry; false when it is not one. */
static bool parse_site(char *line)
{
    entry_t e = {0};
    int used = 0;
    if (sscanf(line, "site %16" SCNx64 " %u %u %" SCNu64 " %lf %15s %15s %n", &e.site.context, &e.site.size_class,
               &e.site.ordinal, &e.bytes, &e.heat, e.target, e.kind, &used) != 7 || used == 0 ||
        line[used] == '\0' || !e.site.context || !(e.heat >= 0))
        return false;
    entry_t *slot = add();
    if (slot && (e.site.where = strdup(line + used)))
        *slot = e;
    else if (slot)
        prof.n--; /* out of memory: a site less, not a corrupt file */
    return true;
}

/* The profile's entries, when it is this program's and whole. */
static void parse(const char *path, char *text, size_t body)
{
    text[body] = '\0';
    char *save = NULL, *line = strtok_r(text, "\n", &save);
    if (!line || strcmp(line, MAGIC) != 0) {
        loci__log(LOCI_LOG_WARN, "LOCI_TIER_PROFILE=%s: not a loci tier profile of this version (first line "
                                 "\"%s\", expected \"%s\"): ignored", path, line ? line : "", MAGIC);
        return;
    }
    char *program = strtok_r(NULL, "\n", &save), *build = strtok_r(NULL, "\n", &save);
    bool same_path = program && strncmp(program, "program ", 8) == 0 && strcmp(program + 8, prof.exe) == 0;
    if (!same_path || !build || strcmp(build, prof.build) != 0) {
        loci__log(LOCI_LOG_WARN, "LOCI_TIER_PROFILE=%s: a profile of %s%s, not of this program (%s): ignored; "
                                 "this run's replaces it at exit", path,
                  program && strncmp(program, "program ", 8) == 0 ? program + 8 : "(no program line)",
                  same_path ? " as it was built before" : "", prof.exe);
        return;
    }
    unsigned lineno = 3;
    while ((line = strtok_r(NULL, "\n", &save))) {
        lineno++;
        if (!parse_site(line)) {
            loci__log(LOCI_LOG_WARN, "LOCI_TIER_PROFILE=%s:%u: not a site line (\"site CONTEXT CLASS ORDINAL BYTES "
                                     "HEAT TARGET KIND FRAMES\"): the profile is ignored", path, lineno);
            drop_entries();
            return;
        }
    }
    loci__log(LOCI_LOG_INFO, "LOCI_TIER_PROFILE=%s: %zu sites", path, prof.n);
}

static void save_at_exit(void) { tiering_profile_save(); }

void tiering_profile_load(void)
{
    tiering_lock();
    if (prof.loaded) {
        tiering_unlock();
        return;
    }
    prof.loaded = true;
    prof.pid = getpid();
    const char *env = getenv("LOCI_TIER_PROFILE");
    char cwd[PATH_MAX];
    if (env && *env && identify_program() &&
        (env[0] == '/' ? (prof.path = strdup(env)) != NULL
                       : getcwd(cwd, sizeof cwd) && asprintf(&prof.path, "%s/%s", cwd, env) >= 0)) {
        static bool armed;
        if (!armed)
            atexit(save_at_exit); /* once per process; it saves whatever run of loci is current */
        armed = true;
        size_t len = 0, body = 0;
        char *text = read_trusted(prof.path, &len);
        if (text && !checksum_ok(text, len, &body))
            loci__log(LOCI_LOG_WARN, "LOCI_TIER_PROFILE=%s: its checksum does not match (cut short or changed "
                                     "since loci wrote it): ignored; this run's replaces it at exit", prof.path);
        else if (text)
            parse(prof.path, text, body);
        free(text);
    } else if (env && *env) {
        loci__log(LOCI_LOG_WARN, "LOCI_TIER_PROFILE=%s: cannot tell this program's path (/proc/self/exe): no "
                                 "profile read or written", env);
    }
    tiering_unlock();
}

bool tiering_profile_place(const tiering_site_t *s, const resolution_t *res, const struct loci_target **target,
                           uint64_t *bytes, double *heat, uint64_t *hotter)
{
    const entry_t *e = s->context ? find(s) : NULL;
    if (!e)
        return false;
    const struct loci_target *by_kind = NULL;
    for (int i = 0; i < res->ncandidates; i++) {
        const struct loci_target *c = res->candidates[i];
        if (strcmp(c->name, e->target) == 0) {
            by_kind = c; /* the same target: best */
            break;
        }
        if (!by_kind && strcmp(topo_kind_name(c->kind), e->kind) == 0)
            by_kind = c;
    }
    if (!by_kind)
        return false;
    *target = by_kind;
    *bytes = e->bytes;
    *heat = e->heat;
    *hotter = 0; /* the profile's hotter sites of that target come first, whenever they are made */
    for (size_t i = 0; i < prof.n; i++)
        if (&prof.v[i] != e && strcmp(prof.v[i].target, e->target) == 0 &&
            (prof.v[i].heat > e->heat || (prof.v[i].heat == e->heat && &prof.v[i] < e)))
            *hotter += prof.v[i].bytes;
    return true;
}

void tiering_profile_learn(const tier_arena_t *t)
{
    if (!prof.path || !t->site.context)
        return;
    entry_t *e = find(&t->site);
    if (!e && (e = add()) && !(e->site.where = strdup(t->site.where))) {
        prof.n--;
        return;
    }
    if (!e)
        return;
    uint64_t now = arena_bytes(t->ar);
    const struct loci_target *at = loci_arena_target(t->ar);
    e->site.context = t->site.context;
    e->site.size_class = t->site.size_class;
    e->site.ordinal = t->site.ordinal;
    snprintf(e->target, sizeof e->target, "%s", at->name);
    snprintf(e->kind, sizeof e->kind, "%s", topo_kind_name(at->kind));
    e->bytes = t->bytes > now ? t->bytes : now;
    e->heat = t->track.heat;
}

/* ---- writing ------------------------------------------------------------------ */

/* The profile's text, checksum line included (malloc'd). */
static char *render(size_t *len)
{
    char *text = NULL;
    FILE *f = open_memstream(&text, len);
    if (!f)
        return NULL;
    fprintf(f, "%s\nprogram %s\n%s\n", MAGIC, prof.exe, prof.build);
    for (size_t i = 0; i < prof.n; i++) {
        const entry_t *e = &prof.v[i];
        fprintf(f, "site %016" PRIx64 " %u %u %" PRIu64 " %.6f %s %s %s\n", e->site.context, e->site.size_class,
                e->site.ordinal, e->bytes, e->heat, e->target, e->kind, e->site.where);
    }
    if (fclose(f) != 0) {
        free(text);
        return NULL;
    }
    char *whole = NULL;
    int n = asprintf(&whole, "%schecksum %016llx\n", text, (unsigned long long)XXH3_64bits(text, *len));
    free(text);
    if (n < 0)
        return NULL;
    *len = (size_t)n;
    return whole;
}

void tiering_profile_save(void)
{
    tiering_lock();
    if (prof.path && prof.pid == getpid()) {
        for (tier_arena_t *t = tiering_arenas(); t; t = t->next)
            tiering_profile_learn(t);
        size_t len = 0;
        char *text = render(&len);
        if (text && owned_file_replace(prof.path, text, len, "LOCI_TIER_PROFILE") != 0)
            loci__log(LOCI_LOG_WARN, "%s: no profile written", loci_last_error());
        else if (text)
            loci__log(LOCI_LOG_INFO, "LOCI_TIER_PROFILE=%s: %zu sites written", prof.path, prof.n);
        else
            loci__log(LOCI_LOG_WARN, "LOCI_TIER_PROFILE=%s: out of memory: no profile written", prof.path);
        free(text);
    }
    tiering_unlock();
}

void tiering_profile_reset(void)
{
    tiering_lock();
    drop_entries();
    free(prof.v);
    free(prof.path);
    free(prof.exe);
    free(prof.build);
    prof = (__typeof__(prof)){0};
    tiering_unlock();
}
