#!/bin/sh
# UMF's IPC test across processes (its test/ipc_os_prov_shm.sh) on loci's provider:
#   ipc_processes.sh IPC_PROCESS
# The consumer listens on a local port, the producer connects and sends its handle. Passes
# when both say OK and the producer saw the consumer's write in its own memory; a SKIP of
# UMF's (an IPC call not supported) is a failure here: loci's shared provider supports them.
set -u
prog=$1
dir=$(mktemp -d)
consumer=
trap '[ -n "$consumer" ] && kill "$consumer" 2>/dev/null; rm -rf "$dir"' EXIT

listening=
for attempt in 1 2 3 4 5; do # another program may hold the port: the next one
    port=$((20000 + ($$ * 7 + attempt * 7919) % 40000))
    "$prog" consumer "$port" 2>"$dir/consumer.log" &
    consumer=$!
    # the producer connects once the consumer listens (a bounded wait for that line, or its end)
    while kill -0 "$consumer" 2>/dev/null && ! grep -q "Listening for incoming" "$dir/consumer.log"; do
        sleep 0.05
    done
    if grep -q "Listening for incoming" "$dir/consumer.log"; then
        listening=1
        break
    fi
    wait "$consumer"
    consumer=
done
if [ -z "$listening" ]; then
    cat "$dir/consumer.log" >&2
    echo "FAILED: the consumer never listened" >&2
    exit 1
fi

"$prog" producer "$port" 2>"$dir/producer.log"
producer_rc=$?
wait "$consumer"
consumer_rc=$?
consumer=
cat "$dir/consumer.log" "$dir/producer.log"
if [ $producer_rc -ne 0 ] || [ $consumer_rc -ne 0 ] ||
   ! grep -q "Shutting down (status OK)" "$dir/consumer.log" ||
   ! grep -q "Shutting down (status OK)" "$dir/producer.log" ||
   ! grep -q "The consumer wrote the correct value" "$dir/producer.log"; then
    echo "FAILED: producer $producer_rc, consumer $consumer_rc" >&2
    exit 1
fi
echo "PASSED: the consumer opened the producer's loci memory and wrote into it"
