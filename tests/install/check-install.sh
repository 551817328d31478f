#!/usr/bin/env bash
# Installs the build into a scratch prefix and uses it the ways users do: C and Fortran
# programs built with CMake's find_package(loci) and with pkg-config (loci, loci-fortran), and
# the Python package installed with pip into a venv. Each must build and run.
# usage: check-install.sh BUILD_DIR SCRATCH_DIR [fortran] [python=PYTHON]
#   fortran: the build has the Fortran module: check it too
#   python=PYTHON: pip-install the Python package into a venv of PYTHON (with numpy) and use it
set -euo pipefail
build=$1 scratch=$2 fortran= python=
for opt in "${@:3}"; do
  case $opt in
    fortran) fortran=1 ;;
    python=*) python=${opt#python=} ;;
    *) echo "check-install.sh: unknown option $opt" >&2; exit 2 ;;
  esac
done
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$scratch" && mkdir -p "$scratch"
cmake --install "$build" --prefix "$scratch/prefix" >"$scratch/install.log"
export LD_LIBRARY_PATH=$scratch/prefix/lib:${LD_LIBRARY_PATH:-}

cmake -S "$here/consumer" -B "$scratch/cmake" -G Ninja -DCMAKE_PREFIX_PATH="$scratch/prefix" >"$scratch/cmake.log"
cmake --build "$scratch/cmake" >>"$scratch/cmake.log"
"$scratch/cmake/consumer"
echo "find_package(loci): built and ran"

pc=$(find "$scratch/prefix" -name loci.pc)
flags=$(PKG_CONFIG_PATH=$(dirname "$pc") pkg-config --cflags --libs loci)
case $flags in *"$scratch/prefix"*) ;; *) echo "loci.pc does not point into the install prefix: $flags" >&2; exit 1 ;; esac
# shellcheck disable=SC2086 # word splitting of the flags is intended
cc "$here/consumer/consumer.c" $flags -o "$scratch/pkgconfig-consumer"
"$scratch/pkgconfig-consumer"
echo "pkg-config loci: built and ran"

if [ -n "$fortran" ]; then
  cmake -S "$here/consumer-fortran" -B "$scratch/cmake-fortran" -G Ninja -DCMAKE_PREFIX_PATH="$scratch/prefix" >"$scratch/cmake-fortran.log"
  cmake --build "$scratch/cmake-fortran" >>"$scratch/cmake-fortran.log"
  "$scratch/cmake-fortran/consumer_fortran"
  echo "find_package(loci), loci::loci_fortran: built and ran"

  # shellcheck disable=SC2046 # word splitting of the flags is intended
  (cd "$scratch" && gfortran "$here/consumer-fortran/consumer.f90" \
    $(PKG_CONFIG_PATH=$(dirname "$pc") pkg-config --cflags --libs loci-fortran) -o pkgconfig-consumer-fortran)
  "$scratch/pkgconfig-consumer-fortran"
  echo "pkg-config loci-fortran: built and ran"
fi

# loci run --tier auto finds the installed libloci-tier.so (relative to bin/loci) and preloads it.
"$scratch/prefix/bin/loci" run --tier auto -- sh -c "case \$LD_PRELOAD in '$scratch/prefix/'*/libloci-tier.so*) ;; *) exit 1 ;; esac" ||
  { echo "loci run --tier auto did not preload the installed libloci-tier.so" >&2; exit 1; }
echo "loci run --tier auto: preloaded the installed libloci-tier.so"

[ -n "$python" ] || exit 0

# pip install ./python, as docs/PYTHON.md says, into a venv that sees Debian's numpy; a copy
# of the package, so pip's build files stay out of the source tree. No LOCI_LIBRARY: the
# package must find the installed libloci.so.0 through the dynamic linker.
cp -r "$here/../../python" "$scratch/python"
"$python" -m venv --system-site-packages "$scratch/venv"
"$scratch/venv/bin/pip" install --quiet --no-deps --no-build-isolation --no-index "$scratch/python" >"$scratch/pip.log" 2>&1 \
  || { cat "$scratch/pip.log" >&2; exit 1; }
(cd "$scratch" && env -u LOCI_LIBRARY -u PYTHONPATH "$scratch/venv/bin/python" - <<'PY'
import loci, numpy as np
assert loci.__file__.startswith(__import__("sys").prefix), loci.__file__
a = loci.zeros((100, 100), "f8")
a += 2
assert a.sum() == 20000 and loci.target_of(a).kind == "dram"
PY
)
echo "pip install ./python: imported and placed an array"
