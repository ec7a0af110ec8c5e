// SPDX-License-Identifier: GPL-2.0
/*
 * latency-probe: what time slice extension costs the other tasks, in the
 * spirit of cyclictest. While a load command runs (typically locktable),
 * two periodic threads per probed CPU sleep until an absolute deadline and
 * record how late they woke:
 *
 *   fifo    SCHED_FIFO (priority 50): under the "never delay RT" policy an
 *           extension must not delay it; under "bounded" it may wait up
 *           to the extension length
 *   other   SCHED_OTHER: it competes with the load for the CPU and may wait
 *           behind a grant as well as behind the scheduler
 *
 * Reports p50, p90, p99, p99.9 and max per class. The load's exit status
 * is checked: a load that fails fails the probe (exit 1).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"

/* Seconds to probe. */
static long opt_duration = 10;
/* Seconds after starting the load (or after --after's file appeared) before probing. */
static long opt_delay = 3;
/*
 * Count the delay from when this file appears (locktable --ready-file: its
 * measured window began), not from the load's start: the load's start
 * gate wakes its threads in one system call that a PREEMPT_VOLUNTARY
 * kernel does not preempt (1.9 ms for 700 threads on the precise
 * testbed), and a probe must not measure it.
 */
static const char *opt_after;
/* Wakeup period, microseconds. */
static long opt_interval_us = 1000;
/* SCHED_FIFO priority of the RT probe. */
static int opt_priority = 50;
/* CPUs probed: 0..N-1; 0 means every online CPU. */
static long opt_cpus;
/* Write the results as JSON here. */
static const char *opt_json;

#define PROG "latency-probe"

enum { FIFO, OTHER, NR_CLASSES };
static const char *const class_names[NR_CLASSES] = { "fifo", "other" };

struct probe {
	pthread_t thread;
	int cpu, cls;
	struct hist lat;
	int err;
};

static volatile int stop;

