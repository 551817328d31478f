/* The options several `loci` commands take: --from NODE (the initiator the
 * machine is seen from), and with it --json for the commands that show the
 * machine (info, resolve). */
#include "commands.h"
#include "loci.h"
#include "units.h"

#include <limits.h>
#include <string.h>

int tool_set_initiator(const char *arg)
{
    /* digits only: no sign (-1 would mean "follow the CPU"), no hex, nothing beyond int */
    uint64_t node;
    const char *why = "no number given";
    if (!arg || !units_parse_whole(arg, 0, INT_MAX, &node, &why)) {
        fprintf(stderr, "loci: --from %s: %s; expected a NUMA node number (0 to %d, digits only)\n",
                arg ? arg : "(missing)", why, INT_MAX);
        return 2;
    }
    if (loci_initiator_set((int)node) != 0) {
        fprintf(stderr, "loci: %s\n", loci_last_error());
        return 2;
    }
    return 0;
}

int tool_view_option(int argc, char **argv, int *i, bool *json)
{
    if (strcmp(argv[*i], "--json") == 0) {
        *json = true;
        return 0;
    }
    if (strcmp(argv[*i], "--from") == 0)
        return tool_set_initiator(*i + 1 < argc ? argv[++*i] : NULL);
    return -1;
}
