/* A program built against an installed loci: it must see this machine's targets and place data. */
#include <loci.h>

#include <stdio.h>

int main(void)
{
    loci_allocator_t *a = loci_allocator_create("");
    void *p = a ? loci_alloc(a, 1 << 20) : NULL;
    if (loci_target_count() < 2 || !p || !loci_ptr_target(p)) {
        fprintf(stderr, "consumer: %s\n", loci_last_error());
        return 1;
    }
    loci_free(p);
    return 0;
}
