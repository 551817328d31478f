#include "node_board.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <errno.h>
#include <sys/mman.h>
#include <unistd.h>

node_board_t *node_board_map(const char *path, int create)
{
    int fd = open(path, create ? O_RDWR | O_CREAT | O_TRUNC : O_RDWR, 0600);
    if (fd < 0 || (create && ftruncate(fd, sizeof(node_board_t)) != 0)) {
        fprintf(stderr, "node board %s: %s\n", path, strerror(errno));
        if (fd >= 0)
            close(fd);
        return NULL;
    }
    void *p = mmap(NULL, sizeof(node_board_t), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (p == MAP_FAILED) {
        fprintf(stderr, "node board %s: mmap: %s\n", path, strerror(errno));
        return NULL;
    }
    return p;
}
