// UMF's tests of its OS memory provider (test/provider_os_memory.cpp at the commit in
// third_party/umf/COMMIT), adapted to loci's provider: the same cases, on
// umfLociMemoryProviderOps() with default params. Where loci answers otherwise, the case
// says so and why (docs/UMF.md, "What differs"):
//  - alignment 3 pages: INVALID_ARGUMENT (loci takes powers of two; the OS provider also takes
//    multiples of the page size);
//  - SIZE_MAX and (size_t)-1: OUT_OF_HOST_MEMORY, loci's ENOMEM (the OS provider: "provider
//    specific", its mmap failed);
//  - a free or purge of memory the provider did not hand out: INVALID_ARGUMENT, or
//    INVALID_ALIGNMENT for a purge of an address that is not page-aligned, as UMF's provider
//    API documents (the OS provider passes munmap's and madvise's failure on as "provider
//    specific");
//  - IPC on a private provider: NOT_SUPPORTED (the OS provider: INVALID_ARGUMENT);
//  - the native error is loci's: a LOCI_E* code and loci's message;
//  - the OS provider's NUMA-mode params have loci counterparts in the intent; their bad-input
//    cases are in test_loci.c.
// Under the Apache License v2.0 with LLVM Exceptions (third_party/umf/LICENSE.TXT), as the
// original.

#include <loci.h>
#include <loci_umf.h>

#include <umf/experimental/ctl.h>
#include <umf/memory_provider.h>

#include <cstring>

#include "base.hpp"
#include "provider.hpp"

using umf_test::test;

#define INVALID_PTR ((void *)0x01)

typedef enum purge_t {
    PURGE_NONE = 0,
    PURGE_LAZY = 1,
    PURGE_FORCE = 2,
} purge_t;

struct umfProviderTest
    : umf_test::test,
      ::testing::WithParamInterface<providerCreateExtParams> {
    void SetUp() override {
        test::SetUp();
        providerCreateExt(this->GetParam(), &provider);
        umf_result_t umf_result =
            umfMemoryProviderGetMinPageSize(provider.get(), NULL, &page_size);
        ASSERT_EQ(umf_result, UMF_RESULT_SUCCESS);

        page_plus_64 = page_size + 64;
    }

    void TearDown() override { test::TearDown(); }

    umf_test::provider_unique_handle_t provider;
    size_t page_size;
    size_t page_plus_64;
};

static void test_alloc_free_success(umf_memory_provider_handle_t provider,
                                    size_t size, size_t alignment,
                                    purge_t purge) {
    void *ptr = nullptr;

    umf_result_t umf_result =
        umfMemoryProviderAlloc(provider, size, alignment, &ptr);
    ASSERT_EQ(umf_result, UMF_RESULT_SUCCESS);
    ASSERT_NE(ptr, nullptr);
    if (alignment) {
        ASSERT_EQ((uintptr_t)ptr % alignment, 0u);
    }

    memset(ptr, 0xFF, size);

    if (purge == PURGE_LAZY) {
        umf_result = umfMemoryProviderPurgeLazy(provider, ptr, size);
        ASSERT_EQ(umf_result, UMF_RESULT_SUCCESS);
    } else if (purge == PURGE_FORCE) {
        umf_result = umfMemoryProviderPurgeForce(provider, ptr, size);
        ASSERT_EQ(umf_result, UMF_RESULT_SUCCESS);
        // loci: what a forced purge promises, zeros at the next access
        for (size_t i = 0; i < size; i++) {
            ASSERT_EQ(((unsigned char *)ptr)[i], 0) << "byte " << i;
        }
    }

    umf_result = umfMemoryProviderFree(provider, ptr, size);
    ASSERT_EQ(umf_result, UMF_RESULT_SUCCESS);
}

