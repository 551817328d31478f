#!/usr/bin/env bash
# unit.layers_selftest: scripts/check-layers.py fails on what it is there to
# catch, shown on a tree of its own (two layers, a few files compiled here):
# a clean tree passes; each fault put in alone fails with its own message —
# a circle of files inside one folder, one spanning folders, an upward call,
# a kernel call outside os, a librados call outside jobstore, a /proc/self
# file named outside os, a HOOKS entry no longer made.
# Usage: check-layers-selftest.sh CHECK_LAYERS_PY CC
set -euo pipefail
check=$1 cc=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail=0

# layers: jobstore (bottom), os, alloc (top; the name of the one HOOKS entry's folder)
build() { # files as "folder/name.c:source"...
    rm -rf "$work/src" "$work/obj"
    mkdir -p "$work/src"/{jobstore,os,alloc} "$work/obj"
    for spec in "$@"; do
        printf '%s\n' "${spec#*:}" >"$work/src/${spec%%:*}"
    done
    for f in "$work"/src/*/*.c; do
        local folder name
        folder=$(basename "$(dirname "$f")") name=$(basename "$f")
        mkdir -p "$work/obj/$folder"
        "$cc" -c -w -o "$work/obj/$folder/$name.o" "$f"
    done
}

run() { # expected exit (0/1), expected text, label
    local out rc=0
    out=$(python3 "$check" jobstore,os,alloc "$work/src" "$work"/obj/*/*.o 2>&1) || rc=$?
    if [ "$rc" -ne "$1" ] || ! grep -q -- "$2" <<<"$out"; then
        echo "FAIL: $3: exit $rc (wanted $1), output:"; echo "$out"; fail=1
    else
        echo "ok: $3"
    fi
}

# alloc's hook by design (HOOKS): allocator.c uses alloc.c's allocator_on_fail, alloc.c uses allocator.c
clean=(
    "alloc/alloc.c:int allocator_heap(void); int allocator_on_fail(void) { return 1; } int a(void) { return allocator_heap(); }"
    "alloc/allocator.c:int allocator_on_fail(void); int (*installed_hook)(void) = allocator_on_fail; int allocator_heap(void) { return 0; }"
    "os/vm.c:#include <sys/mman.h>
void *vm_map(void) { return mmap(0, 4096, 3, 0x22, -1, 0); }"
    "jobstore/conn.c:int rados_create(void *, const char *); int conn(void) { return rados_create(0, 0); }"
)
build "${clean[@]}"
run 0 "0 violations" "a clean tree passes"

build "${clean[@]}" "os/a.c:int b(void); int a(void) { return b(); }" "os/b.c:int a(void); int b(void) { return a(); }"
run 1 "file circle in os (2 files: a.c, b.c)" "a circle of two files in one folder"

build "${clean[@]}" "os/a.c:int b(void); int a(void) { return b(); }" "os/b.c:int c(void); int b(void) { return c(); }" \
    "os/c.c:int a(void); int c(void) { return a(); }"
run 1 "file circle in os (3 files" "a circle of three files in one folder"

build "${clean[@]}" "os/up.c:int a(void); int up(void) { return a(); }"
run 1 "upward: os/up.c uses alloc/alloc.c" "an upward call"

build "${clean[@]}" "alloc/m.c:#include <sys/mman.h>
int m(void) { return madvise(0, 0, 0); }"
run 1 "kernel call outside os: alloc/m.c calls madvise" "a kernel call outside os"

build "${clean[@]}" "alloc/f.c:#include <fcntl.h>
int f(int fd) { return fallocate(fd, 0, 0, 1); }"
run 1 "kernel call outside os: alloc/f.c calls fallocate" "a file-space call outside os"

build "${clean[@]}" "os/r.c:int rados_write(void *, const char *, const char *, unsigned long, unsigned long);
int r(void) { return rados_write(0, 0, 0, 0, 0); }"
run 1 "librados call outside jobstore: os/r.c calls rados_write" "a librados call outside jobstore"

build "${clean[@]}" "alloc/p.c:const char *p(void) { return \"/proc/self/maps\"; }"
run 1 "kernel file outside os: src/alloc/p.c:1 reads \"/proc/self/maps\"" "a /proc/self file outside os"

build "${clean[@]:2}" "alloc/alloc.c:int allocator_on_fail(void) { return 1; }" "alloc/allocator.c:int allocator_heap(void) { return 0; }"
run 1 "listed in HOOKS but no longer made" "a stale HOOKS entry"

exit $fail
