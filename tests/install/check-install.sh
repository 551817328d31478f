#!/usr/bin/env bash
# Installs the build into a scratch prefix and builds two programs against it the ways users
# do: CMake's find_package(loci) and pkg-config. Both must compile, link and run.
# usage: check-install.sh BUILD_DIR SCRATCH_DIR
set -euo pipefail
build=$1 scratch=$2
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
