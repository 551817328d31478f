# memkind's suite in the VM (included by tests/vm/CMakeLists.txt, where loci_vm_suite is defined):
# the tests that tell high-bandwidth memory from DRAM, on topology tiers3, whose node 1 loci finds
# high-bandwidth by HMAT itself — no MEMKIND_HBW_NODES, unlike the host and memkind's test.sh —
# and the kmem and capacity tests, with the two CPU-less nodes named kmem nodes
# (MEMKIND_DAX_KMEM_NODES, memkind's own way to fake them): the capacities, and the preferred kmem
# kind filling its node and going on elsewhere. The API tests of the kmem kinds ran on the host.
# One boot, 6.1 (MPOL_INTERLEAVE, which memkind's interleave tests expect).
set(memkind_dir ${CMAKE_CURRENT_LIST_DIR})
set(memkind_in_vm "LOCI_STORE_DIR=/tmp/pmem loci run --memkind -- run-suite.sh")
set(memkind_vm_excluded excluded.txt:excluded-vm.txt)
# Of all_tests, those whose outcome depends on a high-bandwidth node apart from DRAM (the rest ran on
# the host): every page checked by hbw_verify_memory_region, the bind and interleave policies'
# nodes and modes (their larger size), and the kinds through dlopen.
set(memkind_placement "HbwVerifyFunctionTest.*:BATest.*:HBW/*_4194305_bytes*:HBWPolicy/*_4194305_bytes*:DlopenTest.*")
loci_vm_suite(NAME memkind TOPOLOGY tiers3 TIMEOUT 600
  PROGRAMS loci_tool ${memkind_dir}/run-suite.sh ${memkind_dir}/excluded.txt ${memkind_dir}/excluded-vm.txt
           ${memkind_dir}/get_capacity.conf ${memkind_dir}/sudo
           "${LOCI_MEMKIND_DIR}/libmemkind.so.0=/test/memkind/libmemkind.so.0"
           "${LOCI_MEMKIND_DIR}/libmemkind.so.0=/test/memkind/libmemkind.so" # DlopenTest opens it by that name
           memkind_all_tests memkind_get_capacity_test memkind_highcapacity_test
  TESTS
    hbw          "mkdir -p /tmp/pmem && ${memkind_in_vm} hbw memkind_all_tests ${memkind_vm_excluded} '${memkind_placement}' -d /tmp/pmem"
    capacity     "mkdir -p /tmp/pmem && MEMKIND_DAX_KMEM_NODES=1-2 LOCI_CONFIG=/test/get_capacity.conf ${memkind_in_vm} capacity memkind_get_capacity_test ${memkind_vm_excluded} '*' -d /tmp/pmem"
    highcapacity "mkdir -p /tmp/pmem && ${memkind_in_vm} highcapacity memkind_highcapacity_test ${memkind_vm_excluded} '*' -d /tmp/pmem")
