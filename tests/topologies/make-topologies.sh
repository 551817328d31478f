#!/usr/bin/env bash
# Regenerate the reference machine topologies used by loci's injected-topology
# tests (DESIGN.md §4 "Discovery", §6 item 2).
#
# Needs hwloc >= 2.9 command-line tools (lstopo, hwloc-annotate, hwloc-info,
# hwloc-calc) and awk/sed.  Usage:
#
#   tests/topologies/make-topologies.sh [OUTDIR]     # default: this directory
#
# Every file is built the same way:
#   1. a synthetic hwloc description gives CPUs, caches and NUMA nodes
#      (node capacities and OS indexes come from the synthetic string);
#   2. the synthetic/host infos on the root are stripped;
#   3. hand-written PCI/OS-device fragments are spliced under a Package
#      (hwloc-annotate cannot create I/O objects);
#   4. hwloc-annotate adds subtypes, infos, the NUMALatency distance matrix and
#      the HMAT-like memory attributes (initiators given as CPU sets, which is
#      how the Linux backend stores HMAT initiators);
#   5. lstopo reloads the result as a sanity check.
#
# Units: memattr Bandwidth/ReadBandwidth/WriteBandwidth values are what Linux
# prints in /sys/devices/system/node/nodeN/access0/initiators/*_bandwidth and
# hwloc copies unchanged (hwloc documents them as MiB/s, the kernel as MB/s);
# Latency/ReadLatency/WriteLatency are nanoseconds.  Read and write figures are
# equal, so Bandwidth/Latency (hwloc's average of read and write) equal them.
# See README.md in this directory for the numbers and expected results.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
out=${1:-$here}
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

for tool in lstopo hwloc-annotate hwloc-info hwloc-calc; do
  command -v "$tool" >/dev/null || { echo "missing $tool (hwloc tools)" >&2; exit 1; }
done

# --- helpers ---------------------------------------------------------------

# synth FILE "synthetic description": base topology without root infos.
synth() {
  lstopo -i "$2" --of xml -f "$tmp/synth.xml"
  sed -e '/<info name="\(Backend\|SyntheticDescription\|hwlocVersion\|ProcessName\)"/d' \
    "$tmp/synth.xml" > "$1"
}

# splice FILE PACKAGE_OS_INDEX FRAGMENT: insert the I/O fragment as the last
# children of that Package (synthetic output puts Packages at 4 spaces).
splice() {
  awk -v pk="$2" -v frag="$3" '
    index($0, "    <object type=\"Package\" os_index=\"" pk "\"") == 1 { inpk = 1 }
    inpk && $0 == "    </object>" {
      while ((getline line < frag) > 0) print line
      close(frag); inpk = 0; done = 1
    }
    { print }
    END { if (!done) { print "splice: package " pk " not found" > "/dev/stderr"; exit 1 } }
  ' "$1" > "$tmp/splice.xml"
  mv "$tmp/splice.xml" "$1"
}

# ann FILE LOCATION ANNOTATION... : annotate in place.
ann() {
  local f=$1; shift
  hwloc-annotate "$f" "$tmp/ann.xml" "$@"
  mv "$tmp/ann.xml" "$f"
}

# numa_l FILE OS_INDEX -> logical index of that NUMA node.
numa_l() {
  hwloc-info -i "$1" -p "numa:$2" | sed -n 's/^ *logical index = //p'
}

# cpuset_of FILE LOCATION -> cpuset string (e.g. package:1 -> 0x0000ff00).
cpuset_of() { hwloc-calc -i "$1" "$2"; }

# hmat FILE NODE_OS_INDEX INITIATOR_CPUSET BANDWIDTH LATENCY
# One HMAT access0 entry: best initiator of that node, read == write.
hmat() {
  local f=$1 n a
  n=$(numa_l "$f" "$2")
  for a in Bandwidth ReadBandwidth WriteBandwidth; do
    ann "$f" "numa:$n" memattr "$a" "$3" "$4"
  done
  for a in Latency ReadLatency WriteLatency; do
    ann "$f" "numa:$n" memattr "$a" "$3" "$5"
  done
}

