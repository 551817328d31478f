# VM suites of the OpenSHMEM front end (included by tests/vm/CMakeLists.txt,
# where loci_vm_suite is defined). With every PE on CPU 0 (node 0),
# partitions and hinted blocks land on the node their intent chooses: on
# tiers3 bandwidth=high on the HBM-like node 1 and capacity=large on the
# CXL-like node 2; on nic1 / nic0 near=nic on the NIC's node (1 / 0, the
# same binary) and near=pe on node 0.
include(${PROJECT_SOURCE_DIR}/shim/shmem/oshmem.cmake)

if(NOT LOCI_SHMEM_FOUND)
  add_test(NAME vm.shmem.missing COMMAND sh -c "echo 'no OpenSHMEM found when loci was configured: apt-get install libopenmpi-dev openmpi-bin (scripts/install-deps.sh)'; exit 1")
  set_tests_properties(vm.shmem.missing PROPERTIES LABELS vm)
  return()
endif()

add_executable(vm_shmem_place ${PROJECT_SOURCE_DIR}/tests/shmem/vm_shmem_place.c)
# libloci-shmem is defined later (shim/shmem): linked by name
target_link_libraries(vm_shmem_place PRIVATE loci_shmem loci LOCI::oshmem loci_vm_pages)
execute_process(COMMAND ${PROJECT_SOURCE_DIR}/tests/shmem/vm-shmem-files.sh
                OUTPUT_VARIABLE _shmem_files OUTPUT_STRIP_TRAILING_WHITESPACE COMMAND_ERROR_IS_FATAL ANY)
string(REPLACE "\n" ";" _shmem_files "${_shmem_files}")
# vm-mpi-run.sh sets up the guest for a job (loopback, hostname, /dev/shm) and runs
# mpirun.sh under taskset; mpirun.sh with 0 processes runs its command as it is:
# here oshrun.sh, which launches the PEs (mpirun.sh's own options break oshmem's finalize).
set(_run "vm-mpi-run.sh 0 openmpi none 0 -- oshrun.sh mpirun.openmpi")
set(_programs vm_shmem_place ${PROJECT_SOURCE_DIR}/tests/shmem/oshrun.sh ${PROJECT_SOURCE_DIR}/tests/mpi/mpirun.sh
              ${PROJECT_SOURCE_DIR}/tests/mpi/vm-mpi-run.sh ${_shmem_files})

loci_vm_suite(NAME shmem_tiers3 TOPOLOGY tiers3 TIMEOUT 180 PROGRAMS ${_programs}
  TESTS np2 "${_run} 2 -- vm_shmem_place bandwidth=high 1 capacity=large 2 hint:high_bw 1")
foreach(nic 1 0)
  loci_vm_suite(NAME shmem_nic${nic} TOPOLOGY nic${nic} TIMEOUT 180 PROGRAMS ${_programs}
    TESTS np2 "${_run} 2 -- vm_shmem_place near=nic ${nic} near=pe 0 hint:near_nic ${nic}")
endforeach()
