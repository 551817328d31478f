#!/usr/bin/env bash
# Bad input around the store: each a clear message naming the thing and what would be
# right; loci_init never fails for a cluster that cannot be reached, only for a config
# that is wrong; nothing hangs.
. "$(dirname "$0")/lib.sh"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
conf=$(sed -n 's/^conf = //p' "$STORE_DIR/test.conf")

printf '[target agg0]\nkind = store\nstore = rados\nconf = /nonexistent/ceph.conf\npool = loci\n' >"$tmp/noconf.conf"
out=$(LOCI_CONFIG=$tmp/noconf.conf "$LOCI_TOOL" info 2>&1); rc=$?
expect "unreadable conf: loci info still runs" 0 test $rc -eq 0
expect_text "...and names the conf and what to give" "conf = /nonexistent/ceph.conf: No such file.*give the ceph.conf" "$out"

printf '[target agg0]\nkind = store\nstore = rados\nconf = %s\n' "$conf" >"$tmp/nopool.conf"
out=$(LOCI_CONFIG=$tmp/nopool.conf "$LOCI_TOOL" info 2>&1); rc=$?
expect "missing pool key: a config error" 1 test $rc -eq 0
expect_text "...saying what to add" "kind = store needs pool = NAME" "$out"

printf '[target agg0]\nkind = store\nstore = rados\nconf = %s\npool = nosuchpool\ntimeout = 10s\n' "$conf" >"$tmp/badpool.conf"
out=$(LOCI_CONFIG=$tmp/badpool.conf "$LOCI_TOOL" info 2>&1)
expect_text "a pool that does not exist: say how to create it" "has no pool 'nosuchpool'; create it with 'ceph osd pool create nosuchpool'" "$out"

printf '[target agg0]\nkind = store\nstore = s3\nconf = %s\npool = loci\n' "$conf" >"$tmp/engine.conf"
expect_text "an unknown engine" "store = s3: unknown store engine; expected rados" "$(LOCI_CONFIG=$tmp/engine.conf "$LOCI_TOOL" info 2>&1)"
printf '[target agg0]\nkind = ssd\npool = loci\npath = /tmp\n' >"$tmp/notstore.conf"
expect_text "store keys on a non-store target" "belong to a store target; add kind = store" "$(LOCI_CONFIG=$tmp/notstore.conf "$LOCI_TOOL" info 2>&1)"

out=$(LOCI_CONFIG= "$LOCI_TOOL" resolve access=job 2>&1)
expect_text "access=job without a store says what to configure" "only an aggregate store does; none is configured: add a \[target agg0\]" "$out"

on a "$STORE_NODE" remove bad >/dev/null 2>&1
expect "a missing region" 1 on a "$STORE_NODE" verify bad 1M 1
expect_text "...is named" 'region "bad" does not exist in agg0' "$(on a "$STORE_NODE" verify bad 1M 1)"
expect "write bad (1 MiB)" 0 on a "$STORE_NODE" write bad 1M 5
expect_text "a size other than the region's" 'region "bad" holds 1.0 MiB, not the 2.0 MiB asked' "$(on b "$STORE_NODE" verify bad 2M 5)"
rados_cmd -p loci rm loci-region/bad
expect_text "metadata deleted behind loci's back" 'has chunk objects but its metadata object loci-region/bad is gone' "$(on b "$STORE_NODE" verify bad 1M 5)"
for i in $(seq 0 3); do rados_cmd -p loci rm "loci-region/bad/$(printf %016x "$i")" 2>/dev/null; done
finish
