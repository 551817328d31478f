/* One free for the providers that mmap their extents (provider_impl.h). */
#include "provider/provider_impl.h"
#include "os/vm.h"

#include <errno.h>
#include <string.h>

int provider_unmap(const char *who, void *addr, size_t size, bool known)
{
    int rc = 0;
    if (vm_unmap(addr, size) != 0)
        rc = loci__fail(LOCI_EINVAL, "%s: munmap(%p, %zu): %s", who, addr, size, strerror(errno));
    else
        vm_unmapped(addr, size);
    if (!known) /* unmapped all the same: the range was handed to free */
        return loci__fail(LOCI_EINVAL, "%s: %p is no extent of the %s provider", who, addr, who);
    return rc;
}