# distances FILE "row0" "row1" ... : NUMALatency matrix (kind FROM_OS|MEANS_LATENCY),
# rows and columns in NUMA OS-index order 0..N-1, as Linux /sys/.../distance.
distances() {
  local f=$1; shift
  local n=$# i
  {
    echo "name=NUMALatency"
    echo 5
    echo "$n"
    for ((i = 0; i < n; i++)); do echo "numa:$(numa_l "$f" "$i")"; done
    for row in "$@"; do for v in $row; do echo "$v"; done; done
  } > "$tmp/dist.txt"
  ann "$f" root distances "$tmp/dist.txt"
}

# subtype FILE NODE_OS_INDEX SUBTYPE
subtype() { ann "$1" "numa:$(numa_l "$1" "$2")" subtype "$3"; }

# finish FILE NAME: strip export-time infos, check it loads, install it.
finish() {
  sed -i -e '/<info name="\(hwlocVersion\|ProcessName\)"/d' "$1"
  lstopo -i "$1" --of console >/dev/null
  cp "$1" "$out/$2"
  echo "wrote $out/$2"
}

intel_pkg() { # FILE PACKAGE_LOGICAL MODEL FAMILY MODELNUM
  ann "$1" "package:$2" info CPUVendor GenuineIntel
  ann "$1" "package:$2" info CPUFamilyNumber "$4"
  ann "$1" "package:$2" info CPUModelNumber "$5"
  ann "$1" "package:$2" info CPUModel "$3"
}



# --- 1. knl-flat ------------------------------------------------------------
# Xeon Phi 7250-like in Flat/Quadrant mode, reduced to 16 cores (8 tiles of 2
# cores sharing 1 MiB L2, 1 PU per core).  DDR4 node 0 has the CPUs; MCDRAM
# node 1 is CPU-less, attached to the Package (hwloc's KNL quirk does this and
# sets subtype MCDRAM).  Real KNL has no HMAT; figures are given as if it had.
f=$tmp/knl-flat.xml
synth "$f" "pack:1 [numa(memory=96GiB)] [numa(memory=16GiB)] l2:8(size=1MiB) l1d:2(size=32KiB) core:1 pu:1"
ann "$f" root info LociReference "knl-flat: Xeon Phi (KNL) flat/quadrant, 1 package x 16 cores; node0 96GiB DDR4 with CPUs; node1 16GiB MCDRAM CPU-less; HMAT-like figures from the package"
ann "$f" root info LociUnits "memattr Bandwidth in MiB/s as hwloc stores Linux HMAT figures (kernel says MB/s), Latency in ns"
ann "$f" root info Architecture x86_64
ann "$f" root info ClusterMode Quadrant
ann "$f" root info MemoryMode Flat
intel_pkg "$f" 0 "Intel(R) Xeon Phi(TM) CPU 7250 @ 1.40GHz" 6 87
subtype "$f" 1 MCDRAM
P0=$(cpuset_of "$f" package:0)
hmat "$f" 0 "$P0"  90000 130
hmat "$f" 1 "$P0" 380000 150
distances "$f" "10 31" "31 10"
finish "$f" knl-flat.xml

# --- 2. xeonmax-2s ----------------------------------------------------------
# 2-socket Xeon Max (Sapphire Rapids + HBM) in HBM-flat mode, SNC off.
# Linux numbers DRAM nodes 0,1 (with CPUs) and HBM nodes 2,3 (CPU-less, local
# to package 0 and 1 through HMAT initiators), so HBM node 2 sits under
# package 0 next to DRAM node 0.  hwloc 2.9 sets no subtype here (it only
# derives HBM from SPM/DAX nodes; >= 2.10 would guess DRAM/HBM from bandwidth):
# loci must find HBM from bandwidth.  HMAT (access0) gives figures only for
# each node's local package; remote pairs are absent on purpose.
f=$tmp/xeonmax-2s.xml
synth "$f" "pack:2 [numa(memory=128GiB indexes=0,2,1,3)] [numa(memory=64GiB)] l3:1(size=112MiB) l2:8(size=2MiB) l1d:1(size=48KiB) core:1 pu:1"
ann "$f" root info LociReference "xeonmax-2s: 2-socket Xeon Max HBM-flat SNC off, 8 cores/package; nodes 0,1 128GiB DDR5 with CPUs; nodes 2,3 64GiB HBM2e CPU-less (2 local to package 0, 3 to package 1); HMAT figures only for local pairs"
ann "$f" root info LociUnits "memattr Bandwidth in MiB/s as hwloc stores Linux HMAT figures (kernel says MB/s), Latency in ns"
ann "$f" root info Architecture x86_64
intel_pkg "$f" 0 "Intel(R) Xeon(R) CPU Max 9480" 6 143
intel_pkg "$f" 1 "Intel(R) Xeon(R) CPU Max 9480" 6 143
P0=$(cpuset_of "$f" package:0); P1=$(cpuset_of "$f" package:1)
hmat "$f" 0 "$P0" 250000 110
hmat "$f" 1 "$P1" 250000 110
hmat "$f" 2 "$P0" 850000 140
hmat "$f" 3 "$P1" 850000 140
distances "$f" "10 21 13 23" "21 10 23 13" "13 23 10 23" "23 13 23 10"
finish "$f" xeonmax-2s.xml

