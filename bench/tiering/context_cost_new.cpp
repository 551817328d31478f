// The C++ runtime's allocation for bench_context_cost (context_cost.c): operator new and delete,
// whose malloc call is in libstdc++ — a frame the interposer looks past.
#include <cstddef>

extern "C" void *bench_context_new(std::size_t n) { return ::operator new(n); }
extern "C" void bench_context_delete(void *p) { ::operator delete(p); }
