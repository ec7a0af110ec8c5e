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
 * --json FILE writes the same.
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
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

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

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double syscall_round(void)
{
	uint64_t t0 = now_ns();

	for (long i = 0; i < opt_syscalls; i++)
		syscall(SYS_getppid);
	return (double)(now_ns() - t0) / opt_syscalls;
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
	uint64_t t0 = now_ns();
	char c = 1;

	for (long i = 0; i < opt_switches; i++) {
		if (write(ping[1], &c, 1) != 1 || read(pong[0], &c, 1) != 1) {
			perror("pipe");
			exit(1);
		}
	}
	/* Two switches per round trip. */
	return (double)(now_ns() - t0) / (2.0 * opt_switches);
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

static long parse_long(const char *opt, const char *s, long min, long max)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || v < min || v > max) {
		fprintf(stderr, "unused-cost: %s wants %ld..%ld, not '%s'\n", opt, min, max, s);
		exit(2);
	}
	return v;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: unused-cost [options]\n"
		"  -r, --rounds N     timed rounds per loop (default: %d)\n"
		"  -s, --syscalls N   getppid() calls per round (default: %ld)\n"
		"  -w, --switches N   ping-pong round trips per round (default: %ld)\n"
		"  -c, --cpu N        CPU for the ping-pong threads (default: %d)\n"
		"      --json FILE    also write the results as JSON\n"
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
	struct utsname u;
	pthread_t t;
	char stop = 0;
	int c;

	while ((c = getopt_long(argc, argv, "r:s:w:c:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'r': opt_rounds = parse_long("--rounds", optarg, 3, 1000); break;
		case 's': opt_syscalls = parse_long("--syscalls", optarg, 1000, 100000000); break;
		case 'w': opt_switches = parse_long("--switches", optarg, 100, 100000000); break;
		case 'c': opt_cpu = parse_long("--cpu", optarg, 0, CPU_SETSIZE - 1); break;
		case 'j': opt_json = optarg; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "unused-cost: unexpected argument '%s'\n", argv[optind]);
		return 2;
	}

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

	uname(&u);
	printf("# kernel %s, %d rounds, median ns per op\n", u.release, opt_rounds);
	for (int i = 0; i < 2; i++)
		printf("%-8s %10.1f  min %10.1f  max %10.1f\n", res[i].name, res[i].median,
		       res[i].min, res[i].max);
	if (opt_json) {
		FILE *f = fopen(opt_json, "w");

		if (!f) {
			fprintf(stderr, "unused-cost: %s: %s\n", opt_json, strerror(errno));
			return 1;
		}
		fprintf(f, "{\"tool\": \"unused-cost\", \"kernel\": \"%s\", \"rounds\": %d, \"results\": {", u.release, opt_rounds);
		for (int i = 0; i < 2; i++)
			fprintf(f, "%s\"%s\": {\"median_ns\": %.1f, \"min_ns\": %.1f, \"max_ns\": %.1f}",
				i ? ", " : "", res[i].name, res[i].median, res[i].min, res[i].max);
		fprintf(f, "}}\n");
		fclose(f);
	}
	return 0;
}
