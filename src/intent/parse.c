/*
 * The intent parser (DESIGN.md §3): "key[=value][!], ..." into an intent_t.
 *
 * Rules the contract leaves open, decided here:
 *  - Whitespace anywhere is dropped first (" Bandwidth = HIGH ! " is "bandwidth=high!").
 *    Keys and values are lower-cased (ASCII only, never the locale).
 *  - NULL, "" and all-whitespace intents have no terms (local DRAM). Any other empty term
 *    (",,", a leading or a trailing ',') is an error naming its position.
 *  - Each key may be given once; a second time is an error ("given twice"). The limits
 *    INTENT_MAX_TEXT (raw text, whitespace included) and INTENT_MAX_TERMS (terms counted
 *    by commas) are checked on the raw text before any term is parsed.
 *  - One '!' at the very end of a term makes it a constraint; a '!' elsewhere is an error.
 *  - Traits (fallback, align, partition, pinned, cache, chunk, object, dirty_limit,
 *    dirty_background, tier) configure the
 *    allocation and rank nothing: a '!' on them is accepted and means the same, so it is
 *    dropped (constraint = false, no '!' in the canonical text). The other keys keep it.
 *    What a term does to resolution is the resolver's business (resolve.c): there,
 *    requirements (use=, access=, persist, mode=) filter with or without '!'; on mode=
 *    the '!' also forbids falling back to another mode where the one asked cannot run.
 *  - Sizes (align, cache, chunk, object): digits, an optional fraction, and an optional unit that
 *    units_parse_size accepts ("4096", "64KiB", "1.5G", "2MB"); computed exactly in 64 bits,
 *    more than 2^64-1 bytes is an error. align: a power of two (>= 1); chunk: a non-zero
 *    multiple of 4096 (the provider rounds to a larger page size), object too (a multiple
 *    of the chunk is for the store to check); cache: non-zero
 *    (cache >= chunk is for the resolver to check).
 *  - Percentages (dirty_limit, dirty_background): a whole number 1..100 with an
 *    optional '%' ("50%", "50"); canonical "50%". Whether the background one is
 *    below the limit is for the paged provider to check (the target may give one).
 *  - Numbers after ':' (near=nic:N, near=gpu:N, near=numa:N, use=gpu:N) are decimal,
 *    0..INT_MAX. near=numa needs one; near=pe and use=cpu take none; nic and gpu without
 *    one mean any (index -1). use=cpu+gpu[:N] (synonym gpu+cpu) is memory both compute on.
 *  - target=NAME: 1 to 31 of a-z 0-9 '-' ':' '_' after lower-casing; whether the target
 *    exists is the resolver's concern.
 *  - Synonyms: partition=interleaved (OpenMP's spelling) is partition=interleave.
 *  - canonical: the terms in the given order (earlier hints weigh more), joined by ',',
 *    lower-case, no whitespace, synonyms mapped, sizes and numbers in plain decimal,
 *    '!' kept except on traits. Parsing the canonical text gives the same terms back.
 *
 * Errors return LOCI_EINVAL with loci_last_error() of the form
 *   intent "<text>": <problem, quoting the term> at <position> (<what would be right>)
 * e.g.  intent "bandwith=high": unknown key 'bandwith' at 1 (did you mean 'bandwidth'?)
 * Misspelled keys and values get a did-you-mean (edit distance <= 2), otherwise the
 * list of what is accepted.
 *
 * A pure function of its input: no allocation, no global state written (only the
 * thread's last error), reads no further than the NUL or INTENT_MAX_TEXT bytes.
 */
#include "intent/intent.h"
#include "units.h"

#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#define CHUNK_MULTIPLE 4096 /* smallest page size: chunks are whole pages */
#define SHOW_MAX 64         /* longest term or value quoted in a message */

/* --- the key table --------------------------------------------------------- */

typedef enum { ARG_NONE, ARG_WORD, ARG_NAME, ARG_SIZE, ARG_PERCENT } arg_kind_t;
typedef enum { NUM_NONE, NUM_OPTIONAL, NUM_REQUIRED } num_rule_t;

