/*
 * What many unit tests share: a scratch directory removed at the end, and
 * switching loci between this machine and an injected reference topology
 * (tests/topologies, found through LOCI_TEST_TOPOLOGIES) with an admin
 * config written into the scratch directory.
 */
#ifndef LOCI_TEST_SCRATCH_H
#define LOCI_TEST_SCRATCH_H

/** The scratch directory, valid between scratch_setup and scratch_teardown. */
extern char scratch_dir[];

/** Remove the directory `path` and everything below it (links not
 *  followed): 0, or -1 when something could not be removed. */
int remove_tree(const char *path);

/** cmocka group setup: create the scratch directory. */
int scratch_setup(void **state);

/** cmocka group teardown: loci_fini, then remove the scratch directory. */
int scratch_teardown(void **state);

/** Re-initialise loci on the reference topology `xml` (a file name in
 *  tests/topologies) with `config` (INI text, "" for none) as LOCI_CONFIG. */
void use_topology(const char *xml, const char *config);

/** Re-initialise loci on this machine, without topology or config. */
void use_this_machine(void);

/** Re-initialise loci on this machine with `config` (INI text) as LOCI_CONFIG. */
void use_this_machine_with(const char *config);

/** "<base>-<pid>": a name (region, checkpoint) no other test process uses.
 *  The last four stay valid. */
const char *unique_name(const char *base);

#endif
