// SPDX-License-Identifier: GPL-2.0
/*
 * rt-after [--after FILE [--pid PID]] PRIO SECONDS COMMAND [ARGS...]: become
 * SCHED_FIFO at PRIO, sleep SECONDS (fractions too), then exec COMMAND
 * (which inherits the policy). With --after, SECONDS count from when FILE
 * appears (checked every millisecond); with --pid too, give up (exit 1) if
 * process PID ends before FILE appears.
 *
 * sweep-runner starts cyclictest this way inside a lock-table load: a
 * SCHED_OTHER shell that sleeps and then execs cyclictest gets the CPU back
 * only after a round of the load's hundreds of threads (about 0.5 s on one
 * vCPU), so cyclictest began seconds late and measured the load's exit. An
 * RT sleeper wakes on time and cyclictest starts at once.
 *
 * --after: a fixed delay from the load's start is not enough. The load's
 * start gate, a barrier its 700 threads wait at, is released by one
 * FUTEX_WAKE that wakes them all, about 1.9 ms of kernel work without a
 * preemption point on a PREEMPT_VOLUNTARY kernel; when the load's set-up
 * took longer than the delay, cyclictest's wakeups landed in it (924 and
 * 1,903 us on the precise testbed, experiments/wakeup-trace). The load
 * creates FILE when its measured window begins (locktable --ready-file).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct sched_param sp = { 0 };
	struct timespec ts;
	const char *after = NULL;
	long pid = 0;
	char *end;
	double secs;
	long prio;

	while (argc > 2 && (!strcmp(argv[1], "--after") || !strcmp(argv[1], "--pid"))) {
		if (!strcmp(argv[1], "--after")) {
			after = argv[2];
		} else {
			errno = 0;
			pid = strtol(argv[2], &end, 10);
			if (errno || *end || end == argv[2] || pid <= 0) {
				fprintf(stderr, "rt-after: --pid '%s' is not a process ID\n", argv[2]);
				return 2;
			}
		}
		argc -= 2;
		argv += 2;
	}
	if (argc < 4 || (pid && !after)) {
		fprintf(stderr, "usage: rt-after [--after FILE [--pid PID]] PRIO SECONDS COMMAND [ARGS...]\n");
		return 2;
	}
	errno = 0;
	prio = strtol(argv[1], &end, 10);
	if (errno || *end || end == argv[1] || prio < sched_get_priority_min(SCHED_FIFO) ||
	    prio > sched_get_priority_max(SCHED_FIFO)) {
		fprintf(stderr, "rt-after: PRIO '%s' is not a SCHED_FIFO priority (1-99)\n", argv[1]);
		return 2;
	}
	secs = strtod(argv[2], &end);
	if (*end || end == argv[2] || !(secs >= 0 && secs <= 86400)) {
		fprintf(stderr, "rt-after: SECONDS '%s' is not a number from 0 to 86400\n", argv[2]);
		return 2;
	}
	sp.sched_priority = prio;
	if (sched_setscheduler(0, SCHED_FIFO, &sp)) {
		fprintf(stderr, "rt-after: sched_setscheduler(SCHED_FIFO, %ld): %s\n", prio,
			strerror(errno));
		return 1;
	}
	while (after && access(after, F_OK)) {
		struct timespec ms = { 0, 1000000 };

		if (pid && kill(pid, 0) && errno == ESRCH) {
			fprintf(stderr, "rt-after: process %ld ended before %s appeared\n", pid, after);
			return 1;
		}
		nanosleep(&ms, NULL);
	}
	ts.tv_sec = (time_t)secs;
	ts.tv_nsec = (long)((secs - ts.tv_sec) * 1e9);
	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
	execvp(argv[3], argv + 3);
	fprintf(stderr, "rt-after: %s: %s\n", argv[3], strerror(errno));
	return 127;
}