/** One accepted value word of a key, e.g. "nic" of near=, with its ":N" rule. */
struct word {
    const char *name;
    int value;
    num_rule_t num;
    const char *synonym_of; /* canonical spelling when this is a synonym, else NULL */
};

struct key_spec {
    const char *name;
    arg_kind_t arg;
    bool trait; /* ranks nothing: '!' accepted and dropped */
    const struct word *words;
    int nwords;
    const char *help; /* for ARG_NAME / ARG_SIZE / ARG_NONE: what a right term looks like */
};

#define WORDS(w) w, (int)(sizeof w / sizeof *w)

static const struct word bandwidth_words[] = {{"high", 0, NUM_NONE, NULL}};
static const struct word latency_words[] = {{"low", 0, NUM_NONE, NULL}};
static const struct word capacity_words[] = {{"large", 0, NUM_NONE, NULL}};
static const struct word near_words[] = {
    {"pe", NEAR_PE, NUM_NONE, NULL},
    {"nic", NEAR_NIC, NUM_OPTIONAL, NULL},
    {"gpu", NEAR_GPU, NUM_OPTIONAL, NULL},
    {"numa", NEAR_NUMA, NUM_REQUIRED, NULL},
};
static const struct word use_words[] = {
    {"cpu", 0, NUM_NONE, NULL},
    {"gpu", 1, NUM_OPTIONAL, NULL},
    {"cpu+gpu", 2, NUM_OPTIONAL, NULL},     /* both: managed memory */
    {"gpu+cpu", 2, NUM_OPTIONAL, "cpu+gpu"},
};
static const struct word access_words[] = {
    {"process", ACCESS_PROCESS, NUM_NONE, NULL},
    {"node", ACCESS_NODE, NUM_NONE, NULL},
    {"job", ACCESS_JOB, NUM_NONE, NULL},
    {"global", ACCESS_GLOBAL, NUM_NONE, NULL},
};
static const struct word kind_words[] = {
    {"dram", KIND_DRAM, NUM_NONE, NULL},
    {"hbm", KIND_HBM, NUM_NONE, NULL},
    {"cxl", KIND_CXL, NUM_NONE, NULL},
    {"pmem", KIND_PMEM, NUM_NONE, NULL},
    {"ssd", KIND_SSD, NUM_NONE, NULL},
    {"gpu", KIND_GPU, NUM_NONE, NULL},
    {"gpu-host", KIND_GPU_HOST, NUM_NONE, NULL},
    {"store", KIND_STORE, NUM_NONE, NULL},
};
_Static_assert(sizeof kind_words / sizeof *kind_words == KIND_COUNT,
               "kind= must accept every topo_kind_t");
static const struct word fallback_words[] = {
    {"next", FALLBACK_NEXT, NUM_NONE, NULL},
    {"default", FALLBACK_DEFAULT, NUM_NONE, NULL},
    {"null", FALLBACK_NULL, NUM_NONE, NULL},
    {"abort", FALLBACK_ABORT, NUM_NONE, NULL},
};
static const struct word partition_words[] = {
    {"interleave", PARTITION_INTERLEAVE, NUM_NONE, NULL},
    {"blocked", PARTITION_BLOCKED, NUM_NONE, NULL},
    {"nearest", PARTITION_NEAREST, NUM_NONE, NULL},
    {"interleaved", PARTITION_INTERLEAVE, NUM_NONE, "interleave"},
};
static const struct word mode_words[] = {
    {"mmap", MODE_MMAP, NUM_NONE, NULL},
    {"paged", MODE_PAGED, NUM_NONE, NULL},
};
static const struct word tier_words[] = {{"auto", TIER_AUTO, NUM_NONE, NULL}};

