set -u
t=/sys/kernel/tracing
k=/proc/sys/kernel
echo mainline >$k/slice_ext_abi
echo "$1" >$k/slice_ext_grant
echo 50000 >$k/slice_ext_nsec
echo 65536 >$t/buffer_size_kb
echo >$t/trace
for e in raw_syscalls exceptions/page_fault_user exceptions/page_fault_kernel sched/sched_switch sched/sched_wakeup irq/irq_handler_entry irq/irq_handler_exit irq/softirq_entry irq/softirq_exit timer/hrtimer_expire_entry timer/hrtimer_expire_exit workqueue/workqueue_execute_start workqueue/workqueue_execute_end slice_ext; do
	echo 1 >$t/events/$e/enable || echo "no event $e"
done
echo 1 >$t/tracing_on
locktable --abi mainline --clients 300 --hogs 400 --duration 4 --warmup 0 --interval 0 --seed 1 >/host/load2-$1.txt 2>&1 &
load=$!
while ! grep -q "^started " /host/load2-$1.txt; do sleep 0.1; done
sleep 0.5
cyclictest -m -p 90 -t 1 -i 200 -q -D 1 -b 50 --tracemark -h 2000 >/host/ct2-$1.txt 2>&1
echo "cyclictest exit $?"
echo 0 >$t/tracing_on
wait
tail -n 1500 $t/trace >/host/trace2-$1.txt
echo done
