#!/bin/sh
# Make a label-less namespace of an emulated NVDIMM (raw, as the NFIT describes it; default
# namespace0.0) a device-DAX instance with ndctl, then check that it is /dev/daxR.0.
# usage: devdax-setup.sh [namespaceR.0]
set -e
ns=${1:-namespace0.0}
dax=dax${ns#namespace}
err=/tmp/ndctl-$ns.err
if ! ndctl create-namespace -f -e "$ns" -m devdax 2>"$err"; then
    cat "$err" >&2
    exit 1
fi
# Before making it devdax, ndctl zeroes the namespace's old info block, enabling it in raw mode
# first; the raw namespace of a label-less NVDIMM (QEMU's) does not enable, and ndctl says so and
# goes on ("libndctl: ndctl_namespace_enable: namespace0.0: failed to enable", "Error: create
# namespace: namespace0.0 failed to enable for zeroing, continuing"): there was no info block to
# zero. Said here in one line for what it is; anything else ndctl said is shown as it said it.
if grep -q 'failed to enable for zeroing, continuing' "$err"; then
    echo "$ns: ndctl found no old info block to zero (a label-less NVDIMM's raw namespace does not enable): nothing lost"
fi
grep -v -e 'ndctl_namespace_enable: .*: failed to enable$' -e 'failed to enable for zeroing, continuing$' -e '^$' \
    "$err" >&2 || true
test -c "/dev/$dax" || { echo "devdax-setup: no /dev/$dax" >&2; ls /sys/bus/dax/devices >&2; exit 1; }
echo "$dax: size $(cat "/sys/bus/dax/devices/$dax/size") align $(cat "/sys/bus/dax/devices/$dax/align")"