static const struct key_spec keys[TERM_KEY_COUNT] = {
    [TERM_BANDWIDTH] = {"bandwidth", ARG_WORD, false, WORDS(bandwidth_words), NULL},
    [TERM_LATENCY] = {"latency", ARG_WORD, false, WORDS(latency_words), NULL},
    [TERM_CAPACITY] = {"capacity", ARG_WORD, false, WORDS(capacity_words), NULL},
    [TERM_NEAR] = {"near", ARG_WORD, false, WORDS(near_words), NULL},
    [TERM_USE] = {"use", ARG_WORD, false, WORDS(use_words), NULL},
    [TERM_ACCESS] = {"access", ARG_WORD, false, WORDS(access_words), NULL},
    [TERM_PERSIST] = {"persist", ARG_NONE, false, NULL, 0,
                      "persist takes no value: persist or persist!"},
    [TERM_KIND] = {"kind", ARG_WORD, false, WORDS(kind_words), NULL},
    [TERM_TARGET] = {"target", ARG_NAME, false, NULL, 0,
                     "target=NAME, 1 to 31 letters, digits, '-', ':' or '_', e.g. hbm0, node:3"},
    [TERM_FALLBACK] = {"fallback", ARG_WORD, true, WORDS(fallback_words), NULL},
    [TERM_ALIGN] = {"align", ARG_SIZE, true, NULL, 0,
                    "align=N, a power of two in bytes, e.g. 64, 4KiB, 2MiB"},
    [TERM_PARTITION] = {"partition", ARG_WORD, true, WORDS(partition_words), NULL},
    [TERM_PINNED] = {"pinned", ARG_NONE, true, NULL, 0, "pinned takes no value: pinned"},
    [TERM_MODE] = {"mode", ARG_WORD, false, WORDS(mode_words), NULL},
    [TERM_CACHE] = {"cache", ARG_SIZE, true, NULL, 0,
                    "cache=SIZE, more than 0 bytes, e.g. 256MiB, 4GiB"},
    [TERM_CHUNK] = {"chunk", ARG_SIZE, true, NULL, 0,
                    "chunk=SIZE, a multiple of 4096 bytes, e.g. 64KiB, 2MiB"},
    [TERM_OBJECT] = {"object", ARG_SIZE, true, NULL, 0,
                     "object=SIZE, the store's objects, a multiple of the chunk, e.g. 4MiB"},
    [TERM_DIRTY_LIMIT] = {"dirty_limit", ARG_PERCENT, true, NULL, 0,
                          "dirty_limit=PCT, 1% to 100% of the paged cache, e.g. 50%"},
    [TERM_DIRTY_BACKGROUND] = {"dirty_background", ARG_PERCENT, true, NULL, 0,
                               "dirty_background=PCT, 1% to 100% of the paged cache, below dirty_limit, e.g. 10%"},
    [TERM_TIER] = {"tier", ARG_WORD, true, WORDS(tier_words), NULL},
};

/* --- text helpers ----------------------------------------------------------- */

static bool is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}

static bool is_digit(char c) { return c >= '0' && c <= '9'; }

static bool is_lower(char c) { return c >= 'a' && c <= 'z'; }

static char to_lower(char c) { return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c; }

/** Copy `s` for quoting in a message: at most SHOW_MAX characters (then "..."),
 *  control characters shown as '?'. */
static const char *show(const char *s, char *buf, size_t len)
{
    size_t n = 0;
    for (; *s && n + 4 < len; s++) {
        if (n == SHOW_MAX) {
            memcpy(buf + n, "...", 3);
            n += 3;
            break;
        }
        unsigned char c = (unsigned char)*s;
        buf[n++] = c < 0x20 || c == 0x7f ? '?' : (char)c;
    }
    buf[n] = '\0';
    return buf;
}

