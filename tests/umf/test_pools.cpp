// UMF's pool fixtures (third_party/umf/test/poolFixtures.hpp: every umfPoolTest,
// umfMultiPoolTest and umfMemTest case, unchanged) with UMF's pools on loci's provider.
#include "loci_params.hpp"
#include "poolFixtures.hpp"

using namespace loci_umf_test;

static std::vector<poolCreateExtParams> pools() {
    std::vector<poolCreateExtParams> v = {
        {umfDisjointPoolOps(), umf_test::defaultDisjointPoolConfig, umf_test::defaultDisjointPoolConfigDestroy,
         umfLociMemoryProviderOps(), private_params, destroy_params},
        {umfProxyPoolOps(), nullptr, nullptr, umfLociMemoryProviderOps(), private_params, destroy_params},
    };
    if (scalable_pool_loads()) {
        v.push_back({umfScalablePoolOps(), nullptr, nullptr, umfLociMemoryProviderOps(), private_params,
                     destroy_params});
    }
    return v;
}

INSTANTIATE_TEST_SUITE_P(lociPools, umfPoolTest, ::testing::ValuesIn(pools()), poolCreateExtParamsNameGen);

INSTANTIATE_TEST_SUITE_P(lociPools, umfMultiPoolTest, ::testing::ValuesIn(pools()), poolCreateExtParamsNameGen);

// Out of memory: a provider capped at 16 MiB. The disjoint pool then serves half its capacity
// of freed slabs again without the provider, as in UMF's own disjoint pool case.
INSTANTIATE_TEST_SUITE_P(
    lociPools, umfMemTest,
    ::testing::Values(std::make_tuple(poolCreateExtParams{umfDisjointPoolOps(), umf_test::defaultDisjointPoolConfig,
                                                          umf_test::defaultDisjointPoolConfigDestroy,
                                                          umfLociMemoryProviderOps(), capped_params,
                                                          destroy_params},
                                      static_cast<int>(umf_test::DEFAULT_DISJOINT_CAPACITY) / 2),
                      std::make_tuple(poolCreateExtParams{umfProxyPoolOps(), nullptr, nullptr,
                                                          umfLociMemoryProviderOps(), capped_params,
                                                          destroy_params},
                                      0)),
    ([](auto const &info) { return poolCreateExtParamsNameGen({std::get<0>(info.param), info.index}); }));

// The scalable pool is UMF's third pool in the wheel; install-deps installs what it loads.
TEST(lociPoolsAvailable, scalable) {
    ASSERT_TRUE(scalable_pool_loads())
        << "libtbbmalloc.so.2 does not load, so the scalable pool's cases did not run: apt-get install "
           "libtbbmalloc2 (scripts/install-deps.sh)";
}
