#!/usr/bin/env bash
# Fetch the Debian kernels that the VM tests boot (tests/vm), without installing them.
#
# usage: fetch-vm-kernel.sh [stable] [bpo]      (no argument: both)
#
#   stable  the package behind linux-image-amd64 in the system's own release (bookworm: 6.1),
#           into ${LOCI_VM_CACHE:-/var/tmp/loci-vm}/
#   bpo     the package behind linux-image-amd64 in the release's backports (bookworm-backports:
#           6.12), into $LOCI_VM_CACHE/bpo/. Newer memory-policy features (weighted interleave)
#           are tested on it. The backports archive is read through a private apt state under
#           $LOCI_VM_CACHE/apt-bpo: the machine's own apt sources stay as they are, and nothing
#           from backports can be installed by accident.
#
# Each kernel's directory gets:
#   vmlinuz             the kernel the VM boots
#   config              its build config (to check CONFIG_* when debugging)
#   modules/<version>/  its modules, should a test ever need one
#   package             the package name the files came from
# Idempotent: does nothing for a kernel whose directory already holds the current package.
set -euo pipefail

cache=${LOCI_VM_CACHE:-/var/tmp/loci-vm}
say() { echo "fetch-vm-kernel: $*"; }
die() { echo "fetch-vm-kernel: error: $*" >&2; exit 1; }

for tool in apt-cache apt-get dpkg dpkg-deb; do
    command -v "$tool" >/dev/null || die "'$tool' not found: this script needs a Debian/Ubuntu system"
done

# The metapackage's dependency names the current ABI, e.g. linux-image-6.1.0-56-amd64.
# Arguments: apt options (for the private backports state), if any.
current_package() {
    apt-cache "$@" depends linux-image-amd64 2>/dev/null |
        awk '$1 ~ /Depends:$/ && $2 ~ /^linux-image-[0-9]/ { print $2; exit }'
}

# install_kernel DEST PACKAGE [apt options...]: download PACKAGE and extract it into DEST.
install_kernel() {
    local dest=$1 pkg=$2
    shift 2
    if [[ -s $dest/vmlinuz && -s $dest/package && $(<"$dest/package") == "$pkg" ]]; then
        say "$pkg already in $dest, nothing to do"
        return 0
    fi
    mkdir -p "$dest"
    local work
    work=$(mktemp -d "$dest/.fetch.XXXXXX")
    # shellcheck disable=SC2064  # expand now: $work is local
    trap "rm -rf '$work'" EXIT

    say "downloading $pkg into $dest"
    # As root, apt warns that it downloads "unsandboxed" (the _apt user cannot write the
    # temporary directory): harmless.
    (cd "$work" && apt-get "$@" download -q "$pkg") || die "apt-get download $pkg failed"
    local deb
    deb=$(ls "$work"/*.deb)

    say "extracting $(basename "$deb")"
    dpkg-deb -x "$deb" "$work/root"
    local kernel version moddir=
    kernel=$(ls "$work"/root/boot/vmlinuz-* 2>/dev/null | head -n1)
    [[ -n $kernel ]] || die "$pkg contains no boot/vmlinuz-*"
    version=${kernel##*/vmlinuz-}
    # Debian moved /lib to /usr/lib (merged-usr); accept either layout.
    for d in "$work/root/lib/modules/$version" "$work/root/usr/lib/modules/$version"; do
        [[ -d $d ]] && moddir=$d && break
    done
    [[ -n $moddir ]] || die "$pkg contains no modules/$version"

    # Install in an order that keeps the directory consistent if interrupted: vmlinuz and the
    # package stamp (what the skip test looks at) come last.
    rm -rf "$dest/modules" "$dest/vmlinuz" "$dest/package"
    mkdir -p "$dest/modules"
    mv "$moddir" "$dest/modules/$version"
    cp "$work/root/boot/config-$version" "$dest/config"
    cp "$kernel" "$dest/vmlinuz.tmp" && mv "$dest/vmlinuz.tmp" "$dest/vmlinuz"
    echo "$pkg" >"$dest/package"
    rm -rf "$work"
    trap - EXIT
    say "installed kernel $version: $dest/vmlinuz, modules in $dest/modules/$version"
}

fetch_stable() {
    local pkg
    pkg=$(current_package)
    if [[ -z $pkg ]]; then
        if [[ -s $cache/vmlinuz ]]; then
            say "apt metadata unavailable; keeping cached kernel from $(cat "$cache/package" 2>/dev/null || echo '?')"
            return 0
        fi
        die "cannot resolve linux-image-amd64 with apt-cache (run 'apt-get update' first)"
    fi
    install_kernel "$cache" "$pkg"
}

fetch_bpo() {
    local dest=$cache/bpo state=$cache/apt-bpo codename arch mirror keyring=
    codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
    arch=$(dpkg --print-architecture)
    [[ -n $codename ]] || die "no VERSION_CODENAME in /etc/os-release: cannot name the backports suite"
    # The mirror the system already uses for its release (a line such as
    # " 500 http://deb.debian.org/debian bookworm/main amd64 Packages").
    mirror=$(apt-cache policy 2>/dev/null |
             awk -v s="$codename/main" -v a="$arch" '$3 == s && $4 == a { print $2; exit }')
    if [[ -z $mirror ]]; then
        if [[ -s $dest/vmlinuz ]]; then
            say "no apt source for $codename/main; keeping cached backports kernel from $(cat "$dest/package" 2>/dev/null || echo '?')"
            return 0
        fi
        die "no apt source for $codename/main $arch (run 'apt-get update' first): cannot locate $codename-backports"
    fi
    [[ -r /usr/share/keyrings/debian-archive-keyring.gpg ]] &&
        keyring="[signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] "
    mkdir -p "$state/lists/partial" "$state/archives/partial"
    echo "deb $keyring$mirror $codename-backports main" >"$state/sources.list"
    # A private apt: only backports' index, its own lists and cache, no installed-package state.
    local apt=(-o "Dir::Etc::SourceList=$state/sources.list" -o Dir::Etc::SourceParts=/dev/null
               -o "Dir::State::Lists=$state/lists" -o "Dir::Cache=$state" -o "Dir::Cache::archives=$state/archives"
               -o Dir::State::status=/dev/null -o APT::Sandbox::User="$(id -un)")
    local pkg=
    if apt-get "${apt[@]}" update -qq >"$state/update.log" 2>&1; then
        pkg=$(current_package "${apt[@]}")
    fi
    if [[ -z $pkg ]]; then
        if [[ -s $dest/vmlinuz ]]; then
            say "$codename-backports unreachable; keeping cached kernel from $(cat "$dest/package" 2>/dev/null || echo '?')"
            return 0
        fi
        sed 's/^/  apt: /' "$state/update.log" >&2
        die "cannot resolve linux-image-amd64 in $codename-backports ($mirror)"
    fi
    install_kernel "$dest" "$pkg" "${apt[@]}"
}

[[ $# -gt 0 ]] || set -- stable bpo
for which in "$@"; do
    case $which in
    stable) fetch_stable ;;
    bpo) fetch_bpo ;;
    *) die "unknown kernel '$which' (known: stable, bpo)" ;;
    esac
done
