#!/usr/bin/env bash
# Copies, unchanged, the files of UMF's test suite that tests/umf builds against loci's provider,
# from a git clone of https://github.com/oneapi-src/unified-memory-framework at the commit the
# PyPI wheel umf==1.2.0 was built from (docs/UMF.md, "Tests", says how that commit was found).
#   tests/umf/third_party/umf/refresh.sh /path/to/unified-memory-framework [commit]
set -euo pipefail
repo=${1:?usage: $0 UMF_GIT_DIR [COMMIT]}
commit=${2:-a12247bc1f59494ad9f08ac42886043cbcfe5b76}
here=$(cd "$(dirname "$0")" && pwd)
files=(
  LICENSE.TXT
  # the fixtures: pools, IPC, malloc compliance; the helpers they include
  test/poolFixtures.hpp test/ipcFixtures.hpp
  test/malloc_compliance_tests.cpp test/malloc_compliance_tests.hpp
  test/utils/cpp_helpers.hpp
  test/common/base.hpp test/common/pool.hpp test/common/provider.hpp
  test/common/multithread_helpers.hpp test/properties/provider_properties.hpp
  test/common/test_helpers.c test/common/test_helpers.h
  test/common/provider_trace.c test/common/provider_trace.h
  test/common/provider_null.c test/common/provider_null.h
  test/common/pool_null.c test/common/pool_null.h
  test/common/pool_trace.c test/common/pool_trace.h
  # the producer and consumer of the IPC tests across processes
  test/common/ipc_common.c test/common/ipc_common.h
  # UMF internals the fixtures call (not exported by libumf.so): utils, logger, CTL, base allocator
  src/utils/utils_common.c src/utils/utils_common.h src/utils/utils_posix_common.c
  src/utils/utils_posix_concurrency.c src/utils/utils_linux_common.c src/utils/utils_concurrency.h
  src/utils/utils_log.c src/utils/utils_log.h src/utils/utils_load_library.c
  src/utils/utils_load_library.h src/utils/utils_assert.h src/utils/utils_math.h
  src/utils/utils_sanitizers.h
  src/ctl/ctl.c src/ctl/ctl_internal.h src/uthash/utlist.h
  src/memory_properties_internal.h
  src/base_alloc/base_alloc.c src/base_alloc/base_alloc.h src/base_alloc/base_alloc_global.c
  src/base_alloc/base_alloc_global.h src/base_alloc/base_alloc_internal.h
  src/base_alloc/base_alloc_linear.c src/base_alloc/base_alloc_linear.h src/base_alloc/base_alloc_linux.c
)
git -C "$repo" archive "$commit" "${files[@]}" | tar -x -C "$here"
echo "$commit" >"$here/COMMIT"