/** Optimal string alignment distance (edits and adjacent swaps); large for long words. */
static int edit_distance(const char *a, const char *b)
{
    enum { MAXW = 24 };
    size_t la = strlen(a), lb = strlen(b);
    if (la > MAXW || lb > MAXW)
        return INT_MAX;
    int d[MAXW + 1][MAXW + 1];
    for (size_t i = 0; i <= la; i++)
        d[i][0] = (int)i;
    for (size_t j = 0; j <= lb; j++)
        d[0][j] = (int)j;
    for (size_t i = 1; i <= la; i++) {
        for (size_t j = 1; j <= lb; j++) {
            int cost = a[i - 1] != b[j - 1];
            int best = d[i - 1][j - 1] + cost;
            if (d[i - 1][j] + 1 < best)
                best = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < best)
                best = d[i][j - 1] + 1;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
                d[i - 2][j - 2] + 1 < best)
                best = d[i - 2][j - 2] + 1;
            d[i][j] = best;
        }
    }
    return d[la][lb];
}

/** Is `typed` a plausible misspelling of `candidate`? At most 2 edits, and at most half
 *  the candidate's length (so "x" does not suggest "pe"). */
static int misspelling(const char *typed, const char *candidate)
{
    int d = edit_distance(typed, candidate);
    int limit = (int)strlen(candidate) / 2;
    return d > 0 && d <= 2 && d <= limit ? d : INT_MAX;
}

/* --- the parser ------------------------------------------------------------- */

struct parser {
    intent_t *out;
    size_t clen;                   /* length of out->canonical */
    char shown[INTENT_MAX_TEXT];   /* the intent, as quoted in messages */
    /* the current term */
    int pos;                       /* 1-based */
    char written[INTENT_MAX_TEXT]; /* without whitespace, lower-cased, '!' included */
    char term_shown[SHOW_MAX + 8];
};

