"""loci calls release the GIL, and arrays are safe to make, use and free on any thread."""
import os
import subprocess
import sys
import threading

import numpy as np

import loci
from conftest import numa_targets

# loci_init reads LOCI_TOPOLOGY; from a FIFO that blocks in the C call until a
# writer opens it. The main thread can only open it if the blocked call let go
# of the GIL; otherwise the child hangs and the timeout fails the test.
GIL = r'''
import os, sys, threading, loci
fifo = os.environ["LOCI_TOPOLOGY"]
result = []
t = threading.Thread(target=lambda: result.append(len(loci.targets())))
t.start()
with open(fifo, "w") as f:   # needs the GIL while the other thread is inside loci
    f.write(open(os.environ["XML"]).read())
t.join()
print(result[0])
'''


def test_the_gil_is_released_inside_loci_calls(tmp_path):
    fifo = tmp_path / "machine.fifo"
    os.mkfifo(fifo, 0o600)
    xml = os.path.join(os.environ["LOCI_TEST_TOPOLOGIES"], "xeonmax-2s.xml")
    p = subprocess.run([sys.executable, "-c", GIL], env=dict(os.environ, LOCI_TOPOLOGY=str(fifo), XML=xml),
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    assert int(p.stdout) >= 2


def test_threads_allocate_fill_and_free_concurrently():
    dram = numa_targets()[0]
    before = dram.stats()["bytes_in_use"]
    handoff, errors = [], []
    lock = threading.Lock()

    def worker(k):
        try:
            for i in range(300):
                a = loci.zeros((i % 64 + 1) * 512, "i4", intent=f"target={dram.name}")
                a += k
                assert (a == k).all()
                with lock:
                    handoff.append(a)  # freed by whichever thread drops it last
                    if len(handoff) > 8:
                        b = handoff.pop(0)
                        assert (b == b[0]).all()
                with loci.Arena(f"target={dram.name}") as ar:
                    c = ar.empty(1000, "f8")
                    c[:] = k
                    assert c.sum() == 1000 * k
        except BaseException as e:  # reported below, not lost in the thread
            errors.append(e)

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(1, 5)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    handoff.clear()
    assert dram.stats()["bytes_in_use"] == before


def test_checkpoint_save_on_a_thread_while_others_allocate():
    data = loci.zeros(1 << 20, "u1")
    data[:] = np.arange(data.size, dtype="u1")
    loci.checkpoint.register("py-thr", data)
    saver = threading.Thread(target=loci.checkpoint.save, args=("py-thr",))
    saver.start()
    others = [loci.zeros(1000) for _ in range(200)]
    saver.join()
    data[:] = 0
    loci.checkpoint.restore("py-thr")
    loci.checkpoint.unregister("py-thr")
    loci.checkpoint.remove("py-thr")
    assert (data == np.arange(data.size, dtype="u1")).all() and len(others) == 200
