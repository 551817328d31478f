/*
 * memkind's status calls: memkind_check_available (does the kind have
 * memory on this machine, from the calling thread), memkind_error_message
 * (memkind's own texts, which programs may compare or print), the version
 * this library implements, and memkind_set_bg_threads, which has nothing to
 * switch: loci runs no allocator background threads.
 */
#include "memkind_shim.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#define IMPLEMENTED_VERSION 1014000 /* memkind 1.14.0: major * 1000000 + minor * 1000 + patch */

MK_EXPORT int memkind_check_available(memkind_t kind)
{
    int rc = kind_check("memkind_check_available", kind);
    if (rc != MEMKIND_SUCCESS)
        return rc;
    int why, saved = errno;
    const plan_t *p = plan_of(kind, &why);
    errno = saved; /* memkind sets no errno here */
    return p ? MEMKIND_SUCCESS : why;
}

MK_EXPORT int memkind_get_version(void) { return IMPLEMENTED_VERSION; }

MK_EXPORT int memkind_set_bg_threads(bool state) { return MEMKIND_SUCCESS; }

static const struct {
    int err;
    const char *text;
} messages[] = {
    {MEMKIND_ERROR_UNAVAILABLE, "<memkind> Requested memory kind is not available"},
    {MEMKIND_ERROR_MBIND, "<memkind> Call to mbind() failed"},
    {MEMKIND_ERROR_MMAP, "<memkind> Call to mmap() failed"},
    {MEMKIND_ERROR_MALLOC, "<memkind> Call to malloc() failed"},
    {MEMKIND_ERROR_ENVIRON, "<memkind> Error parsing environment variable (MEMKIND_*)"},
    {MEMKIND_ERROR_INVALID, "<memkind> Invalid input arguments to memkind routine"},
    {MEMKIND_ERROR_RUNTIME, "<memkind> Unspecified run-time error"},
    {EINVAL, "<memkind> Alignment must be a power of two and larger than sizeof(void *)"},
    {ENOMEM, "<memkind> Call to jemk_mallocx() failed"},
    {MEMKIND_ERROR_HUGETLB, "<memkind> unable to allocate huge pages"},
    {MEMKIND_ERROR_BADOPS, "<memkind> memkind_ops structure is poorly formed (missing or incorrect functions)"},
    {MEMKIND_ERROR_MEMTYPE_NOT_AVAILABLE, "<memkind> Requested memory type is not available"},
    {MEMKIND_ERROR_OPERATION_FAILED, "<memkind> Operation failed"},
    {MEMKIND_ERROR_ARENAS_CREATE, "<memkind> Call to jemalloc's arenas.create () failed"},
};

MK_EXPORT void memkind_error_message(int err, char *msg, size_t size)
{
    if (!msg || !size)
        return;
    if (err == MEMKIND_ERROR_TOOMANY) {
        snprintf(msg, size, "<memkind> Attempted to initialize more than maximum (%i) number of kinds",
                 MEMKIND_MAX_KIND);
        return;
    }
    for (size_t i = 0; i < sizeof messages / sizeof *messages; i++)
        if (messages[i].err == err) {
            snprintf(msg, size, "%s", messages[i].text);
            return;
        }
    snprintf(msg, size, "<memkind> Undefined error number: %i", err);
}
