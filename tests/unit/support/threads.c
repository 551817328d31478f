/* Counting this process's threads (threads.h). */
#include "threads.h"

#include <dirent.h>
#include <time.h>

int count_threads(void)
{
    int n = 0;
    DIR *d = opendir("/proc/self/task");
    for (struct dirent *e; d && (e = readdir(d));)
        n += e->d_name[0] != '.';
    if (d)
        closedir(d);
    return n;
}

int threads_now_or(int expect)
{
    int n = count_threads();
    for (int i = 0; i < 200 && n != expect; i++, n = count_threads()) {
        struct timespec ts = {0, 10000000};
        nanosleep(&ts, NULL);
    }
    return n;
}
