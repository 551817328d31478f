/*
 * Failures as UMF codes. UMF has codes for a bad argument, no memory and an
 * unsupported operation; every other loci failure (a file tier's I/O, a
 * permission, a target that went away...) is "provider specific", and the
 * provider must keep its own code and message per thread for
 * umfMemoryProviderGetLastNativeError. The native error is kept for every
 * failure, so loci's message is there whatever UMF code came with it.
 */
#include "umf_shim.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>

static _Thread_local struct {
    int32_t code;
    char message[1024];
} last = {0, "no loci failure in this thread"};

umf_result_t native_error_set(umf_result_t result, int32_t code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(last.message, sizeof last.message, fmt, ap);
    va_end(ap);
    last.code = code;
    umf_shim_log(LOCI_LOG_DEBUG, "%s", last.message);
    return result;
}

umf_result_t native_error_loci(int rc)
{
    umf_result_t result = UMF_RESULT_ERROR_MEMORY_PROVIDER_SPECIFIC;
    switch (rc) {
    case LOCI_EINVAL:
    case LOCI_ENOENT: /* an intent nothing here satisfies is a bad argument, as a node UMF has not */
        result = UMF_RESULT_ERROR_INVALID_ARGUMENT;
        break;
    case LOCI_ENOMEM:
    case LOCI_ENOSPC: /* a file tier's file system full: this provider's memory is exhausted */
        result = UMF_RESULT_ERROR_OUT_OF_HOST_MEMORY;
        break;
    case LOCI_ENOTSUP:
        result = UMF_RESULT_ERROR_NOT_SUPPORTED;
        break;
    }
    return native_error_set(result, rc, "%s", *loci_last_error() ? loci_last_error() : loci_strerror(rc));
}

umf_result_t native_error_errno(int err)
{
    static const struct {
        int err, rc;
    } codes[] = {{EINVAL, LOCI_EINVAL}, {ENOENT, LOCI_ENOENT}, {ENOMEM, LOCI_ENOMEM}, {ENOSPC, LOCI_ENOSPC},
                 {ENOTSUP, LOCI_ENOTSUP}, {EPERM, LOCI_EPERM},   {EACCES, LOCI_EPERM},  {EIO, LOCI_EIO},
                 {EEXIST, LOCI_EEXIST},   {EBUSY, LOCI_EBUSY},   {ENODEV, LOCI_ENODEV}};
    for (size_t i = 0; i < sizeof codes / sizeof *codes; i++)
        if (codes[i].err == err)
            return native_error_loci(codes[i].rc);
    return native_error_loci(LOCI_EIO);
}

void native_error_last(const char **message, int32_t *code)
{
    *message = last.message;
    *code = last.code;
}
