#include "resident.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

size_t resident_pages(const void *p, size_t len)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE), n = (len + page - 1) / page, r = 0;
    unsigned char *vec = malloc(n ? n : 1);
    assert_non_null(vec);
    assert_int_equal(mincore((void *)p, len, vec), 0);
    for (size_t i = 0; i < n; i++)
        r += vec[i] & 1;
    free(vec);
    return r;
}
