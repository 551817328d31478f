#!/usr/bin/env bash
# Objects are not chunks (issue 40, docs/STORE.md): a region is laid out in objects of 4 MiB (the
# default object=), its 256 KiB chunks written at their offsets; a sequential writer's chunks leave
# as about one write op per object, not one per chunk. A region of the layout before (one object
# per chunk, no loci.layout xattr) still opens, reads bit-exact and takes writes, and stays in
# its layout; a layout of a newer loci, and an object= other than the region's, are refused with a
# message saying so.
. "$(dirname "$0")/lib.sh"
size=32M
for r in lay old; do on a "$STORE_NODE" remove $r >/dev/null 2>&1; done
objects_of() { rados_cmd -p loci ls | grep -c "^loci-region/$1/" || true; }

ops=$(osd_write_ops)
expect "write a 32 MiB region (seed 1), 128 chunks of 256 KiB" 0 on a "$STORE_NODE" write lay $size 1
ops=$(($(osd_write_ops) - ops))
expect_text "its 128 chunks lie in 8 objects" '^8$' "$(objects_of lay)"
expect_text "of 4 MiB each" 'size 4194304$' "$(rados_cmd -p loci stat loci-region/lay/0000000000000007)"
meta() { rados_cmd -p loci getxattr loci-region/$1 $2; }
expect_text "its metadata says layout 2, objects of 4 MiB (loci.chunk, as a loci of layout 1 reads it), 256 KiB chunks" \
    '^2 4194304 262144$' "$(meta lay loci.layout) $(meta lay loci.chunk) $(meta lay loci.cache_chunk)"
echo "write ops the OSDs took for the region (data, metadata, lock): $ops"
expect "a sequential writer's chunks leave in few writes per object (<= 32 ops, not 128 and more)" 0 test "$ops" -le 32
expect "b reads it back bit-exact" 0 on b "$STORE_NODE" verify lay $size 1
expect "a patches 2000 random bytes (single pages in objects)" 0 on a "$STORE_NODE" patch lay $size 2 2000

# A region of the first layout: written with an object per chunk, its layout xattrs taken away.
expect "write region old (seed 3) in objects of one chunk" 0 \
    on a env STORE_NODE_TERMS=object=256KiB "$STORE_NODE" write old 8M 3
rados_cmd -p loci rmxattr loci-region/old loci.layout
rados_cmd -p loci rmxattr loci-region/old loci.cache_chunk
expect_text "old is now as the layout before wrote it: 32 objects, no loci.layout" '^32 0$' \
    "$(objects_of old) $(rados_cmd -p loci listxattr loci-region/old | grep -c loci.layout)"
expect "b reads the old-layout region bit-exact" 0 on b "$STORE_NODE" verify old 8M 3
expect "a writes it again (seed 4)" 0 on a "$STORE_NODE" write old 8M 4
expect "b reads the new bytes" 0 on b "$STORE_NODE" verify old 8M 4
expect_text "it keeps its layout: still 32 objects of a chunk each" '^32$' "$(objects_of old)"

out=$(on a env STORE_NODE_TERMS=object=1MiB "$STORE_NODE" open lay rw 2>&1)
expect_text "object=1MiB on a region of 4 MiB objects is refused, naming both" 'objects of 4.0 MiB, not the object=1.0 MiB' "$out"
rados_cmd -p loci setxattr loci-region/old loci.layout 3
out=$(on b "$STORE_NODE" verify old 8M 4 2>&1)
expect_text "a layout of a newer loci is refused, saying so" 'layout 3 .*newer loci' "$out"
rados_cmd -p loci rmxattr loci-region/old loci.layout

for r in lay old; do expect "remove $r" 0 on a "$STORE_NODE" remove $r; done
expect_text "nothing of either is left" '^0$' "$(rados_cmd -p loci ls | grep -c '^loci-region/\(lay\|old\)' || true)"
finish
