// SPDX-License-Identifier: GPL-2.0
/*
 * unused-cost: what the time-slice-extension series costs tasks that never
 * ask for an extension. Two loops, each timed in rounds, the median round
 * reported:
 *
 *   syscall   getppid() in a tight loop: the syscall entry and exit paths
 *             (a SYSCALL_WORK bit test on entry).
 *   switch    two threads pinned to one CPU ping-pong through pipes: every
 *             round trip is two context switches (a flag test in
 *             __schedule()) and two returns to user space.
 *
 * Run it on the stock kernel and on the patched one with grants off and
 * compare. Prints one "name median_ns_per_op min max" line per loop, and
 * --json FILE writes the same after the shared header (lib/bench).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "bench.h"

#define PROG "unused-cost"

/* Timed rounds per loop. */
static int opt_rounds = 15;
/* getppid() calls per syscall round. */
static long opt_syscalls = 200000;
/* Round trips per switch round. */
static long opt_switches = 20000;
/* CPU the switch threads are pinned to. */
static int opt_cpu;
/* Write the results as JSON here. */
static const char *opt_json;

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double syscall_round(void)
{
	uint64_t t0 = bench_now_ns();

	for (long i = 0; i < opt_syscalls; i++)
		syscall(SYS_getppid);
	return (double)(bench_now_ns() - t0) / opt_syscalls;
}

static int ping[2], pong[2];

static void pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set)) {
		perror("sched_setaffinity");
		exit(1);
	}
}

static void *ponger(void *arg)
{
	char c;

	pin(opt_cpu);
	while (read(ping[0], &c, 1) == 1 && c)
		if (write(pong[1], &c, 1) != 1)
			break;
	return NULL;
}

static double switch_round(void)
{
	uint64_t t0 = bench_now_ns();
	char c = 1;

	for (long i = 0; i < opt_switches; i++) {
		if (write(ping[1], &c, 1) != 1 || read(pong[0], &c, 1) != 1) {
			perror("pipe");
			exit(1);
		}
	}
	/* Two switches per round trip. */
	return (double)(bench_now_ns() - t0) / (2.0 * opt_switches);
}

struct result {
	const char *name;
	double median, min, max;
};

static struct result measure(const char *name, double (*round)(void))
{
	double *v = calloc(opt_rounds, sizeof(*v));
	struct result r = { .name = name };

	if (!v) {
		perror("calloc");
		exit(1);
	}
	round();	/* warm-up */
	for (int i = 0; i < opt_rounds; i++)
		v[i] = round();
	qsort(v, opt_rounds, sizeof(*v), cmp_double);
	r.median = v[opt_rounds / 2];
	r.min = v[0];
	r.max = v[opt_rounds - 1];
	free(v);
	return r;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: unused-cost [options]\n"
		"  -r, --rounds N     timed rounds per loop (default: %d)\n"
		"      --syscalls N   getppid() calls per round (default: %ld)\n"
		"      --switches N   ping-pong round trips per round (default: %ld)\n"
		"      --cpu N        CPU for the ping-pong threads (default: %d)\n"
		"  -j, --json FILE    also write the results as JSON\n"
		"  -h, --help         this text\n",
		opt_rounds, opt_syscalls, opt_switches, opt_cpu);
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "rounds", required_argument, NULL, 'r' },
		{ "syscalls", required_argument, NULL, 's' },
		{ "switches", required_argument, NULL, 'w' },
		{ "cpu", required_argument, NULL, 'c' },
		{ "json", required_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct result res[2];
	struct bench_json json = { 0 };
	struct bench_env env;
	pthread_t t;
	char stop = 0;
	int c;

	while ((c = getopt_long(argc, argv, "r:j:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'r': opt_rounds = bench_parse_long(PROG, "rounds", optarg, 3, 1000); break;
		case 's': opt_syscalls = bench_parse_long(PROG, "syscalls", optarg, 1000, 100000000); break;
		case 'w': opt_switches = bench_parse_long(PROG, "switches", optarg, 100, 100000000); break;
		case 'c': opt_cpu = bench_parse_long(PROG, "cpu", optarg, 0, CPU_SETSIZE - 1); break;
		case 'j': opt_json = optarg; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, PROG ": unexpected argument '%s'\n", argv[optind]);
		return 2;
	}
	/* Open the output before the run, so that a bad path fails first. */
	if (opt_json && bench_json_open(&json, opt_json, PROG))
		return 1;
	bench_env_read(&env);

	res[0] = measure("syscall", syscall_round);

	if (pipe(ping) || pipe(pong)) {
		perror("pipe");
		return 1;
	}
	pin(opt_cpu);
	if (pthread_create(&t, NULL, ponger, NULL)) {
		perror("pthread_create");
		return 1;
	}
	res[1] = measure("switch", switch_round);
	if (write(ping[1], &stop, 1) != 1)
		perror("write");
	pthread_join(t, NULL);

	bench_print_env(stdout, "none", &env);
	printf("# %d rounds, median ns per op\n", opt_rounds);
	for (int i = 0; i < 2; i++)
		printf("%-8s %10.1f  min %10.1f  max %10.1f\n", res[i].name, res[i].median,
		       res[i].min, res[i].max);
	if (opt_json) {
		bench_json_header(&json, PROG, argc, argv, "none", &env);
		bench_json_obj(&json, "config");
		bench_json_u64(&json, "rounds", opt_rounds);
		bench_json_u64(&json, "syscalls", opt_syscalls);
		bench_json_u64(&json, "switches", opt_switches);
		bench_json_obj_end(&json);
		bench_json_obj(&json, "results");
		for (int i = 0; i < 2; i++) {
			bench_json_obj(&json, res[i].name);
			bench_json_dbl(&json, "median_ns", res[i].median);
			bench_json_dbl(&json, "min_ns", res[i].min);
			bench_json_dbl(&json, "max_ns", res[i].max);
			bench_json_obj_end(&json);
		}
		bench_json_obj_end(&json);
		if (bench_json_end(&json))
			return 1;
	}
	return 0;
}
