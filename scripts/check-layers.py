#!/usr/bin/env python3
"""Check that libloci's data flows one way (docs/ARCHITECTURE.md).

Reads the object files of libloci (one per source file, src/LAYER/FILE.c.o)
and the symbols each defines and uses (nm), and fails when
  - a file uses a symbol of a folder that is not below its own in the layer
    order (src/CMakeLists.txt's LOCI_LAYERS, bottom first), or
  - files of two folders use each other in a circle (even through others).
Usage: check-layers.py LAYER,LAYER,... OBJECT.o...
"""
import collections
import subprocess
import sys


def folder_and_file(obj):
    # .../loci_objects.dir/<layer>/<file>.c.o
    parts = obj.replace('\\', '/').split('/')
    return parts[-2], parts[-2] + '/' + parts[-1][:-len('.o')]


def symbols(obj):
    out = subprocess.run(['nm', '-P', obj], capture_output=True, text=True, check=True).stdout
    defined, used = set(), set()
    for line in out.splitlines():
        fields = line.split()
        if len(fields) < 2:
            continue
        (used if fields[1] in 'Uw' else defined).add(fields[0]) if fields[1] in 'UwTDBRVWGSC' else None
    return defined, used


def circles(graph):
    """Strongly connected components (Tarjan, iterative)."""
    index, low, on, stack, out, counter = {}, {}, set(), [], [], [0]
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(graph[root]))]
        index[root] = low[root] = counter[0]; counter[0] += 1
        stack.append(root); on.add(root)
        while work:
            node, it = work[-1]
            nxt = next(it, None)
            if nxt is not None:
                if nxt not in index:
                    index[nxt] = low[nxt] = counter[0]; counter[0] += 1
                    stack.append(nxt); on.add(nxt)
                    work.append((nxt, iter(graph[nxt])))
                elif nxt in on:
                    low[node] = min(low[node], index[nxt])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                comp = []
                while True:
                    w = stack.pop(); on.discard(w); comp.append(w)
                    if w == node:
                        break
                out.append(comp)
    return out


def main():
    layers = sys.argv[1].split(',')
    rank = {name: i for i, name in enumerate(layers)}
    definer, uses = {}, {}
    for obj in sys.argv[2:]:
        folder, name = folder_and_file(obj)
        if folder not in rank:
            print(f'check-layers: {obj}: folder {folder!r} is not in the layer order {layers}')
            return 2
        defined, used = symbols(obj)
        uses[name] = used
        for s in defined:
            definer[s] = name
    graph = collections.defaultdict(set)
    upward = collections.defaultdict(set)
    for name, used in uses.items():
        graph[name]
        for s in used:
            other = definer.get(s)
            if other is None or other == name:
                continue
            graph[name].add(other)
            a, b = name.split('/')[0], other.split('/')[0]
            if rank[b] > rank[a]:
                upward[(name, other)].add(s)
    bad = 0
    for (name, other), syms in sorted(upward.items()):
        print(f'upward: {name} uses {other} ({", ".join(sorted(syms))}): '
              f'{other.split("/")[0]} is above {name.split("/")[0]} in {",".join(layers)}')
        bad += 1
    for comp in circles(graph):
        folders = sorted({c.split('/')[0] for c in comp})
        if len(folders) > 1:
            print(f'circle across {", ".join(folders)}: {" ".join(sorted(comp))}')
            bad += 1
    edges = collections.Counter()
    for name, others in graph.items():
        for other in others:
            a, b = name.split('/')[0], other.split('/')[0]
            if a != b:
                edges[(a, b)] += 1
    print(f'{len(uses)} files in {len(layers)} layers, {len(edges)} folder-to-folder edges, '
          f'{bad} violation{"s" if bad != 1 else ""}')
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
