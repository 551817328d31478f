# shellcheck shell=bash disable=SC2054  # (commas inside QEMU option values, not arrays)
# QEMU machine descriptions for the test VM, sourced by run-vm.sh (bash).
# topology_args NAME fills the array qemu_topology with the machine, CPU, memory, NUMA, HMAT and
# device arguments of topology NAME; it fails for an unknown name.
#
# HMAT latencies are in ns, bandwidths in bytes/s (QEMU suffixes: M, G). Linux exposes them as
# /sys/devices/system/node/nodeT/access0/initiators/{read,write}_{latency,bandwidth}
# (ns and MB/s). Distances only need to agree with the latency order.

topology_names="tiers3 tiers4 nic0 nic1 devdax kmem cxl"

# topology_args also sets qemu_modules: the guest kernel's modules the topology needs, in load
# order (run-vm.sh puts them in the initramfs, guest-init.sh loads them).

# -numa hmat-lb pair of entries (latency and bandwidth) for one initiator -> target.
hmat() {
    local init=$1 target=$2 latency=$3 bandwidth=$4
    qemu_topology+=(
        -numa "hmat-lb,initiator=$init,target=$target,hierarchy=memory,data-type=access-latency,latency=$latency"
        -numa "hmat-lb,initiator=$init,target=$target,hierarchy=memory,data-type=access-bandwidth,bandwidth=$bandwidth"
    )
}

# Two nodes with one CPU each, 1 GiB each, and an e1000 NIC behind a PCI expander bridge on
# node $1. The NIC needs no driver: its PCI class (0x020000) and sysfs numa_node are enough for
# hwloc's PCI discovery. romfile= : no iPXE boot ROM (not needed, and ipxe-qemu may be absent).
# restrict=on: the user-mode network reaches nothing outside.
nic_topology() {
    local nic_node=$1
    qemu_topology=(
        -machine pc,hmat=on -smp 2 -m 2G
        -object memory-backend-ram,id=m0,size=1G
        -object memory-backend-ram,id=m1,size=1G
        -numa node,nodeid=0,memdev=m0,cpus=0
        -numa node,nodeid=1,memdev=m1,cpus=1
        -numa dist,src=0,dst=1,val=20
        -device "pxb,id=pxb1,bus_nr=64,numa_node=$nic_node,bus=pci.0"
        -device e1000,bus=pxb1,netdev=n0,romfile=
        -netdev user,id=n0,restrict=on
    )
    hmat 0 0 100 20G
    hmat 0 1 200 10G
    hmat 1 0 200 10G
    hmat 1 1 100 20G
}

