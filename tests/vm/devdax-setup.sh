#!/bin/sh
# Make the devdax topology's emulated NVDIMM a device-DAX instance: its label-less namespace
# (raw, as the NFIT describes it) reconfigured to devdax by ndctl, then checked to be /dev/dax0.0.
set -e
ndctl create-namespace -f -e namespace0.0 -m devdax
test -c /dev/dax0.0 || { echo "devdax-setup: no /dev/dax0.0" >&2; ls /sys/bus/dax/devices >&2; exit 1; }
echo "dax0.0: size $(cat /sys/bus/dax/devices/dax0.0/size) align $(cat /sys/bus/dax/devices/dax0.0/align)"
