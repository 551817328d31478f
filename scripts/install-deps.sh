#!/usr/bin/env bash
# Installs everything a fresh Debian 12 machine lacks to build, test and
# benchmark loci, and fetches Debian's two kernels for the VM test bed (6.1 and backports' 6.12).
# Idempotent: installs only what is missing. Needs root (or sudo).
set -euo pipefail

packages=(
  # build
  build-essential cmake ninja-build pkg-config clang libclang-rt-14-dev
  # libraries loci uses
  libhwloc-dev hwloc libhwloc-plugins libnuma-dev numactl
  # checkpoint chunk checksums (XXH3-128)
  libxxhash-dev
  # tests: unit tests, fuzzing runtime, the VM test bed
  libcmocka-dev qemu-system-x86 busybox-static cpio
  # the VM test bed's emulated NVDIMM made device-DAX (tests/vm, suite devdax): ndctl in the guest
  ndctl
  # ... and made system RAM at run time (tests/vm, suite kmem): daxctl in the guest
  daxctl
  # OpenMP front end: clang's OpenMP runtime (libomp), to test it beside GCC's libgomp
  libomp-dev
  # benchmark competitors and plots
  libjemalloc-dev libmimalloc-dev libmemkind-dev python3 python3-matplotlib
  # Redis under tiering (bench/tiering/redis.sh, VM suite redis): Debian's server, copied into the
  # VM, and hiredis for its client (on a systemd machine the package also starts a redis service
  # on port 6379; the bench runs its own on a unix socket)
  redis-server libhiredis-dev
  # memkind programs on loci (shim/memkind): memkind's headers and library, and its test suite's gtest
  libgtest-dev
  # MPI front end (shim/mpi, tests/mpi, bench/mpi): both MPIs side by side, and the
  # Fortran compiler their mpifort wrappers call (and the Fortran module, fortran/, is built with)
  openmpi-bin libopenmpi-dev mpich libmpich-dev gfortran
  # the aggregate store (kind=store): librados to build, and a throw-away Ceph cluster for
  # the multi-node tests and benchmarks (scripts/store-cluster.sh; ceph-mgr reports usage)
  librados-dev libradospp-dev ceph-mon ceph-osd ceph-mgr ceph-common iproute2
  # Python package (python/): Debian's python3 runs its tests (tests/CMakeLists.txt uses
  # /usr/bin/python3, not a python earlier on PATH); the install check pip-installs it into a
  # venv that sees these, offline (--no-build-isolation: setuptools and wheel from here);
  # python3-venv also makes the pip-NumPy venv below
  python3-numpy python3-pytest python3-venv python3-setuptools python3-wheel
  # UMF front end (shim/umf): UMF's own test suites are GoogleTest programs; UMF's scalable
  # pool loads oneTBB's allocator (the UMF library itself comes from PyPI, below)
  libgtest-dev libtbbmalloc2
  # libloci-tier.so reads a Python program's frames with the interpreter's own headers (shim/tier/python.c)
  python3-dev
)

if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null; then exec sudo -E "$0" "$@"; fi
  echo "install-deps: run as root (or install sudo): apt-get needs it" >&2
  exit 1
fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "install-deps: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
else
  echo "install-deps: all packages present"
fi

# The Python tests also run under the NumPy pip installs today (2.x), beside Debian's 1.24:
# unit.python_pip_numpy uses this venv of Debian's python3 (tests/CMakeLists.txt). Made once,
# from PyPI; remade only when it is missing or broken (delete it to take a newer NumPy).
venv=/opt/loci/venv-numpy
if "$venv/bin/python" -c "import numpy, pytest" 2>/dev/null; then
  echo "install-deps: $venv present (numpy $("$venv/bin/python" -c "import numpy; print(numpy.__version__)"))"
else
  echo "install-deps: creating $venv with pip's NumPy 2.x"
  rm -rf "$venv"
  mkdir -p "$(dirname "$venv")"
  /usr/bin/python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check "numpy>=2,<3" pytest
fi

# UMF, the oneAPI Unified Memory Framework that libloci-umf.so plugs into: the PyPI wheel umf
# 1.2.0 (libumf.so, headers, CMake package; Debian has no UMF) in a venv of its own, where
# shim/umf/umf.cmake looks (LOCI_UMF_PREFIX). Without it the provider and its tests are not
# built, and the tests report that they were skipped. --no-deps: the wheel also asks for Intel's
# tcmlib, which UMF's pools do not need.
umf_venv=/opt/loci/venv-umf
if [ -f "$umf_venv/lib/cmake/umf/umf-config-version.cmake" ] &&
   grep -q 'PACKAGE_VERSION "1.2.0"' "$umf_venv/lib/cmake/umf/umf-config-version.cmake"; then
  echo "install-deps: $umf_venv present (umf 1.2.0)"
else
  echo "install-deps: creating $umf_venv with pip's umf 1.2.0"
  rm -rf "$umf_venv"
  mkdir -p "$(dirname "$umf_venv")"
  /usr/bin/python3 -m venv "$umf_venv"
  "$umf_venv/bin/pip" install --quiet --disable-pip-version-check --no-deps "umf==1.2.0"
fi

"$(dirname "$0")/fetch-vm-kernel.sh"
