/*
 * A checkpoint's manifest: a text file, so that people (and `loci ckpt
 * show`) can read it, ending in the XXH3-128 checksum of everything before:
 *
 *   loci-ckpt 1
 *   name NAME
 *   seq 7
 *   time 1763812345.123456789
 *   var memory|region NAME SIZE CHUNK copy|link   (or, a region on the store:
 *                                      "... snap TARGET SNAPSHOT", chunks "0000000000000001 <sum>")
 *   <pool id, 16 hex> <checksum, 32 hex>     one line per chunk, ceil(SIZE /
 *   zero                                     CHUNK) of them; "link" chunks add
 *   <pool id> <checksum> <inode>             the inode of the file (0: copied)
 *   ...
 *   sum <checksum, 32 hex>
 *
 * Written to a temporary name, fsync'd, renamed over the old one and the
 * directory fsync'd: a reader sees the old manifest or the new, whole one.
 */
#include "ckpt/ckpt.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAGIC "loci-ckpt 1\n"
#define SUFFIX ".manifest"
#define SUM_LINE 37 /* "sum " + 32 hex + "\n" */
#define MAX_MANIFEST ((size_t)1 << 30)

const ckpt_var_t *ckpt_manifest_find(const ckpt_manifest_t *m, ckpt_kind_t kind, const char *name)
{
    for (size_t i = 0; m && i < m->nvars; i++)
        if (m->vars[i].kind == kind && strcmp(m->vars[i].name, name) == 0)
            return &m->vars[i];
    return NULL;
}

ckpt_var_t *ckpt_manifest_add(ckpt_manifest_t *m, const char *name, ckpt_kind_t kind, bool linked, uint64_t size,
                              uint64_t chunk)
{
    ckpt_var_t *v = realloc(m->vars, (m->nvars + 1) * sizeof *v);
    if (!v)
        return loci__fail_null(LOCI_ENOMEM, "out of memory describing variable \"%s\"", name);
    m->vars = v;
    v = &v[m->nvars];
    *v = (ckpt_var_t){.kind = kind, .linked = linked, .size = size, .chunk = chunk,
                      .nchunks = (size + chunk - 1) / chunk};
    snprintf(v->name, sizeof v->name, "%s", name);
    if (!(v->chunks = calloc(v->nchunks ? v->nchunks : 1, sizeof *v->chunks)))
        return loci__fail_null(LOCI_ENOMEM, "out of memory describing variable \"%s\"", name);
    m->nvars++;
    return v;
}

void ckpt_manifest_free(ckpt_manifest_t *m)
{
    for (size_t i = 0; i < m->nvars; i++)
        free(m->vars[i].chunks);
    free(m->vars);
    m->vars = NULL;
    m->nvars = 0;
}

/* Hex by hand: a manifest has a line per chunk, and fprintf per line showed
 * in the time of saving unchanged regions. */
static char *put_hex(char *p, uint64_t v)
{
    static const char digits[] = "0123456789abcdef";
    for (int i = 15; i >= 0; i--, v >>= 4)
        p[i] = digits[v & 15];
    return p + 16;
}

static char *put_sum(char *p, ckpt_sum_t s) { return put_hex(put_hex(p, s.high64), s.low64); }

/* One chunk's line, '\n' included, into p (at least 80 bytes): its length. */
static size_t chunk_line(char *p, const ckpt_var_t *v, const ckpt_chunk_t *c)
{
    if (c->id == CKPT_ZERO)
        return (size_t)(stpcpy(p, "zero\n") - p);
    char *q = put_hex(p, c->id);
    *q++ = ' ';
    q = put_sum(q, c->sum);
    if (v->linked) { /* " <inode>" in decimal */
        char digits[24];
        int n = 0;
        uint64_t ino = c->ino;
        do
            digits[n++] = (char)('0' + ino % 10);
        while ((ino /= 10) > 0);
        *q++ = ' ';
        while (n > 0)
            *q++ = digits[--n];
    }
    *q++ = '\n';
    return (size_t)(q - p);
}

