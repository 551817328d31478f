#!/usr/bin/env bash
# A region written and synced on client node a (its memory names agg0: loci_ptr_target)
# reads bit-exact on client node b; both read it at once (LOCI_READONLY sharing);
# access=job resolves to agg0 on both; private memory on the store round-trips through the
# OSDs; its objects go when freed.
. "$(dirname "$0")/lib.sh"
on a "$STORE_NODE" remove two >/dev/null 2>&1
expect "access=job on a" 0 on a "$STORE_NODE" resolve access=job
expect_text "access=job resolves to agg0 on a" '^agg0$' "$(on a "$STORE_NODE" resolve access=job)"
expect_text "access=global resolves to agg0 on b" '^agg0$' "$(on b "$STORE_NODE" resolve access=global)"
expect "write 12 MiB on a" 0 on a "$STORE_NODE" write two 12M 7
expect "read it on b" 0 on b "$STORE_NODE" verify two 12M 7
# Two readers on two nodes at once.
on a "$STORE_NODE" verify two 12M 7 >/tmp/two.a.$$ 2>&1 & pa=$!
on b "$STORE_NODE" verify two 12M 7 >/tmp/two.b.$$ 2>&1 & pb=$!
wait $pa; ra=$?; wait $pb; rb=$?
expect "concurrent readers on a and b" 0 test $ra -eq 0 -a $rb -eq 0
cat /tmp/two.a.$$ /tmp/two.b.$$; rm -f /tmp/two.a.$$ /tmp/two.b.$$
# Only dirty pages go out: a few bytes changed on b, the rest intact, seen on a.
expect "patch on b" 0 on b "$STORE_NODE" patch two 12M 7 100
expect "b's patch is seen on a (the bytes differ from the pattern now)" 1 on a "$STORE_NODE" verify two 12M 7
objects=$(rados_cmd -p loci ls | grep -c '^loci-region/two/' || true)
expect_text "12 MiB of 256 KiB chunks in objects of 4 MiB (the default object=) = 3 objects in the pool" '^3$' "$objects"
expect "private memory on agg0 (b)" 0 on b "$STORE_NODE" alloc 16M 3
anon=$(rados_cmd -p loci ls | grep -c '^loci-anon/' || true)
expect_text "freed private memory leaves no objects" '^0$' "$anon"
expect "remove" 0 on a "$STORE_NODE" remove two
left=$(rados_cmd -p loci ls | grep -c '^loci-region/two' || true)
expect_text "removed region leaves no objects" '^0$' "$left"
finish
