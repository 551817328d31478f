/* What the kernel says of a NUMA node's memory (node_memory.h). */
#include "node_memory.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void node_memory(int node, const char *when)
{
    char path[96], buf[4096], line[256];
    snprintf(path, sizeof path, "/sys/devices/system/node/node%d/meminfo", node);
    FILE *f = fopen(path, "r");
    size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
    if (f)
        fclose(f);
    buf[n] = '\0';
    const char *m = strstr(buf, "MemFree:");
    printf("     node %d: %llu KiB free %s;", node, m ? strtoull(m + 8, NULL, 10) : 0ull, when);
    if (!(f = fopen("/proc/zoneinfo", "r"))) {
        printf(" /proc/zoneinfo unreadable\n");
        return;
    }
    char zone[32] = "";
    /* zoneinfo's lines of a zone that say it (the CPUs' lists: "cpu: N", then that list's "count:") */
    static const struct {
        const char *scan, *say;
    } said[] = {{" pages free %llu", " free %llu"}, {" min %llu", " min %llu"},      {" low %llu", " low %llu"},
                {" high %llu", " high %llu"},       {" cpu: %llu", " cpu%llu"},       {" count: %llu", " listed %llu"}};
    int in_node = -1;
    unsigned long long v;
    while (fgets(line, sizeof line, f)) {
        if (sscanf(line, "Node %d, zone %31s", &in_node, zone) == 2) {
            if (in_node == node)
                printf(" zone %s:", zone);
            continue;
        }
        for (size_t i = 0; in_node == node && i < sizeof said / sizeof *said; i++)
            if (sscanf(line, said[i].scan, &v) == 1) {
                printf(said[i].say, v);
                break;
            }
    }
    fclose(f);
    printf(" (pages)\n");
}
