#!/usr/bin/env bash
# Fetch the Debian kernel that the VM tests boot (tests/vm), without installing it.
#
# Finds the concrete package behind linux-image-amd64, downloads it with apt-get into
# ${LOCI_VM_CACHE:-/var/tmp/loci-vm} and extracts:
#   $LOCI_VM_CACHE/vmlinuz             the kernel the VM boots
#   $LOCI_VM_CACHE/config              its build config (to check CONFIG_* when debugging)
#   $LOCI_VM_CACHE/modules/<version>/  its modules, should a test ever need one
#   $LOCI_VM_CACHE/package             the package name the files came from
# Idempotent: does nothing when the cache already holds the current package.
set -euo pipefail

cache=${LOCI_VM_CACHE:-/var/tmp/loci-vm}
say() { echo "fetch-vm-kernel: $*"; }
die() { echo "fetch-vm-kernel: error: $*" >&2; exit 1; }

for tool in apt-cache apt-get dpkg-deb; do
    command -v "$tool" >/dev/null || die "'$tool' not found: this script needs a Debian/Ubuntu system"
done

# The metapackage's dependency names the current ABI, e.g. linux-image-6.1.0-56-amd64.
pkg=$(apt-cache depends linux-image-amd64 2>/dev/null |
      awk '$1 ~ /Depends:$/ && $2 ~ /^linux-image-[0-9]/ { print $2; exit }')
if [[ -z $pkg ]]; then
    if [[ -s $cache/vmlinuz ]]; then
        say "apt metadata unavailable; keeping cached kernel from $(cat "$cache/package" 2>/dev/null || echo '?')"
        exit 0
    fi
    die "cannot resolve linux-image-amd64 with apt-cache (run 'apt-get update' first)"
fi

if [[ -s $cache/vmlinuz && -s $cache/package && $(<"$cache/package") == "$pkg" ]]; then
    say "$pkg already in $cache, nothing to do"
    exit 0
fi

mkdir -p "$cache"
work=$(mktemp -d "$cache/.fetch.XXXXXX")
trap 'rm -rf "$work"' EXIT

say "downloading $pkg into $cache"
# As root, apt warns that it downloads "unsandboxed" (the _apt user cannot write the
# temporary directory): harmless.
(cd "$work" && apt-get download -q "$pkg") || die "apt-get download $pkg failed"
deb=$(ls "$work"/*.deb)

say "extracting $(basename "$deb")"
dpkg-deb -x "$deb" "$work/root"
kernel=$(ls "$work"/root/boot/vmlinuz-* 2>/dev/null | head -n1)
[[ -n $kernel ]] || die "$pkg contains no boot/vmlinuz-*"
version=${kernel##*/vmlinuz-}
# Debian moved /lib to /usr/lib (merged-usr); accept either layout.
moddir=
for d in "$work/root/lib/modules/$version" "$work/root/usr/lib/modules/$version"; do
    [[ -d $d ]] && moddir=$d && break
done
[[ -n $moddir ]] || die "$pkg contains no modules/$version"

# Install in an order that keeps the cache consistent if interrupted: vmlinuz and the package
# stamp (what the skip test looks at) come last.
rm -rf "$cache/modules" "$cache/vmlinuz" "$cache/package"
mkdir -p "$cache/modules"
mv "$moddir" "$cache/modules/$version"
cp "$work/root/boot/config-$version" "$cache/config"
cp "$kernel" "$cache/vmlinuz.tmp" && mv "$cache/vmlinuz.tmp" "$cache/vmlinuz"
echo "$pkg" >"$cache/package"
say "installed kernel $version: $cache/vmlinuz, modules in $cache/modules/$version"
