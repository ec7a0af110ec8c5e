// SPDX-License-Identifier: GPL-2.0
/*
 * unused-cost: what the time-slice-extension series costs tasks that never
 * ask for an extension. Four loops, each timed in rounds, the median round
 * reported:
 *
 *   syscall      getppid() in a tight loop: the syscall entry and exit paths.
 *   sched_yield  sched_yield() in a tight loop, alone on its CPU.
 *   switch       two threads pinned to one CPU ping-pong through pipes: every
 *                round trip is two voluntary context switches and two returns
 *                to user space.
 *   preempt      two threads spinning in user space on one CPU, preempted by
 *                the tick: the time lost per involuntary switch, i.e. the
 *                round's time less the user work done (at the rate one
 *                spinner alone achieves in the same boot, ticks included),
 *                divided by the involuntary switches (getrusage()).
 *
 * On the precise testbed (icount, shift 0) guest time counts guest
 * instructions, one per ns: the figures are then instructions per
 * operation. Run it on the stock kernel and on the patched one with grants
 * off, and with --opt-in ABI (the threads opt in through lib/ and never
 * ask), and compare. Prints one "name median_ns_per_op min max" line per
 * loop, and --json FILE writes the same after the shared header
 * (lib/bench).
 *
 * Timing starts once the guest's clocksource has settled: a fresh boot
 * reads time from a stand-in (tsc-early, refined-jiffies) for its first
 * seconds, until the kernel switches to its final clocksource, and a
 * round that straddles the switch measures with two clocks. The JSON
 * header's clocksource is the one timing started with, its
 * clocksource_end the one it ended with (lib/bench warns on a change).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <getopt.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "bench.h"
#include "slice.h"

#define PROG "unused-cost"

/* Timed rounds per loop. */
static int opt_rounds = 15;
/* getppid() calls per syscall round. */
static long opt_syscalls = 200000;
/* Round trips per switch round. */
static long opt_switches = 20000;
/* CPU the switch threads are pinned to. */
static int opt_cpu;
/* sched_yield() calls per yield round. */
static long opt_yields = 100000;
/* Length of a preempt round, in ms. */
static long opt_preempt_ms = 200;
/* Opt the measuring threads in to this ABI (through lib/), never asking. */
static const char *opt_opt_in = "none";
/*
 * Register each measuring thread's own rseq area of AT_RSEQ_FEATURE_SIZE
 * bytes (33 on Linux 7.0 and this series), as glibc 2.41 and later do:
 * an "RSEQ V2" registration, without the prctl. 0: glibc's registration
 * (32 bytes with Debian 12's glibc 2.36).
 */
static int opt_rseq_v2;
/* Wait at most this long (s) for the final clocksource before timing. */
static long opt_settle_s = 30;
/* Write the results as JSON here. */
static const char *opt_json;

static enum slice_abi opt_in_abi = SLICE_ABI_NONE;

/* The stand-ins a booting x86 kernel replaces within seconds. */
static int clocksource_interim(const char *cs)
{
	return !strcmp(cs, "jiffies") || !strcmp(cs, "refined-jiffies") ||
	       !strcmp(cs, "tsc-early");
}

/*
 * Wait until the clocksource is no longer a boot-time stand-in, at most
 * --settle-s seconds. Returns the seconds waited.
 */
static double settle_clocksource(char *cs, size_t len)
{
	uint64_t t0 = bench_now_ns();
	uint64_t deadline = t0 + (uint64_t)opt_settle_s * 1000000000ull;

	bench_read_clocksource(cs, len);
	while (clocksource_interim(cs) && bench_now_ns() < deadline) {
		usleep(100000);
		bench_read_clocksource(cs, len);
	}
	if (clocksource_interim(cs))
		fprintf(stderr, PROG ": warning: the clocksource is still %s after %ld s\n",
			cs, opt_settle_s);
	return (double)(bench_now_ns() - t0) / 1e9;
}

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

