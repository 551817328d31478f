# VM suite of the OpenMP front end (docs/OPENMP.md), included by tests/vm/CMakeLists.txt.
# Real OpenMP 5 programs from gcc (libgomp) and clang (libomp) run under
# LD_PRELOAD=libloci-omp.so on tiers3 (node 0 DRAM with the CPUs, node 1 HBM-like, node 2
# CXL-like), their pages checked node by node (omp_check.c says what each command checks).
# libomp registers itself in /dev/shm, which the guest does not mount by itself.
set(omp_vm_tests)
set(shm_gcc "")
set(shm_clang "mkdir -p /dev/shm && (grep -q ' /dev/shm ' /proc/mounts || mount -t tmpfs shm /dev/shm) && ")
foreach(cc gcc clang)
  set(run "${shm_${cc}}LD_PRELOAD=/test/libloci-omp.so omp_check_${cc}")
  list(APPEND omp_vm_tests
    ${cc}_high_bw      "${run} place omp_high_bw_mem_alloc 1"
    ${cc}_large_cap    "${run} place omp_large_cap_mem_alloc 2"
    ${cc}_low_lat      "${run} place omp_low_lat_mem_alloc 0"
    ${cc}_default      "${run} place omp_default_mem_alloc 0"
    ${cc}_pool_null_fb "${run} pool 1"
    ${cc}_abort_fb     "${run} abort"
    ${cc}_allocator_fb "${run} fallback 1 2"
    ${cc}_interleaved  "${run} interleave 0,1,2"
    ${cc}_blocked      "${run} blocked 0,1,2"
    ${cc}_nearest      "${run} nearest 1"
    ${cc}_clause       "${run} clause 1"
    ${cc}_inherit      "${run} inherit 1")
endforeach()

loci_vm_suite(NAME omp TOPOLOGY tiers3 TIMEOUT 120
  PROGRAMS loci_omp omp_check_gcc ${LOCI_OMP_CHECK_CLANG} hydro
           ${PROJECT_SOURCE_DIR}/tests/omp/check-hydro.sh ${PROJECT_SOURCE_DIR}/tests/omp/omp-high-bw-cxl.conf
  TESTS ${omp_vm_tests}
    env_predefined "OMP_ALLOCATOR=omp_high_bw_mem_alloc LD_PRELOAD=/test/libloci-omp.so omp_check_gcc place default 1"
    env_traits     "OMP_ALLOCATOR=omp_large_cap_mem_space:alignment=4096,sync_hint=contended LD_PRELOAD=/test/libloci-omp.so omp_check_gcc place default 2"
    config_high_bw "LOCI_CONFIG=/test/omp-high-bw-cxl.conf LD_PRELOAD=/test/libloci-omp.so omp_check_gcc place omp_high_bw_mem_alloc 2"
    libgomp_alone  "omp_check_gcc place omp_high_bw_mem_alloc 0"
    hydro          "check-hydro.sh 3 hydro /test/libloci-omp.so 1 0 -n 32 -i 5")
