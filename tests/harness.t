#!/bin/bash
# Host-only tests of the harness: option errors, the splat scanner, the
# installer's idempotence. No VM is booted.
. "$(dirname "$0")/lib.sh"

splats=$top/guest-image/kernel-splats
fx=$top/tests/fixtures/console

expect_usage_error() {	# desc args...
	local desc=$1; shift
	local err rc
	err=$("$VM_RUN" "$@" 2>&1 >/dev/null)
	rc=$?
	is "vm-run $desc: exit 2" "$rc" 2
}
expect_usage_error "with no command" --cpus 1
expect_usage_error "--cpus 0" --cpus 0 -- true
expect_usage_error "--cpus abc" --cpus abc -- true
expect_usage_error "--cpus 65 (above NR_CPUS)" --cpus 65 -- true
expect_usage_error "--accel xen" --accel xen -- true
expect_usage_error "--timeout -1" --timeout -1 -- true
expect_usage_error "--mem lots" --mem lots -- true
expect_usage_error "an unknown option" --frobnicate -- true
expect_usage_error "--share of a missing folder" --share /nonexistent/dir -- true
expect_usage_error "a command line over 2047 bytes" -- echo "$(head -c 3000 /dev/zero | tr '\0' x)"

ok "kernel-splats: a clean boot log has no report" bash -c "! '$splats' '$fx/clean-boot.log' >/dev/null"
for f in "$fx"/splat-*.log; do
	ok "kernel-splats: finds the report in $(basename "$f")" bash -c "'$splats' '$f' >/dev/null"
done

ok "install-deps does nothing when all is installed" bash -c "[ -z \"\$('$top/tools/install-deps' 2>&1)\" ]"

kb_err=$("$top/kernel/build" --bogus 2>&1)
is "kernel/build rejects an unknown option" "$?" 1
ok "kernel/build names the option" grep -q -- "--bogus" <<<"$kb_err"

done_testing
