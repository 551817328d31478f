"""Shared by the loci Python tests. ctest runs them with LOCI_LIBRARY (the
build's libloci.so), LOCI_STORE_DIR (a store of their own) and
LOCI_TEST_TOPOLOGIES (tests/topologies) set; tests/CMakeLists.txt."""
import ctypes
import json
import os
import subprocess
import sys

import numpy as np
import pytest

import loci

PAGE = os.sysconf("SC_PAGE_SIZE")


def topology(name):
    d = os.environ.get("LOCI_TEST_TOPOLOGIES")
    if not d:
        pytest.fail("LOCI_TEST_TOPOLOGIES is not set: run these tests through ctest (tests/CMakeLists.txt)")
    return os.path.join(d, name)


def run_python(code, **env):
    """Run `code` in a fresh interpreter (loci reads LOCI_TOPOLOGY/LOCI_CONFIG
    once per process) and return what it printed as JSON."""
    e = dict(os.environ, **env)
    p = subprocess.run([sys.executable, "-c", code], env=e, capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, f"child failed ({p.returncode}):\n{p.stdout}\n{p.stderr}"
    return json.loads(p.stdout)


_libnuma = None


def page_nodes(array):
    """The NUMA node the kernel put each page of `array` on (move_pages with
    no target nodes only reports); touches nothing."""
    global _libnuma
    if _libnuma is None:
        _libnuma = ctypes.CDLL("libnuma.so.1", use_errno=True)
    lo, n = loci._memory.data_range(array)
    first = lo - lo % PAGE
    count = (lo + n - first + PAGE - 1) // PAGE
    pages = (ctypes.c_void_p * count)(*[first + i * PAGE for i in range(count)])
    status = (ctypes.c_int * count)()
    rc = _libnuma.move_pages(0, ctypes.c_ulong(count), pages, None, status, 0)
    assert rc == 0, f"move_pages: errno {ctypes.get_errno()}"
    return np.array(status[:])


def numa_targets():
    return [t for t in loci.targets() if t.numa_node >= 0 and not t.simulated]
