// SPDX-License-Identifier: GPL-2.0
/*
 * all-cpus-load: a short multi-threaded load that checks it ran everywhere.
 *
 * Phase 1 pins one thread to each online CPU and checks, with sched_getcpu(),
 * that it really runs there. Phase 2 runs --threads unpinned threads for
 * --seconds, incrementing a mutex-protected counter and a per-thread count;
 * the counter must equal the sum. Prints one TAP line per check.
 *
 * Used by the VM smoke tests ("a static pthread program runs on all vCPUs")
 * and by tests/boot-loop as the load of each boot.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Unpinned threads in phase 2; 0 means two per online CPU. */
static int opt_threads;
/* Length of phase 2 in seconds. */
static double opt_seconds = 1.0;

static pthread_mutex_t counter_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned long long counter;
static atomic_int stop;

struct pinned {
	pthread_t tid;
	int cpu;
	int seen_cpu;
	int err;
};

static void *pinned_main(void *arg)
{
	struct pinned *p = arg;
	cpu_set_t set;
	volatile unsigned long spin = 0;

	CPU_ZERO(&set);
	CPU_SET(p->cpu, &set);
	p->err = pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	if (p->err)
		return NULL;
	/* Do a little work so the thread really gets scheduled there. */
	for (int i = 0; i < 1000000; i++)
		spin += i;
	p->seen_cpu = sched_getcpu();
	return NULL;
}

struct worker {
	pthread_t tid;
	unsigned long long done;
};

static void *worker_main(void *arg)
{
	struct worker *w = arg;

	while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
		pthread_mutex_lock(&counter_lock);
		counter++;
		pthread_mutex_unlock(&counter_lock);
		w->done++;
	}
	return NULL;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: all-cpus-load [options]\n"
		"  -t, --threads N    unpinned threads in phase 2 (default: 2 per online CPU)\n"
		"  -s, --seconds S    length of phase 2 (default: %.1f)\n"
		"  -h, --help         this text\n", opt_seconds);
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "threads", required_argument, NULL, 't' },
		{ "seconds", required_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c, ncpu, failed = 0, test = 0;
	char *end;

	while ((c = getopt_long(argc, argv, "t:s:h", longopts, NULL)) != -1) {
		switch (c) {
		case 't':
			errno = 0;
			opt_threads = strtol(optarg, &end, 10);
			if (errno || *end || opt_threads < 1 || opt_threads > 4096) {
				fprintf(stderr, "all-cpus-load: --threads wants 1..4096, not '%s'\n", optarg);
				return 2;
			}
			break;
		case 's':
			errno = 0;
			opt_seconds = strtod(optarg, &end);
			if (errno || *end || !(opt_seconds > 0 && opt_seconds <= 3600)) {
				fprintf(stderr, "all-cpus-load: --seconds wants (0, 3600], not '%s'\n", optarg);
				return 2;
			}
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "all-cpus-load: unexpected argument '%s'\n", argv[optind]);
		return 2;
	}

	ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	if (!opt_threads)
		opt_threads = 2 * ncpu;
	printf("TAP version 13\n1..2\n# %d online CPUs, %d threads for %.1f s\n",
	       ncpu, opt_threads, opt_seconds);

	/* Phase 1: one pinned thread per online CPU. */
	struct pinned *pin = calloc(ncpu, sizeof(*pin));
	int on_right_cpu = 0;

	if (!pin) {
		perror("calloc");
		return 1;
	}
	for (int i = 0; i < ncpu; i++) {
		pin[i].cpu = i;
		pin[i].seen_cpu = -1;
		if (pthread_create(&pin[i].tid, NULL, pinned_main, &pin[i])) {
			perror("pthread_create");
			return 1;
		}
	}
	for (int i = 0; i < ncpu; i++) {
		pthread_join(pin[i].tid, NULL);
		if (pin[i].err)
			printf("# cpu %d: setaffinity: %s\n", i, strerror(pin[i].err));
		else if (pin[i].seen_cpu != i)
			printf("# cpu %d: thread ran on cpu %d\n", i, pin[i].seen_cpu);
		else
			on_right_cpu++;
	}
	test++;
	if (on_right_cpu == ncpu) {
		printf("ok %d - a pinned thread ran on each of the %d CPUs\n", test, ncpu);
	} else {
		printf("not ok %d - pinned threads ran on %d of %d CPUs\n", test, on_right_cpu, ncpu);
		failed++;
	}
	free(pin);

	/* Phase 2: unpinned threads contend on one mutex. */
	struct worker *w = calloc(opt_threads, sizeof(*w));
	unsigned long long sum = 0;
	struct timespec ts = {
		.tv_sec = (time_t)opt_seconds,
		.tv_nsec = (long)((opt_seconds - (time_t)opt_seconds) * 1e9),
	};

	if (!w) {
		perror("calloc");
		return 1;
	}
	for (int i = 0; i < opt_threads; i++) {
		if (pthread_create(&w[i].tid, NULL, worker_main, &w[i])) {
			perror("pthread_create");
			return 1;
		}
	}
	nanosleep(&ts, NULL);
	atomic_store(&stop, 1);
	for (int i = 0; i < opt_threads; i++) {
		pthread_join(w[i].tid, NULL);
		sum += w[i].done;
	}
	free(w);
	test++;
	if (sum == counter && sum > 0) {
		printf("ok %d - %d threads: counter %llu equals the acquisitions\n",
		       test, opt_threads, counter);
	} else {
		printf("not ok %d - counter %llu, acquisitions %llu\n", test, counter, sum);
		failed++;
	}
	return failed ? 1 : 0;
}
