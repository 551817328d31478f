#!/bin/sh
# Topology cxl (QEMU 7.2's emulated CXL type-3 device, persistent memory only): a region made by
# the cxl tool (ndctl's) over the root decoder of the fixed memory window, then a device-DAX
# namespace on the region's nvdimm (ndctl), checked to be /dev/dax0.0 under the CXL root.
# docs/TESTING.md says how far each kernel gets.
set -e
cxl list -M
cxl create-region -m -d decoder0.0 -w 1 -g 4096 -t pmem mem0
ndctl create-namespace -m devdax -r region0
test -c /dev/dax0.0 || { echo "cxl-setup: no /dev/dax0.0" >&2; exit 1; }
where=$(readlink -f /sys/bus/dax/devices/dax0.0)
case $where in
*/root0/*/ndbus*/dax0.0/dax0.0) echo "dax0.0 at $where" ;;
*) echo "cxl-setup: dax0.0 is not under the CXL root: $where" >&2; exit 1 ;;
esac
echo offline >/sys/devices/system/memory/auto_online_blocks # daxctl onlines it (kmem-setup.sh says why)
