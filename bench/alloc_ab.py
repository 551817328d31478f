#!/usr/bin/env python3
"""A/B of the allocation benchmark across builds: interleaved rounds of
bench_alloc from each build directory (round r runs every build once, in
turn, with --seed 42+r), the competitors measured in every run. Prints one
markdown table: per (threads, size) the median over rounds of loci's ns/op
per build, of each competitor's ns/op (over all runs), and of loci's ratio to
the best competitor measured in the same run (its per-round ratios' median).

Usage: bench/alloc_ab.py [--rounds N] [--json-dir DIR] BUILD_DIR... -- BENCH_ALLOC_ARGS...
  e.g. bench/alloc_ab.py --rounds 3 /tmp/before build -- --sizes 8,16,32,64 --threads 1,2
       --repeats 11 --allocators glibc,jemalloc,mimalloc,loci
Each run's JSON is kept in --json-dir (default: a temporary directory) as
<build basename>-<round>.json; the load average before each run goes to stderr.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile


def size_label(s):
    return f'{s >> 20} MiB' if s >= 1 << 20 else f'{s >> 10} KiB' if s >= 1 << 10 else f'{s} B'


def main():
    argv = sys.argv[1:]
    bench_args = argv[argv.index('--') + 1:] if '--' in argv else []
    argv = argv[:argv.index('--')] if '--' in argv else argv
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--rounds', type=int, default=3)
    ap.add_argument('--json-dir')
    ap.add_argument('builds', nargs='+')
    opt = ap.parse_args(argv)
    outdir = opt.json_dir or tempfile.mkdtemp(prefix='alloc-ab-')
    os.makedirs(outdir, mode=0o700, exist_ok=True)
    names = [os.path.basename(os.path.normpath(b)) for b in opt.builds]
    if len(set(names)) != len(names):
        sys.exit(f'alloc_ab.py: build directories need distinct names, got {names}')
    runs = {}  # (build, round) -> {(allocator, threads, size): median ns}
    for r in range(opt.rounds):
        for b, name in zip(opt.builds, names):
            exe = os.path.join(b, 'bench', 'bench_alloc')
            if not os.access(exe, os.X_OK):
                sys.exit(f'alloc_ab.py: {exe} not found: build it first (cmake -DLOCI_BUILD_BENCH=ON)')
            out = os.path.join(outdir, f'{name}-{r}.json')
            with open('/proc/loadavg') as f:
                load = f.read().split()[0]
            print(f'alloc_ab.py: round {r + 1}/{opt.rounds} {name}, load average {load}', file=sys.stderr)
            subprocess.run([exe, *bench_args, '--seed', str(42 + r), '--json', out],
                           stdout=subprocess.DEVNULL, check=False)
            with open(out) as f:
                cells = json.load(f)['results']
            runs[(name, r)] = {(c['allocator'], c['threads'], c['size']): c['median_ns']
                               for c in cells if c.get('median_ns') is not None}
    allocs = sorted({a for cells in runs.values() for (a, _, _) in cells})
    rivals = [a for a in allocs if not a.startswith('loci') and a != 'glibc-aa']
    cells = sorted({(t, s) for v in runs.values() for (_, t, s) in v})
    head = ['threads', 'size'] + [f'loci {n}' for n in names] + rivals + [f'{n}: loci/best' for n in names]
    print('| ' + ' | '.join(head) + ' |')
    print('|' + '---:|' * len(head))
    for t, s in cells:
        row = [str(t), size_label(s)]
        ratios = []
        for n in names:
            v = [runs[(n, r)].get(('loci', t, s)) for r in range(opt.rounds)]
            v = [x for x in v if x is not None]
            row.append(f'{statistics.median(v):.2f}' if v else 'n/a')
            per_round = []
            for r in range(opt.rounds):
                cell = runs[(n, r)]
                best = [cell[(a, t, s)] for a in rivals if (a, t, s) in cell]
                if ('loci', t, s) in cell and best:
                    per_round.append(cell[('loci', t, s)] / min(best))
            ratios.append(f'{statistics.median(per_round):.2f}' if per_round else 'n/a')
        for a in rivals:
            v = [runs[k][(a, t, s)] for k in runs if (a, t, s) in runs[k]]
            row.append(f'{statistics.median(v):.2f}' if v else 'n/a')
        print('| ' + ' | '.join(row + ratios) + ' |')
    print(f'alloc_ab.py: runs kept in {outdir}', file=sys.stderr)


if __name__ == '__main__':
    main()
