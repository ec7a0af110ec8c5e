set -u
t=/sys/kernel/tracing
k=/proc/sys/kernel
echo mainline >$k/slice_ext_abi
echo "$1" >$k/slice_ext_grant
echo 65536 >$t/buffer_size_kb
echo >$t/trace
for e in raw_syscalls exceptions/page_fault_user exceptions/page_fault_kernel sched/sched_switch sched/sched_wakeup irq/irq_handler_entry irq/irq_handler_exit irq/softirq_entry irq/softirq_exit timer/hrtimer_expire_entry timer/hrtimer_expire_exit timer/hrtimer_start slice_ext; do
	echo 1 >$t/events/$e/enable || echo "no event $e"
done
echo 1 >$t/tracing_on
locktable --abi mainline --clients 300 --hogs 400 --duration 3 --warmup 0 --interval 0 --seed 1 >/host/load-$1.txt 2>&1 &
sleep 1
cyclictest -m -p 90 -t 1 -i 200 -q -D 2 -b 60 --tracemark -h 2000 --json=/host/ct-$1.json >/host/ct-$1.txt 2>&1
echo "cyclictest exit $?"
echo 0 >$t/tracing_on
wait
grep -n "tracing_mark_write\|hit latency" $t/trace | tail -5
tail -n 600 $t/trace >/host/trace-$1.txt
echo done
