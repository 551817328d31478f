#include "random_id.h"

#include "clock.h"

#include <sys/random.h>
#include <unistd.h>

uint64_t random_id(void)
{
    uint64_t r;
    if (getrandom(&r, sizeof r, GRND_NONBLOCK) == (ssize_t)sizeof r)
        return r;
    uint64_t ns = clock_mono_ns();
    r = ns * 0x9E3779B97F4A7C15ull ^ (uint64_t)(uintptr_t)&ns ^ (uint64_t)getpid() << 40;
    return r ^ (r >> 29);
}
