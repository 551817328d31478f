/*
 * The partition calls under one noun (include/loci_shmem.h, "Names"):
 * shmemx_partition_create, _destroy and _last_error are the names of the
 * calls SharP named shmemx_hhm_*. Exported functions forwarding to those,
 * not macros, so a program or binding linking by symbol finds both names;
 * the messages keep naming the SharP call (shim_fail's `fn`).
 */
#include <loci_shmem.h>

int shmemx_partition_create(const char *intent, size_t size) { return shmemx_hhm_create(intent, size); }
int shmemx_partition_destroy(int id) { return shmemx_hhm_destroy(id); }
const char *shmemx_partition_last_error(void) { return shmemx_hhm_last_error(); }
