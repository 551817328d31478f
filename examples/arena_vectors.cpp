// C++: STL containers placed by intent and in an arena that moves as a whole (docs/CPP.md).
//   arena_vectors ["intent"]
// Fills a std::vector placed per the intent (default "bandwidth=high"), then two vectors in
// an arena, moves the arena to the ssd0 tier and back, and checks the data is intact.
#include <loci.hpp>

#include <cstdio>
#include <numeric>
#include <vector>

// The name of the target the loci memory at p lives on.
static const char *where(const void *p)
{
    loci_target_info_t info;
    return loci_target_info(loci_ptr_target(p), &info) == 0 ? info.name : "?";
}

int main(int argc, char **argv)
{
    const char *intent = argc > 1 ? argv[1] : "bandwidth=high";
    try {
        std::vector<double, loci::allocator<double>> field(1 << 20, 1.0, loci::allocator<double>(intent));
        std::printf("%s: field on %s, sum %.0f\n", intent, where(field.data()),
                    std::accumulate(field.begin(), field.end(), 0.0));

        loci::arena ar("");
        const loci_target_t *home = ar.target();
        {
            loci::allocator<long> in_arena(ar);
            std::vector<long, loci::allocator<long>> a(100000, 0, in_arena), b(100000, 0, in_arena);
            std::iota(a.begin(), a.end(), 0L);
            std::iota(b.begin(), b.end(), 1L);
            ar.move_to(loci_target_by_name("ssd0"));
            std::printf("arena on %s: ", where(a.data()));
            ar.move_to(home);
            long dot = std::inner_product(a.begin(), a.end(), b.begin(), 0L);
            std::printf("back on %s, a.b = %ld\n", where(a.data()), dot);
            if (dot != 333333333300000L)
                return 1;
        } // the containers go before the arena
    } catch (const loci::error &e) {
        std::fprintf(stderr, "%s\n", e.what());
        return 1;
    }
    return 0;
}
