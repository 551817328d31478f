# The MPI libraries loci's MPI front end is built for. Open MPI and MPICH
# from Debian install side by side (commands suffixed .openmpi / .mpich,
# pkg-config ompi-c / mpich) and have different ABIs, so everything MPI is
# built once per flavour found. Included by shim/mpi, tests/mpi, bench/mpi
# and the VM suites; safe to include more than once.
#
# Sets LOCI_MPI_FLAVOURS (openmpi, mpich: those found) and, per flavour F:
#   PkgConfig::LOCI_MPI_F   imported target (GLOBAL): compile and link flags
#   LOCI_MPI_F_RUN          its mpirun
#   LOCI_MPI_F_FORT         its Fortran wrapper compiler, if it and gfortran are there
find_package(PkgConfig REQUIRED)
set(LOCI_MPI_FLAVOURS "")
foreach(spec "openmpi|ompi-c|mpirun.openmpi|mpifort.openmpi" "mpich|mpich|mpiexec.mpich|mpifort.mpich")
  string(REPLACE "|" ";" spec "${spec}")
  list(GET spec 0 f)
  list(GET spec 1 pc)
  list(GET spec 2 run)
  list(GET spec 3 fort)
  if(NOT TARGET PkgConfig::LOCI_MPI_${f})
    pkg_check_modules(LOCI_MPI_${f} QUIET IMPORTED_TARGET GLOBAL ${pc})
  endif()
  find_program(LOCI_MPI_${f}_RUN ${run})
  find_program(LOCI_MPI_${f}_FORT ${fort})
  find_program(LOCI_MPI_GFORTRAN gfortran)
  if(NOT LOCI_MPI_GFORTRAN)
    set(LOCI_MPI_${f}_FORT "")
  endif()
  if(TARGET PkgConfig::LOCI_MPI_${f} AND LOCI_MPI_${f}_RUN)
    list(APPEND LOCI_MPI_FLAVOURS ${f})
  endif()
endforeach()