// loci: the native error is a LOCI_E* code with loci's message
static void verify_last_native_error(umf_memory_provider_handle_t provider,
                                     int32_t err) {
    const char *message;
    int32_t error;
    umf_result_t ret =
        umfMemoryProviderGetLastNativeError(provider, &message, &error);
    ASSERT_EQ(ret, UMF_RESULT_SUCCESS);
    ASSERT_EQ(error, err);
    ASSERT_GT(strlen(message), 0u);
}

static void test_alloc_failure(umf_memory_provider_handle_t provider,
                               size_t size, size_t alignment,
                               umf_result_t result, int32_t err) {
    void *ptr = nullptr;
    umf_result_t umf_result =
        umfMemoryProviderAlloc(provider, size, alignment, &ptr);
    ASSERT_EQ(umf_result, result);
    ASSERT_EQ(ptr, nullptr);
    verify_last_native_error(provider, err);
}

// TESTS

using params_unique_handle_t =
    std::unique_ptr<umf_loci_memory_provider_params_t,
                    decltype(&umfLociMemoryProviderParamsDestroy)>;

static params_unique_handle_t createLociMemoryProviderParams() {
    umf_loci_memory_provider_params_handle_t params = nullptr;
    umf_result_t res = umfLociMemoryProviderParamsCreate(&params);
    if (res != UMF_RESULT_SUCCESS) {
        throw std::runtime_error(
            "Failed to create loci memory provider params");
    }

    return params_unique_handle_t(params, &umfLociMemoryProviderParamsDestroy);
}
auto defaultParams = createLociMemoryProviderParams();

INSTANTIATE_TEST_SUITE_P(lociProviderTest, umfProviderTest,
                         ::testing::Values(providerCreateExtParams{
                             umfLociMemoryProviderOps(), defaultParams.get()}),
                         providerCreateExtParamsNameGen);

TEST_P(umfProviderTest, create_destroy) {}

TEST_P(umfProviderTest, alloc_page64_align_0) {
    test_alloc_free_success(provider.get(), page_plus_64, 0, PURGE_NONE);
}

TEST_P(umfProviderTest, alloc_page64_align_page_div_2) {
    test_alloc_free_success(provider.get(), page_plus_64, page_size / 2,
                            PURGE_NONE);
}

// loci: alignment 3 pages is no power of two
TEST_P(umfProviderTest, alloc_page64_align_3_pages) {
    test_alloc_failure(provider.get(), page_plus_64, 3 * page_size,
                       UMF_RESULT_ERROR_INVALID_ARGUMENT, LOCI_EINVAL);
}

TEST_P(umfProviderTest, alloc_3pages_align_3pages) {
    test_alloc_failure(provider.get(), 3 * page_size, 3 * page_size,
                       UMF_RESULT_ERROR_INVALID_ARGUMENT, LOCI_EINVAL);
}

// loci: and powers of two beyond a page, as UMF's pools ask for them
TEST_P(umfProviderTest, alloc_3pages_align_4pages) {
    test_alloc_free_success(provider.get(), 3 * page_size, 4 * page_size,
                            PURGE_NONE);
}

TEST_P(umfProviderTest, purge_lazy) {
    test_alloc_free_success(provider.get(), page_plus_64, 0, PURGE_LAZY);
}

TEST_P(umfProviderTest, purge_force) {
    test_alloc_free_success(provider.get(), page_plus_64, 0, PURGE_FORCE);
}

// negative tests using test_alloc_failure

TEST_P(umfProviderTest, alloc_page64_align_page_minus_1_WRONG_ALIGNMENT_1) {
    test_alloc_failure(provider.get(), page_plus_64, page_size - 1,
                       UMF_RESULT_ERROR_INVALID_ARGUMENT, LOCI_EINVAL);
}

TEST_P(umfProviderTest, alloc_page64_align_one_half_pages_WRONG_ALIGNMENT_2) {
    test_alloc_failure(provider.get(), page_plus_64,
                       page_size + (page_size / 2),
                       UMF_RESULT_ERROR_INVALID_ARGUMENT, LOCI_EINVAL);
}

