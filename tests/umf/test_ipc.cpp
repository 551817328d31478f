// UMF's IPC fixtures (third_party/umf/test/ipcFixtures.hpp: every umfIpcTest case, unchanged)
// with UMF's pools on shared loci providers: handles got, opened in other pools (and several
// at once), read, closed, put, from many threads.
#include "ipcFixtures.hpp"
#include "loci_params.hpp"

using namespace loci_umf_test;

static HostMemoryAccessor host;

static std::vector<ipcTestParams> pools() {
    std::vector<ipcTestParams> v = {
        {umfDisjointPoolOps(), umf_test::defaultDisjointPoolConfig, umf_test::defaultDisjointPoolConfigDestroy,
         umfLociMemoryProviderOps(), shared_params, destroy_params, &host},
        {umfProxyPoolOps(), nullptr, nullptr, umfLociMemoryProviderOps(), shared_params, destroy_params, &host},
    };
    if (scalable_pool_loads()) {
        v.push_back({umfScalablePoolOps(), nullptr, nullptr, umfLociMemoryProviderOps(), shared_params,
                     destroy_params, &host});
    }
    return v;
}

INSTANTIATE_TEST_SUITE_P(lociIpc, umfIpcTest, ::testing::ValuesIn(pools()), ipcTestParamsNameGen);
