#!/usr/bin/env bash
# One version wherever a user looks (issue 37.6), the one include/loci.h defines: loci --version,
# loci info --json, loci.pc (pkg-config), the CMake package's version file (find_package(loci
# X.Y)) and the Python package. And the usage text: `loci help` gives it, every ending of it a
# newline (a shell prompt or the next message must not run on after "See docs/.").
# usage: check-version.sh LOCI_TOOL BUILD_DIR SOURCE_DIR
set -euo pipefail
loci=$1 build=$2 src=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
bad=0
fail() { echo "FAIL: $*" >&2; bad=1; }
want=$(awk '/^#define LOCI_VERSION_(MAJOR|MINOR|PATCH) [0-9]+$/ { v = v (v == "" ? "" : ".") $3 } END { print v }' \
    "$src/include/loci.h")
[[ $want =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] || { echo "FAIL: no LOCI_VERSION_MAJOR/MINOR/PATCH in loci.h ($want)" >&2; exit 1; }
echo "include/loci.h: $want"
same() {
    if [ "$2" = "$3" ]; then echo "ok   $1: $2"; else fail "$1 says '$2', expected '$3'"; fi
}

same "loci --version" "$("$loci" --version 2>&1 || true)" "loci $want"
same "loci -V" "$("$loci" -V 2>&1 || true)" "loci $want"
same "loci info --json: version" \
    "$("$loci" info --json | python3 -c 'import json, sys; print(json.load(sys.stdin).get("version"))')" "$want"
same "pkg-config --modversion loci" "$(PKG_CONFIG_PATH=$build pkg-config --modversion loci)" "$want"
IFS=. read -r major minor patch <<<"$want"
cat >"$work/find.cmake" <<CMAKE
# what find_package(loci $want) sets before it reads the package's version file
set(PACKAGE_FIND_VERSION $want)
set(PACKAGE_FIND_VERSION_MAJOR $major)
set(PACKAGE_FIND_VERSION_MINOR $minor)
set(PACKAGE_FIND_VERSION_PATCH $patch)
include("$build/loci-config-version.cmake")
message("\${PACKAGE_VERSION} compatible=\${PACKAGE_VERSION_COMPATIBLE}")
CMAKE
same "CMake package (loci-config-version.cmake)" "$(cmake -P "$work/find.cmake" 2>&1)" "$want compatible=TRUE"
same "Python package (loci.__version__)" \
    "$(sed -n 's/^__version__ = "\(.*\)"$/\1/p' "$src/python/loci/__init__.py")" "$want"

"$loci" help >"$work/help" 2>&1 || fail "loci help: exit status $?"
grep -q '^usage: loci COMMAND' "$work/help" || fail "loci help does not print the usage"
for run in "nosuch" "" "--help"; do
    # shellcheck disable=SC2086 # an empty $run is no argument
    "$loci" $run >"$work/out" 2>&1 || true
    [ "$(tail -c1 "$work/out" | od -An -c | tr -d ' ')" = '\n' ] || fail "loci $run: its text does not end with a newline"
done
[ $bad -eq 0 ] && echo "one version everywhere; the usage ends with a newline"
exit $bad