int ckpt_manifest_text(ckpt_manifest_t *m, char **out, size_t *outlen)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f)
        return loci__fail(LOCI_ENOMEM, "out of memory writing manifest of checkpoint \"%s\"", m->name);
    fprintf(f, MAGIC "name %s\nseq %" PRIu64 "\ntime %" PRId64 ".%09ld\n", m->name, m->seq, m->saved_s, m->saved_ns);
    for (size_t i = 0; i < m->nvars; i++) {
        const ckpt_var_t *v = &m->vars[i];
        fprintf(f, "var %s %s %" PRIu64 " %" PRIu64 " %s", v->kind == CKPT_REGION ? "region" : "memory", v->name,
                v->size, v->chunk, v->snap ? "snap" : v->linked ? "link" : "copy");
        if (v->snap)
            fprintf(f, " %s %" PRIu64, v->target, v->snap);
        else if (v->version)
            fprintf(f, " %016" PRIx64, v->version);
        fputc('\n', f);
        for (uint64_t c = 0; c < v->nchunks; c++) {
            char line[80];
            fwrite(line, 1, chunk_line(line, v, &v->chunks[c]), f);
        }
    }
    fflush(f);
    char last[40] = "sum ";
    m->sum = XXH3_128bits(text, len);
    put_sum(last + 4, m->sum);
    last[36] = '\n';
    fwrite(last, 1, SUM_LINE, f);
    if (fclose(f) != 0) {
        free(text);
        return loci__fail(LOCI_ENOMEM, "out of memory writing manifest of checkpoint \"%s\"", m->name);
    }
    *out = text;
    *outlen = len;
    return 0;
}

int ckpt_manifest_write(int dirfd, ckpt_manifest_t *m, uint64_t *bytes, bool *renamed)
{
    char *text;
    size_t len;
    *renamed = false;
    if (ckpt_manifest_text(m, &text, &len) != 0)
        return LOCI_ENOMEM;
    char tmp[NVM_NAME_MAX + 64], final[NVM_NAME_MAX + 16];
    snprintf(tmp, sizeof tmp, ".tmp-%s.%ld", m->name, (long)getpid());
    snprintf(final, sizeof final, "%s" SUFFIX, m->name);
    int rc = 0, fd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0)
        rc = loci__fail(ckpt_code_of(errno), "cannot create manifest of checkpoint \"%s\": %s", m->name,
                        strerror(errno));
    if (rc == 0)
        rc = ckpt_write_all(fd, text, len, 0, "the manifest");
    if (rc == 0 && fsync(fd) != 0)
        rc = loci__fail(ckpt_code_of(errno), "cannot sync manifest of checkpoint \"%s\": %s", m->name, strerror(errno));
    if (fd >= 0)
        close(fd);
    if (rc == 0 && renameat(dirfd, tmp, dirfd, final) != 0)
        rc = loci__fail(ckpt_code_of(errno), "cannot rename manifest of checkpoint \"%s\": %s", m->name,
                        strerror(errno));
    if (rc != 0 && fd >= 0)
        unlinkat(dirfd, tmp, 0);
    *renamed = rc == 0;
    if (rc == 0 && fsync(dirfd) != 0)
        rc = loci__fail(ckpt_code_of(errno), "cannot sync the checkpoint directory: %s", strerror(errno));
    *bytes = len;
    free(text);
    return rc;
}

/* ---- reading --------------------------------------------------------------- */

typedef struct {
    const char *p, *end; /* the text not parsed yet */
    unsigned line;
    const char *name;    /* of the checkpoint, for messages */
} cursor_t;

static int bad(const cursor_t *c, const char *what)
{
    return loci__fail(LOCI_EIO, "checkpoint \"%s\": manifest line %u: %s; the manifest is corrupt", c->name, c->line,
                      what);
}

/* The next line, without its '\n', into buf: false at the end or when it
 * does not fit. */
static bool next_line(cursor_t *c, char *buf, size_t len)
{
    const char *nl = memchr(c->p, '\n', (size_t)(c->end - c->p));
    if (!nl || (size_t)(nl - c->p) >= len)
        return false;
    memcpy(buf, c->p, (size_t)(nl - c->p));
    buf[nl - c->p] = '\0';
    c->p = nl + 1;
    c->line++;
    return true;
}

static bool parse_sum(const char *s, ckpt_sum_t *out)
{
    return strlen(s) == 32 && ckpt_hex64(s, &out->high64) && ckpt_hex64(s + 16, &out->low64);
}

static bool decimal(const char *s, uint64_t *out)
{
    if (*s < '0' || *s > '9')
        return false;
    char *end;
    errno = 0;
    *out = strtoull(s, &end, 10);
    return errno == 0 && *end == '\0';
}

