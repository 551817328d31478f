// include/loci.hpp: loci::allocator<T> with std::vector, std::map, std::unordered_map and
// std::basic_string, by intent and in arenas; the RAII helpers; errors. Built by
// tests/omp/CMakeLists.txt (the unit tests' glob takes only C files).
#include <setjmp.h> // cmocka needs these first
#include <stdarg.h>
#include <stddef.h>
extern "C" {
#include <cmocka.h>
}

#include <loci.hpp>

#include <cstdint>
#include <cstring>
#include <functional>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

namespace {

template <class T>
bool is_loci(const T *p)
{
    return loci_ptr_target(p) != nullptr;
}

using string = std::basic_string<char, std::char_traits<char>, loci::allocator<char>>;

void test_vector(void **)
{
    loci::allocator<double> dram("");
    std::vector<double, loci::allocator<double>> v(dram);
    for (int i = 0; i < 100000; i++)
        v.push_back(i);
    assert_true(is_loci(v.data()));
    assert_int_equal(loci_usable_size(v.data()) >= v.capacity() * sizeof(double), 1);
    auto copy = v; // the allocator comes along
    assert_true(copy.get_allocator() == v.get_allocator());
    assert_true(is_loci(copy.data()));
    assert_true(copy[99999] == 99999.0);

    struct alignas(128) wide {
        char bytes[128];
    };
    std::vector<wide, loci::allocator<wide>> w(3, wide{}, loci::allocator<wide>("latency=low"));
    assert_int_equal(reinterpret_cast<std::uintptr_t>(w.data()) % 128, 0);
}

void test_map_and_string(void **)
{
    loci::allocator<char> where("latency=low");
    using map = std::map<int, string, std::less<int>, loci::allocator<std::pair<const int, string>>>;
    map m(where); // rebinds to its nodes
    for (int i = 0; i < 1000; i++)
        m.emplace(i, string(100, static_cast<char>('a' + i % 26), where)); // past the small-string buffer
    for (auto &kv : m) {
        assert_true(is_loci(&kv));
        assert_true(is_loci(kv.second.data()));
    }
    string s("placed by intent, long enough to leave the small-string buffer", where);
    s += s;
    assert_true(is_loci(s.data()));
    assert_int_equal(std::strncmp(s.c_str(), "placed by intent", 16), 0);
}

void test_unordered_map_in_arena(void **)
{
    loci::arena ar("", 0);
    using umap = std::unordered_map<int, long, std::hash<int>, std::equal_to<int>,
                                    loci::allocator<std::pair<const int, long>>>;
    {
        umap u(16, std::hash<int>(), std::equal_to<int>(), loci::allocator<std::pair<const int, long>>(ar));
        for (int i = 0; i < 5000; i++)
            u[i] = 2L * i;
        for (auto &kv : u) // every node in the arena
            assert_ptr_equal(loci_arena_of(&kv), ar.get());
        assert_int_equal(u.at(4999), 9998);
    } // the map goes before its arena
    assert_non_null(ar.target());
}

void test_arena_cap(void **)
{
    loci::arena small("", 1 << 20);
    std::vector<char, loci::allocator<char>> v{loci::allocator<char>(small)};
    bool refused = false;
    try {
        v.resize(4 << 20);
    } catch (const std::bad_alloc &) {
        refused = true; // max_bytes reached: what containers expect
    }
    assert_true(refused);
    loci::arena moved = std::move(small);
    assert_non_null(moved.get());
}

void test_equality_and_errors(void **)
{
    loci::allocator<int> a(""), b("");
    loci::allocator<long> rebound(a);
    assert_true(a == b); // one cached allocator object per intent
    assert_true(a == rebound);
    assert_true(a != loci::allocator<int>("latency=low"));
    bool threw = false;
    try {
        loci::allocator<int> bad("bandwith=high");
    } catch (const loci::error &e) {
        threw = std::strstr(e.what(), "bandwith") != nullptr;
    }
    assert_true(threw);
    threw = false;
    try {
        a.allocate(std::numeric_limits<std::size_t>::max() / 2);
    } catch (const std::bad_array_new_length &) {
        threw = true;
    }
    assert_true(threw);
}

int destroyed;

struct counted {
    explicit counted(int v) : value(v) {}
    ~counted() { destroyed++; }
    int value;
};

void test_unique_ptr_and_region(void **)
{
    {
        loci::arena ar("");
        auto p = loci::make_unique<counted>(loci::allocator<char>(ar), 42);
        assert_int_equal(p->value, 42);
        assert_ptr_equal(loci_arena_of(p.get()), ar.get());
    }
    assert_int_equal(destroyed, 1);

    loci_persist_remove("test_cpp_region", nullptr);
    {
        loci::region r("test_cpp_region", 8192);
        std::strcpy(static_cast<char *>(r.data()), "kept");
        r.sync();
        assert_true(r.size() >= 8192);
    }
    {
        loci::region again("test_cpp_region", 0, nullptr, 0); // opened, not created
        assert_string_equal(static_cast<const char *>(again.data()), "kept");
    }
    assert_int_equal(loci_persist_remove("test_cpp_region", nullptr), 0);
}

// Managed GPU memory (use=cpu+gpu, docs/GPU.md): CPU and GPU share it, so STL containers work in
// it. ctest points LOCI_CUDA_LIBRARY at the driver stand-in.
void test_vector_in_managed_gpu_memory(void **)
{
    loci::allocator<long> managed("use=cpu+gpu");
    std::vector<long, loci::allocator<long>> v(managed);
    for (long i = 0; i < 100000; i++)
        v.push_back(i * 3);
    loci_target_info_t info;
    const loci_target_t *t = loci_ptr_target(v.data());
    assert_non_null(t);
    assert_int_equal(loci_target_info(t, &info), 0);
    assert_string_equal(info.kind, "gpu");
    assert_true(v[99999] == 299997);
    assert_true(loci_usable_size(v.data()) >= v.capacity() * sizeof(long));
}

} // namespace

int main()
{
    const CMUnitTest tests[] = {
        cmocka_unit_test(test_vector),
        cmocka_unit_test(test_map_and_string),
        cmocka_unit_test(test_unordered_map_in_arena),
        cmocka_unit_test(test_arena_cap),
        cmocka_unit_test(test_equality_and_errors),
        cmocka_unit_test(test_unique_ptr_and_region),
        cmocka_unit_test(test_vector_in_managed_gpu_memory),
    };
    return cmocka_run_group_tests(tests, nullptr, nullptr);
}
