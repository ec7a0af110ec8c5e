// SPDX-License-Identifier: GPL-2.0
/*
 * sleep-overshoot: how late a timer wakes a task, the testbed's resolution.
 * One thread, with a timer slack of 1 ns (PR_SET_TIMERSLACK), sleeps
 * --sleep-us with clock_nanosleep() --count times, and records by how much
 * each sleep overran what was asked (CLOCK_MONOTONIC before and after).
 * Optionally SCHED_FIFO, so that no other task delays the wakeup.
 *
 * Prints p50, p90, p99, p99.9 and max of the overshoot; --json FILE writes
 * them after the shared header (lib/bench). On real hardware the overshoot
 * is a few microseconds; under multi-threaded TCG tens to hundreds; under
 * QEMU's icount it is the length of the wakeup path in guest instructions,
 * the same in every sleep.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>

#include "bench.h"

#define PROG "sleep-overshoot"

/* How long each sleep asks for, in microseconds. */
static double opt_sleep_us = 50;
/* How many sleeps. */
static long opt_count = 2000;
/* SCHED_FIFO priority (0: stay SCHED_OTHER). */
static int opt_fifo;
/* Pin to this CPU (-1: wherever the scheduler puts it). */
static int opt_cpu = -1;
/* Write the results as JSON here. */
static const char *opt_json;

static void usage(FILE *f)
{
	fprintf(f,
		"usage: sleep-overshoot [options]\n"
		"      --sleep-us US  each sleep's length (default: %g)\n"
		"      --count N      sleeps (default: %ld)\n"
		"      --fifo PRIO    run as SCHED_FIFO at PRIO, 1-99 (default: SCHED_OTHER)\n"
		"      --cpu N        pin to CPU N (default: not pinned)\n"
		"  -j, --json FILE    also write the results as JSON\n"
		"  -h, --help         this text\n",
		opt_sleep_us, opt_count);
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "sleep-us", required_argument, NULL, 's' },
		{ "count", required_argument, NULL, 'n' },
		{ "fifo", required_argument, NULL, 'f' },
		{ "cpu", required_argument, NULL, 'c' },
		{ "json", required_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct bench_json json = { 0 };
	struct bench_env env;
	static struct hist over;
	uint64_t ask_ns;
	int c;

	/* Long options only but -j and -h: one letter, one meaning across the tools. */
	while ((c = getopt_long(argc, argv, "j:h", longopts, NULL)) != -1) {
		switch (c) {
		case 's': opt_sleep_us = bench_parse_double(PROG, "sleep-us", optarg, 1, 1e6); break;
		case 'n': opt_count = bench_parse_long(PROG, "count", optarg, 1, 100000000); break;
		case 'f': opt_fifo = bench_parse_long(PROG, "fifo", optarg, 1, 99); break;
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
	if (prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0)) {
		perror(PROG ": PR_SET_TIMERSLACK");
		return 1;
	}
	if (opt_cpu >= 0) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(opt_cpu, &set);
		if (sched_setaffinity(0, sizeof(set), &set)) {
			fprintf(stderr, PROG ": --cpu %d: %s\n", opt_cpu, strerror(errno));
			return 1;
		}
	}
	if (opt_fifo) {
		struct sched_param sp = { .sched_priority = opt_fifo };

		if (sched_setscheduler(0, SCHED_FIFO, &sp)) {
			fprintf(stderr, PROG ": SCHED_FIFO %d: %s\n", opt_fifo, strerror(errno));
			return 1;
		}
	}
	ask_ns = (uint64_t)(opt_sleep_us * 1000);
	hist_init(&over);
	for (long i = 0; i < opt_count; i++) {
		struct timespec ts = { .tv_sec = ask_ns / 1000000000, .tv_nsec = ask_ns % 1000000000 };
		uint64_t t0 = bench_now_ns(), slept;

		while (clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, &ts) == EINTR)
			;
		slept = bench_now_ns() - t0;
		hist_add(&over, slept > ask_ns ? slept - ask_ns : 0);
	}

	bench_print_env(stdout, "none", &env);
	if (opt_cpu >= 0)
		printf("on CPU %d: ", opt_cpu);
	printf("%ld sleeps of %g us%s: overshoot p50 %.2f us, p90 %.2f, p99 %.2f, p99.9 %.2f, max %.2f\n",
	       opt_count, opt_sleep_us, opt_fifo ? " (SCHED_FIFO)" : "",
	       hist_percentile(&over, 0.50) / 1e3, hist_percentile(&over, 0.90) / 1e3,
	       hist_percentile(&over, 0.99) / 1e3, hist_percentile(&over, 0.999) / 1e3, over.max / 1e3);
	if (opt_json) {
		bench_json_header(&json, PROG, argc, argv, "none", &env);
		bench_json_obj(&json, "config");
		bench_json_dbl(&json, "sleep_us", opt_sleep_us);
		bench_json_u64(&json, "count", opt_count);
		bench_json_u64(&json, "fifo", opt_fifo);
		if (opt_cpu >= 0)
			bench_json_u64(&json, "cpu", opt_cpu);
		bench_json_obj_end(&json);
		bench_json_obj(&json, "results");
		bench_json_hist(&json, "overshoot", &over);
		bench_json_obj_end(&json);
		if (bench_json_end(&json))
			return 1;
	}
	return 0;
}
