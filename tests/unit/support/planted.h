/*
 * What another user plants where loci looks (docs/ARCHITECTURE.md, "Files
 * at a name others could plant"): a directory shared like /tmp, and in it a
 * FIFO, a file or a device made by a given user — made as that user (a
 * forked child that becomes it), so its owner is the kernel's word. Acting
 * as other users needs root: the tests run as root, the planter or the
 * victim becoming `nobody`.
 */
#ifndef LOCI_TEST_PLANTED_H
#define LOCI_TEST_PLANTED_H

#include <stdbool.h>

#define NOBODY 65534

/** True when this process can act as other users (it is root); false, with
 *  why on stderr, when not — the caller skips. */
bool planted_users_available(const char *test);

/** dir ("...XXXXXX") made like /tmp: root's, mode 1777 (anyone may create,
 *  only an owner remove). */
void planted_shared_dir(char *dir);

/** The directory `path` made for uid alone (mode 0700). */
void planted_own_dir(const char *path, int uid);

/** Make at path, as user uid: 'p' a FIFO (mode 0666, anyone may open it),
 *  'f' a regular file holding "planted\n" (0644), 'c' a character device
 *  (1:3, what /dev/null is; root only). 0, or the errno that refused it. */
int plant(const char *path, char kind, int uid);

/** Fail the test unless path still is what plant(path, kind, uid) made: its
 *  type, its owner and, for a file, its content. */
void assert_untouched(const char *path, char kind, int uid);

#endif
