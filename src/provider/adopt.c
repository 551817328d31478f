/* One adopt for the providers that map plain memory (provider_impl.h). */
#include "provider/provider_impl.h"
#include "os/vm.h"

#include <errno.h>

int provider_adopt(const provider_ops_t *self, xtable_t *records, void *addr, size_t size, const place_t *to,
                   const provider_ops_t *from, bool live)
{
    void *tmp = self->alloc(to, size, vm_page_size());
    if (!tmp)
        return errno == ENOSPC ? LOCI_ENOSPC : self->file ? LOCI_EIO : LOCI_ENOMEM;
    int rc = from->move->hand_over(addr, tmp, size, to);
    if (rc == 1 && live) {
        rc = loci__fail(LOCI_EBUSY, "%s", loci_last_error());
    } else if (rc == 1) { /* nothing touches it, the caller says: a plain copy does */
        rc = self->populate && place_is_strict(to) ? self->populate(tmp, size) : 0;
        if (rc == 0)
            rc = vm_replace(addr, tmp, size);
    }
    if (rc != 0) {
        self->free(tmp, size);
        return rc;
    }
    if (records)
        xtable_rekey(records, (uintptr_t)tmp, (uintptr_t)addr);
    return 0;
}