TEST_P(umfProviderTest, alloc_WRONG_SIZE) {
    test_alloc_failure(provider.get(), -1, 0,
                       UMF_RESULT_ERROR_OUT_OF_HOST_MEMORY, LOCI_ENOMEM);
}

TEST_P(umfProviderTest, alloc_MAX_SIZE) {
    test_alloc_failure(provider.get(), SIZE_MAX, 0,
                       UMF_RESULT_ERROR_OUT_OF_HOST_MEMORY, LOCI_ENOMEM);
}

// other positive tests

static size_t min_page_size_of(umf_memory_provider_handle_t provider) {
    size_t min_page_size = SIZE_MAX;
    EXPECT_EQ(umfMemoryProviderGetMinPageSize(provider, nullptr, &min_page_size), UMF_RESULT_SUCCESS);
    return min_page_size;
}

TEST_P(umfProviderTest, get_min_page_size) {
    ASSERT_LE(min_page_size_of(provider.get()), page_size);
}

TEST_P(umfProviderTest, get_recommended_page_size) {
    size_t min_page_size = min_page_size_of(provider.get());
    ASSERT_LE(min_page_size, page_size);

    size_t recommended_page_size;
    umf_result_t umf_result = umfMemoryProviderGetRecommendedPageSize(
        provider.get(), 0, &recommended_page_size);
    ASSERT_EQ(umf_result, UMF_RESULT_SUCCESS);
    ASSERT_GE(recommended_page_size, min_page_size);
}

TEST_P(umfProviderTest, get_name) {
    const char *name = nullptr;
    umf_result_t ret = umfMemoryProviderGetName(provider.get(), &name);
    ASSERT_EQ(ret, UMF_RESULT_SUCCESS);
    ASSERT_STREQ(name, "LOCI");
}

TEST(LociProviderName, custom_name) {
    auto params = createLociMemoryProviderParams();
    ASSERT_NE(params.get(), nullptr);
    const char *custom = "my_loci";
    auto ret = umfLociMemoryProviderParamsSetName(params.get(), custom);
    ASSERT_EQ(ret, UMF_RESULT_SUCCESS);

    umf_memory_provider_handle_t prov = nullptr;
    ret = umfMemoryProviderCreate(umfLociMemoryProviderOps(), params.get(),
                                  &prov);
    ASSERT_EQ(ret, UMF_RESULT_SUCCESS);

    const char *name = nullptr;
    ret = umfMemoryProviderGetName(prov, &name);
    EXPECT_EQ(ret, UMF_RESULT_SUCCESS);
    EXPECT_STREQ(name, custom);
    umfMemoryProviderDestroy(prov);
}

TEST(LociProviderName, default_name_null_handle) {
    const char *name = nullptr;
    auto ret = umfLociMemoryProviderOps()->get_name(nullptr, &name);
    EXPECT_EQ(ret, UMF_RESULT_SUCCESS);
    EXPECT_STREQ(name, "LOCI");
}

// loci: a pointer the provider did not hand out is a bad argument
TEST_P(umfProviderTest, free_size_0_ptr_not_null) {
    umf_result_t umf_result =
        umfMemoryProviderFree(provider.get(), INVALID_PTR, 0);
    ASSERT_EQ(umf_result, UMF_RESULT_ERROR_INVALID_ARGUMENT);
}

TEST_P(umfProviderTest, free_NULL) {
    umf_result_t umf_result = umfMemoryProviderFree(provider.get(), nullptr, 0);
    ASSERT_EQ(umf_result, UMF_RESULT_SUCCESS);
}

// other negative tests

TEST_P(umfProviderTest, free_INVALID_POINTER_SIZE_GT_0) {
    umf_result_t umf_result =
        umfMemoryProviderFree(provider.get(), INVALID_PTR, page_plus_64);
    ASSERT_EQ(umf_result, UMF_RESULT_ERROR_INVALID_ARGUMENT);

    verify_last_native_error(provider.get(), LOCI_EINVAL);
}

