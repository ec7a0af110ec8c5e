// SPDX-License-Identifier: GPL-2.0
/*
 * smp-probe: what a testbed's vCPUs look like to the guest, in guest time.
 *
 * --mode loop: one thread pinned to each of the first --threads CPUs; after
 * a barrier each runs the same fixed loop (--iterations additions, a fixed
 * number of instructions) and measures it with CLOCK_MONOTONIC. On an SMP
 * machine every copy takes the time one copy takes alone, whatever the
 * number of CPUs; on a testbed that runs the vCPUs one at a time on a shared
 * clock each copy takes about N times longer.
 *
 * --mode pingpong: two threads pinned to --cpus A,B pass a counter back and
 * forth through one shared cache line, spinning (no pause: PAUSE exits the
 * TCG loop); A times each round trip. On real hardware a round trip is a
 * fraction of a microsecond; on a testbed that runs vCPUs in turn it is what
 * the turns cost.
 *
 * Prints one line per figure; --json FILE writes them after the shared
 * header (lib/bench).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"

#define PROG "smp-probe"

enum mode { MODE_LOOP, MODE_PINGPONG };

/* What to measure: loop or pingpong. */
static enum mode opt_mode = MODE_LOOP;
/* loop: pinned threads, one per CPU 0..N-1 (0: every online CPU). */
static long opt_threads;
/* loop: additions each thread makes. */
static long opt_iterations = 20000000;
/* pingpong: the two CPUs. */
static int opt_cpu_a, opt_cpu_b = 1;
/* pingpong: round trips timed (after --warmup untimed ones). */
static long opt_count = 2000;
static long opt_warmup = 100;
/* Write the results as JSON here. */
static const char *opt_json;

static void usage(FILE *f)
{
	fprintf(f,
		"usage: smp-probe [options]\n"
		"      --mode M         loop | pingpong (default: loop)\n"
		"      --threads N      loop: threads, pinned to CPUs 0..N-1 (default: every online CPU)\n"
		"      --iterations K   loop: additions per thread (default: %ld)\n"
		"      --cpus A,B       pingpong: the two CPUs (default: %d,%d)\n"
		"      --count N        pingpong: timed round trips (default: %ld)\n"
		"      --warmup N       pingpong: untimed round trips first (default: %ld)\n"
		"  -j, --json FILE      also write the results as JSON\n"
		"  -h, --help           this text\n",
		opt_iterations, opt_cpu_a, opt_cpu_b, opt_count, opt_warmup);
}

static int pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

/* --- loop ------------------------------------------------------------------ */

struct looper {
	pthread_t tid;
	int cpu;
	int err;
	int seen_cpu;
	uint64_t start_ns, end_ns;
};

static pthread_barrier_t gate;

static void *loop_main(void *arg)
{
	struct looper *l = arg;
	volatile unsigned long sum = 0;

	l->err = pin(l->cpu);
	pthread_barrier_wait(&gate);
	if (l->err)
		return NULL;
	l->start_ns = bench_now_ns();
	for (long i = 0; i < opt_iterations; i++)
		sum += i;
	l->end_ns = bench_now_ns();
	l->seen_cpu = sched_getcpu();
	return NULL;
}

