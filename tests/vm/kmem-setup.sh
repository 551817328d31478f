#!/bin/sh
# Topology kmem: the first NVDIMM made /dev/dax0.0 (devdax-setup.sh), the second /dev/dax1.0 (it
# stays persistent memory while the first is onlined and offlined), and hot-added memory left offline
# by the kernel, so that daxctl onlines it itself, movable (offlinable again). Debian's 6.12 is
# built to online hot-added memory at once (CONFIG_MEMORY_HOTPLUG_DEFAULT_ONLINE=y:
# auto_online_blocks = online), and daxctl 76 then refuses system-ram mode ("kernel policy will
# auto-online memory, aborting"); 6.1 leaves it offline. memhp_default_state=offline on the
# kernel command line does the same at boot.
set -e
devdax-setup.sh namespace0.0
devdax-setup.sh namespace1.0
policy=/sys/devices/system/memory/auto_online_blocks
echo "auto_online_blocks was $(cat $policy)"
echo offline >$policy
