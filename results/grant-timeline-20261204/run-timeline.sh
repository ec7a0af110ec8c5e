#!/bin/sh
# The timeline of a grant: the tick's exit, the grant, the timer's
# programming (the TSC deadline MSR), the yield syscall's entry, the end.
set -e
t=/sys/kernel/tracing
echo 32768 >$t/buffer_size_kb
sysctl -q -w kernel.slice_ext_abi=mainline kernel.slice_ext_grant=1 kernel.slice_ext_nsec=50000 kernel.slice_ext_rt_policy=never-delay-rt
ls $t/events/msr >/host/msr-events.txt 2>&1 || true
echo >$t/trace
for e in slice_ext/slice_ext_grant slice_ext/slice_ext_expire slice_ext/slice_ext_yield \
	irq_vectors/local_timer_entry irq_vectors/local_timer_exit timer/hrtimer_start timer/hrtimer_cancel msr/write_msr; do
	[ -e $t/events/$e/enable ] && echo 1 >$t/events/$e/enable
done
echo 'id == 471' >$t/events/raw_syscalls/sys_enter/filter
echo 1 >$t/events/raw_syscalls/sys_enter/enable
locktable --abi mainline --clients 300 --hogs 400 --duration 3 --warmup 1 --interval 0 --work-in 1 >/host/lt2.txt
echo 0 >$t/events/enable
grep -v '^#' $t/trace >/host/trace2.txt
echo "$(grep -c slice_ext_grant /host/trace2.txt) grants"
