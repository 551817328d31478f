/*
 * Names that become file names under a tier directory: persistent regions,
 * checkpoints and the variables inside them. One rule for all, checked before
 * any path is made, so that no name is ever a path.
 */
#include "region/region.h"

#include <string.h>

int region_check_name(const char *what, const char *name)
{
    if (!name)
        return loci__fail(LOCI_EINVAL, "%s name is NULL", what);
    size_t n = strlen(name);
    if (n == 0 || n > NVM_NAME_MAX)
        return loci__fail(LOCI_EINVAL, "%s name \"%.40s%s\" has %zu characters; give 1 to %d", what, name,
                          n > 40 ? "..." : "", n, NVM_NAME_MAX);
    if (name[0] == '.' || name[0] == '-')
        return loci__fail(LOCI_EINVAL, "%s name \"%s\" starts with '%c'; start it with a letter or digit", what, name,
                          name[0]);
    if (strstr(name, ".."))
        return loci__fail(LOCI_EINVAL, "%s name \"%s\" contains \"..\"", what, name);
    for (size_t i = 0; i < n; i++) {
        char c = name[i];
        bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
                  c == '_' || c == '-';
        if (!ok)
            return loci__fail(LOCI_EINVAL, "%s name \"%s\": character '%c' at %zu is not allowed (letters, "
                                           "digits, '.', '_' and '-' only: a name is a file name, never a path)",
                              what, name, c, i + 1);
    }
    return 0;
}
