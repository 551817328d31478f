// UMF's memory-property fixture (third_party/umf/test/properties/provider_properties.hpp: every
// ProviderPropsTest case, unchanged) on loci's provider under UMF's proxy pool: the provider,
// pool, base address and size, and buffer id UMF reports for a pointer into loci's memory.
#include <loci_umf.h>

#include "provider_properties.hpp"

static void create_loci_provider(umf_memory_provider_handle_t *provider, void *data) {
    umf_loci_memory_provider_params_handle_t params = nullptr;
    ASSERT_EQ(umfLociMemoryProviderParamsCreate(&params), UMF_RESULT_SUCCESS);
    ASSERT_EQ(umfMemoryProviderCreate(umfLociMemoryProviderOps(), params, provider), UMF_RESULT_SUCCESS);
    ASSERT_EQ(umfLociMemoryProviderParamsDestroy(params), UMF_RESULT_SUCCESS);
    *(uintptr_t *)data = 0;
}

static void destroy_loci_provider(umf_memory_provider_handle_t provider, void *) {
    umfMemoryProviderDestroy(provider);
}

INSTANTIATE_TEST_SUITE_P(lociProps, ProviderPropsTest,
                         ::testing::Values(testParams{create_loci_provider, destroy_loci_provider, "LOCI"}),
                         nameGen);
