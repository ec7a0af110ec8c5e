#!/bin/bash
# swingbench-lite on the host (no time slice extension here): the schema and
# load, each transaction type on its own, 2 s runs of 16 clients with each
# SQLite mutex kind, the PostgreSQL backend against a live local server, and
# clear errors for bad options. Every run ends with its own consistency
# check, which must pass.
# needs: host
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

sbl=$top/build/bin/swingbench-lite
tmp=$(mktemp -d)
pgdir=$tmp/pg
trap 'pg_stop "$pgdir"; rm -rf "$tmp"' EXIT

# Each transaction alone, on a small data set.
for t in customer-registration update-customer-details browse-products order-products \
	process-orders browse-orders sales-rep-query warehouse-query warehouse-activity-query; do
	mix=$(for u in ncr ucd bp op po bo srq wq waq; do printf '%s=0,' $u; done)${t}=1
	out=$(timeout 120 "$sbl" --clients 4 --scale 0.05 --duration 1 --warmup 0 --interval 0 \
		--mix "$mix" --json "$tmp/$t.json" 2>&1)
	rc=$?
	ok "$t alone: exit 0 and consistent" test $rc = 0
	[ $rc = 0 ] || diag "$out"
	ok "$t alone: committed, and only it" jq_true \
		".results.per_type[\"$t\"].committed > 0 and (.results.per_type | length) == 1 and
		 .results.consistent == true" "$tmp/$t.json"
done

# The load itself: what the loader wrote, read back with sqlite3.
db=$tmp/soe.db
timeout 120 "$sbl" --db "$db" --keep --clients 1 --scale 0.05 --duration 1 --warmup 0 \
	--interval 0 --mix srq=1,bp=0,op=0,ncr=0,ucd=0,po=0,bo=0 >/dev/null 2>&1
is "load: 500 customers at scale 0.05" "$(sqlite3 "$db" 'select count(*) from customers')" 500
is "load: 50 products in 10 warehouses" "$(sqlite3 "$db" 'select count(*) from inventories')" 500
is "load: every SOE table exists" "$(sqlite3 "$db" "select count(*) from sqlite_master where type = 'table' and name in ('customers', 'addresses', 'card_details', 'orders', 'order_items', 'logon', 'product_information', 'product_descriptions', 'inventories', 'warehouses', 'orderentry_metadata')")" 11
is "load: WAL journal" "$(sqlite3 "$db" 'pragma journal_mode')" wal
out=$(timeout 120 "$sbl" --db "$db" --no-load --clients 2 --duration 1 --warmup 0 --interval 0 2>&1)
like "--no-load reuses the data set and stays consistent" "$out" 'consistency: ok'

