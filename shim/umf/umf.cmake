# UMF, the oneAPI Unified Memory Framework that loci's UMF front end (shim/umf) plugs into:
# the PyPI wheel umf 1.2.0 (libumf.so, its headers and CMake package), which
# scripts/install-deps.sh installs into the venv LOCI_UMF_PREFIX. Included by shim/umf and
# tests/umf; safe to include more than once.
#
# Sets LOCI_UMF_FOUND, and when found the imported target umf::umf and LOCI_UMF_VERSION.
set(LOCI_UMF_PREFIX /opt/loci/venv-umf CACHE PATH
    "Where UMF 1.2 is installed (the venv scripts/install-deps.sh makes with pip's wheel umf==1.2.0)")
if(NOT TARGET umf::umf)
  find_package(umf 1.2 CONFIG QUIET GLOBAL HINTS ${LOCI_UMF_PREFIX})
  set(LOCI_UMF_VERSION "${umf_VERSION}" CACHE INTERNAL "The UMF version found")
endif()
set(LOCI_UMF_FOUND FALSE)
if(TARGET umf::umf)
  set(LOCI_UMF_FOUND TRUE)
endif()
