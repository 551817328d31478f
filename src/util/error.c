/* Error codes, their messages, and the per-thread "last error" text. */
#include "internal.h"

#include <errno.h>
#include <stdio.h>

static _Thread_local char last_error[1024];

const char *loci_strerror(int code)
{
    switch (code < 0 ? code : -code) {
    case LOCI_OK: return "success";
    case LOCI_EINVAL: return "invalid argument";
    case LOCI_ENOMEM: return "out of memory on the allowed targets";
    case LOCI_ENOENT: return "no such target or object";
    case LOCI_ECONFIG: return "malformed configuration";
    case LOCI_ETOPO: return "topology cannot be read";
    case LOCI_ENOTSUP: return "not supported here";
    case LOCI_EPERM: return "missing privilege";
    case LOCI_EIO: return "input/output error";
    case LOCI_EEXIST: return "already exists";
    case LOCI_EBUSY: return "in use";
    case LOCI_ENOSPC: return "file system full";
    case LOCI_ENODEV: return "target went away";
    default: return "unknown loci error code";
    }
}

const char *loci_last_error(void) { return last_error; }

int loci__errno_of(int code)
{
    switch (code) {
    case LOCI_ENOMEM: return ENOMEM;
    case LOCI_ENOENT: return ENOENT;
    case LOCI_ENOTSUP: return ENOTSUP;
    case LOCI_EPERM: return EPERM;
    case LOCI_EIO: return EIO;
    case LOCI_EEXIST: return EEXIST;
    case LOCI_EBUSY: return EBUSY;
    case LOCI_ENOSPC: return ENOSPC;
    case LOCI_ENODEV: return ENODEV;
    default: return EINVAL;
    }
}

int loci__code_of_errno(int e)
{
    static const int codes[] = {LOCI_ENOMEM, LOCI_ENOENT, LOCI_ENOTSUP, LOCI_EPERM, LOCI_EIO,
                                LOCI_EEXIST, LOCI_EBUSY,  LOCI_ENOSPC,  LOCI_ENODEV};
    for (size_t i = 0; i < sizeof codes / sizeof *codes; i++)
        if (loci__errno_of(codes[i]) == e)
            return codes[i];
    return LOCI_EINVAL;
}

static void set_last_error(const char *fmt, va_list ap)
{
    vsnprintf(last_error, sizeof last_error, fmt, ap);
    loci__log(LOCI_LOG_DEBUG, "%s", last_error);
}

int loci__fail(int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    set_last_error(fmt, ap);
    va_end(ap);
    return code;
}

void *loci__fail_null(int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    set_last_error(fmt, ap);
    va_end(ap);
    errno = loci__errno_of(code);
    return NULL;
}