# The default mix, 16 clients, 2 s, each mutex kind (ABI auto: none here).
for m in pthread adaptive spin spin-ext futex futex-ext; do
	out=$(timeout 300 "$sbl" --clients 16 --scale 0.1 --duration 2 --warmup 1 --interval 1 \
		--mutex "$m" --json "$tmp/mix-$m.json" 2>&1)
	rc=$?
	ok "16 clients, 2 s, $m mutexes: exit 0" test $rc = 0
	like "16 clients, 2 s, $m mutexes: consistent" "$out" 'consistency: ok'
	ok "16 clients, $m: JSON has the header, SQL/s, per-type latencies and mutex counts" jq_true \
		".header.tool == \"swingbench-lite\" and .config.mutex == \"$m\" and
		 .results.sql_per_s > 0 and .results.per_type[\"order-products\"].latency.p99_ns > 0 and
		 (.results.mutexes | map(.acquired) | add) > 0" "$tmp/mix-$m.json"
	# The structure in the measured window, per class of mutex: every
	# outermost hold timed (the histogram counts what the window counts),
	# a window inside the whole run, held shares that are shares.
	ok "16 clients, $m: per class, the window's holds are timed and within the run's counts" jq_true \
		"(.results.mutexes | length) > 0 and
		 (.results.mutexes | all(.window.hold.count == .window.acquired and
		   .window.acquired <= .acquired and .window.contended <= .window.acquired and
		   .window.held_share >= 0 and .window.preempted_holding <= .window.acquired)) and
		 (.results.mutexes | map(.window.acquired) | add) > 0" "$tmp/mix-$m.json"
	ok "16 clients, $m: the writer gate and the sessions" jq_true \
		".results.writer_gate.acquired > 0 and .results.writer_gate.utilisation > 0 and
		 .results.writer_gate.utilisation <= 1.01 and .results.writer_gate.contended <= .results.writer_gate.acquired and
		 .results.sessions.in_transaction > 0 and .results.sessions.in_transaction <= 16.5 and
		 .results.sessions.runnable_samples > 0 and .results.sessions.runnable_max >= 1" "$tmp/mix-$m.json"
	diag "$m: $(grep -E '^SQL exec/s|^writer gate|^sessions' <<<"$out" | tr '\n' ' ')"
done
# The buffer-latches profile: the page cache's contract, then the profile
# end to end (shards, their gates, the latches, SQLite's integrity check).
for m in spin spin-ext futex pthread; do
	out=$(timeout 120 "$top/build/bin/pcache_test" "$m" 2>&1)
	rc=$?
	is "pcache.c's contract tests with $m latches: exit 0" "$rc" 0
	[ $rc = 0 ] || diag "$(grep -v '^ok' <<<"$out")"
done
out=$(timeout 300 "$sbl" --profile buffer-latches --clients 24 --scale 0.1 --duration 3 --warmup 1 \
	--interval 0 --mutex spin-ext --json "$tmp/bl.json" 2>&1)
is "--profile buffer-latches, 24 clients: exit 0" "$?" 0
like "... three shards (one per 8 clients), each consistent and passing SQLite's integrity check" "$out" \
	'shard 2: ok: SQLite integrity check: 0 problems'
unlike "... no shard failed a check" "$out" 'shard [0-9]+: FAIL'
like "... consistent overall" "$out" 'consistency: ok'
ok "... its JSON: the profile, 3 shards and gates, private caches, the bucket and LRU latches timed" jq_true \
	'.config.profile == "buffer-latches" and .config.shards == 3 and .config.buckets == 64 and
	 .config.cache == "private" and .results.writer_gate.gates == 3 and
	 .results.writer_gate.max_utilisation >= .results.writer_gate.utilisation and
	 ([.results.mutexes[] | select(.name | test("bucket latches")) | .window.acquired] | add) > 0 and
	 ([.results.mutexes[] | select(.name | test("lru latch")) | .window.hold.count] | add) > 0' "$tmp/bl.json"
ok "the giant-lock profile (the default): one shard, the shared cache" jq_true \
	'.config.profile == "giant-lock" and .config.shards == 1 and .config.cache == "shared" and
	 .results.writer_gate.gates == 1' "$tmp/mix-spin-ext.json"
out=$("$sbl" --profile buffer-latches --backend pg --dsn x 2>&1)
is "buffer-latches with PostgreSQL fails" "$?" 2
like "... saying why" "$out" "buffer-latches is SQLite's"
out=$("$sbl" --shards 4 2>&1)
is "--shards without buffer-latches fails" "$?" 2
out=$("$sbl" --profile big-lock 2>&1)
is "an unknown profile fails" "$?" 2
like "... naming the choices" "$out" "giant-lock or buffer-latches"
out=$("$sbl" --preempted-us 0 2>&1)
is "--preempted-us 0 fails" "$?" 2
like "... naming the option" "$out" "preempted-us"
out=$(timeout 300 "$sbl" --clients 16 --scale 0.1 --duration 3 --warmup 0 --interval 0 \
	--cache private --journal delete 2>&1)
like "private cache, rollback journal: consistent" "$out" 'consistency: ok'

# PostgreSQL through libpq, against a real local server.
if pg_start "$pgdir"; then
	out=$(timeout 300 "$sbl" --backend pg --dsn "$PG_DSN" --clients 16 --scale 0.1 \
		--duration 3 --warmup 1 --interval 1 --json "$tmp/pg.json" 2>&1)
	rc=$?
	ok "PostgreSQL, 16 clients, 3 s: exit 0" test $rc = 0
	like "PostgreSQL: consistent" "$out" 'consistency: ok'
	ok "PostgreSQL: every default transaction committed" jq_true \
		'.config.backend == "pg" and ([.results.per_type[] | .committed > 0] | all) and
		 (.results.per_type | length) == 6' "$tmp/pg.json"
	diag "pg: $(grep -E '^SQL exec/s' <<<"$out")"
	out=$(timeout 120 "$sbl" --backend pg --dsn "$PG_DSN" --clients 2 --duration 1 --warmup 0 \
		--interval 0 --no-load --mix srq=1,wq=1,waq=1,bp=0,op=0,ncr=0,ucd=0,po=0,bo=0 2>&1)
	like "PostgreSQL: the three queries off by default run, with --no-load" "$out" 'consistency: ok'
else
	ok "a local PostgreSQL server starts" false
fi

# Bad input.
expect_fail() {	# DESC STATUS REGEX CMD...
	local desc=$1 want=$2 re=$3 out rc
	shift 3
	out=$(timeout 60 "$@" 2>&1)
	rc=$?
	is "$desc: exit $want" "$rc" "$want"
	like "$desc: says why" "$out" "$re"
}
expect_fail "an unknown mix name" 2 "unknown transaction 'checkout'" "$sbl" --mix checkout=5
expect_fail "a negative weight" 2 'mix: -3 is out of range' "$sbl" --mix op=-3
expect_fail "all weights 0" 2 'every weight is 0' "$sbl" --mix ncr=0,ucd=0,bp=0,op=0,po=0,bo=0
expect_fail "a mix item without =" 2 "'op' is not NAME=WEIGHT" "$sbl" --mix op
expect_fail "an unknown mutex kind" 2 'mutex: pthread, adaptive, spin, spin-ext, futex or futex-ext' "$sbl" --mutex mcs
expect_fail "pg without --dsn" 2 'needs --dsn' "$sbl" --backend pg
expect_fail "--dsn with sqlite" 2 'is for --backend pg' "$sbl" --dsn host=/nonexistent
expect_fail "an unreachable DSN" 1 'cannot connect' \
	"$sbl" --backend pg --dsn "host=$tmp/nowhere user=nobody connect_timeout=2" --clients 1
expect_fail "a database in a missing folder" 1 'cannot connect|unable to open' \
	"$sbl" --db "$tmp/missing/x.db" --clients 1
expect_fail "--no-load on an empty database" 1 'no SOE data set' \
	"$sbl" --db "$tmp/empty.db" --no-load --clients 1
expect_fail "--abi mainline here" 1 'no time slice extension' "$sbl" --abi mainline
expect_fail "--scale 0" 2 'scale: 0 is out of range' "$sbl" --scale 0
ok "--help lists every transaction and default" bash -c \
	"'$sbl' --help | grep -q 'warehouse-activity-query (waq)' && '$sbl' --help | grep -q 'default: 1000'"
done_testing
