// SPDX-License-Identifier: GPL-2.0
/*
 * extend-sched: Steven Rostedt's time slice extension micro-benchmark, as
 * seed 001 describes it.
 *
 * One lock thread per CPU, pinned to it, takes one shared user-space
 * spinlock, holds it for about 30 us (a busy loop), releases it, then sleeps
 * 100 + cpu * 27 us so that the threads stagger. Five noise threads per CPU,
 * pinned too, loop { 100 write barriers; sleep 10 us }: lots of SCHED_OTHER
 * wakeups that preempt the lock holders. It runs for 5 s and reports the
 * iterations, the total and average wait for the lock, how often it was
 * contended, how often the holder found itself extended, the longest wait,
 * and the longest and average hold, in the seed's format, then percentiles.
 *
 * --disable (seed 001's -d; -d is --duration in every slicebench tool)
 * disables the extension (ABI none); -w keeps the thread "extended"
 * while it spins for the lock. A counter under the lock must equal the
 * acquisitions at the end, or the run fails (exit 1).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"
#include "slice.h"

/* Seconds to run. */
static long opt_duration = 5;
/* How long a lock thread holds the lock, in microseconds. */
static long opt_hold_us = 30;
/* Base of the lock threads' sleep, in microseconds (plus cpu * --stagger-us). */
static long opt_sleep_us = 100;
/* Per-CPU addition to the sleep, in microseconds. */
static long opt_stagger_us = 27;
/* Noise threads per CPU. */
static long opt_noise = 5;
/* Sleep of the noise threads between bursts, in microseconds. */
static long opt_noise_sleep_us = 10;
/* CPUs to use, from 0; 0 means every online CPU. */
static long opt_cpus;
/* Time slice extension ABI: auto|none|rseq-cr|task-shared|mainline. */
static enum slice_abi opt_abi = SLICE_ABI_AUTO;
/* Stay extended while spinning for the lock (Rostedt's -w). */
static int opt_extend_waiting;
/* Write the results as JSON here. */
static const char *opt_json;

#define PROG "extend-sched"

struct lock_thread {
	pthread_t thread;
	int cpu;
	uint64_t iterations, contended, acquired;
	struct hist wait, hold;
	struct slice_counters sc;
	int err;
} __attribute__((aligned(64)));

struct noise_thread {
	pthread_t thread;
	int cpu;
	int err;
};

static struct slice_spinlock lock;
static uint64_t protected_count;	/* under lock */
static volatile int done;

static int pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set) ? errno : 0;
}

static void *lock_main(void *arg)
{
	struct lock_thread *t = arg;
	uint64_t hold_ns = opt_hold_us * 1000;

	t->err = pin(t->cpu);
	if (t->err)
		return NULL;
	if (slice_thread_init()) {
		t->err = errno ? errno : EINVAL;
		return NULL;
	}
	while (!__atomic_load_n(&done, __ATOMIC_RELAXED)) {
		uint64_t t0 = bench_now_ns(), t1, t2;

		t->contended += slice_spin_lock(&lock);
		t1 = bench_now_ns();
		protected_count++;
		bench_spin_ns(hold_ns);
		t2 = bench_now_ns();
		slice_spin_unlock(&lock);
		t->iterations++;
		hist_add(&t->wait, t1 - t0);
		hist_add(&t->hold, t2 - t1);
		bench_sleep_us(opt_sleep_us + t->cpu * opt_stagger_us);
	}
	slice_counters_get(&t->sc);
	return NULL;
}

static void *noise_main(void *arg)
{
	struct noise_thread *n = arg;

	n->err = pin(n->cpu);
	if (n->err)
		return NULL;
	while (!__atomic_load_n(&done, __ATOMIC_RELAXED)) {
		for (int i = 0; i < 100; i++)
			__asm__ __volatile__("sfence" ::: "memory");	/* wmb() */
		bench_sleep_us(opt_noise_sleep_us);
		__asm__ __volatile__("lfence" ::: "memory");		/* rmb() */
	}
	return NULL;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: " PROG " [options]\n"
		"Rostedt's micro-benchmark: per-CPU lock threads among noise threads.\n"
		"      --disable            no extension (the same as --abi none; seed 001's -d)\n"
		"  -w, --extend-waiting     stay extended while spinning for the lock\n"
		"  -a, --abi ABI            auto|none|rseq-cr|task-shared|mainline (default: auto)\n"
		"  -d, --duration S         seconds to run (default: %ld)\n"
		"      --hold-us US         lock hold time (default: %ld)\n"
		"      --sleep-us US        lock threads' base sleep (default: %ld)\n"
		"      --stagger-us US      added to the sleep per CPU number (default: %ld)\n"
		"      --noise N            noise threads per CPU (default: %ld)\n"
		"      --noise-sleep-us US  noise threads' sleep (default: %ld)\n"
		"      --cpus N             use CPUs 0..N-1, 0 = all online (default: %ld)\n"
		"  -j, --json FILE          also write the results as JSON\n"
		"  -h, --help               this text\n",
		opt_duration, opt_hold_us, opt_sleep_us, opt_stagger_us, opt_noise,
		opt_noise_sleep_us, opt_cpus);
}