# --- 3. cxl-expander --------------------------------------------------------
# 1 socket with local DDR5 (node 0, CPUs) and a CXL Type-3 memory expander
# onlined as system RAM (node 1, CPU-less).  Its HMAT/CDAT initiator is the
# whole socket, which on a 1-package machine is the Package cpuset, so hwloc
# attaches it to the Package beside node 0.  hwloc 2.9 gives it no subtype
# (it would say SPM if the firmware marked the window specific-purpose and it
# came through DAX/kmem; >= 2.10 says CXL-DRAM): loci must find CXL from
# CPU-less + latency.  No SLIT entry for the CXL window: the kernel default
# remote distance (20) applies.
f=$tmp/cxl-expander.xml
synth "$f" "pack:1 [numa(memory=64GiB)] [numa(memory=256GiB)] l3:1(size=60MiB) l2:8(size=2MiB) l1d:1(size=48KiB) core:1 pu:1"
ann "$f" root info LociReference "cxl-expander: 1 socket, 8 cores; node0 64GiB DDR5 with CPUs; node1 256GiB CXL Type-3 expander CPU-less (no subtype, as hwloc 2.9 on System-RAM CXL); HMAT/CDAT figures from the package"
ann "$f" root info LociUnits "memattr Bandwidth in MiB/s as hwloc stores Linux HMAT figures (kernel says MB/s), Latency in ns"
ann "$f" root info Architecture x86_64
intel_pkg "$f" 0 "Intel(R) Xeon(R) Gold 6430" 6 143
P0=$(cpuset_of "$f" package:0)
hmat "$f" 0 "$P0" 100000 110
hmat "$f" 1 "$P0"  30000 275
distances "$f" "10 20" "20 10"
finish "$f" cxl-expander.xml

# --- 4. grace-hopper --------------------------------------------------------
# GH200-like: Grace (72 Neoverse V2 cores, reduced to 16) with 480 GiB
# LPDDR5X (node 0, CPUs) and the Hopper GPU's 96 GiB HBM3 exposed as CPU-less
# NUMA node 1 (subtype GPUMemory) reachable from the CPU over NVLink-C2C.
# The GPU is PCI 0009:01:00.0 (class 0302, 10de:2342) behind a Grace root
# port, with CUDA and NVML OS devices.  (Real hwloc attaches I/O to the
# highest object with the device's cpuset, which on a 1-package machine is the
# Machine; it is put under the Package here as asked - same cpuset/nodeset.)
# The 8 empty MIG placeholder nodes (2-9) of real GH200 systems are omitted.
f=$tmp/grace-hopper.xml
synth "$f" "pack:1 [numa(memory=480GiB)] [numa(memory=96GiB)] l3:1(size=114MiB) l2:16(size=1MiB) l1d:1(size=64KiB) core:1 pu:1"
cat > "$tmp/gh-io.xml" <<'EOF'
      <object type="Bridge" gp_index="1001" bridge_type="0-1" depth="0" bridge_pci="0009:[00-01]">
        <object type="Bridge" gp_index="1002" bridge_type="1-1" depth="1" bridge_pci="0009:[01-01]" pci_busid="0009:00:00.0" pci_type="0604 [10de:22b2] [10de:0000] 00" pci_link_speed="63.015385">
          <info name="PCIVendor" value="NVIDIA Corporation"/>
          <object type="PCIDev" gp_index="1003" pci_busid="0009:01:00.0" pci_type="0302 [10de:2342] [10de:16eb] a1" pci_link_speed="63.015385">
            <info name="PCIVendor" value="NVIDIA Corporation"/>
            <info name="PCIDevice" value="GH100 [GH200 480GB]"/>
            <object type="OSDev" gp_index="1004" name="cuda0" subtype="CUDA" osdev_type="5">
              <info name="Backend" value="CUDA"/>
              <info name="GPUVendor" value="NVIDIA Corporation"/>
              <info name="GPUModel" value="NVIDIA GH200 480GB"/>
              <info name="CUDAGlobalMemorySize" value="100663296"/>
              <info name="CUDAL2CacheSize" value="51200"/>
              <info name="CUDAMultiProcessors" value="132"/>
              <info name="CUDACoresPerMP" value="128"/>
              <info name="CUDASharedMemorySizePerMP" value="228"/>
            </object>
            <object type="OSDev" gp_index="1005" name="nvml0" subtype="NVML" osdev_type="1">
              <info name="Backend" value="NVML"/>
              <info name="GPUVendor" value="NVIDIA Corporation"/>
              <info name="GPUModel" value="NVIDIA GH200 480GB"/>
            </object>
          </object>
        </object>
      </object>
