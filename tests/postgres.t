#!/bin/bash
# PostgreSQL with extension-aware spinlocks (bench/postgres), in the guest:
# one boot of the PostgreSQL image (make postgres-image) with a scale-2
# database (bench/postgres/make-data) on /data. pg-run runs the server as a
# non-root user on a Unix socket and pgbench -M prepared against it, and
# fails a run whose pgbench fails, whose balances do not add up or whose
# backends leave a section open. The arms: mainline with grants on (the
# backends ask, the kernel grants, the backends yield), grants off (asked
# and denied), the control (SLICEBENCH_ABI=none: nothing asked) and huge
# pages. PostgreSQL's own spinlock holds are so short that a tick rarely
# lands in one (0-4 grants in 8 s with 16 hogs, the first try): these runs
# hold every spinlock 20 us longer (pg-run --hold-us, the patch's test
# hook), so that grants are certain. Then pg-run's own refusals of bad
# input, on the host.
# needs: guest postgres
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/share"
pg_run=$top/build/bin/pg-run
image=$top/build/initramfs-postgres.cpio.gz

data=$("$top/bench/postgres/make-data" 2 2>"$tmp/make-data.log")
rc=$?
is "make-data 2 made the database (exit $rc)" "$rc" 0
[ $rc = 0 ] || diag "$(tail -5 "$tmp/make-data.log")"
ok "the image with the server exists (make postgres-image)" test -f "$image"

cat >"$tmp/share/pg.sh" <<'EOF'
set -u
k=/proc/sys/kernel
echo mainline >$k/slice_ext_abi && echo 50000 >$k/slice_ext_nsec || exit 1
# run NAME GRANT PG-RUN-ARGS...: one pg-run, its JSON to /host/NAME.json.
run() {
	name=$1 grant=$2
	shift 2
	echo "$grant" >$k/slice_ext_grant || exit 1
	echo "=== $name"
	pg-run --data /data --workdir "/tmp/pg-$name" --clients 8 --hogs 4 --duration 4 --hold-us 20 \
		--warmup 1 --json "/host/$name.json" "$@" || echo "pg-run-failed $name"
}
run on-update 1 --abi mainline --mode simple-update
run on-tpcb 1 --abi mainline --mode tpcb
run off 0 --abi mainline --mode simple-update
run control 1 --abi none --mode simple-update
run huge 0 --abi mainline --mode select --huge-pages --hold-us 0
grep -i hugepages_total /proc/meminfo
EOF

out=""
rc=skipped
if [ -n "$data" ] && [ -f "$image" ]; then
	out=$("$VM_RUN" -q --cpus 2 --timeout 900 --initrd "$image" --data "$data" \
		--share "$tmp/share" -- sh /host/pg.sh 2>&1)
	rc=$?
fi
is "the guest run ended cleanly (vm-run exit $rc)" "$rc" 0
failed_runs=$(grep -E -- '-failed( |$)' <<<"$out")
is "every pg-run exited 0 (pgbench, balances, section depth)" "$failed_runs" ""
[ -z "$failed_runs" ] || diag "$out"

for name in on-update on-tpcb off control huge; do
	f=$tmp/share/$name.json
	ok "$name: pg-run's checks held, transactions ran, the balances add up" \
		jq_true '.results.ok == true and .results.balanced == true and .results.transactions > 0 and
			.results.lib.bad_depth == 0 and .results.lib.setup_failures == 0' "$f"
	diag "$name: $(jq -c '.results | {tps, locks, lib, kernel}' "$f" 2>/dev/null)"
done
ok "the server ran as a user of its own, its backends took both lock classes" \
	jq_true '.results.lib.client_backends >= 8 and .results.locks.spin_acquired > 0 and
		.results.locks.bufhdr_acquired > 0' "$tmp/share/on-update.json"
for name in on-update on-tpcb; do
	ok "$name, grants on: the backends were granted and yielded for each grant; the kernel granted" \
		jq_true '.header.abi == "mainline" and .config.hold_us == 20 and .results.lib.grants > 0 and
			.results.lib.yields == .results.lib.grants and .results.kernel.granted > 0' "$tmp/share/$name.json"
	# Over the server's life (lib's window), the same grants counted from
	# both sides: every yield the kernel saw came from a backend, and a
	# backend sees no grant the kernel did not make (it misses those that
	# expired and were cleared before the section ended).
	ok "$name: kernel yields <= the backends' yields = grants <= kernel grants, over the server's life" \
		jq_true '.results.kernel_server_life.yielded > 0 and .results.kernel_server_life.yielded <= .results.lib.yields and
			.results.lib.grants <= .results.kernel_server_life.granted' "$tmp/share/$name.json"
done
ok "off (grants off): the backends asked and the kernel denied, nothing granted" \
	jq_true '.header.kernel_grant == false and .results.lib.grants == 0 and
		.results.kernel.granted == 0 and .results.kernel.denied > 0' "$tmp/share/off.json"
ok "control (SLICEBENCH_ABI=none): nothing asked, nothing granted" \
	jq_true '.header.abi == "none" and .results.lib.grants == 0 and .results.lib.denied == 0 and
		.results.kernel.granted == 0 and .results.kernel.denied == 0' "$tmp/share/control.json"
ok "huge pages: the server ran with huge_pages=on" \
	jq_true '.config.huge_pages == true' "$tmp/share/huge.json"
like "huge pages: pg-run gave the reservation back after the run" "$out" "HugePages_Total: +0"

# Bad input: a clear error and a non-zero exit, before anything runs.
bad() {
	local want=$1; shift
	local err
	err=$("$pg_run" --pgroot "$pgroot" "$@" 2>&1 >/dev/null)
	local rc=$?
	if [ $rc != 0 ] && [[ $err =~ $want ]]; then
		ok "pg-run $*: refused ($rc): $want" true
	else
		ok "pg-run $*: refused with '$want' (got exit $rc: $err)" false
	fi
}
pgroot=$("$top/bench/postgres/build" --print-prefix)
bad "--data DIR is required" --mode select
bad "not select, simple-update or tpcb" --data "$tmp" --mode bogus
bad "clients" --data "$tmp" --clients 0
bad "not an ABI|not none, auto" --data "$tmp" --abi bogus
bad "not a data directory" --data "$tmp"
bad "no bin/postgres" --data "$tmp" --pgroot "$tmp"
bad "hold-us" --data "$tmp" --hold-us 1001
bad "not a multiple of --threads" --data "${data:-$tmp}" --clients 5 --threads 2 --workdir "$tmp/w"

done_testing