static int parse_var(cursor_t *c, ckpt_manifest_t *m, char *line)
{
    char *save, *tok[8];
    int n = 0;
    for (char *t = strtok_r(line, " ", &save); t && n < 8; t = strtok_r(NULL, " ", &save))
        tok[n++] = t;
    uint64_t size, chunk, snap = 0;
    if (n < 6 || n > 8 || strcmp(tok[0], "var") != 0)
        return bad(c, "expected \"var KIND NAME SIZE CHUNK copy|link [VERSION]\" or \"... snap TARGET SNAPSHOT\"");
    bool region = strcmp(tok[1], "region") == 0, linked = strcmp(tok[5], "link") == 0;
    bool in_snap = strcmp(tok[5], "snap") == 0;
    if (in_snap && (n != 8 || !region || strlen(tok[6]) >= sizeof m->vars->target || !decimal(tok[7], &snap) || !snap ||
                    !decimal(tok[4], &chunk) || chunk > CKPT_CHUNK))
        return bad(c, "expected \"var region NAME SIZE CHUNK snap TARGET SNAPSHOT\"");
    if (!in_snap && n == 8)
        return bad(c, "only \"snap\" has a target and a snapshot");
    if (!region && strcmp(tok[1], "memory") != 0)
        return bad(c, "variable kind is neither memory nor region");
    if (!linked && !in_snap && strcmp(tok[5], "copy") != 0)
        return bad(c, "variable layout is neither copy, link nor snap");
    if (region_check_name("variable", tok[2]) != 0)
        return bad(c, "bad variable name");
    if (!decimal(tok[3], &size) || !decimal(tok[4], &chunk) || chunk == 0 || chunk > ((uint64_t)1 << 40) ||
        size > ((uint64_t)1 << 60))
        return bad(c, "bad size or chunk size");
    if ((size + chunk - 1) / chunk > (uint64_t)(c->end - c->p) / 5) /* each chunk line has >= 5 bytes */
        return bad(c, "more chunks than lines");
    uint64_t version = 0;
    if (n == 7 && (!linked || strlen(tok[6]) != 16 || !ckpt_hex64(tok[6], &version)))
        return bad(c, "a version (16 hex digits) only follows \"link\"");
    ckpt_var_t *v = ckpt_manifest_add(m, tok[2], region ? CKPT_REGION : CKPT_MEMORY, linked, size, chunk);
    if (!v)
        return LOCI_ENOMEM;
    v->version = version;
    v->snap = snap;
    if (snap)
        snprintf(v->target, sizeof v->target, "%s", tok[6]);
    for (uint64_t i = 0; i < v->nchunks; i++) {
        char buf[96];
        if (!next_line(c, buf, sizeof buf))
            return bad(c, "a chunk line is missing");
        if (strcmp(buf, "zero") == 0)
            continue;
        size_t len = strlen(buf);
        if (v->linked && (len < 51 || buf[49] != ' ' || !decimal(buf + 50, &v->chunks[i].ino)))
            return bad(c, "expected \"<16 hex digits> <32 hex digits> <inode>\" or \"zero\"");
        buf[49] = '\0';
        if ((!v->linked && len != 49) || buf[16] != ' ' || !ckpt_hex64(buf, &v->chunks[i].id) ||
            v->chunks[i].id == CKPT_ZERO || !parse_sum(buf + 17, &v->chunks[i].sum))
            return bad(c, "expected \"<16 hex digits> <32 hex digits>\" or \"zero\"");
        if (v->snap && v->chunks[i].id != CKPT_IN_SNAP)
            return bad(c, "a chunk of a store snapshot has id 0000000000000001");
    }
    return 0;
}

static int parse(cursor_t *c, ckpt_manifest_t *m)
{
    char line[NVM_NAME_MAX + 128];
    uint64_t v;
    if (!next_line(c, line, sizeof line) || strcmp(line, "loci-ckpt 1") != 0)
        return bad(c, "not a loci checkpoint manifest (version 1)");
    if (!next_line(c, line, sizeof line) || strncmp(line, "name ", 5) != 0 || strcmp(line + 5, c->name) != 0)
        return bad(c, "its name is not the file's");
    snprintf(m->name, sizeof m->name, "%s", c->name);
    if (!next_line(c, line, sizeof line) || strncmp(line, "seq ", 4) != 0 || !decimal(line + 4, &m->seq))
        return bad(c, "expected \"seq N\"");
    char *dot;
    if (!next_line(c, line, sizeof line) || strncmp(line, "time ", 5) != 0 || !(dot = strchr(line, '.')))
        return bad(c, "expected \"time SECONDS.NANOSECONDS\"");
    *dot = '\0';
    uint64_t ns;
    if (!decimal(line + 5, &v) || !decimal(dot + 1, &ns) || ns >= 1000000000)
        return bad(c, "expected \"time SECONDS.NANOSECONDS\"");
    m->saved_s = (int64_t)v;
    m->saved_ns = (long)ns;
    while (c->p < c->end) {
        char var[NVM_NAME_MAX + 128];
        if (!next_line(c, var, sizeof var))
            return bad(c, "line too long");
        int rc = parse_var(c, m, var);
        if (rc != 0)
            return rc;
    }
    return 0;
}