EOF
splice "$f" 0 "$tmp/gh-io.xml"
ann "$f" root info LociReference "grace-hopper: GH200-like, Grace 1 package x 16 cores; node0 480GiB LPDDR5X with CPUs; node1 96GiB Hopper HBM3 CPU-less subtype GPUMemory (CPU access over NVLink-C2C); GPU PCI 0009:01:00.0 (cuda0, nvml0) local to the package"
ann "$f" root info LociUnits "memattr Bandwidth in MiB/s as hwloc stores Linux HMAT figures (kernel says MB/s), Latency in ns"
ann "$f" root info Architecture aarch64
ann "$f" package:0 info CPUVendor NVIDIA
ann "$f" package:0 info CPUModel "Neoverse-V2"
subtype "$f" 1 GPUMemory
P0=$(cpuset_of "$f" package:0)
hmat "$f" 0 "$P0" 500000 120
hmat "$f" 1 "$P0" 400000 800
distances "$f" "10 80" "80 10"
finish "$f" grace-hopper.xml

# --- 5. nic-socket1 ---------------------------------------------------------
# 2-socket DDR-only server; a ConnectX-6 (15b3:101b, Ethernet mode, class
# 0200) hangs off a root port of package 1, so its locality is package 1's
# cpuset and NUMA node 1.  OS devices: netdev eth0 and RDMA device mlx5_0.
# Beside it a BMC's VGA controller (ASPEED, class 0300, only a DRM card0): no
# GPU for loci, so near=gpu has nothing to be near.
f=$tmp/nic-socket1.xml
synth "$f" "pack:2 [numa(memory=192GiB)] l3:1(size=60MiB) l2:8(size=2MiB) l1d:1(size=48KiB) core:1 pu:1"
cat > "$tmp/nic-io.xml" <<'EOF'
      <object type="Bridge" gp_index="1001" bridge_type="0-1" depth="0" bridge_pci="0000:[97-98]">
        <object type="Bridge" gp_index="1002" bridge_type="1-1" depth="1" bridge_pci="0000:[98-98]" pci_busid="0000:97:01.0" pci_type="0604 [8086:352a] [8086:0000] 04" pci_link_speed="31.507692">
          <info name="PCIVendor" value="Intel Corporation"/>
          <object type="PCIDev" gp_index="1003" pci_busid="0000:98:00.0" pci_type="0200 [15b3:101b] [15b3:0007] 00" pci_link_speed="31.507692">
            <info name="PCIVendor" value="Mellanox Technologies"/>
            <info name="PCIDevice" value="MT28908 Family [ConnectX-6]"/>
            <object type="OSDev" gp_index="1004" name="eth0" osdev_type="2">
              <info name="Address" value="02:00:00:00:01:01"/>
              <info name="Port" value="1"/>
            </object>
            <object type="OSDev" gp_index="1005" name="mlx5_0" osdev_type="3">
              <info name="NodeGUID" value="0200:00ff:fe00:0101"/>
              <info name="SysImageGUID" value="0200:00ff:fe00:0101"/>
              <info name="Port1State" value="4"/>
              <info name="Port1LID" value="0x0"/>
              <info name="Port1LMC" value="0"/>
              <info name="Port1GID0" value="fe80:0000:0000:0000:0000:00ff:fe00:0101"/>
            </object>
          </object>
        </object>
        <object type="PCIDev" gp_index="1006" pci_busid="0000:97:02.0" pci_type="0300 [1a03:2000] [1a03:2000] 41" pci_link_speed="0.000000">
          <info name="PCIVendor" value="ASPEED Technology, Inc."/>
          <info name="PCIDevice" value="ASPEED Graphics Family"/>
          <object type="OSDev" gp_index="1007" name="card0" osdev_type="1"/>
        </object>
      </object>
