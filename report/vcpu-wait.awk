# report/vcpu-wait.awk RUN_END_TIMES HOST_VCPU_SCHEDSTAT: for each run, the
# share of its wall time that the host kept a vCPU thread waiting on a run
# queue (summed over the vCPU threads, divided by their number), and the
# vCPU threads' CPU time per wall second.
#   RUN_END_TIMES: "ID<TAB>END" per run (host clock, s), any order.
#   HOST_VCPU_SCHEDSTAT: "TIME TID NAME RUN_NS WAIT_NS" (vm-run --vcpu-stats).
# Prints "ID WAIT_SHARE CPU_PER_S SAMPLES" per run that has samples inside it,
# ordered by time; a run's interval starts where the previous one ended (the
# first run's at the first sample, so it includes the boot).
FNR == NR { end[$1] = $2; next }
/^#/ { next }
{
	if (($2 in last_t) && $1 > last_t[$2]) {
		n++
		st[n] = $1; dw[n] = $5 - last_w[$2]; dr[n] = $4 - last_r[$2]
		dt[n] = $1 - last_t[$2]
	}
	last_t[$2] = $1; last_w[$2] = $5; last_r[$2] = $4; tids[$2] = 1
}
END {
	nt = 0
	for (t in tids) nt++
	if (!nt) exit
	m = 0
	for (id in end) { m++; ids[m] = id }
	# Sort the runs by end time (insertion sort: a few hundred runs).
	for (i = 2; i <= m; i++) {
		x = ids[i]
		for (j = i - 1; j >= 1 && end[ids[j]] > end[x]; j--) ids[j + 1] = ids[j]
		ids[j + 1] = x
	}
	for (i = 1; i <= m; i++) {
		lo = i > 1 ? end[ids[i - 1]] : -1
		hi = end[ids[i]]
		w = 0; r = 0; span = 0; k = 0
		for (s = 1; s <= n; s++) {
			if (st[s] <= lo || st[s] > hi) continue
			w += dw[s]; r += dr[s]; span += dt[s]; k++
		}
		# span sums over the threads: the wall time is span / nt.
		if (k && span > 0)
			printf "%s %.4f %.3f %d\n", ids[i], w / 1e9 / span, r / 1e9 / (span / nt), k
	}
}
