# Open MPI's OpenSHMEM (oshmem), what loci's OpenSHMEM front end is built
# for. Debian ships it in libopenmpi-dev (liboshmem, shmem.h) and
# openmpi-bin (oshrun), without a pkg-config file of its own: the headers
# and libraries are Open MPI's (pkg-config ompi-c). Included by shim/shmem,
# tests/shmem, bench/shmem and the VM suite; safe to include more than once.
#
# Sets LOCI_SHMEM_FOUND, and when found:
#   LOCI::oshmem     imported target (GLOBAL): shmem.h, liboshmem, libmpi
#   LOCI_SHMEM_RUN   oshrun
find_package(PkgConfig REQUIRED)
if(NOT TARGET LOCI::oshmem)
  pkg_check_modules(LOCI_SHMEM_OMPI QUIET ompi-c)
  find_path(LOCI_SHMEM_INCLUDE shmem.h HINTS ${LOCI_SHMEM_OMPI_INCLUDE_DIRS})
  find_library(LOCI_SHMEM_LIBRARY oshmem HINTS ${LOCI_SHMEM_OMPI_LIBRARY_DIRS})
  find_program(LOCI_SHMEM_RUN oshrun)
  if(LOCI_SHMEM_INCLUDE AND LOCI_SHMEM_LIBRARY AND LOCI_SHMEM_RUN AND LOCI_SHMEM_OMPI_FOUND)
    add_library(LOCI::oshmem INTERFACE IMPORTED GLOBAL)
    target_include_directories(LOCI::oshmem INTERFACE ${LOCI_SHMEM_INCLUDE} ${LOCI_SHMEM_OMPI_INCLUDE_DIRS})
    target_link_libraries(LOCI::oshmem INTERFACE ${LOCI_SHMEM_LIBRARY} ${LOCI_SHMEM_OMPI_LINK_LIBRARIES})
  endif()
endif()
set(LOCI_SHMEM_FOUND FALSE)
if(TARGET LOCI::oshmem)
  set(LOCI_SHMEM_FOUND TRUE)
endif()