static void *probe_main(void *arg)
{
	struct probe *p = arg;
	struct timespec next;
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(p->cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set)) {
		p->err = errno;
		return NULL;
	}
	if (p->cls == FIFO) {
		struct sched_param sp = { .sched_priority = opt_priority };

		if (sched_setscheduler(0, SCHED_FIFO, &sp)) {
			p->err = errno;
			return NULL;
		}
	}
	clock_gettime(CLOCK_MONOTONIC, &next);
	while (!__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
		struct timespec now;
		int64_t late;

		next.tv_nsec += opt_interval_us * 1000;
		while (next.tv_nsec >= 1000000000) {
			next.tv_nsec -= 1000000000;
			next.tv_sec++;
		}
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL) == EINTR)
			;
		clock_gettime(CLOCK_MONOTONIC, &now);
		late = (now.tv_sec - next.tv_sec) * 1000000000ll + (now.tv_nsec - next.tv_nsec);
		hist_add(&p->lat, late > 0 ? late : 0);
		/* A thread that woke very late re-bases rather than bursting to catch up. */
		if (late > opt_interval_us * 1000)
			next = now;
	}
	return NULL;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: " PROG " [options] -- LOAD [ARGS...]\n"
		"Wakeup latency of a SCHED_FIFO and a SCHED_OTHER thread per CPU while LOAD runs.\n"
		"  -d, --duration S     seconds to probe (default: %ld)\n"
		"      --delay S        seconds between starting LOAD and probing (default: %ld)\n"
		"      --after FILE     count the delay from when FILE appears (default: from\n"
		"                       the load's start); the load must create it\n"
		"      --interval US    wakeup period (default: %ld)\n"
		"  -p, --priority N     SCHED_FIFO priority (default: %d)\n"
		"      --cpus N         probe CPUs 0..N-1, 0 = all online (default: %ld)\n"
		"  -j, --json FILE      also write the results as JSON\n"
		"  -h, --help           this text\n",
		opt_duration, opt_delay, opt_interval_us, opt_priority, opt_cpus);
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "duration", required_argument, NULL, 'd' },
		{ "delay", required_argument, NULL, 'D' },
		{ "after", required_argument, NULL, 'A' },
		{ "interval", required_argument, NULL, 'i' },
		{ "priority", required_argument, NULL, 'p' },
		{ "cpus", required_argument, NULL, 'c' },
		{ "json", required_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct bench_kstats k_before, k_after, k_delta;
	struct hist merged[NR_CLASSES];
	struct bench_json json;
	struct bench_env env;
	struct probe *probes;
	int c, ncpus, status = 0, rc = 0;
	pid_t load;

	while ((c = getopt_long(argc, argv, "+d:p:j:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'd': opt_duration = bench_parse_long(PROG, "duration", optarg, 1, 86400); break;
		case 'D': opt_delay = bench_parse_long(PROG, "delay", optarg, 0, 3600); break;
		case 'A': opt_after = optarg; break;
		case 'i': opt_interval_us = bench_parse_long(PROG, "interval", optarg, 50, 1000000); break;
		case 'p': opt_priority = bench_parse_long(PROG, "priority", optarg, 1, 99); break;
		case 'c': opt_cpus = bench_parse_long(PROG, "cpus", optarg, 0, CPU_SETSIZE); break;
		case 'j': opt_json = optarg; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind >= argc) {
		fprintf(stderr, PROG ": no load command given (after --)\n");
		usage(stderr);
		return 2;
	}
	if (opt_json && bench_json_open(&json, opt_json, PROG))
		return 1;
	bench_env_read(&env);
	ncpus = opt_cpus ? opt_cpus : env.nr_cpus;
	if (ncpus > env.nr_cpus) {
		fprintf(stderr, PROG ": --cpus %d: only %d CPUs are online\n", ncpus, env.nr_cpus);
		return 2;
	}

	load = fork();
	if (load < 0) {
		perror(PROG ": fork");
		return 1;
	}
	if (!load) {
		execvp(argv[optind], argv + optind);
		fprintf(stderr, PROG ": %s: %s\n", argv[optind], strerror(errno));
		_exit(127);
	}
	while (opt_after && access(opt_after, F_OK)) {
		if (waitpid(load, &status, WNOHANG) == load) {
			fprintf(stderr, PROG ": the load exited (status %d) before %s appeared\n",
				WIFEXITED(status) ? WEXITSTATUS(status) : -1, opt_after);
			return 1;
		}
		bench_sleep_us(1000);
	}
	bench_sleep_us(opt_delay * 1000000);
	if (waitpid(load, &status, WNOHANG) == load) {
		fprintf(stderr, PROG ": the load exited before probing started (status %d)\n",
			WIFEXITED(status) ? WEXITSTATUS(status) : -1);
		return 1;
	}

	probes = calloc(ncpus * NR_CLASSES, sizeof(*probes));
	if (!probes) {
		fprintf(stderr, PROG ": out of memory\n");
		kill(load, SIGTERM);
		return 1;
	}
	bench_kstats_read(&k_before);
	for (int i = 0; i < ncpus * NR_CLASSES; i++) {
		probes[i].cpu = i / NR_CLASSES;
		probes[i].cls = i % NR_CLASSES;
		hist_init(&probes[i].lat);
		if ((errno = pthread_create(&probes[i].thread, NULL, probe_main, &probes[i]))) {
			perror(PROG ": pthread_create");
			kill(load, SIGTERM);
			return 1;
		}
	}
	bench_sleep_us(opt_duration * 1000000);
	__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
	for (int i = 0; i < ncpus * NR_CLASSES; i++)
		pthread_join(probes[i].thread, NULL);
	bench_kstats_read(&k_after);
	bench_kstats_delta(&k_delta, &k_before, &k_after);

	/* The load runs to its own end; its status counts. */
	if (waitpid(load, &status, 0) != load || !WIFEXITED(status) || WEXITSTATUS(status)) {
		fprintf(stderr, PROG ": the load failed (status 0x%x)\n", status);
		rc = 1;
	}

	for (int k = 0; k < NR_CLASSES; k++)
		hist_init(&merged[k]);
	for (int i = 0; i < ncpus * NR_CLASSES; i++) {
		if (probes[i].err) {
			fprintf(stderr, PROG ": %s probe on CPU %d: %s\n", class_names[probes[i].cls],
				probes[i].cpu, strerror(probes[i].err));
			rc = 1;
		}
		hist_merge(&merged[probes[i].cls], &probes[i].lat);
	}
	bench_print_env(stdout, "none", &env);
	for (int k = 0; k < NR_CLASSES; k++)
		printf("%-5s wakeups %llu: p50 %.1f us, p90 %.1f, p99 %.1f, p99.9 %.1f, max %.1f us\n",
		       class_names[k], (unsigned long long)merged[k].count,
		       hist_percentile(&merged[k], 0.5) / 1e3, hist_percentile(&merged[k], 0.9) / 1e3,
		       hist_percentile(&merged[k], 0.99) / 1e3,
		       hist_percentile(&merged[k], 0.999) / 1e3, merged[k].max / 1e3);
	bench_print_kstats(stdout, &k_delta);
	if (opt_json) {
		bench_json_header(&json, PROG, argc, argv, "none", &env);
		bench_json_obj(&json, "config");
		bench_json_u64(&json, "duration_s", opt_duration);
		bench_json_u64(&json, "interval_us", opt_interval_us);
		bench_json_u64(&json, "priority", opt_priority);
		bench_json_u64(&json, "cpus", ncpus);
		bench_json_obj_end(&json);
		bench_json_obj(&json, "results");
		for (int k = 0; k < NR_CLASSES; k++)
			bench_json_hist(&json, class_names[k], &merged[k]);
		bench_json_kstats(&json, "kernel", &k_delta);
		bench_json_bool(&json, "load_ok", rc == 0);
		bench_json_obj_end(&json);
		if (bench_json_end(&json))
			rc = 1;
	}
	return rc;
}
