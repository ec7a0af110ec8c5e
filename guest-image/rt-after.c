// SPDX-License-Identifier: GPL-2.0
/*
 * rt-after PRIO SECONDS COMMAND [ARGS...]: become SCHED_FIFO at PRIO, sleep
 * SECONDS (fractions too), then exec COMMAND (which inherits the policy).
 *
 * sweep-runner starts cyclictest this way inside a lock-table load: a
 * SCHED_OTHER shell that sleeps and then execs cyclictest gets the CPU back
 * only after a round of the load's hundreds of threads (about 0.5 s on one
 * vCPU), so cyclictest began seconds late and measured the load's exit. An
 * RT sleeper wakes on time and cyclictest starts at once.
 */
#define _GNU_SOURCE
#include <errno.h>
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
	char *end;
	double secs;
	long prio;

	if (argc < 4) {
		fprintf(stderr, "usage: rt-after PRIO SECONDS COMMAND [ARGS...]\n");
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
	ts.tv_sec = (time_t)secs;
	ts.tv_nsec = (long)((secs - ts.tv_sec) * 1e9);
	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
	execvp(argv[3], argv + 3);
	fprintf(stderr, "rt-after: %s: %s\n", argv[3], strerror(errno));
	return 127;
}
