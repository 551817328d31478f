#!/usr/bin/env python3
"""Check that libloci's data flows one way (docs/ARCHITECTURE.md).

Reads the object files of libloci (one per source file, src/LAYER/FILE.c.o)
and the symbols each defines and uses (nm), and the `#include "..."` lines
of every src/LAYER/*.c and *.h, and fails when
  - a file uses a symbol of a folder that is not below its own in the layer
    order (src/CMakeLists.txt's LOCI_LAYERS, bottom first), or
  - a file includes a header of a folder above its own (a quoted include
    resolves as the compiler does: the file's folder first, then src/, then
    src/util/; src/*.h and src/util/ are util, the bottom), or
  - a file outside src/os calls the kernel's memory, userfaultfd, perf,
    file-space or raw system calls (mmap, mbind, fallocate, syscall...), or
    names one of the process's own kernel files (/proc/self/maps...): os is
    the only door to the kernel, or
  - a file outside src/jobstore calls librados (rados_*): jobstore is the
    only door to the job's store, or
  - files of two folders use each other in a circle (even through others), or
  - files of one folder use each other in a circle (even through others):
    inside a folder too, calls go one way; the hooks installed by design
    are the only uses left out, each listed in HOOKS with its reason, or
  - two folders reach each other through includes and symbol uses together.
Usage: check-layers.py LAYER,LAYER,... SRC_DIR OBJECT.o...
"""
import collections
import os
import re
import subprocess
import sys

# The folder through which alone libloci reaches the kernel's memory calls.
KERNEL_DOOR = 'os'
KERNEL_CALLS = {'mmap', 'mmap64', 'munmap', 'mremap', 'madvise', 'posix_madvise', 'mprotect', 'msync', 'mincore',
                'mbind', 'set_mempolicy', 'get_mempolicy', 'move_pages', 'migrate_pages', 'memfd_create',
                'mlock', 'mlock2', 'munlock', 'mlockall', 'munlockall', 'userfaultfd', 'perf_event_open'}

# The system calls above take memory, file space or the page cache; `syscall`
# is every raw one (Linux AIO has no libc wrapper).
KERNEL_CALLS |= {'fallocate', 'fallocate64', 'posix_fallocate', 'posix_fallocate64', 'posix_fadvise',
                 'posix_fadvise64', 'readahead', 'sync_file_range', 'syscall'}
# The process's own kernel files, named in source text (nm cannot see a path).
KERNEL_FILES = re.compile(r'"/proc/self/(maps|smaps|smaps_rollup|pagemap|clear_refs|numa_maps)"')

# The folder through which alone libloci reaches librados.
STORE_DOOR = 'jobstore'
LIBRADOS = re.compile(r'^(rados_|_ZN8librados|_ZN4ceph6buffer)') # the C API, and the C++ one (jobstore/write_op.cc)

# Uses of a symbol of the file's own folder that run against the folder's
# order on purpose: a hook one file installs and another layer calls back.
# (file, symbol): why. Each is left out of the circle check inside the folder;
# one that no longer exists is itself reported, so the list stays true.
HOOKS = {
    ('alloc/allocator.c', 'allocator_on_fail'):
        "the pool's failure hook: allocator.c installs alloc.c's function in each heap it makes "
        "(pool_heap_set_on_fail), the pool calls it when the heap is full; allocator.c never calls it",
}

INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"')


def folder_and_file(obj):
    # .../loci_objects.dir/<layer>/<file>.c.o (or .cc.o)
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


def include_folder(src, folder, name):
    """The folder of src/ a quoted include of src/<folder>/ reaches, as the
    compiler resolves it (the file's folder, then -I src and -I src/util);
    'util' for src/*.h; None when it is no file of src/ (include/loci.h)."""
    for base in (os.path.join(src, folder) if folder else src, src, os.path.join(src, 'util')):
        path = os.path.normpath(os.path.join(base, name))
        if os.path.isfile(path):
            parts = os.path.relpath(path, src).split(os.sep)
            return parts[0] if len(parts) > 1 else 'util'
    return None


def includes(src, layers):
    """(file, line, folder of the file, include text, folder it reaches) for
    every quoted include of src/LAYER/*.[ch] and src/*.h."""
    out = []
    for folder in [''] + layers:
        directory = os.path.join(src, folder)
        if not os.path.isdir(directory):
            continue
        for entry in sorted(os.listdir(directory)):
            if not entry.endswith(('.c', '.cc', '.h')) or (folder == '' and not entry.endswith('.h')):
                continue
            path = os.path.join(directory, entry)
            with open(path, encoding='utf-8', errors='replace') as f:
                for number, line in enumerate(f, 1):
                    m = INCLUDE.match(line)
                    if m:
                        target = include_folder(src, folder, m.group(1))
                        if target is not None:
                            out.append((os.path.relpath(path, os.path.dirname(src)), number, folder or 'util',
                                        m.group(1), target))
    return out