EOF
splice "$f" 1 "$tmp/nic-io.xml"
ann "$f" root info LociReference "nic-socket1: 2-socket DDR server, 8 cores/package; nodes 0,1 192GiB DDR5 with CPUs; ConnectX-6 NIC (PCI 0000:98:00.0, eth0 + mlx5_0) and a BMC VGA (0000:97:02.0, card0) under package 1 (node 1); HMAT figures only for local pairs"
ann "$f" root info LociUnits "memattr Bandwidth in MiB/s as hwloc stores Linux HMAT figures (kernel says MB/s), Latency in ns"
ann "$f" root info Architecture x86_64
intel_pkg "$f" 0 "Intel(R) Xeon(R) Gold 6430" 6 143
intel_pkg "$f" 1 "Intel(R) Xeon(R) Gold 6430" 6 143
P0=$(cpuset_of "$f" package:0); P1=$(cpuset_of "$f" package:1)
hmat "$f" 0 "$P0" 200000 100
hmat "$f" 1 "$P1" 200000 100
distances "$f" "10 21" "21 10"
finish "$f" nic-socket1.xml

# --- 6. dgpu-2s -------------------------------------------------------------
# 2-socket DDR server with two discrete GPUs (class 0302, 3D controller, as
# NVIDIA data-centre GPUs report), one under each package: 0000:17:00.0 on
# package 0, 0000:b1:00.0 on package 1.  No OS devices: hwloc built without
# CUDA/NVML support, so only the CUDA driver (loci's stand-in in the tests)
# says which CUDA device is which PCI device.
f=$tmp/dgpu-2s.xml
synth "$f" "pack:2 [numa(memory=256GiB)] l3:1(size=60MiB) l2:8(size=2MiB) l1d:1(size=48KiB) core:1 pu:1"
gpu_io() { # BRIDGE_BUS GPU_BUS GP_BASE
  cat <<EOF
      <object type="Bridge" gp_index="$3" bridge_type="0-1" depth="0" bridge_pci="0000:[$1-$2]">
        <object type="Bridge" gp_index="$(($3 + 1))" bridge_type="1-1" depth="1" bridge_pci="0000:[$2-$2]" pci_busid="0000:$1:01.0" pci_type="0604 [8086:352a] [8086:0000] 04" pci_link_speed="31.507692">
          <info name="PCIVendor" value="Intel Corporation"/>
          <object type="PCIDev" gp_index="$(($3 + 2))" pci_busid="0000:$2:00.0" pci_type="0302 [10de:2330] [10de:16c1] a1" pci_link_speed="31.507692">
            <info name="PCIVendor" value="NVIDIA Corporation"/>
            <info name="PCIDevice" value="GH100 [H100 SXM5 80GB]"/>
          </object>
        </object>
      </object>
EOF
}
gpu_io 16 17 1001 > "$tmp/gpu0-io.xml"
gpu_io b0 b1 1011 > "$tmp/gpu1-io.xml"
splice "$f" 0 "$tmp/gpu0-io.xml"
splice "$f" 1 "$tmp/gpu1-io.xml"
ann "$f" root info LociReference "dgpu-2s: 2-socket DDR server, 8 cores/package; nodes 0,1 256GiB DDR5 with CPUs; GPU PCI 0000:17:00.0 (3D controller) under package 0, GPU PCI 0000:b1:00.0 under package 1; no CUDA OS devices; HMAT figures only for local pairs"
ann "$f" root info LociUnits "memattr Bandwidth in MiB/s as hwloc stores Linux HMAT figures (kernel says MB/s), Latency in ns"
ann "$f" root info Architecture x86_64
intel_pkg "$f" 0 "Intel(R) Xeon(R) Platinum 8480+" 6 143
intel_pkg "$f" 1 "Intel(R) Xeon(R) Platinum 8480+" 6 143
P0=$(cpuset_of "$f" package:0); P1=$(cpuset_of "$f" package:1)
hmat "$f" 0 "$P0" 200000 100
hmat "$f" 1 "$P1" 200000 100
distances "$f" "10 21" "21 10"
finish "$f" dgpu-2s.xml