topology_args() {
    qemu_modules=()
    case $1 in
    tiers3)
        # node 0: DRAM with both CPUs. node 1: CPU-less, 4x the bandwidth at about DRAM latency
        # (HBM-like). node 2: CPU-less, 3x the latency, half the bandwidth, twice the capacity
        # (CXL-expander-like).
        qemu_topology=(
            -machine pc,hmat=on -smp 2 -m 3584M
            -object memory-backend-ram,id=m0,size=1G
            -object memory-backend-ram,id=m1,size=512M
            -object memory-backend-ram,id=m2,size=2G
            -numa node,nodeid=0,memdev=m0,cpus=0-1
            -numa node,nodeid=1,memdev=m1,initiator=0
            -numa node,nodeid=2,memdev=m2,initiator=0
            -numa dist,src=0,dst=1,val=12
            -numa dist,src=0,dst=2,val=30
            -numa dist,src=1,dst=2,val=32
        )
        hmat 0 0 100 20G
        hmat 0 1 110 80G
        hmat 0 2 300 10G
        ;;
    tiers4)
        # The machine of issue 36's OOM kill: node 0 DRAM with both CPUs (1 GiB), node 1 CPU-less
        # and HBM-like (512 MiB, 4x the bandwidth), nodes 2 and 3 CPU-less and CXL-like (3x the
        # latency, half the bandwidth; 1.25 GiB each, the 2.5 GiB together: room enough
        # for what the fast nodes cannot hold). QEMU backs guest memory lazily: the host pays for
        # what the guest touches (about 2 GiB in vm_tiering fill).
        qemu_topology=(
            -machine pc,hmat=on -smp 2 -m 4G
            -object memory-backend-ram,id=m0,size=1G
            -object memory-backend-ram,id=m1,size=512M
            -object memory-backend-ram,id=m2,size=1280M
            -object memory-backend-ram,id=m3,size=1280M
            -numa node,nodeid=0,memdev=m0,cpus=0-1
            -numa node,nodeid=1,memdev=m1,initiator=0
            -numa node,nodeid=2,memdev=m2,initiator=0
            -numa node,nodeid=3,memdev=m3,initiator=0
            -numa dist,src=0,dst=1,val=12
            -numa dist,src=0,dst=2,val=30
            -numa dist,src=0,dst=3,val=30
            -numa dist,src=1,dst=2,val=32
            -numa dist,src=1,dst=3,val=32
            -numa dist,src=2,dst=3,val=32
        )
        hmat 0 0 100 20G
        hmat 0 1 110 80G
        hmat 0 2 300 10G
        hmat 0 3 300 10G
        ;;
    devdax)
        # One node of DRAM and a label-less 512 MiB NVDIMM (ACPI NFIT), which devdax-setup.sh
        # turns into /dev/dax0.0 (ndctl create-namespace -m devdax). nvdimm=on and the memory
        # slots are what QEMU needs to plug it.
        qemu_topology=(
            -machine pc,nvdimm=on -smp 2 -m 1G,slots=2,maxmem=3G
            -object memory-backend-ram,id=m0,size=1G
            -numa node,nodeid=0,memdev=m0,cpus=0-1
            -object memory-backend-ram,id=nv0,size=512M
            -device nvdimm,memdev=nv0,id=nvdimm0,node=0
        )
        qemu_modules=(libnvdimm nfit device_dax dax_pmem)
        ;;
    kmem)
        # devdax's NVDIMM, 2 GiB (twice the DRAM: capacity=large prefers it), in a CPU-less
        # proximity domain of its own that has no memory at boot: made device-DAX by
        # devdax-setup.sh, then system RAM by daxctl (the kmem driver), it becomes NUMA node 1
        # while the tests run, and goes away again when reconfigured back (issue 28.2). A second,
        # 256 MiB NVDIMM (/dev/dax1.0, kmem-setup.sh) stays persistent memory throughout: the
        # names of the two must not change meaning when the first is onlined (issue 37.5).
        qemu_topology=(
            -machine pc,nvdimm=on -smp 2 -m 1G,slots=2,maxmem=4G
            -object memory-backend-ram,id=m0,size=1G
            -numa node,nodeid=0,memdev=m0,cpus=0-1
            -numa node,nodeid=1
            -object memory-backend-ram,id=nv0,size=2G
            -device nvdimm,memdev=nv0,id=nvdimm0,node=1
            -object memory-backend-ram,id=nv1,size=256M
            -device nvdimm,memdev=nv1,id=nvdimm1,node=0
        )
        qemu_modules=(libnvdimm nfit device_dax dax_pmem kmem)
        ;;
    cxl)
        # QEMU 7.2's emulated CXL: one host bridge (pxb-cxl) with one root port and a type-3
        # memory device (persistent memory and its label storage area: 7.2 has no volatile
        # memdev), and a fixed memory window (CFMWS) of 4 GiB over that host bridge.
        qemu_topology=(
            -machine q35,cxl=on -smp 2 -m 1G,slots=4,maxmem=6G
            -object memory-backend-ram,id=m0,size=1G
            -numa node,nodeid=0,memdev=m0,cpus=0-1
            -object memory-backend-ram,id=cxl-mem0,share=on,size=256M
            -object memory-backend-ram,id=cxl-lsa0,share=on,size=1M
            -device pxb-cxl,bus_nr=12,bus=pcie.0,id=cxl.0
            -device cxl-rp,port=0,bus=cxl.0,id=cxl_rp0,chassis=0,slot=2
            -device cxl-type3,bus=cxl_rp0,memdev=cxl-mem0,lsa=cxl-lsa0,id=cxl-pmem0
            -M cxl-fmw.0.targets.0=cxl.0,cxl-fmw.0.size=4G
        )
        qemu_modules=(libnvdimm cxl_acpi cxl_pci cxl_mem cxl_pmem device_dax dax_pmem kmem)
        ;;
    nic0) nic_topology 0 ;;
    nic1) nic_topology 1 ;;
    *)
        echo "unknown VM topology '$1' (known: $topology_names)" >&2
        return 1 ;;
    esac
}
