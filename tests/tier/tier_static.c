/* A statically linked program for `loci run --tier auto` (tests/tier): it runs, unplaced. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(void)
{
    char *p = malloc(1 << 20);
    if (!p)
        return 1;
    memset(p, 1, 1 << 20);
    printf("tier_static: %d\n", p[12345]);
    free(p);
    return 0;
}
