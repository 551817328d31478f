#!/usr/bin/env bash
# One writer at a time across nodes: while a holds the region writable, b can open it
# neither writable nor read-only; readers share; a writer killed -9 loses the lock
# within lock_ttl (6 s here) — not forever.
. "$(dirname "$0")/lib.sh"
on a "$STORE_NODE" remove lk >/dev/null 2>&1
expect "create on a" 0 on a "$STORE_NODE" write lk 1M 1
fifo=/tmp/lk.$$; mkfifo $fifo
on a "$STORE_NODE" hold lk rw 120 >$fifo & holder=$!
read -r line <$fifo
expect_text "a holds it writable" '^held$' "$line"
expect "b cannot open it writable (EBUSY)" 3 on b "$STORE_NODE" open lk rw
expect_text "the refusal names the holder" "held by client" "$(on b "$STORE_NODE" open lk rw)"
expect "b cannot open it read-only while a writes (EBUSY)" 3 on b "$STORE_NODE" open lk ro
pkill -9 -f "store_node hold lk rw"; wait $holder 2>/dev/null; rm -f $fifo
start=$(date +%s); opened=1
for i in $(seq 1 40); do
    if on b "$STORE_NODE" open lk rw >/dev/null 2>&1; then opened=0; break; fi
    sleep 0.5
done
expect "b takes it over after the dead writer's lock expired ($(( $(date +%s) - start )) s, lock_ttl 6 s)" 0 test $opened -eq 0
# readers share
on a "$STORE_NODE" hold lk ro 4 >$fifo.r 2>&1 & reader=$!
for i in $(seq 1 50); do grep -q held $fifo.r 2>/dev/null && break; sleep 0.2; done
expect "b reads while a reads" 0 on b "$STORE_NODE" open lk ro
expect "b cannot write while a reads (EBUSY)" 3 on b "$STORE_NODE" open lk rw
wait $reader; rm -f $fifo.r # a reader that closes releases its lock at once
expect "remove" 0 on b "$STORE_NODE" remove lk
finish