def folder_circle(edges, comp):
    """One circle through comp[0] inside `comp` (a strongly connected
    component of `edges`), as a list of folders, first == last."""
    start = comp[0]
    back, todo = {start: None}, collections.deque([start])
    while todo:
        node = todo.popleft()
        for nxt in sorted(edges[node]):
            if nxt == start:
                path = [node]
                while back[path[-1]] is not None:
                    path.append(back[path[-1]])
                return path[::-1] + [start]
            if nxt in comp and nxt not in back:
                back[nxt] = node
                todo.append(nxt)


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
    src = os.path.abspath(sys.argv[2])
    rank = {name: i for i, name in enumerate(layers)}
    definer, uses = {}, {}
    for obj in sys.argv[3:]:
        folder, name = folder_and_file(obj)
        if folder not in rank:
            print(f'check-layers: {obj}: folder {folder!r} is not in the layer order {layers}')
            return 2
        defined, used = symbols(obj)
        uses[name] = used
        for s in defined:
            definer[s] = name
    graph = collections.defaultdict(set)
    inside = collections.defaultdict(set)  # file -> files of its folder it uses
    inside_why = {}
    hooks_seen = set()
    upward = collections.defaultdict(set)
    why = {}  # (folder, folder): the first thing that makes the edge
    for name, used in sorted(uses.items()):
        graph[name]
        for s in sorted(used):
            other = definer.get(s)
            if other is None or other == name:
                continue
            graph[name].add(other)
            a, b = name.split('/')[0], other.split('/')[0]
            if a == b:
                if (name, s) in HOOKS:
                    hooks_seen.add((name, s))
                else:
                    inside[name].add(other)
                    inside_why.setdefault((name, other), []).append(s)
            if rank[b] > rank[a]:
                upward[(name, other)].add(s)
            if a != b:
                why.setdefault((a, b), f'{name} uses {s} ({other})')
    bad = 0
    for (name, other), syms in sorted(upward.items()):
        print(f'upward: {name} uses {other} ({", ".join(sorted(syms))}): '
              f'{other.split("/")[0]} is above {name.split("/")[0]} in {",".join(layers)}')
        bad += 1
    for name, used in sorted(uses.items()):
        calls = used & KERNEL_CALLS
        if calls and name.split('/')[0] != KERNEL_DOOR:
            print(f'kernel call outside {KERNEL_DOOR}: {name} calls {", ".join(sorted(calls))}: '
                  f'only src/{KERNEL_DOOR} reaches the kernel (wrap it there)')
            bad += 1
    for name, used in sorted(uses.items()):
        rados = sorted(s for s in used if LIBRADOS.match(s) and s not in definer)
        if rados and name.split('/')[0] != STORE_DOOR:
            print(f'librados call outside {STORE_DOOR}: {name} calls {", ".join(rados[:6])}'
                  f'{" ..." if len(rados) > 6 else ""}: only src/{STORE_DOOR} reaches the store (wrap it there)')
            bad += 1
    for hook in sorted(set(HOOKS) - hooks_seen):
        print(f'hook {hook[0]} uses {hook[1]} is listed in HOOKS but no longer made: take it out')
        bad += 1
    for folder in layers:
        directory = os.path.join(src, folder)
        for entry in sorted(os.listdir(directory)) if os.path.isdir(directory) else []:
            if entry.endswith(('.c', '.cc', '.h')) and folder != KERNEL_DOOR:
                with open(os.path.join(directory, entry), encoding='utf-8', errors='replace') as f:
                    for number, line in enumerate(f, 1):
                        m = KERNEL_FILES.search(line)
                        if m:
                            print(f'kernel file outside {KERNEL_DOOR}: src/{folder}/{entry}:{number} reads '
                                  f'{m.group(0)}: only src/{KERNEL_DOOR} reaches the kernel (wrap it there)')
                            bad += 1
    found = includes(src, layers)
    for path, number, folder, text, target in found:
        if target not in rank:
            print(f'{path}:{number}: #include "{text}": folder {target!r} is not in the layer order {",".join(layers)}')
            bad += 1
            continue
        if target == folder:
            continue
        why.setdefault((folder, target), f'{path}:{number} includes "{text}"')
        if rank[target] > rank[folder]:
            print(f'upward include: {path}:{number}: #include "{text}": '
                  f'{target} is above {folder} in {",".join(layers)}')
            bad += 1
    folder_edges = collections.defaultdict(set)
    for a, b in why:
        folder_edges[a].add(b)
        folder_edges[b]
    for comp in circles(folder_edges):
        if len(comp) > 1:
            comp = sorted(comp, key=rank.get)
            cycle = folder_circle(folder_edges, comp)
            steps = '; '.join(why[(a, b)] for a, b in zip(cycle, cycle[1:]))
            print(f'folder circle {" -> ".join(cycle)}: {steps}')
            bad += 1
    for comp in circles(graph):
        folders = sorted({c.split('/')[0] for c in comp})
        if len(folders) > 1:
            print(f'circle across {", ".join(folders)}: {" ".join(sorted(comp))}')
            bad += 1
    inside.update({name: inside[name] for name in uses})
    for comp in circles(inside):
        if len(comp) > 1:
            comp = sorted(comp)
            cycle = folder_circle(inside, comp)
            steps = '; '.join(f'{a} uses {", ".join(sorted(inside_why[(a, b)])[:4])} ({b})'
                              for a, b in zip(cycle, cycle[1:]))
            print(f'file circle in {comp[0].split("/")[0]} ({len(comp)} files: '
                  f'{", ".join(c.split("/")[1] for c in comp)}), one way round: {" -> ".join(cycle)}: {steps}')
            bad += 1
    print(f'{len(uses)} files and {len(found)} includes in {len(layers)} layers, {len(why)} folder-to-folder edges, '
          f'{bad} violation{"s" if bad != 1 else ""}')
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
