#!/usr/bin/env bash
# Build the test VM's initramfs: busybox-static, an /init, the given files and every shared
# library they need (hwloc users cannot be linked statically on Debian: no static libudev).
#
# usage: mkinitramfs.sh OUTPUT.cpio.gz INIT [FILE[=GUEST_PATH]]...
#   INIT         script installed as /init (PID 1)
#   FILE         host file; lands at GUEST_PATH, by default /test/<basename>
# Libraries are flattened into /lib, which is in the dynamic loader's default search path, so
# build-tree RUNPATHs and host ld.so.cache entries need not exist in the guest.
set -euo pipefail

die() { echo "mkinitramfs: error: $*" >&2; exit 1; }

[[ $# -ge 2 ]] || die "usage: $0 OUTPUT.cpio.gz INIT [FILE[=GUEST_PATH]]..."
output=$1 init=$2
shift 2

busybox=$(command -v busybox || true)
[[ -n $busybox ]] || die "busybox not found (apt-get install busybox-static, or run scripts/install-deps.sh)"
for tool in cpio gzip ldd; do
    command -v "$tool" >/dev/null || die "'$tool' not found (run scripts/install-deps.sh)"
done
[[ -f $init ]] || die "init script $init not found"

stage=$(mktemp -d "${TMPDIR:-/tmp}/loci-initramfs.XXXXXX")
trap 'rm -rf "$stage"' EXIT
# /var/tmp: programs (loci's ssd0 tier among them) expect it to exist.
mkdir -p "$stage"/{bin,sbin,usr/bin,usr/sbin,lib,proc,sys,dev,tmp,var/tmp,test,etc}

declare -A seen_lib=()
# Copy the libraries FILE needs (recursively resolved by ldd) into /lib, and its loader to its
# PT_INTERP path. Static executables and scripts need nothing.
add_libs() {
    local file=$1 line name path out
    # ldd fails on non-dynamic files ("not a dynamic executable"): nothing to add.
    out=$(ldd "$file" 2>/dev/null) || return 0
    while read -r line; do                          # read trims the leading tab
        case $line in
        *"=> not found"*)
            die "$file needs ${line%% *}, which ldd cannot find on this host" ;;
        *"=> /"*)                                   # libfoo.so.1 => /path/libfoo.so.1 (0x...)
            name=$(awk '{print $1}' <<<"$line")
            path=$(awk '{print $3}' <<<"$line")
            [[ -n ${seen_lib[$name]:-} ]] && continue
            seen_lib[$name]=1
            cp -L "$path" "$stage/lib/$name" ;;
        /*)                                         # /lib64/ld-linux-x86-64.so.2 (0x...)
            path=$(awk '{print $1}' <<<"$line")
            [[ -n ${seen_lib[$path]:-} ]] && continue
            seen_lib[$path]=1
            mkdir -p "$stage$(dirname "$path")"
            cp -L "$path" "$stage$path" ;;
        esac                                        # linux-vdso.so.1 and the like: no file
    done <<<"$out"
    return 0
}

# Install host file SRC at guest path DST, with the libraries it needs.
add_file() {
    local src=$1 dst=$2
    [[ -f $src ]] || die "file to copy into the VM not found: $src"
    mkdir -p "$stage$(dirname "$dst")"
    cp -L "$src" "$stage$dst"
    add_libs "$src"
}

# busybox and /bin/sh for /init; /init links the other applets itself (busybox --install -s),
# far faster than creating hundreds of links here.
add_file "$busybox" /bin/busybox
ln -s busybox "$stage/bin/sh"

install -m 0755 "$init" "$stage/init"
for spec in "$@"; do
    if [[ $spec == *=* ]]; then
        add_file "${spec%%=*}" "${spec#*=}"
    else
        add_file "$spec" "/test/$(basename "$spec")"
    fi
done

# hwloc finds its PCI discovery in a plugin it dlopen()s from its compiled-in plugin directory;
# ldd cannot see it, and without it hwloc lists no PCI devices (no NIC locality). The other
# plugins (GL, OpenCL, libxml) are not needed: hwloc has a built-in XML parser.
if compgen -G "$stage/lib/libhwloc.so.*" >/dev/null; then
    plugin=$(ls /usr/lib/*/hwloc/hwloc_pci.so 2>/dev/null | head -n1 || true)
    [[ -n $plugin ]] || die "hwloc's PCI plugin (hwloc_pci.so) not found: apt-get install libhwloc-plugins"
    add_file "$plugin" "$plugin"
fi

mkdir -p "$(dirname "$output")"
(cd "$stage" && find . -mindepth 1 | LC_ALL=C sort | cpio --quiet -o -H newc -R 0:0) |
    gzip -1 >"$output.tmp"
mv "$output.tmp" "$output"
echo "mkinitramfs: $output ($(du -h "$output" | cut -f1); files: $#, libraries: ${#seen_lib[@]})"
