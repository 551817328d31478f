/*
 * What a call asks for. Keys, first found wins: loci_intent (an intent,
 * docs/INTENTS.md), mpich_buf_type (MPICH's buffer types, mapped to
 * intents); else LOCI_MPI_INTENT from the environment. Independently,
 * mpi_minimum_memory_alignment (MPI 4.1) asks MPI_Alloc_mem for an alignment.
 */
#include "shim.h"
#include "units.h"

#include <ctype.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* MPICH's mpich_buf_type values as loci hints: MPI info is advice. */
static const struct {
    const char *type, *intent;
} buf_types[] = {
    {"ddr", "kind=dram"},
    {"hbm", "kind=hbm"},
    {"network", "near=nic"},
    {"shmem", "access=node"},
};

static const char *env_intent;
static pthread_once_t env_once = PTHREAD_ONCE_INIT;

/* Read once: MPI programs do not change it mid-run. Empty counts as unset. */
static void read_env(void)
{
    const char *v = getenv("LOCI_MPI_INTENT");
    env_intent = v && *v ? v : NULL;
}

/* The value of `key` in info into buf (MPI_MAX_INFO_VAL + 1 bytes): true if set. */
static bool info_value(MPI_Info info, const char *key, char *buf)
{
    int flag = 0;
#if MPI_VERSION >= 4
    int len = MPI_MAX_INFO_VAL + 1;
    PMPI_Info_get_string(info, key, &len, buf, &flag);
#else
    PMPI_Info_get(info, key, MPI_MAX_INFO_VAL, buf, &flag);
#endif
    return flag != 0;
}

static const char *trim(char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    size_t n = strlen(s);
    while (n > 0 && isspace((unsigned char)s[n - 1]))
        s[--n] = '\0';
    return s;
}

static int buf_type_intent(const char *fn, shim_request_t *req)
{
    for (size_t i = 0; i < sizeof buf_types / sizeof buf_types[0]; i++)
        if (strcasecmp(req->given, buf_types[i].type) == 0) {
            req->intent = buf_types[i].intent;
            return MPI_SUCCESS;
        }
    shim_say(fn, "info key mpich_buf_type=\"%s\": unknown buffer type (known: ddr, hbm, network, shmem)",
             req->given);
    return MPI_ERR_INFO_VALUE;
}

/* A power of two in decimal, e.g. "4096". */
static int alignment(const char *fn, char *text, size_t *out)
{
    const char *s = trim(text), *why = "not a power of two";
    uint64_t v;
    if (!units_parse_whole(s, 1, 1u << 30, &v, &why) || (v & (v - 1))) {
        shim_say(fn, "info key mpi_minimum_memory_alignment=\"%s\": %s; expected a power of two between 1 and "
                     "2^30 bytes (e.g. 64, 4096)", s, why);
        return MPI_ERR_INFO_VALUE;
    }
    *out = (size_t)v;
    return MPI_SUCCESS;
}

int shim_request(const char *fn, MPI_Info info, bool want_alignment, shim_request_t *req)
{
    pthread_once(&env_once, read_env);
    req->intent = req->from = req->given = NULL;
    req->align = 0;
    if (info != MPI_INFO_NULL) {
        if (want_alignment && info_value(info, "mpi_minimum_memory_alignment", req->value)) {
            int rc = alignment(fn, req->value, &req->align);
            if (rc != MPI_SUCCESS)
                return rc;
        }
        if (info_value(info, "loci_intent", req->value)) {
            req->from = "info key loci_intent";
            req->intent = req->given = req->value;
            return MPI_SUCCESS;
        }
        if (info_value(info, "mpich_buf_type", req->value)) {
            req->from = "info key mpich_buf_type";
            req->given = trim(req->value);
            return buf_type_intent(fn, req);
        }
    }
    if (env_intent) {
        req->from = "LOCI_MPI_INTENT";
        req->intent = req->given = env_intent;
    }
    return MPI_SUCCESS;
}
