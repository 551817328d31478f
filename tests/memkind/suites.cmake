# Where memkind's test programs run, and on what (docs/MEMKIND.md has the counts).
#
# Host (label unit): every program, every test but those excluded.txt and excluded-host.txt name.
# The host has one NUMA node, so, as memkind's test.sh fakes high-bandwidth memory on a second
# node with MEMKIND_HBW_NODES (and persistent memory with MEMKIND_DAX_KMEM_NODES), here node 0 is
# named; file-backed kinds go to a directory of their own that is loci's ssd0 tier.
# Release builds only (CMakeLists.txt returns before this in sanitizer builds): the programs are
# built as memkind builds them, with OpenMP from libgomp, which no sanitizer instruments (false
# reports), and would cost each sanitizer stage their build; the shim's own checks run there
# (unit.memkind.on_loci).
set(memkind_run $<TARGET_FILE:loci_tool> run --memkind -- ${CMAKE_CURRENT_SOURCE_DIR}/run-suite.sh)
set(memkind_excluded ${CMAKE_CURRENT_SOURCE_DIR}/excluded.txt:${CMAKE_CURRENT_SOURCE_DIR}/excluded-host.txt)
foreach(program all_tests stat_test defrag_reallocate get_capacity_test highcapacity_test
                freeing_memory_segfault_test dax_kmem_test)
  set(pmem ${CMAKE_CURRENT_BINARY_DIR}/pmem-${program})
  file(MAKE_DIRECTORY ${pmem})
  set(config "")
  if(program STREQUAL "get_capacity_test")
    set(config ${CMAKE_CURRENT_SOURCE_DIR}/get_capacity.conf)
  endif()
  add_test(NAME unit.memkind.${program}
           COMMAND ${memkind_run} ${program} $<TARGET_FILE:memkind_${program}> ${memkind_excluded} "*" -d ${pmem})
  set_tests_properties(unit.memkind.${program} PROPERTIES LABELS unit TIMEOUT 900
    ENVIRONMENT "MEMKIND_HBW_NODES=0;MEMKIND_DAX_KMEM_NODES=0;LOCI_STORE_DIR=${pmem};LOCI_CONFIG=${config};LOCI_TOPOLOGY=;LOCI_MEASURED=;LOCI_LOG=error;LD_LIBRARY_PATH=;LD_PRELOAD=")
endforeach()

# memkind's autohbw (AUTO_HBW_SIZE) through loci run --memkind: big malloc blocks are loci's.
add_test(NAME unit.memkind.autohbw
         COMMAND $<TARGET_FILE:loci_tool> run --memkind -- $<TARGET_FILE:memkind_on_loci> --autohbw)
set_tests_properties(unit.memkind.autohbw PROPERTIES LABELS unit
  ENVIRONMENT "AUTO_HBW_SIZE=1M;LOCI_STORE_DIR=${CMAKE_CURRENT_BINARY_DIR}/pmem-on_loci;LOCI_CONFIG=;LOCI_TOPOLOGY=;LOCI_MEASURED=;LD_LIBRARY_PATH=;LD_PRELOAD=;LOCI_TIER=;LOCI_TIER_INTENT=;LOCI_TIER_THRESHOLD=")

# The kinds' own blocks in tier=auto arenas under loci run --memkind --tier auto.
add_test(NAME unit.memkind.tiered
         COMMAND $<TARGET_FILE:loci_tool> run --memkind --tier auto -- $<TARGET_FILE:memkind_on_loci> --tiered)
set_tests_properties(unit.memkind.tiered PROPERTIES LABELS unit
  ENVIRONMENT "MEMKIND_HBW_NODES=0;LOCI_STORE_DIR=${CMAKE_CURRENT_BINARY_DIR}/pmem-on_loci;LOCI_CONFIG=;LOCI_TOPOLOGY=;LOCI_MEASURED=;LD_LIBRARY_PATH=;LD_PRELOAD=;LOCI_TIER=;LOCI_TIER_INTENT=;LOCI_TIER_THRESHOLD=;AUTO_HBW_SIZE=")
