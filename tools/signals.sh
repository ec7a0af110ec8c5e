# shellcheck shell=bash
# tools/signals.sh: Ctrl-C, SIGTERM and SIGHUP stop a project script and
# everything it started (QEMU included) within seconds, and the script then
# dies of that same signal, so its caller sees 128+N (130 for SIGINT) and
# stops too instead of reading an ordinary exit status and going on.
#
#   . "$top/tools/signals.sh"; sb_supervise "$@"
#
# as the script's first command. sb_supervise runs the script again as its
# own child and only waits for it: bash runs a trap only between commands,
# so a script waiting for a long command (a guest boot, a kernel build, a
# $(command substitution)) could not act on SIGINT or SIGTERM until it
# ended. The waiting parent acts at once: every descendant gets SIGTERM
# (the script's EXIT trap runs as bash dies of it; QEMU exits), then SIGKILL
# if still there after 10 s, and the parent dies of the signal it got.
# The body ignores SIGINT and SIGHUP, which a terminal sends to every
# process of its job at once: if the body died of them first, what it
# started would be orphaned before the parent could find it. SIGTERM still
# kills the body, and its EXIT trap runs (bash runs it on the way out).
# Results are written run by run, so what finished stays (a resumed run-all
# continues from it).

# sb_descendants PID: every process below PID.
sb_descendants() {
	local c
	for c in $(ps -o pid= --ppid "$1" 2>/dev/null); do
		echo "$c"
		sb_descendants "$c"
	done
}

sb_on_signal() {
	local sig=$1 pids p
	trap '' INT TERM HUP
	echo "$(basename "$0"): caught SIG$sig, stopping everything it started" >&2
	pids=$(sb_descendants $$)
	if [ -n "$pids" ]; then
		# shellcheck disable=SC2086
		kill -TERM $pids 2>/dev/null
		for _ in $(seq 50); do
			for p in $pids; do
				kill -0 "$p" 2>/dev/null && break
				p=""
			done
			[ -n "$p" ] || break
			sleep 0.2
		done
		# shellcheck disable=SC2086
		[ -z "$p" ] || kill -KILL $pids 2>/dev/null
	fi
	trap - "$sig"
	kill -s "$sig" $$
}

sb_supervise() {
	# The child: run the script's body. Its children inherit nothing of this.
	[ "${SB_SUPERVISOR:-}" = "$PPID" ] && return 0
	local sig
	for sig in INT TERM HUP; do
		# shellcheck disable=SC2064
		trap "sb_on_signal $sig" "$sig"
	done
	SB_SUPERVISOR=$$ env --ignore-signal=INT,HUP "$BASH" "$0" "$@" <&0 &
	wait $!
	exit $?
}