static double yield_round(void)
{
	uint64_t t0 = bench_now_ns();

	for (long i = 0; i < opt_yields; i++)
		sched_yield();
	return (double)(bench_now_ns() - t0) / opt_yields;
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

/* What glibc 2.41 registers: AT_RSEQ_FEATURE_SIZE bytes, AT_RSEQ_ALIGN aligned. */
static __thread struct { char b[128]; } v2_area __attribute__((aligned(128)));

static void register_rseq_v2(void)
{
	unsigned long size = getauxval(AT_RSEQ_FEATURE_SIZE);
	unsigned long align = getauxval(AT_RSEQ_ALIGN);

	if (size <= SLICE__RSEQ_ORIG_SIZE || size > sizeof(v2_area) || align > 128) {
		fprintf(stderr, PROG ": --rseq-v2: the kernel's feature size is %lu, align %lu: "
			"no V2 registration to make\n", size, align);
		exit(1);
	}
	/* Leave glibc's registration; EINVAL: it made none for this thread. */
	if (__rseq_size && syscall(__NR_rseq, (char *)__builtin_thread_pointer() + __rseq_offset,
				   __rseq_size > SLICE__RSEQ_ORIG_SIZE ? __rseq_size : SLICE__RSEQ_ORIG_SIZE,
				   SLICE__RSEQ_FLAG_UNREGISTER, SLICE__RSEQ_SIG) && errno != EINVAL) {
		perror(PROG ": --rseq-v2: leaving glibc's rseq registration");
		exit(1);
	}
	memset(&v2_area, 0, sizeof(v2_area));
	if (syscall(__NR_rseq, &v2_area, size, 0, SLICE__RSEQ_SIG)) {
		perror(PROG ": --rseq-v2: registering");
		exit(1);
	}
}

/* A measuring thread's set-up: pinned, registered, and opted in if asked to. */
static void thread_setup(void)
{
	pin(opt_cpu);
	if (opt_rseq_v2)
		register_rseq_v2();
	if (opt_in_abi != SLICE_ABI_NONE && slice_thread_init()) {
		perror(PROG ": opting in");
		exit(1);
	}
}

static void *ponger(void *arg)
{
	char c;

	thread_setup();
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

/* preempt: spinners count iterations until the round's end. */
static volatile uint64_t spin_end;

struct spinner {
	uint64_t iters;
	long nivcsw;
};

static void spin_until_end(struct spinner *sp)
{
	struct rusage ru;
	uint64_t n = 0;

	while (bench_now_ns() < spin_end)
		n++;
	sp->iters = n;
	getrusage(RUSAGE_THREAD, &ru);
	sp->nivcsw = ru.ru_nivcsw;
}

static void *spinner_main(void *arg)
{
	thread_setup();
	spin_until_end(arg);
	return NULL;
}

/* Iterations per ns of one spinner alone on the CPU: the user work rate. */
static double spin_rate;

static double spin_alone_round(void)
{
	struct spinner a = { 0 };
	uint64_t t0 = bench_now_ns();

	spin_end = t0 + opt_preempt_ms * 1000000ull;
	spin_until_end(&a);
	return (double)a.iters / (double)(bench_now_ns() - t0);
}

static double preempt_round(void)
{
	struct spinner a = { 0 }, b = { 0 };
	struct rusage ru;
	long base;
	uint64_t t0, t1;
	pthread_t t;

	getrusage(RUSAGE_THREAD, &ru);
	base = ru.ru_nivcsw;
	t0 = bench_now_ns();
	spin_end = t0 + opt_preempt_ms * 1000000ull;
	if (pthread_create(&t, NULL, spinner_main, &b)) {
		perror("pthread_create");
		exit(1);
	}
	spin_until_end(&a);
	t1 = bench_now_ns();
	pthread_join(t, NULL);
	a.nivcsw -= base;
	/* No preemption (the threads were not on one CPU): nothing to report. */
	if (a.nivcsw + b.nivcsw == 0)
		return NAN;
	/* The time not spent on user work, per involuntary switch. */
	return ((double)(t1 - t0) - (double)(a.iters + b.iters) / spin_rate) /
	       (double)(a.nivcsw + b.nivcsw);
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
		"      --yields N     sched_yield() calls per round (default: %ld)\n"
		"      --preempt-ms N length of a preempt round in ms (default: %ld)\n"
		"      --cpu N        CPU every measuring thread is pinned to (default: %d)\n"
		"      --opt-in ABI   opt the threads in to ABI through lib/, never asking:\n"
		"                     none, auto, rseq-cr, task-shared, mainline (default: %s)\n"
		"      --rseq-v2      register each thread's own rseq area of the kernel's\n"
		"                     feature size, as glibc 2.41+ does (RSEQ V2), no prctl\n"
		"                     (default: glibc's registration)\n"
		"      --settle-s N   before timing, wait at most N s for the clocksource to\n"
		"                     leave its boot-time stand-in, 0 to not wait (default: %ld)\n"
		"  -j, --json FILE    also write the results as JSON\n"
		"  -h, --help         this text\n",
		opt_rounds, opt_syscalls, opt_switches, opt_yields, opt_preempt_ms, opt_cpu,
		opt_opt_in, opt_settle_s);
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "rounds", required_argument, NULL, 'r' },
		{ "syscalls", required_argument, NULL, 's' },
		{ "switches", required_argument, NULL, 'w' },
		{ "cpu", required_argument, NULL, 'c' },
		{ "yields", required_argument, NULL, 'y' },
		{ "preempt-ms", required_argument, NULL, 'p' },
		{ "opt-in", required_argument, NULL, 'o' },
		{ "settle-s", required_argument, NULL, 'S' },
		{ "rseq-v2", no_argument, NULL, 'V' },
		{ "json", required_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct result res[4];
	char cs[64];
	double settled_s;
	char err[256];
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
		case 'y': opt_yields = bench_parse_long(PROG, "yields", optarg, 100, 100000000); break;
		case 'p': opt_preempt_ms = bench_parse_long(PROG, "preempt-ms", optarg, 10, 100000); break;
		case 'o':
			if (slice_abi_parse(optarg, &opt_in_abi)) {
				fprintf(stderr, PROG ": --opt-in: unknown ABI '%s'\n", optarg);
				return 2;
			}
			opt_opt_in = optarg;
			break;
		case 'V': opt_rseq_v2 = 1; break;
		case 'S': opt_settle_s = bench_parse_long(PROG, "settle-s", optarg, 0, 3600); break;
		case 'j': opt_json = optarg; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, PROG ": unexpected argument '%s'\n", argv[optind]);
		return 2;
	}
	if (opt_rseq_v2 && opt_in_abi != SLICE_ABI_NONE) {
		fprintf(stderr, PROG ": --rseq-v2 and --opt-in: lib/ makes its own registration "
			"for the mainline ABI; use one or the other\n");
		return 2;
	}
	/* Open the output before the run, so that a bad path fails first. */
	if (opt_json && bench_json_open(&json, opt_json, PROG))
		return 1;
	/* Before the environment, so that the header names the clock timed with. */
	settled_s = settle_clocksource(cs, sizeof(cs));
	bench_env_read(&env);
	if (opt_in_abi != SLICE_ABI_NONE) {
		if (slice_init(opt_in_abi, err, sizeof(err))) {
			fprintf(stderr, PROG ": --opt-in %s: %s\n", opt_opt_in, err);
			return 1;
		}
		opt_in_abi = slice_current_abi();
	}
	thread_setup();

	res[0] = measure("syscall", syscall_round);
	res[1] = measure("sched_yield", yield_round);

	if (pipe(ping) || pipe(pong)) {
		perror("pipe");
		return 1;
	}
	if (pthread_create(&t, NULL, ponger, NULL)) {
		perror("pthread_create");
		return 1;
	}
	res[2] = measure("switch", switch_round);
	if (write(ping[1], &stop, 1) != 1)
		perror("write");
	pthread_join(t, NULL);

	spin_rate = measure("spin", spin_alone_round).median;
	res[3] = measure("preempt", preempt_round);

	bench_print_env(stdout, slice_abi_name(opt_in_abi), &env);
	printf("# %d rounds, median ns per op\n", opt_rounds);
	printf("# threads opted in to: %s\n", slice_abi_name(opt_in_abi));
	printf("# rseq registration: %s\n", opt_rseq_v2 ? "own, AT_RSEQ_FEATURE_SIZE bytes (V2)" : "glibc's");
	printf("# timed with clocksource %s (waited %.1f s for it)\n", cs, settled_s);
	for (int i = 0; i < 4; i++)
		printf("%-12s %10.1f  min %10.1f  max %10.1f\n", res[i].name, res[i].median,
		       res[i].min, res[i].max);
	if (opt_json) {
		bench_json_header(&json, PROG, argc, argv, slice_abi_name(opt_in_abi), &env);
		bench_json_obj(&json, "config");
		bench_json_u64(&json, "rounds", opt_rounds);
		bench_json_u64(&json, "syscalls", opt_syscalls);
		bench_json_u64(&json, "switches", opt_switches);
		bench_json_u64(&json, "yields", opt_yields);
		bench_json_u64(&json, "preempt_ms", opt_preempt_ms);
		bench_json_str(&json, "opt_in", slice_abi_name(opt_in_abi));
		bench_json_u64(&json, "rseq_v2", opt_rseq_v2);
		bench_json_u64(&json, "settle_s", opt_settle_s);
		bench_json_obj_end(&json);
		bench_json_obj(&json, "setup");
		bench_json_dbl(&json, "clocksource_waited_s", settled_s);
		bench_json_obj_end(&json);
		bench_json_obj(&json, "results");
		for (int i = 0; i < 4; i++) {
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
