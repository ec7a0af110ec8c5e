#!/bin/bash
# VM smoke tests: the kernel boots in QEMU and vm-run carries the command's
# output and exit status back, and reports panics and timeouts as failures.
# needs: guest
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

vm() { "$VM_RUN" -q --timeout 300 "$@"; }

release=$(vm --cpus 1 -- uname -r)
like "guest uname -r ends in -slicebench ($release)" "$release" '-slicebench$'

is "nproc is 1 with --cpus 1" "$(vm --cpus 1 -- nproc)" 1
is "nproc is 4 with --cpus 4" "$(vm --cpus 4 -- nproc)" 4

vm --cpus 1 -- sh -c 'echo to-stdout; echo to-stderr >&2; exit 3' >"$tmp/out" 2>"$tmp/err"
rc=$?
is "a failing command's exit status comes back" "$rc" 3
is "stdout comes back on stdout" "$(cat "$tmp/out")" to-stdout
is "stderr comes back on stderr" "$(cat "$tmp/err")" to-stderr

is "arguments keep their spaces and quotes" \
	"$(vm --cpus 1 -- printf '[%s]' "a b" "it's" '' '$HOME')" "[a b][it's][][\$HOME]"

vm --cpus 1 --timeout 300 -- sh -c 'echo c >/proc/sysrq-trigger; sleep 600' >/dev/null 2>"$tmp/err"
rc=$?
is "a guest panic is reported as a guest failure (125), not a timeout" "$rc" 125
ok "the panic report says the kernel panicked" grep -q "panicked" "$tmp/err"

"$VM_RUN" -q --cpus 1 --timeout 15 -- sleep 600 >/dev/null 2>"$tmp/err"
rc=$?
is "a hung command is reported as a timeout (124)" "$rc" 124
ok "the timeout report says so" grep -q "timeout" "$tmp/err"

out=$(vm --cpus 4 -- all-cpus-load --seconds 1)
rc=$?
echo "$out" | sed 's/^/#   guest: /'
is "a static pthread program runs on all 4 vCPUs and checks out" "$rc" 0

mkdir -p "$tmp/share"
vm --cpus 1 --share "$tmp/share" -- sh -c 'uname -r >/host/from-guest'
like "--share: the guest writes into the host folder" "$(cat "$tmp/share/from-guest" 2>/dev/null)" '-slicebench$'

mkdir -p "$tmp/data"
echo "from the host" >"$tmp/data/in"
out=$(vm --cpus 1 --share "$tmp/share" --data "$tmp/data" -- \
	sh -c 'cat /data/in; echo x >/data/out 2>/dev/null && echo data-writable; echo done')
like "--data: the guest reads the host folder at /data, beside --share" "$out" 'from the host'
unlike "--data: the guest cannot write there (read-only)" "$out" 'data-writable'
ok "--data: nothing was written into the host folder" test ! -e "$tmp/data/out"

vm --cpus 1 --log-dir "$tmp/logs" -- true
ok "--log-dir keeps the console log, which shows the boot" grep -q "Linux version" "$tmp/logs/console.log"
ok "--log-dir keeps the guest's dmesg" grep -q "Command line:" "$tmp/logs/dmesg"

done_testing