static int fail(const struct parser *ps, const char *fmt, ...) LOCI_PRINTF(2, 3);
static int fail(const struct parser *ps, const char *fmt, ...)
{
    char msg[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return loci__fail(LOCI_EINVAL, "intent \"%s\": %s", ps->shown, msg);
}

/** "kind=dram|hbm|..." or "near=pe|nic[:N]|gpu[:N]|numa:N" into buf. */
static const char *word_help(const struct key_spec *spec, char *buf, size_t len)
{
    size_t n = (size_t)snprintf(buf, len, "%s=", spec->name);
    for (int i = 0; i < spec->nwords && n < len; i++) {
        const struct word *w = &spec->words[i];
        if (w->synonym_of)
            continue;
        const char *num = w->num == NUM_OPTIONAL ? "[:N]" : w->num == NUM_REQUIRED ? ":N" : "";
        n += (size_t)snprintf(buf + n, len - n, "%s%s%s", i ? "|" : "", w->name, num);
    }
    return buf;
}

static const char *key_list(char *buf, size_t len)
{
    size_t n = 0;
    buf[0] = '\0';
    for (int k = 0; k < TERM_KEY_COUNT && n < len; k++)
        n += (size_t)snprintf(buf + n, len - n, "%s%s", k ? ", " : "", keys[k].name);
    return buf;
}

static int fail_unknown_key(struct parser *ps, const char *key, bool bang)
{
    char kshown[SHOW_MAX + 8], help[320];
    show(key, kshown, sizeof kshown);

    /* A bare value ("hbm", "interleaved"): name the key(s) that take it. */
    int nfound = 0;
    size_t n = 0;
    for (int k = 0; k < TERM_KEY_COUNT; k++) {
        for (int i = 0; i < keys[k].nwords; i++) {
            const struct word *w = &keys[k].words[i];
            if (strcmp(w->name, key) != 0 || n >= sizeof help)
                continue;
            const char *sep = nfound == 0 ? "" : ", ";
            n += (size_t)snprintf(help + n, sizeof help - n, "%s'%s=%s%s'", sep, keys[k].name,
                                  w->synonym_of ? w->synonym_of : w->name, bang ? "!" : "");
            nfound++;
        }
    }
    if (nfound > 0)
        return fail(ps, "unknown key '%s' at %d (did you mean %s%s?)", kshown, ps->pos,
                    nfound > 1 ? "one of " : "", help);

    const char *best = NULL;
    int best_d = INT_MAX;
    for (int k = 0; k < TERM_KEY_COUNT; k++) {
        int d = misspelling(key, keys[k].name);
        if (d < best_d) {
            best_d = d;
            best = keys[k].name;
        }
    }
    if (best)
        return fail(ps, "unknown key '%s' at %d (did you mean '%s'?)", kshown, ps->pos, best);
    return fail(ps, "unknown key '%s' at %d (keys: %s)", kshown, ps->pos,
                key_list(help, sizeof help));
}

/** Decimal 0..INT_MAX, digits only. */
static bool parse_index(const char *s, int *out)
{
    if (!*s)
        return false;
    long v = 0;
    for (; *s; s++) {
        if (!is_digit(*s))
            return false;
        v = v * 10 + (*s - '0');
        if (v > INT_MAX)
            return false;
    }
    *out = (int)v;
    return true;
}

enum { SIZE_OK, SIZE_SYNTAX, SIZE_OVERFLOW };

/** "2MiB", "1.5G", "4096" into bytes, exactly: the integer part in 64-bit arithmetic,
 *  the unit's factor from units_parse_size, the fraction rounded to a byte. */
static int parse_size(const char *s, uint64_t *out)
{
    if (!is_digit(*s))
        return SIZE_SYNTAX;
    uint64_t whole = 0;
    bool overflow = false;
    for (; is_digit(*s); s++) {
        unsigned d = (unsigned)(*s - '0');
        if (whole > (UINT64_MAX - d) / 10)
            overflow = true;
        else
            whole = whole * 10 + d;
    }
    double frac = 0, scale = 0.1;
    if (*s == '.') {
        s++;
        if (!is_digit(*s))
            return SIZE_SYNTAX;
        for (; is_digit(*s); s++, scale /= 10)
            frac += (*s - '0') * scale;
    }
    uint64_t factor = 1;
    if (*s) {
        char one[16] = "1";
        size_t n = strlen(s);
        if (n > sizeof one - 2)
            return SIZE_SYNTAX;
        for (size_t i = 0; i < n; i++)
            if (!is_lower(s[i]))
                return SIZE_SYNTAX;
        memcpy(one + 1, s, n + 1);
        if (!units_parse_size(one, &factor, NULL) || factor == 0)
            return SIZE_SYNTAX;
    }
    if (overflow || whole > UINT64_MAX / factor)
        return SIZE_OVERFLOW;
    uint64_t bytes = whole * factor;
    uint64_t part = (uint64_t)(frac * (double)factor + 0.5); /* < factor + 1 */
    if (part > UINT64_MAX - bytes)
        return SIZE_OVERFLOW;
    *out = bytes + part;
    return SIZE_OK;
}

static int parse_word(struct parser *ps, const struct key_spec *spec, const char *value,
                      intent_term_t *t, char *canon, size_t canon_len)
{
    char help[160], vshown[SHOW_MAX + 8];
    char word[INTENT_MAX_TEXT];
    const char *colon = strchr(value, ':');
    size_t wlen = colon ? (size_t)(colon - value) : strlen(value);
    memcpy(word, value, wlen);
    word[wlen] = '\0';

    const struct word *w = NULL;
    for (int i = 0; i < spec->nwords && !w; i++)
        if (strcmp(spec->words[i].name, word) == 0)
            w = &spec->words[i];
    if (!w) {
        show(value, vshown, sizeof vshown);
        /* kind=hbm0 names a target, not a kind */
        if (t->key == TERM_KIND) {
            for (int i = 0; i < spec->nwords; i++) {
                size_t n = strlen(spec->words[i].name);
                int idx;
                if (!colon && strncmp(word, spec->words[i].name, n) == 0 &&
                    parse_index(word + n, &idx))
                    return fail(ps, "unknown value '%s' in '%s' at %d (did you mean 'target=%s'?)",
                                vshown, ps->term_shown, ps->pos, vshown);
            }
        }
        const char *best = NULL;
        int best_d = INT_MAX;
        for (int i = 0; i < spec->nwords; i++) {
            if (spec->words[i].synonym_of)
                continue;
            int d = misspelling(word, spec->words[i].name);
            if (d < best_d) {
                best_d = d;
                best = spec->words[i].name;
            }
        }
        if (best)
            return fail(ps, "unknown value '%s' in '%s' at %d (did you mean '%s'?)", vshown,
                        ps->term_shown, ps->pos, best);
        return fail(ps, "unknown value '%s' in '%s' at %d (expected %s)", vshown,
                    ps->term_shown, ps->pos, word_help(spec, help, sizeof help));
    }

    const char *name = w->synonym_of ? w->synonym_of : w->name;
    t->index = -1;
    if (colon) {
        if (w->num == NUM_NONE)
            return fail(ps, "unexpected number in '%s' at %d (%s=%s takes no number; expected %s)",
                        ps->term_shown, ps->pos, spec->name, name,
                        word_help(spec, help, sizeof help));
        if (!parse_index(colon + 1, &t->index))
            return fail(ps, "bad number '%s' in '%s' at %d (%s=%s:N with N = 0, 1, 2, ...)",
                        show(colon + 1, vshown, sizeof vshown), ps->term_shown, ps->pos,
                        spec->name, name);
        snprintf(canon, canon_len, "%s:%d", name, t->index);
    } else {
        if (w->num == NUM_REQUIRED)
            return fail(ps, "missing number in '%s' at %d (%s=%s:N with N = 0, 1, 2, ...)",
                        ps->term_shown, ps->pos, spec->name, name);
        snprintf(canon, canon_len, "%s", name);
    }

    switch (t->key) {
    case TERM_NEAR: t->v.near_kind = w->value; break;
    case TERM_USE: t->v.use_gpu = w->value; break;
    case TERM_ACCESS: t->v.access = w->value; break;
    case TERM_KIND: t->v.kind = w->value; break;
    case TERM_FALLBACK: t->v.fallback = w->value; break;
    case TERM_PARTITION: t->v.partition = w->value; break;
    case TERM_MODE: t->v.mode = w->value; break;
    case TERM_TIER: t->v.tier = w->value; break;
    default: break; /* bandwidth=high, latency=low, capacity=large: one value each */
    }
    return LOCI_OK;
}

static int parse_name(struct parser *ps, const struct key_spec *spec, const char *value,
                      intent_term_t *t)
{
    size_t n = strlen(value);
    bool ok = n < sizeof t->name;
    for (size_t i = 0; ok && i < n; i++)
        ok = is_lower(value[i]) || is_digit(value[i]) || value[i] == '-' || value[i] == ':' ||
             value[i] == '_';
    if (!ok) {
        char vshown[SHOW_MAX + 8];
        return fail(ps, "bad target name '%s' in '%s' at %d (%s)",
                    show(value, vshown, sizeof vshown), ps->term_shown, ps->pos, spec->help);
    }
    memcpy(t->name, value, n + 1);
    return LOCI_OK;
}

static int parse_size_term(struct parser *ps, const struct key_spec *spec, const char *value,
                           intent_term_t *t)
{
    char vshown[SHOW_MAX + 8];
    show(value, vshown, sizeof vshown);
    switch (parse_size(value, &t->size)) {
    case SIZE_SYNTAX:
        return fail(ps, "bad size '%s' in '%s' at %d (%s)", vshown, ps->term_shown, ps->pos,
                    spec->help);
    case SIZE_OVERFLOW:
        return fail(ps, "size '%s' in '%s' at %d does not fit in 64 bits (%s)", vshown,
                    ps->term_shown, ps->pos, spec->help);
    default: break;
    }
    uint64_t v = t->size;
    if (t->key == TERM_ALIGN && (v == 0 || (v & (v - 1)) != 0))
        return fail(ps, "alignment %" PRIu64 " in '%s' at %d is not a power of two (%s)", v,
                    ps->term_shown, ps->pos, spec->help);
    if ((t->key == TERM_CHUNK || t->key == TERM_OBJECT) && (v == 0 || v % CHUNK_MULTIPLE != 0))
        return fail(ps, "%s size %" PRIu64 " in '%s' at %d is not a multiple of %d (%s)", spec->name, v,
                    ps->term_shown, ps->pos, CHUNK_MULTIPLE, spec->help);
    if (t->key == TERM_CACHE && v == 0)
        return fail(ps, "cache size 0 in '%s' at %d (%s)", ps->term_shown, ps->pos, spec->help);
    return LOCI_OK;
}

static int parse_percent_term(struct parser *ps, const struct key_spec *spec, const char *value,
                              intent_term_t *t)
{
    char vshown[SHOW_MAX + 8];
    unsigned v = 0;
    size_t n = 0;
    while (is_digit(value[n]) && v <= 1000)
        v = v * 10 + (unsigned)(value[n++] - '0');
    if (n == 0 || (value[n] && strcmp(value + n, "%") != 0))
        return fail(ps, "bad percentage '%s' in '%s' at %d (%s)", show(value, vshown, sizeof vshown),
                    ps->term_shown, ps->pos, spec->help);
    if (v == 0 || v > 100)
        return fail(ps, "%s=%s in '%s' at %d is %s (%s)", spec->name, show(value, vshown, sizeof vshown),
                    ps->term_shown, ps->pos, v == 0 ? "0%: nothing could ever be dirty" : "over 100% of the cache",
                    spec->help);
    t->size = v;
    return LOCI_OK;
}

static int append(struct parser *ps, const char *s)
{
    size_t n = strlen(s);
    if (ps->clen + n >= sizeof ps->out->canonical)
        return fail(ps, "too long once normalized (at most %d characters)", INTENT_MAX_TEXT - 1);
    memcpy(ps->out->canonical + ps->clen, s, n + 1);
    ps->clen += n;
    return LOCI_OK;
}

/** Parse ps->written (one term, already without whitespace and lower-cased). */
static int parse_term(struct parser *ps)
{
    char help[320];
    char term[INTENT_MAX_TEXT];
    show(ps->written, ps->term_shown, sizeof ps->term_shown);
    if (!ps->written[0])
        return fail(ps, "empty term at %d (a ',' too many?)", ps->pos);

    /* key[=value][!] */
    size_t n = strlen(ps->written);
    memcpy(term, ps->written, n + 1);
    bool bang = term[n - 1] == '!';
    if (bang)
        term[--n] = '\0';
    if (strchr(term, '!')) {
        char fixed[INTENT_MAX_TEXT + 1];
        size_t m = 0;
        for (const char *p = ps->written; *p; p++)
            if (*p != '!')
                fixed[m++] = *p;
        fixed[m++] = '!';
        fixed[m] = '\0';
        char fshown[SHOW_MAX + 8];
        return fail(ps, "misplaced '!' in '%s' at %d (one '!' ends a constraint: '%s')",
                    ps->term_shown, ps->pos, show(fixed, fshown, sizeof fshown));
    }
    char *value = strchr(term, '=');
    if (value)
        *value++ = '\0';
    if (!term[0])
        return fail(ps, "missing key in '%s' at %d (keys: %s)", ps->term_shown, ps->pos,
                    key_list(help, sizeof help));

    int key = 0;
    while (key < TERM_KEY_COUNT && strcmp(keys[key].name, term) != 0)
        key++;
    if (key == TERM_KEY_COUNT)
        return fail_unknown_key(ps, term, bang);
    const struct key_spec *spec = &keys[key];

    intent_t *in = ps->out;
    for (int i = 0; i < in->nterms; i++)
        if (in->terms[i].key == (intent_key_t)key)
            return fail(ps, "key '%s' given twice, in '%s' at %d (first at %d; give each key once)",
                        spec->name, ps->term_shown, ps->pos, in->terms[i].position);

    intent_term_t *t = &in->terms[in->nterms];
    memset(t, 0, sizeof *t);
    t->key = (intent_key_t)key;
    t->position = ps->pos;
    t->index = -1;
    t->constraint = bang && !spec->trait;

    char canon[INTENT_MAX_TEXT] = "";
    int rc = LOCI_OK;
    if (spec->arg == ARG_NONE) {
        if (value)
            return fail(ps, "unexpected value in '%s' at %d (%s)", ps->term_shown, ps->pos,
                        spec->help);
    } else if (!value || !*value) {
        return fail(ps, "missing value in '%s' at %d (expected %s)", ps->term_shown, ps->pos,
                    spec->arg == ARG_WORD ? word_help(spec, help, sizeof help) : spec->help);
    } else if (spec->arg == ARG_WORD) {
        rc = parse_word(ps, spec, value, t, canon, sizeof canon);
    } else if (spec->arg == ARG_NAME) {
        rc = parse_name(ps, spec, value, t);
        snprintf(canon, sizeof canon, "%s", t->name);
    } else if (spec->arg == ARG_PERCENT) {
        rc = parse_percent_term(ps, spec, value, t);
        snprintf(canon, sizeof canon, "%" PRIu64 "%%", t->size);
    } else {
        rc = parse_size_term(ps, spec, value, t);
        snprintf(canon, sizeof canon, "%" PRIu64, t->size);
    }
    if (rc != LOCI_OK)
        return rc;

    char piece[INTENT_MAX_TEXT + 48];
    snprintf(piece, sizeof piece, "%s%s%s%s%s", in->nterms > 0 ? "," : "", spec->name,
             spec->arg != ARG_NONE ? "=" : "", canon, t->constraint ? "!" : "");
    if ((rc = append(ps, piece)) != LOCI_OK)
        return rc;
    in->nterms++;
    return LOCI_OK;
}

static int parse_text(struct parser *ps, const char *text, size_t len)
{
    /* The quoted intent: whitespace as spaces, other control characters as '?'. */
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)text[i];
        if (is_space((char)c))
            c = ' ';
        else if (c < 0x20 || c == 0x7f)
            c = '?';
        ps->shown[i] = (char)c;
    }
    ps->shown[len] = '\0';

    int commas = 0;
    bool blank = true;
    for (size_t i = 0; i < len; i++) {
        commas += text[i] == ',';
        blank = blank && is_space(text[i]);
    }
    if (blank)
        return LOCI_OK;
    if (commas + 1 > INTENT_MAX_TERMS)
        return fail(ps, "too many terms (%d; at most %d)", commas + 1, INTENT_MAX_TERMS);

    size_t i = 0;
    for (ps->pos = 1;; ps->pos++) {
        size_t n = 0;
        for (; i < len && text[i] != ','; i++)
            if (!is_space(text[i]))
                ps->written[n++] = to_lower(text[i]);
        ps->written[n] = '\0';
        int rc = parse_term(ps);
        if (rc != LOCI_OK)
            return rc;
        if (i == len)
            return LOCI_OK;
        i++; /* the ',' */
    }
}

int intent_parse(const char *text, intent_t *out)
{
    if (!out)
        return loci__fail(LOCI_EINVAL, "intent_parse: no intent_t to parse into");
    out->nterms = 0;
    out->canonical[0] = '\0';
    if (!text)
        return LOCI_OK;

    size_t len = strnlen(text, INTENT_MAX_TEXT);
    if (len >= INTENT_MAX_TEXT) {
        char head[SHOW_MAX + 8];
        return loci__fail(LOCI_EINVAL, "intent \"%s\": too long (more than %d characters)",
                          show(text, head, sizeof head), INTENT_MAX_TEXT - 1);
    }

    struct parser ps = {.out = out};
    int rc = parse_text(&ps, text, len);
    if (rc != LOCI_OK) {
        out->nterms = 0;
        out->canonical[0] = '\0';
    }
    return rc;
}

const intent_term_t *intent_find(const intent_t *in, intent_key_t key)
{
    if (!in)
        return NULL;
    for (int i = 0; i < in->nterms; i++)
        if (in->terms[i].key == key)
            return &in->terms[i];
    return NULL;
}
