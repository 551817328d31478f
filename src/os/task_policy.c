/*
 * A whole task's memory policy (set_mempolicy), for `loci run`: the same
 * placement an allocator would give one extent, applied to everything the
 * process and its children will allocate.
 */
#include "os/vm.h"

#include <errno.h>
#include <numaif.h>
#include <string.h>

int vm_set_task_policy(const place_t *place)
{
    if (place->simulated)
        return loci__fail(LOCI_ENOTSUP,
                          "the topology is simulated (LOCI_TOPOLOGY): there is no real node to bind a program to");
    if (place->policy == PLACE_LOCAL)
        return 0;
    int mode;
    unsigned long mask[VM_MASK_LONGS], maxnode;
    int rc = vm_kernel_policy(place, &mode, mask, &maxnode);
    if (rc)
        return rc;
    if (set_mempolicy(mode, mask, maxnode) == 0)
        return 0;
    char nodes[128];
    return loci__fail(LOCI_EINVAL, "set_mempolicy(%s, nodes %s): %s", vm_mode_name(mode),
                      vm_nodemask_str(place->nodemask, nodes, sizeof nodes), strerror(errno));
}
