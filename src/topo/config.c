/*
 * A config file read into a topo_config_t: the admin's (LOCI_CONFIG) or
 * measurements saved by `loci bench --save`. In the INI syntax of
 * config_ini.c, with [target NAME] sections (config_target.c) and, in
 * LOCI_CONFIG only, the front ends' [omp], [shmem], [checkpoint] and [tiering]
 * (config_frontend.c). Every mistake is reported as "file:line: what is
 * wrong" and fails loci_init — a silently ignored line would misplace data.
 * Discovery applies the result (config_source.c); LOCI_CONFIG's then stays
 * with the topology for the front ends (config_query.c).
 */
#include "topo/topo_internal.h"
#include "owned_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void on_section(topo_config_t *c, const char *section)
{
    if (topo_config_is_frontend(section))
        topo_config_frontend_section(c, section);
    else
        topo_config_target_section(c, section);
}

static void on_key(topo_config_t *c, const char *section, const char *key, const char *value)
{
    if (topo_config_is_frontend(section))
        topo_config_frontend_key(c, section, key, value);
    else
        topo_config_target_key(c, section, key, value);
}

/* A config is a small file: one of megabytes is not one a person wrote.
 * (That it is a regular file of the user's or root's, owned_file_open saw.) */
static int sensible_size(topo_config_t *c)
{
    enum { MAX_BYTES = 1 << 20 };
    struct stat st;
    const char *hint = c->source == SRC_CONFIG ? "; LOCI_CONFIG names an INI file" : "";
    if (fstat(fileno(c->file), &st) != 0)
        return loci__fail(LOCI_ECONFIG, "%s: cannot read (%s)%s", c->path, strerror(errno), hint);
    if (st.st_size > MAX_BYTES)
        return loci__fail(LOCI_ECONFIG, "%s: %lld bytes; a config has at most %d%s", c->path, (long long)st.st_size,
                          MAX_BYTES, hint);
    return 0;
}

/* Two passes, every section header first, then the keys: a mistake in a
 * section header is the one reported, wherever it is in the file. */
int topo_config_load(const char *path, topo_source_t source, topo_config_t **out)
{
    topo_config_t *c = calloc(1, sizeof *c);
    if (!c)
        return loci__fail(LOCI_ENOMEM, "out of memory reading %s", path);
    snprintf(c->path, sizeof c->path, "%s", path);
    c->source = source;
    /* a name others may plant (/tmp): a FIFO must not hang init, nor another user's file place our data;
       an administrator's (root's) file is trusted, a world-writable one never */
    const char *what = source == SRC_CONFIG ? "LOCI_CONFIG" : "LOCI_MEASURED";
    int fd = owned_file_open(path, O_RDONLY, OWNED_BY_ME_OR_ROOT, S_IWOTH, what);
    if (fd >= 0 && !(c->file = fdopen(fd, "r")))
        close(fd);
    if (!c->file) {
        char why[512];
        snprintf(why, sizeof why, "%s", fd < 0 ? loci_last_error() : strerror(errno));
        free(c);
        return loci__fail(LOCI_ECONFIG, "%s%s", why, source == SRC_CONFIG ? "; fix LOCI_CONFIG or unset it" : "");
    }
    int rc = sensible_size(c);
    if (rc == 0)
        rc = topo_config_read(c, on_section, NULL);
    if (rc == 0)
        rc = topo_config_read(c, NULL, on_key);
    fclose(c->file);
    c->file = NULL;
    if (rc == 0)
        rc = topo_config_target_check(c);
    if (rc != 0) {
        topo_config_free(c);
        return rc;
    }
    *out = c;
    return 0;
}

void topo_config_free(topo_config_t *c)
{
    if (!c)
        return;
    for (int i = 0; i < c->ntargets; i++)
        free(c->targets[i].path);
    free(c->targets);
    for (int i = 0; i < c->nfrontend; i++)
        free(c->frontend[i].value);
    free(c->frontend);
    free(c);
}
