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

bool text_whole(const char *path, char *buf, size_t len)
{
    buf[0] = '\0';
    FILE *f = fopen(path, "re");
    if (!f)
        return false;
    size_t n = fread(buf, 1, len - 1, f);
    bool ok = !ferror(f);
    fclose(f);
    buf[ok ? n : 0] = '\0';
    return ok;
}
