// The params UMF's fixtures make loci providers from (pfnProviderParamsCreate and
// pfnProviderParamsDestroy of poolFixtures.hpp and ipcFixtures.hpp), and the pools that run
// on them: UMF's own, as the wheel builds them (jemalloc is not built into it; the scalable
// pool needs oneTBB's libtbbmalloc.so.2, Debian's libtbbmalloc2).
#ifndef LOCI_UMF_TEST_PARAMS_HPP
#define LOCI_UMF_TEST_PARAMS_HPP

#include <loci_umf.h>

#include <umf/pools/pool_disjoint.h>
#include <umf/pools/pool_proxy.h>
#include <umf/pools/pool_scalable.h>

#include <dlfcn.h>
#include <stdexcept>

namespace loci_umf_test {

// max_size 0: no limit (shared: the default reservation); visibility: UMF_MEM_MAP_*.
inline void *make_params(size_t max_size, umf_memory_visibility_t visibility) {
    umf_loci_memory_provider_params_handle_t params = nullptr;
    if (umfLociMemoryProviderParamsCreate(&params) != UMF_RESULT_SUCCESS ||
        umfLociMemoryProviderParamsSetMaxSize(params, max_size) != UMF_RESULT_SUCCESS ||
        umfLociMemoryProviderParamsSetVisibility(params, visibility) != UMF_RESULT_SUCCESS) {
        const char *message;
        int32_t code;
        umfLociMemoryProviderOps()->get_last_native_error(nullptr, &message, &code);
        throw std::runtime_error(std::string("loci provider params: ") + message);
    }
    return params;
}

inline void *private_params() { return make_params(0, UMF_MEM_MAP_PRIVATE); }

// 16 MiB at most: UMF's out-of-memory case fills it
inline void *capped_params() { return make_params(16u << 20, UMF_MEM_MAP_PRIVATE); }

// A shared arena of 64 MiB: the IPC cases make a dozen providers at once
inline void *shared_params() { return make_params(64u << 20, UMF_MEM_MAP_SHARED); }

inline umf_result_t destroy_params(void *params) {
    return umfLociMemoryProviderParamsDestroy(static_cast<umf_loci_memory_provider_params_handle_t>(params));
}

// The scalable pool loads oneTBB's allocator when a pool is made.
inline bool scalable_pool_loads() {
    void *tbb = dlopen("libtbbmalloc.so.2", RTLD_NOW | RTLD_LOCAL);
    if (tbb) {
        dlclose(tbb);
    }
    return tbb != nullptr;
}

} // namespace loci_umf_test

#endif
