/*
 * Hot-set GUPS (gups.h) over 12 std::vectors, each made by a function of
 * its own: every vector's memory comes from operator new, whose one malloc
 * call in libstdc++ was the site of all 12 — one arena (issue 36); a
 * calling context past the C++ runtime tells them apart by who made them.
 * usage: gups_vectors ARRAY_MIB MILLION_UPDATES_PER_PHASE [report] | ARRAY_MIB watch FAST_NODE INTERVAL_MS
 */
#include "gups.h"

#include <cstdint>
#include <vector>

namespace {

constexpr int arrays_made = 12;
std::vector<uint64_t> vectors[arrays_made];

/* Alike, the compiler may fold them into one function: their callers still differ. */
#define MAKER(k)                                                                                                   \
    __attribute__((noinline)) std::vector<uint64_t> make_##k(size_t words) { return std::vector<uint64_t>(words); }
MAKER(0) MAKER(1) MAKER(2) MAKER(3) MAKER(4) MAKER(5)
MAKER(6) MAKER(7) MAKER(8) MAKER(9) MAKER(10) MAKER(11)

void make(uint64_t **arrays, int n, size_t bytes)
{
    size_t words = bytes / sizeof(uint64_t);
    vectors[0] = make_0(words), vectors[1] = make_1(words), vectors[2] = make_2(words);
    vectors[3] = make_3(words), vectors[4] = make_4(words), vectors[5] = make_5(words);
    vectors[6] = make_6(words), vectors[7] = make_7(words), vectors[8] = make_8(words);
    vectors[9] = make_9(words), vectors[10] = make_10(words), vectors[11] = make_11(words);
    for (int a = 0; a < n; a++)
        arrays[a] = vectors[a].data();
}

void release(uint64_t **arrays, int n)
{
    for (int a = 0; a < n; a++)
        std::vector<uint64_t>().swap(vectors[a]);
}

} // namespace

int main(int argc, char **argv) { return gups_main("gups_vectors", arrays_made, make, release, argc, argv); }
