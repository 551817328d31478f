/*
 * The INI syntax of loci's config files (LOCI_CONFIG, saved measurements):
 * lines of any length with their numbers, a UTF-8 byte-order mark, blank
 * lines and '#' or ';' comments, '[section]' headers, `key = value` (or
 * `key: value`) lines with an optional "# why" after the value. What a
 * section or key means is for config.c's callers of topo_config_read.
 * Every mistake is reported as "file:line: what is wrong".
 * By hand, not libinih (DESIGN.md §4 names it): Debian's build of it reads
 * lines into a 200-byte stack buffer (a long path would be cut), gives the
 * handler no line number (no "file:line:" messages), reports no section
 * without keys, and takes an indented line as the previous value's
 * continuation.
 */
#include "topo/topo_internal.h"

#include <stdlib.h>
#include <string.h>

int topo_config_fail(topo_config_t *c, const char *fmt, ...)
{
    if (c->failed)
        return LOCI_ECONFIG; /* keep the first error: later ones are often consequences */
    char msg[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    loci__fail(LOCI_ECONFIG, "%s:%d: %s", c->path, c->line, msg);
    c->failed = true;
    return LOCI_ECONFIG;
}

/* Cut a value at a comment: whitespace followed by '#' or ';' (admins
 * write "# why" after values), then trailing whitespace. In place. */
static void cut_comment(char *value)
{
    char *p = value;
    while (*p && !((*p == '#' || *p == ';') && p > value && (p[-1] == ' ' || p[-1] == '\t')))
        p++;
    while (p > value && (p[-1] == ' ' || p[-1] == '\t'))
        p--;
    *p = '\0';
}

/* Each line whole however long (the file's size is bounded before). */
int topo_config_read(topo_config_t *c, topo_config_section_fn *on_section, topo_config_key_fn *on_key)
{
    char *line = NULL, *section = NULL;
    size_t cap = 0;
    c->line = 0;
    rewind(c->file);
    while (!c->failed && getline(&line, &cap, c->file) >= 0) {
        char *p = line;
        if (++c->line == 1 && strncmp(p, "\xEF\xBB\xBF", 3) == 0)
            p += 3;
        p += strspn(p, " \t");
        p[strcspn(p, "\r\n")] = '\0';
        if (*p == '\0' || *p == '#' || *p == ';')
            continue;
        if (*p == '[') {
            char *end = strchr(p, ']');
            if (!end) {
                topo_config_fail(c, "section header without ']'");
                break;
            }
            *end = '\0';
            free(section);
            if (!(section = strdup(p + 1)))
                topo_config_fail(c, "out of memory");
            else if (on_section)
                on_section(c, section);
            continue;
        }
        if (!on_key)
            continue;
        char *eq = p + strcspn(p, "=:");
        if (*eq == '\0' || eq == p) {
            topo_config_fail(c, "not an INI line; expected 'key = value', '[target NAME]', '[omp]', '[shmem]' "
                                "or '# comment'");
            break;
        }
        char *key_end = eq;
        while (key_end > p && (key_end[-1] == ' ' || key_end[-1] == '\t'))
            key_end--;
        *key_end = '\0';
        char *value = eq + 1 + strspn(eq + 1, " \t");
        cut_comment(value);
        on_key(c, section ? section : "", p, value);
    }
    free(line);
    free(section);
    return c->failed ? LOCI_ECONFIG : 0;
}
