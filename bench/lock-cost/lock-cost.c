// SPDX-License-Identifier: GPL-2.0
/*
 * lock-cost: the hot-path cost of lib/slice, uncontended, in ns per pair.
 *
 *   plain     a test-and-test-and-set lock/unlock with no extension request
 *             (the baseline: what a database's own spinlock costs)
 *   section   slice_enter()/slice_exit() alone, under the chosen ABI
 *   tas       slice_spin_lock()/slice_spin_unlock()
 *   ticket    slice_ticket_lock()/slice_ticket_unlock()
 *
 * One thread, no contention, no preemption pressure: no grant happens, so
 * this is the price of asking. Each loop is timed in rounds; the median
 * round is reported with the min and max. The ABI is process-wide, so run
 * it once per ABI (on the patched kernel, with kernel.slice_ext_abi set).
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "slice.h"

/* Timed rounds per loop. */
static long opt_rounds = 21;
/* Pairs per round. */
static long opt_pairs = 1000000;
/* Time slice extension ABI: auto|none|rseq-cr|task-shared|mainline. */
static enum slice_abi opt_abi = SLICE_ABI_AUTO;
/* Write the results as JSON here. */
static const char *opt_json;
/* Only this loop (plain|section|tas|ticket), e.g. for hyperfine; NULL: all. */
static const char *opt_loop;

#define PROG "lock-cost"

static volatile int plain_lock;
static struct slice_spinlock tas;
static struct slice_ticketlock ticket;

static void loop_plain(long n)
{
	for (long i = 0; i < n; i++) {
		while (__atomic_exchange_n(&plain_lock, 1, __ATOMIC_ACQUIRE))
			while (__atomic_load_n(&plain_lock, __ATOMIC_RELAXED))
				__asm__ __volatile__("pause" ::: "memory");
		__atomic_store_n(&plain_lock, 0, __ATOMIC_RELEASE);
	}
}

static void loop_section(long n)
{
	for (long i = 0; i < n; i++) {
		slice_enter();
		__asm__ __volatile__("" ::: "memory");
		slice_exit();
	}
}

static void loop_tas(long n)
{
	for (long i = 0; i < n; i++) {
		slice_spin_lock(&tas);
		slice_spin_unlock(&tas);
	}
}

static void loop_ticket(long n)
{
	for (long i = 0; i < n; i++) {
		slice_ticket_lock(&ticket);
		slice_ticket_unlock(&ticket);
	}
}

struct result {
	const char *name;
	double median, min, max;
};

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static struct result measure(const char *name, void (*loop)(long))
{
	double *v = calloc(opt_rounds, sizeof(*v));
	struct result r = { .name = name };

	if (!v) {
		fprintf(stderr, PROG ": out of memory\n");
		exit(1);
	}
	loop(opt_pairs / 10);	/* warm-up */
	for (long i = 0; i < opt_rounds; i++) {
		uint64_t t0 = bench_now_ns();

		loop(opt_pairs);
		v[i] = (double)(bench_now_ns() - t0) / opt_pairs;
	}
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
		"usage: " PROG " [options]\n"
		"Uncontended cost of lib/slice's sections and locks, ns per pair.\n"
		"  -a, --abi ABI      auto|none|rseq-cr|task-shared|mainline (default: auto)\n"
		"  -r, --rounds N     timed rounds per loop (default: %ld)\n"
		"  -n, --pairs N      pairs per round (default: %ld)\n"
		"  -l, --loop NAME    only this loop: plain|section|tas|ticket (default: all);\n"
		"                     for timing whole runs, e.g. with hyperfine\n"
		"  -j, --json FILE    also write the results as JSON\n"
		"  -h, --help         this text\n",
		opt_rounds, opt_pairs);
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "abi", required_argument, NULL, 'a' },
		{ "rounds", required_argument, NULL, 'r' },
		{ "pairs", required_argument, NULL, 'n' },
		{ "loop", required_argument, NULL, 'l' },
		{ "json", required_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static const struct {
		const char *name;
		void (*loop)(long);
	} loops[] = {
		{ "plain", loop_plain },
		{ "section", loop_section },
		{ "tas", loop_tas },
		{ "ticket", loop_ticket },
	};
	struct result res[4];
	int nres = 0;
	struct slice_counters sc;
	struct bench_json json;
	struct bench_env env;
	char err[256];
	int c, rc = 0;

	while ((c = getopt_long(argc, argv, "a:r:n:l:j:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'a':
			opt_abi = bench_parse_abi(PROG, optarg);
			break;
		case 'r': opt_rounds = bench_parse_long(PROG, "rounds", optarg, 3, 10000); break;
		case 'n': opt_pairs = bench_parse_long(PROG, "pairs", optarg, 100, 1000000000); break;
		case 'l': opt_loop = optarg; break;
		case 'j': opt_json = optarg; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, PROG ": unexpected argument '%s' (see --help)\n", argv[optind]);
		return 2;
	}
	if (opt_loop) {
		int i = 0;

		while (i < 4 && strcmp(opt_loop, loops[i].name))
			i++;
		if (i == 4) {
			fprintf(stderr, PROG ": --loop: unknown loop '%s' (plain, section, tas, ticket)\n",
				opt_loop);
			return 2;
		}
	}
	if (opt_json && bench_json_open(&json, opt_json, PROG))
		return 1;
	if (slice_init(opt_abi, err, sizeof(err))) {
		fprintf(stderr, PROG ": %s\n", err);
		return 1;
	}
	bench_env_read(&env);

	for (int i = 0; i < 4; i++)
		if (!opt_loop || !strcmp(opt_loop, loops[i].name))
			res[nres++] = measure(loops[i].name, loops[i].loop);
	slice_counters_get(&sc);

	bench_print_env(stdout, slice_abi_name(slice_current_abi()), &env);
	printf("# %ld rounds of %ld pairs; ns per pair: median (min, max)\n", opt_rounds, opt_pairs);
	for (int i = 0; i < nres; i++)
		printf("%-8s %8.2f  (%.2f, %.2f)\n", res[i].name, res[i].median, res[i].min,
		       res[i].max);
	printf("grants seen: %llu (next to none: nothing else wants this CPU)\n",
	       (unsigned long long)sc.grants);

	if (opt_json) {
		bench_json_header(&json, PROG, argc, argv, slice_abi_name(slice_current_abi()), &env);
		bench_json_obj(&json, "config");
		bench_json_u64(&json, "rounds", opt_rounds);
		bench_json_u64(&json, "pairs", opt_pairs);
		bench_json_obj_end(&json);
		bench_json_obj(&json, "results");
		for (int i = 0; i < nres; i++) {
			bench_json_obj(&json, res[i].name);
			bench_json_dbl(&json, "median_ns", res[i].median);
			bench_json_dbl(&json, "min_ns", res[i].min);
			bench_json_dbl(&json, "max_ns", res[i].max);
			bench_json_obj_end(&json);
		}
		bench_json_u64(&json, "grants", sc.grants);
		bench_json_obj_end(&json);
		if (bench_json_end(&json))
			rc = 1;
	}
	return rc;
}