static int run_loop(struct bench_json *json, int argc, char **argv, const struct bench_env *env)
{
	long n = opt_threads ? opt_threads : sysconf(_SC_NPROCESSORS_ONLN);
	struct looper *l = calloc(n, sizeof(*l));
	uint64_t min = UINT64_MAX, max = 0, sum = 0, first = UINT64_MAX, last = 0;

	if (!l) {
		perror(PROG ": calloc");
		return 1;
	}
	if (n > sysconf(_SC_NPROCESSORS_ONLN)) {
		fprintf(stderr, PROG ": --threads %ld: only %ld CPUs online\n", n,
			sysconf(_SC_NPROCESSORS_ONLN));
		return 2;
	}
	pthread_barrier_init(&gate, NULL, n);
	for (long i = 0; i < n; i++) {
		l[i].cpu = i;
		bench_start_thread(PROG, &l[i].tid, 256 << 10, loop_main, &l[i]);
	}
	for (long i = 0; i < n; i++)
		pthread_join(l[i].tid, NULL);
	for (long i = 0; i < n; i++) {
		uint64_t t = l[i].end_ns - l[i].start_ns;

		if (l[i].err || l[i].seen_cpu != l[i].cpu) {
			fprintf(stderr, PROG ": thread %ld did not run on CPU %d (%s, seen on %d)\n", i,
				l[i].cpu, l[i].err ? strerror(l[i].err) : "pinned", l[i].seen_cpu);
			return 1;
		}
		min = t < min ? t : min;
		max = t > max ? t : max;
		sum += t;
		first = l[i].start_ns < first ? l[i].start_ns : first;
		last = l[i].end_ns > last ? l[i].end_ns : last;
	}
	bench_print_env(stdout, "none", env);
	printf("%ld pinned threads, %ld additions each: per thread min %.3f ms, mean %.3f, max %.3f (max/min %.4f); all %.3f ms\n",
	       n, opt_iterations, min / 1e6, sum / 1e6 / n, max / 1e6, (double)max / min,
	       (last - first) / 1e6);
	if (json->f) {
		bench_json_header(json, PROG, argc, argv, "none", env);
		bench_json_obj(json, "config");
		bench_json_str(json, "mode", "loop");
		bench_json_u64(json, "threads", n);
		bench_json_u64(json, "iterations", opt_iterations);
		bench_json_obj_end(json);
		bench_json_obj(json, "results");
		bench_json_arr(json, "thread_ns");
		for (long i = 0; i < n; i++)
			bench_json_u64(json, NULL, l[i].end_ns - l[i].start_ns);
		bench_json_arr_end(json);
		bench_json_u64(json, "min_ns", min);
		bench_json_dbl(json, "mean_ns", (double)sum / n);
		bench_json_u64(json, "max_ns", max);
		bench_json_u64(json, "all_ns", last - first);
		bench_json_obj_end(json);
		if (bench_json_end(json))
			return 1;
	}
	free(l);
	return 0;
}

/* --- pingpong -------------------------------------------------------------- */

/* The counter, alone on its cache line: odd after A's move, even after B's. */
static struct {
	_Alignas(64) atomic_ulong seq;
	char pad[64 - sizeof(atomic_ulong)];
} line;

static int pong_err;

static void *pong_main(void *arg)
{
	unsigned long total = 2 * (unsigned long)(opt_warmup + opt_count);

	pong_err = pin(opt_cpu_b);
	for (unsigned long s = 1; s <= total; s += 2) {
		while (atomic_load_explicit(&line.seq, memory_order_acquire) != s)
			;
		atomic_store_explicit(&line.seq, s + 1, memory_order_release);
	}
	return NULL;
}