static void parse_options(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "disable", no_argument, NULL, 'X' },
		{ "extend-waiting", no_argument, NULL, 'w' },
		{ "abi", required_argument, NULL, 'a' },
		{ "duration", required_argument, NULL, 'd' },
		{ "hold-us", required_argument, NULL, 'H' },
		{ "sleep-us", required_argument, NULL, 'S' },
		{ "stagger-us", required_argument, NULL, 'G' },
		{ "noise", required_argument, NULL, 'n' },
		{ "noise-sleep-us", required_argument, NULL, 'N' },
		{ "cpus", required_argument, NULL, 'c' },
		{ "json", required_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int disable = 0, abi_given = 0, c;

	while ((c = getopt_long(argc, argv, "wa:d:j:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'X': disable = 1; break;
		case 'w': opt_extend_waiting = 1; break;
		case 'a':
			opt_abi = bench_parse_abi(PROG, optarg);
			abi_given = 1;
			break;
		case 'd': opt_duration = bench_parse_long(PROG, "duration", optarg, 1, 86400); break;
		case 'H': opt_hold_us = bench_parse_long(PROG, "hold-us", optarg, 0, 1000000); break;
		case 'S': opt_sleep_us = bench_parse_long(PROG, "sleep-us", optarg, 0, 10000000); break;
		case 'G': opt_stagger_us = bench_parse_long(PROG, "stagger-us", optarg, 0, 1000000); break;
		case 'n': opt_noise = bench_parse_long(PROG, "noise", optarg, 0, 1000); break;
		case 'N':
			opt_noise_sleep_us = bench_parse_long(PROG, "noise-sleep-us", optarg, 0, 10000000);
			break;
		case 'c': opt_cpus = bench_parse_long(PROG, "cpus", optarg, 0, CPU_SETSIZE); break;
		case 'j': opt_json = optarg; break;
		case 'h': usage(stdout); exit(0);
		default: usage(stderr); exit(2);
		}
	}
	if (optind < argc) {
		fprintf(stderr, PROG ": unexpected argument '%s' (see --help)\n", argv[optind]);
		exit(2);
	}
	if (disable && abi_given && opt_abi != SLICE_ABI_NONE) {
		fprintf(stderr, PROG ": --disable means no extension; it contradicts --abi %s\n",
			slice_abi_name(opt_abi));
		exit(2);
	}
	if (disable)
		opt_abi = SLICE_ABI_NONE;
	if (disable && opt_extend_waiting) {
		/* The seed: "-w is meaningless with -d". Say so rather than pretend. */
		fprintf(stderr, PROG ": note: -w has no effect with --disable\n");
	}
}

int main(int argc, char **argv)
{
	struct bench_kstats k_before, k_after, k_delta;
	struct slice_counters lib = { 0 };
	struct lock_thread *lt;
	struct noise_thread *nt;
	struct bench_env env;
	struct bench_json json;
	struct hist wait, hold;
	uint64_t iterations = 0, contended = 0, t0, t1;
	double secs;
	char err[256];
	int ncpus, rc = 0;

	parse_options(argc, argv);
	if (opt_json && bench_json_open(&json, opt_json, PROG))
		return 1;
	if (slice_init(opt_abi, err, sizeof(err))) {
		fprintf(stderr, PROG ": %s\n", err);
		return 1;
	}
	slice_set_extend_while_waiting(opt_extend_waiting);
	bench_env_read(&env);
	ncpus = opt_cpus ? opt_cpus : env.nr_cpus;
	if (ncpus > env.nr_cpus) {
		fprintf(stderr, PROG ": --cpus %d: only %d CPUs are online\n", ncpus, env.nr_cpus);
		return 2;
	}

	printf(PROG ": %d CPUs, hold %ld us, sleep %ld + cpu * %ld us, %ld noise threads per CPU, "
	       "%ld s%s\n", ncpus, opt_hold_us, opt_sleep_us, opt_stagger_us, opt_noise,
	       opt_duration, opt_extend_waiting ? ", extended while waiting" : "");
	bench_print_env(stdout, slice_abi_name(slice_current_abi()), &env);
	fflush(stdout);

	lt = calloc(ncpus, sizeof(*lt));
	nt = calloc(ncpus * opt_noise + 1, sizeof(*nt));
	if (!lt || !nt) {
		fprintf(stderr, PROG ": out of memory\n");
		return 1;
	}
	bench_kstats_read(&k_before);
	t0 = bench_now_ns();
	for (int cpu = 0; cpu < ncpus; cpu++) {
		for (long i = 0; i < opt_noise; i++) {
			struct noise_thread *n = &nt[cpu * opt_noise + i];

			n->cpu = cpu;
			if ((errno = pthread_create(&n->thread, NULL, noise_main, n))) {
				perror(PROG ": pthread_create");
				return 1;
			}
		}
		lt[cpu].cpu = cpu;
		hist_init(&lt[cpu].wait);
		hist_init(&lt[cpu].hold);
		if ((errno = pthread_create(&lt[cpu].thread, NULL, lock_main, &lt[cpu]))) {
			perror(PROG ": pthread_create");
			return 1;
		}
	}
	bench_sleep_us(opt_duration * 1000000);
	__atomic_store_n(&done, 1, __ATOMIC_RELAXED);
	t1 = bench_now_ns();
	bench_kstats_read(&k_after);
	for (int cpu = 0; cpu < ncpus; cpu++) {
		pthread_join(lt[cpu].thread, NULL);
		for (long i = 0; i < opt_noise; i++)
			pthread_join(nt[cpu * opt_noise + i].thread, NULL);
	}
	bench_kstats_delta(&k_delta, &k_before, &k_after);
	secs = (t1 - t0) / 1e9;

	hist_init(&wait);
	hist_init(&hold);
	for (int cpu = 0; cpu < ncpus; cpu++) {
		struct lock_thread *t = &lt[cpu];

		if (t->err) {
			fprintf(stderr, PROG ": lock thread on CPU %d: %s\n", cpu, strerror(t->err));
			rc = 1;
		}
		for (long i = 0; i < opt_noise; i++)
			if (nt[cpu * opt_noise + i].err) {
				fprintf(stderr, PROG ": noise thread on CPU %d: %s\n", cpu,
					strerror(nt[cpu * opt_noise + i].err));
				rc = 1;
			}
		iterations += t->iterations;
		contended += t->contended;
		hist_merge(&wait, &t->wait);
		hist_merge(&hold, &t->hold);
		lib.sections += t->sc.sections;
		lib.grants += t->sc.grants;
		lib.yields += t->sc.yields;
		lib.denied += t->sc.denied;
	}

	/* The seed's report, then more. */
	printf("Finish up\n");
	printf("Ran for %llu times\n", (unsigned long long)iterations);
	printf("Total wait time: %f  (avg: %f)\n", wait.sum / 1e9,
	       iterations ? wait.sum / 1e9 / iterations : 0);
	printf("Total contention: %llu\n", (unsigned long long)contended);
	printf("Total extended: %llu\n", (unsigned long long)lib.grants);
	printf("      max wait: %llu\n", (unsigned long long)(wait.max / 1000));
	printf("           max: %llu (avg: %llu)\n", (unsigned long long)(hold.max / 1000),
	       (unsigned long long)(hist_mean(&hold) / 1000));
	printf("wait us: p50 %.1f p90 %.1f p99 %.1f p99.9 %.1f; hold us: p99 %.1f\n",
	       hist_percentile(&wait, 0.5) / 1e3, hist_percentile(&wait, 0.9) / 1e3,
	       hist_percentile(&wait, 0.99) / 1e3, hist_percentile(&wait, 0.999) / 1e3,
	       hist_percentile(&hold, 0.99) / 1e3);
	bench_print_kstats(stdout, &k_delta);
	if (protected_count != iterations) {
		printf("correctness: FAILED: the lock's counter is %llu, the threads took it %llu times\n",
		       (unsigned long long)protected_count, (unsigned long long)iterations);
		rc = 1;
	} else {
		printf("correctness: ok (counter under the lock = %llu acquisitions)\n",
		       (unsigned long long)iterations);
	}

	if (opt_json) {
		struct bench_json *j = &json;

		bench_json_header(j, PROG, argc, argv, slice_abi_name(slice_current_abi()), &env);
		bench_json_obj(j, "config");
		bench_json_u64(j, "cpus", ncpus);
		bench_json_u64(j, "duration_s", opt_duration);
		bench_json_u64(j, "hold_us", opt_hold_us);
		bench_json_u64(j, "sleep_us", opt_sleep_us);
		bench_json_u64(j, "stagger_us", opt_stagger_us);
		bench_json_u64(j, "noise_per_cpu", opt_noise);
		bench_json_u64(j, "noise_sleep_us", opt_noise_sleep_us);
		bench_json_bool(j, "extend_waiting", opt_extend_waiting);
		bench_json_obj_end(j);
		bench_json_obj(j, "results");
		bench_json_dbl(j, "seconds", secs);
		bench_json_u64(j, "iterations", iterations);
		bench_json_u64(j, "contended", contended);
		bench_json_u64(j, "extended", lib.grants);
		bench_json_hist(j, "wait", &wait);
		bench_json_hist(j, "hold", &hold);
		bench_json_obj(j, "library");
		bench_json_u64(j, "sections", lib.sections);
		bench_json_u64(j, "granted", lib.grants);
		bench_json_u64(j, "yields", lib.yields);
		bench_json_u64(j, "denied", lib.denied);
		bench_json_obj_end(j);
		bench_json_kstats(j, "kernel", &k_delta);
		bench_json_bool(j, "correct", protected_count == iterations);
		bench_json_obj_end(j);
		if (bench_json_end(j))
			rc = 1;
	}
	return rc;
}