// loci: INVALID_PTR is not page-aligned, which UMF documents as INVALID_ALIGNMENT
TEST_P(umfProviderTest, purge_lazy_INVALID_POINTER) {
    umf_result_t umf_result =
        umfMemoryProviderPurgeLazy(provider.get(), INVALID_PTR, 1);
    ASSERT_EQ(umf_result, UMF_RESULT_ERROR_INVALID_ALIGNMENT);

    verify_last_native_error(provider.get(), LOCI_EINVAL);
}

TEST_P(umfProviderTest, purge_force_INVALID_POINTER) {
    umf_result_t umf_result =
        umfMemoryProviderPurgeForce(provider.get(), INVALID_PTR, 1);
    ASSERT_EQ(umf_result, UMF_RESULT_ERROR_INVALID_ALIGNMENT);

    verify_last_native_error(provider.get(), LOCI_EINVAL);
}

// loci: IPC of a private provider is not supported (UMF's meaning of NOT_SUPPORTED)
static void expect_ipc_not_supported(umf_result_t umf_result) {
    ASSERT_EQ(umf_result, UMF_RESULT_ERROR_NOT_SUPPORTED);
}

TEST_P(umfProviderTest, get_ipc_handle_size_wrong_visibility) {
    size_t size;
    expect_ipc_not_supported(umfMemoryProviderGetIPCHandleSize(provider.get(), &size));
}

TEST_P(umfProviderTest, get_ipc_handle_wrong_visibility) {
    char providerIpcData;
    expect_ipc_not_supported(umfMemoryProviderGetIPCHandle(provider.get(), INVALID_PTR, 1, &providerIpcData));
}

TEST_P(umfProviderTest, put_ipc_handle_wrong_visibility) {
    char providerIpcData;
    expect_ipc_not_supported(umfMemoryProviderPutIPCHandle(provider.get(), &providerIpcData));
}

TEST_P(umfProviderTest, open_ipc_handle_wrong_visibility) {
    char providerIpcData;
    void *ptr;
    expect_ipc_not_supported(umfMemoryProviderOpenIPCHandle(provider.get(), &providerIpcData, &ptr));
}

TEST_P(umfProviderTest, close_ipc_handle_wrong_visibility) {
    expect_ipc_not_supported(umfMemoryProviderCloseIPCHandle(provider.get(), INVALID_PTR, 1));
}

static size_t provider_stat(umf_memory_provider_handle_t provider, const char *name) {
    size_t value = SIZE_MAX;
    std::string path = std::string("umf.provider.by_handle.{}.stats.") + name;
    EXPECT_EQ(umfCtlGet(path.c_str(), &value, sizeof(value), provider), UMF_RESULT_SUCCESS);
    return value;
}

TEST_P(umfProviderTest, ctl_stats) {
    ASSERT_EQ(provider_stat(provider.get(), "allocated_memory"), 0u);
    ASSERT_EQ(provider_stat(provider.get(), "peak_memory"), 0u);

    void *ptr = nullptr;
    size_t size = page_size;
    umf_result_t ret = umfMemoryProviderAlloc(provider.get(), size, 0, &ptr);
    ASSERT_EQ(ret, UMF_RESULT_SUCCESS);
    ASSERT_NE(ptr, nullptr);

    ASSERT_EQ(provider_stat(provider.get(), "allocated_memory"), size);
    ASSERT_EQ(provider_stat(provider.get(), "peak_memory"), size);

    ret = umfMemoryProviderFree(provider.get(), ptr, size);
    ASSERT_EQ(ret, UMF_RESULT_SUCCESS);

    ASSERT_EQ(provider_stat(provider.get(), "allocated_memory"), 0u);
    ASSERT_EQ(provider_stat(provider.get(), "peak_memory"), size);

    ret = umfCtlExec("umf.provider.by_handle.{}.stats.peak_memory.reset", NULL,
                     0, provider.get());
    ASSERT_EQ(ret, UMF_RESULT_SUCCESS);

    ASSERT_EQ(provider_stat(provider.get(), "peak_memory"), 0u);
}