static int run_pingpong(struct bench_json *json, int argc, char **argv, const struct bench_env *env)
{
	static struct hist rt;
	pthread_t pong;
	uint64_t t0, all0 = 0;
	unsigned long s = 0;
	int err;

	if (opt_cpu_a == opt_cpu_b) {
		fprintf(stderr, PROG ": --cpus: A and B must differ\n");
		return 2;
	}
	if ((err = pin(opt_cpu_a))) {
		fprintf(stderr, PROG ": cannot pin to CPU %d: %s\n", opt_cpu_a, strerror(err));
		return 1;
	}
	hist_init(&rt);
	bench_start_thread(PROG, &pong, 256 << 10, pong_main, NULL);
	for (long i = 0; i < opt_warmup + opt_count; i++) {
		if (i == opt_warmup)
			all0 = bench_now_ns();
		t0 = bench_now_ns();
		atomic_store_explicit(&line.seq, ++s, memory_order_release);
		while (atomic_load_explicit(&line.seq, memory_order_acquire) != s + 1)
			;
		s++;
		if (i >= opt_warmup)
			hist_add(&rt, bench_now_ns() - t0);
	}
	uint64_t all = bench_now_ns() - all0;

	pthread_join(pong, NULL);
	if (pong_err) {
		fprintf(stderr, PROG ": cannot pin to CPU %d: %s\n", opt_cpu_b, strerror(pong_err));
		return 1;
	}
	bench_print_env(stdout, "none", env);
	printf("%ld round trips CPU %d -> %d -> %d: p50 %.3f us, p90 %.3f, p99 %.3f, max %.3f, mean %.3f (all %.3f us each)\n",
	       opt_count, opt_cpu_a, opt_cpu_b, opt_cpu_a, hist_percentile(&rt, 0.50) / 1e3,
	       hist_percentile(&rt, 0.90) / 1e3, hist_percentile(&rt, 0.99) / 1e3, rt.max / 1e3,
	       hist_mean(&rt) / 1e3, (double)all / opt_count / 1e3);
	if (json->f) {
		bench_json_header(json, PROG, argc, argv, "none", env);
		bench_json_obj(json, "config");
		bench_json_str(json, "mode", "pingpong");
		bench_json_u64(json, "cpu_a", opt_cpu_a);
		bench_json_u64(json, "cpu_b", opt_cpu_b);
		bench_json_u64(json, "count", opt_count);
		bench_json_u64(json, "warmup", opt_warmup);
		bench_json_obj_end(json);
		bench_json_obj(json, "results");
		bench_json_hist(json, "round_trip", &rt);
		bench_json_dbl(json, "all_per_round_trip_ns", (double)all / opt_count);
		bench_json_obj_end(json);
		if (bench_json_end(json))
			return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "mode", required_argument, NULL, 'm' },
		{ "threads", required_argument, NULL, 't' },
		{ "iterations", required_argument, NULL, 'i' },
		{ "cpus", required_argument, NULL, 'c' },
		{ "count", required_argument, NULL, 'n' },
		{ "warmup", required_argument, NULL, 'w' },
		{ "json", required_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct bench_json json = { 0 };
	struct bench_env env;
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	char *end;
	int c;

	while ((c = getopt_long(argc, argv, "j:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'm':
			if (!strcmp(optarg, "loop")) {
				opt_mode = MODE_LOOP;
			} else if (!strcmp(optarg, "pingpong")) {
				opt_mode = MODE_PINGPONG;
			} else {
				fprintf(stderr, PROG ": --mode: want loop or pingpong, not '%s'\n", optarg);
				return 2;
			}
			break;
		case 't': opt_threads = bench_parse_long(PROG, "threads", optarg, 1, 4096); break;
		case 'i': opt_iterations = bench_parse_long(PROG, "iterations", optarg, 1, 1L << 40); break;
		case 'c':
			errno = 0;
			opt_cpu_a = strtol(optarg, &end, 10);
			if (errno || end == optarg || *end != ',' || opt_cpu_a < 0) {
				fprintf(stderr, PROG ": --cpus: want A,B (two CPU numbers), not '%s'\n", optarg);
				return 2;
			}
			opt_cpu_b = bench_parse_long(PROG, "cpus", end + 1, 0, 4095);
			break;
		case 'n': opt_count = bench_parse_long(PROG, "count", optarg, 1, 100000000); break;
		case 'w': opt_warmup = bench_parse_long(PROG, "warmup", optarg, 0, 100000000); break;
		case 'j': opt_json = optarg; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, PROG ": unexpected argument '%s'\n", argv[optind]);
		return 2;
	}
	if (opt_mode == MODE_PINGPONG && (opt_cpu_a >= ncpu || opt_cpu_b >= ncpu)) {
		fprintf(stderr, PROG ": --cpus %d,%d: only %ld CPUs online\n", opt_cpu_a, opt_cpu_b, ncpu);
		return 2;
	}
	/* Open the output before the run, so that a bad path fails first. */
	if (opt_json && bench_json_open(&json, opt_json, PROG))
		return 1;
	bench_env_read(&env);
	return opt_mode == MODE_LOOP ? run_loop(&json, argc, argv, &env)
				     : run_pingpong(&json, argc, argv, &env);
}
