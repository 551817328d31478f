/* The library's version, as this build's loci.h defines it (loci --version, loci info --json). */
#include "loci.h"

const char *loci_version(void) { return LOCI_VERSION; }
