#!/bin/sh
# Why do yield-ended grants last ~200 us under TCG? Vary the hold (work-in)
# and record what happens on the CPU between a grant and its end.
set -e
t=/sys/kernel/tracing
echo 32768 >$t/buffer_size_kb
sysctl -q -w kernel.slice_ext_abi=mainline kernel.slice_ext_grant=1 kernel.slice_ext_nsec=50000 kernel.slice_ext_rt_policy=never-delay-rt
for w in 1 5 20; do
	echo >$t/trace
	for e in slice_ext/slice_ext_grant slice_ext/slice_ext_expire slice_ext/slice_ext_yield slice_ext/slice_ext_revoke slice_ext/slice_ext_abort \
		irq_vectors/local_timer_entry irq_vectors/local_timer_exit irq_vectors/reschedule_entry irq_vectors/call_function_single_entry irq_vectors/call_function_entry \
		sched/sched_switch; do echo 1 >$t/events/$e/enable; done
	locktable --abi mainline --clients 300 --hogs 400 --duration 3 --warmup 1 --interval 0 --work-in $w >/host/lt-w$w.txt
	echo 0 >$t/events/enable
	grep -v '^#' $t/trace >/host/trace-w$w.txt
	echo "w$w: $(grep -c slice_ext_grant /host/trace-w$w.txt) grants"
done
