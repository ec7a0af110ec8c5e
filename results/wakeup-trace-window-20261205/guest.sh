set -u
t=/sys/kernel/tracing
k=/proc/sys/kernel
echo mainline >$k/slice_ext_abi && echo 1 >$k/slice_ext_grant &&
	echo 50000 >$k/slice_ext_nsec && echo bounded >$k/slice_ext_rt_policy || exit 1
echo 16384 >$t/buffer_size_kb
kept=0
for e in sched/sched_switch sched/sched_waking sched/sched_wakeup slice_ext \
	irq/irq_handler_entry irq/irq_handler_exit irq/softirq_entry irq/softirq_exit \
	irq_vectors/local_timer_entry irq_vectors/local_timer_exit \
	timer/hrtimer_expire_entry timer/hrtimer_expire_exit; do
	echo 1 >$t/events/$e/enable || exit 1
done
for r in $(seq 1 6); do
	echo >$t/trace; echo 1 >$t/tracing_on; rm -f /tmp/ready
	locktable --abi mainline --interval 0 --clients 300 --hogs 400 --work-in 5 \
		--duration 3 --warmup 0 --seed $r --ready-file /tmp/ready >/host/load-$r.txt 2>&1 &
	load=$!
	rt-after --after /tmp/ready --pid $load 90 0.5 cyclictest -m -p 90 -t 1 -i 200 -q -D 1 -h 2000 -b 50 --tracemark \
		>/host/cyclictest-$r.txt 2>&1
	wait $load || { echo "repeat $r: the load failed"; exit 1; }
	if [ "$(cat $t/tracing_on)" = 0 ]; then
		# The last events before the stop: the late wakeup's.
		tail -n 40000 $t/trace >/host/trace-$r.txt
		echo "repeat $r: a wakeup later than 50 us; trace kept"
		kept=$((kept + 1)); [ $kept -lt 1 ] || break
	else
		rm -f /host/cyclictest-$r.txt /host/load-$r.txt
		echo "repeat $r: every wakeup within 50 us"
	fi
done
echo 0 >$t/tracing_on
