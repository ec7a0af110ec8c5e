// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of lib/bench: the log-linear histograms (exact count, sum, min
 * and max; percentiles within the bucket error; merging equals adding all
 * samples to one) and the JSON writer (given a path, writes a document the
 * suite checks with jq). Prints TAP.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

static int n, failed;

static void ok(int cond, const char *what)
{
	printf("%s %d - %s\n", cond ? "ok" : "not ok", ++n, what);
	failed += !cond;
}

/* Within the histogram's relative error (one sub-bucket) of want. */
static int close_to(uint64_t got, double want)
{
	return fabs(got - want) <= want / (1 << HIST_SUB_BITS) + 1;
}

static int cmp_u64(const void *x, const void *y)
{
	uint64_t p = *(const uint64_t *)x, q = *(const uint64_t *)y;

	return p < q ? -1 : p > q;
}

int main(int argc, char **argv)
{
	static struct hist a, b, all, empty;
	uint64_t rng = 1;

	hist_init(&a);
	hist_init(&b);
	hist_init(&all);
	hist_init(&empty);
	/* 1..100000 ns, each once, split between two histograms. */
	for (uint64_t v = 1; v <= 100000; v++) {
		hist_add(v % 2 ? &a : &b, v);
		hist_add(&all, v);
	}
	ok(all.count == 100000 && all.sum == 100000ull * 100001 / 2, "count and sum are exact");
	ok(all.min == 1 && all.max == 100000, "min and max are exact");
	ok(close_to(hist_percentile(&all, 0.5), 50000), "p50 of 1..100000 is 50000 within 3%");
	ok(close_to(hist_percentile(&all, 0.99), 99000), "p99 is 99000 within 3%");
	ok(close_to(hist_percentile(&all, 0.999), 99900), "p99.9 is 99900 within 3%");
	ok(hist_percentile(&all, 1.0) == 100000, "p100 is the max");
	hist_merge(&a, &b);
	ok(!memcmp(&a, &all, sizeof(a)), "merging two halves equals one histogram of all");
	ok(hist_percentile(&empty, 0.5) == 0 && hist_mean(&empty) == 0, "an empty histogram reads 0");

	/* Small values are exact; huge ones land in the last bucket. */
	hist_init(&a);
	for (int i = 0; i < 10; i++)
		hist_add(&a, 7);
	ok(hist_percentile(&a, 0.5) == 7, "values below 32 ns are exact");
	hist_add(&a, UINT64_MAX / 2);
	ok(hist_percentile(&a, 1.0) == UINT64_MAX / 2, "a huge value is kept as the max");

	/* A random spread: every percentile within the bound of the sorted truth. */
	{
		enum { N = 20000 };
		static uint64_t v[N];
		int bad = 0;

		hist_init(&a);
		for (int i = 0; i < N; i++) {
			rng = rng * 6364136223846793005ull + 1442695040888963407ull;
			v[i] = (rng >> 33) % 10000000;
			hist_add(&a, v[i]);
		}
		qsort(v, N, sizeof(v[0]), cmp_u64);
		for (double p = 0.1; p < 1.0; p += 0.1)
			bad += !close_to(hist_percentile(&a, p), v[(int)ceil(p * N) - 1]);
		ok(!bad, "random samples: p10..p90 within 3% of the sorted values");
	}

	if (argc > 1) {
		struct bench_json j;
		struct bench_env env;
		struct bench_kstats ks = { .have = true, .v = { 1, 2, 3, 4, 5, 6 } };

		bench_env_read(&env);
		ok(!bench_json_open(&j, argv[1], "bench_test"), "the JSON file opens");
		bench_json_header(&j, "bench_test", argc, argv, "none", &env);
		bench_json_obj(&j, "results");
		bench_json_hist(&j, "all", &all);
		bench_json_kstats(&j, "kernel", &ks);
		bench_json_str(&j, "quoted", "a \"b\"\\\n");
		bench_json_dbl(&j, "nan", NAN);
		bench_json_arr(&j, "list");
		bench_json_u64(&j, NULL, 1);
		bench_json_u64(&j, NULL, 2);
		bench_json_arr_end(&j);
		bench_json_obj_end(&j);
		ok(!bench_json_end(&j), "the JSON file is written");
	}
	printf("1..%d\n", n);
	return failed != 0;
}