int ckpt_manifest_parse(const char *name, const char *text, size_t len, ckpt_manifest_t *m)
{
    *m = (ckpt_manifest_t){0};
    char want[33];
    ckpt_sum_t sum = {0, 0};
    if (len < SUM_LINE)
        return loci__fail(LOCI_EIO, "checkpoint \"%s\": its manifest is truncated; it is corrupt", name);
    size_t body = len - SUM_LINE;
    memcpy(want, text + body + 4, 32);
    want[32] = '\0';
    if (memcmp(text + body, "sum ", 4) != 0 || text[len - 1] != '\n' || !parse_sum(want, &sum) ||
        !ckpt_sum_equal(sum, XXH3_128bits(text, body)))
        return loci__fail(LOCI_EIO, "checkpoint \"%s\": its manifest fails its checksum; it is corrupt (remove it "
                                    "with `loci ckpt rm %s`)", name, name);
    cursor_t c = {text, text + body, 0, name};
    int rc = parse(&c, m);
    if (rc == 0)
        m->sum = sum;
    else
        ckpt_manifest_free(m);
    return rc;
}

int ckpt_manifest_read(int dirfd, const char *name, ckpt_manifest_t *m)
{
    *m = (ckpt_manifest_t){0};
    char file[NVM_NAME_MAX + 16];
    snprintf(file, sizeof file, "%s" SUFFIX, name);
    int fd = openat(dirfd, file, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return errno == ENOENT ? loci__fail(LOCI_ENOENT, "no checkpoint \"%s\"", name)
                               : loci__fail(LOCI_EIO, "checkpoint \"%s\": cannot open its manifest: %s", name,
                                            strerror(errno));
    struct stat st;
    char *text = NULL;
    int rc = 0;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || (size_t)st.st_size > MAX_MANIFEST || st.st_size < SUM_LINE)
        rc = loci__fail(LOCI_EIO, "checkpoint \"%s\": its manifest is not a plain file of a sensible size; corrupt",
                        name);
    else if (!(text = malloc((size_t)st.st_size)))
        rc = loci__fail(LOCI_ENOMEM, "out of memory reading the manifest of checkpoint \"%s\"", name);
    size_t len = rc == 0 ? (size_t)st.st_size : 0, got = 0;
    while (rc == 0 && got < len) {
        ssize_t n = pread(fd, text + got, len - got, (off_t)got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            rc = loci__fail(LOCI_EIO, "checkpoint \"%s\": cannot read its manifest: %s", name,
                            n < 0 ? strerror(errno) : "truncated");
        else
            got += (size_t)n;
    }
    close(fd);
    if (rc == 0)
        rc = ckpt_manifest_parse(name, text, len, m);
    free(text);
    if (rc != 0)
        ckpt_manifest_free(m);
    return rc;
}

uint64_t ckpt_manifest_seq(int dirfd, const char *name)
{
    char file[NVM_NAME_MAX + 16], head[512];
    snprintf(file, sizeof file, "%s" SUFFIX, name);
    int fd = openat(dirfd, file, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return 0;
    ssize_t n = pread(fd, head, sizeof head - 1, 0);
    close(fd);
    head[n > 0 ? n : 0] = '\0';
    const char *s = strstr(head, "\nseq ");
    return s ? strtoull(s + 5, NULL, 10) : 0;
}

bool ckpt_manifest_has_sum(int dirfd, const char *name, ckpt_sum_t sum)
{
    char file[NVM_NAME_MAX + 16], tail[SUM_LINE + 1];
    snprintf(file, sizeof file, "%s" SUFFIX, name);
    int fd = openat(dirfd, file, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    struct stat st;
    bool same = false;
    if (fd >= 0 && fstat(fd, &st) == 0 && st.st_size >= SUM_LINE &&
        pread(fd, tail, SUM_LINE, st.st_size - SUM_LINE) == SUM_LINE) {
        ckpt_sum_t got;
        tail[SUM_LINE - 1] = '\0';
        same = memcmp(tail, "sum ", 4) == 0 && parse_sum(tail + 4, &got) && ckpt_sum_equal(got, sum);
    }
    if (fd >= 0)
        close(fd);
    return same;
}

bool ckpt_manifest_name(const char *file, char out[NVM_NAME_MAX + 1])
{
    size_t n = strlen(file), k = strlen(SUFFIX);
    if (n <= k || n - k > NVM_NAME_MAX || strcmp(file + n - k, SUFFIX) != 0)
        return false;
    memcpy(out, file, n - k);
    out[n - k] = '\0';
    return file[0] != '.';
}
