#include "text_file.h"

#include <stdio.h>
#include <string.h>

bool text_first_line(const char *path, char *buf, size_t len)
{
    buf[0] = '\0';
    FILE *f = fopen(path, "re");
    if (!f)
        return false;
    bool ok = fgets(buf, (int)len, f) != NULL;
    fclose(f);
    if (!ok)
        buf[0] = '\0';
    buf[strcspn(buf, "\n")] = '\0';
    return ok;
}
