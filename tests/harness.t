#!/bin/bash
# Tests of the harness that boot no VM: option errors, the splat scanner, the
# installer's idempotence. vm-run checks its kernel image before some of its
# options, so the kernel must be built (needs: guest), though nothing boots.
# needs: guest
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

splats=$top/guest-image/kernel-splats
fx=$top/tests/fixtures/console

# expect_usage_error DESC REGEX ARGS...: exit 2, and the message says why
# (an earlier, different error also exits 2).
expect_usage_error() {
	local desc=$1 re=$2 err rc
	shift 2
	err=$("$VM_RUN" "$@" 2>&1 >/dev/null)
	rc=$?
	is "vm-run $desc: exit 2" "$rc" 2
	like "vm-run $desc: says why" "$err" "$re"
}
expect_usage_error "with no command" 'no command given' --cpus 1
expect_usage_error "--cpus 0" "--cpus: not a positive number: '0'" --cpus 0 -- true
expect_usage_error "--cpus abc" "--cpus: not a positive number: 'abc'" --cpus abc -- true
expect_usage_error "--cpus 65 (above NR_CPUS)" '--cpus 65: the kernel is built with NR_CPUS=64' --cpus 65 -- true
expect_usage_error "--accel xen" "--accel: want auto, kvm or tcg, not 'xen'" --accel xen -- true
expect_usage_error "--clock fast" "--clock: want real or precise, not 'fast'" --clock fast -- true
expect_usage_error "--icount-shift 11" "--icount-shift: want 0 to 10, not '11'" --icount-shift 11 -- true
expect_usage_error "--clock precise --accel kvm" '--clock precise needs TCG \(icount\), not --accel kvm' --clock precise --accel kvm -- true
expect_usage_error "--timeout -1" "--timeout: not a positive number of seconds: '-1'" --timeout -1 -- true
expect_usage_error "--mem lots" "--mem: not a size like 512M or 2G: 'lots'" --mem lots -- true
expect_usage_error "an unknown option" "unknown option '--frobnicate'" --frobnicate -- true
expect_usage_error "--share of a missing folder" '--share: no such folder: /nonexistent/dir' --share /nonexistent/dir -- true
expect_usage_error "--data of a missing folder" '--data: no such folder: /nonexistent/dir' --data /nonexistent/dir -- true
expect_usage_error "a command line over 2047 bytes" 'the kernel command line would be [0-9]+ bytes \(max 2047\)' \
	-- echo "$(head -c 3000 /dev/zero | tr '\0' x)"

ok "kernel-splats: a clean boot log has no report" bash -c "! '$splats' '$fx/clean-boot.log' >/dev/null"
for f in "$fx"/splat-*.log; do
	ok "kernel-splats: finds the report in $(basename "$f")" bash -c "'$splats' '$f' >/dev/null"
done

ok "install-deps does nothing when all is installed" bash -c "[ -z \"\$('$top/tools/install-deps' 2>&1)\" ]"

kb_err=$("$top/kernel/build" --bogus 2>&1)
is "kernel/build rejects an unknown option" "$?" 1
ok "kernel/build names the option" grep -q -- "--bogus" <<<"$kb_err"
like "kernel/build --jump-label is a flavour of its own" \
	"$("$top/kernel/build" --jump-label --print-image)" '/kernel/slicebench-jump-label/bzImage$'
like "... and combines with --stock" \
	"$("$top/kernel/build" --stock --jump-label --print-image)" '/kernel/stock-jump-label/bzImage$'
ok "... whose fragment turns real static keys on" grep -qx 'CONFIG_JUMP_LABEL=y' "$top/kernel/config/extra/jump-label.config"

done_testing
