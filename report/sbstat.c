// SPDX-License-Identifier: GPL-2.0
/*
 * sbstat: the statistics slicebench's reports use, on numbers read from
 * files (one per line, or whitespace separated).
 *
 *   sbstat summary FILE          n, mean, standard deviation, median, and the
 *                                95% confidence interval of the mean (t-based)
 *   sbstat welch FILE_A FILE_B   Welch's two-sample t-test: the means, their
 *                                difference B - A in absolute and relative
 *                                terms, its 95% interval, t, the
 *                                Welch-Satterthwaite df, and the two-sided p
 *   sbstat qt P DF               the t distribution's quantile
 *   sbstat pt T DF               its cumulative distribution
 *
 * Output is "key value" lines, easy to read from shell. The t distribution
 * comes from the regularized incomplete beta function (a continued
 * fraction, Lentz's method); quantiles by bisection on it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PROG "sbstat"

/* ln of the complete beta function. */
static double lbeta(double a, double b)
{
	return lgamma(a) + lgamma(b) - lgamma(a + b);
}

/* Continued fraction for the incomplete beta function (Lentz). */
static double betacf(double a, double b, double x)
{
	const double tiny = 1e-300, eps = 1e-15;
	double c = 1, d = 1 - (a + b) * x / (a + 1), h;

	if (fabs(d) < tiny)
		d = tiny;
	d = 1 / d;
	h = d;
	for (int m = 1; m <= 10000; m++) {
		double m2 = 2 * m, aa, del;

		aa = m * (b - m) * x / ((a + m2 - 1) * (a + m2));
		d = 1 + aa * d;
		if (fabs(d) < tiny)
			d = tiny;
		c = 1 + aa / c;
		if (fabs(c) < tiny)
			c = tiny;
		d = 1 / d;
		h *= d * c;
		aa = -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1));
		d = 1 + aa * d;
		if (fabs(d) < tiny)
			d = tiny;
		c = 1 + aa / c;
		if (fabs(c) < tiny)
			c = tiny;
		d = 1 / d;
		del = d * c;
		h *= del;
		if (fabs(del - 1) < eps)
			break;
	}
	return h;
}

/* The regularized incomplete beta function I_x(a, b). */
static double betai(double a, double b, double x)
{
	double front;

	if (x <= 0)
		return 0;
	if (x >= 1)
		return 1;
	front = exp(a * log(x) + b * log(1 - x) - lbeta(a, b));
	if (x < (a + 1) / (a + b + 2))
		return front * betacf(a, b, x) / a;
	return 1 - front * betacf(b, a, 1 - x) / b;
}

/* P(T <= t) for Student's t with df degrees of freedom. */
static double pt(double t, double df)
{
	double tail = 0.5 * betai(df / 2, 0.5, df / (df + t * t));

	return t >= 0 ? 1 - tail : tail;
}

/* The p-quantile of Student's t with df degrees of freedom. */
static double qt(double p, double df)
{
	double lo = -1e6, hi = 1e6;

	for (int i = 0; i < 200; i++) {
		double mid = (lo + hi) / 2;

		if (pt(mid, df) < p)
			lo = mid;
		else
			hi = mid;
	}
	return (lo + hi) / 2;
}

struct sample {
	double *v;
	size_t n;
	double mean, sd, var;
};

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static void load(const char *path, struct sample *s)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "r") : stdin;
	char word[128];
	size_t cap = 16;

	if (!f) {
		fprintf(stderr, PROG ": %s: %s\n", path, strerror(errno));
		exit(1);
	}
	s->n = 0;
	s->v = malloc(cap * sizeof(double));
	while (s->v && fscanf(f, "%127s", word) == 1) {
		char *end;
		double x;

		errno = 0;
		x = strtod(word, &end);
		if (*end || errno || !isfinite(x)) {
			fprintf(stderr, PROG ": %s: value %zu ('%s') is not a number\n", path,
				s->n + 1, word);
			exit(1);
		}
		if (s->n == cap) {
			cap *= 2;
			s->v = realloc(s->v, cap * sizeof(double));
			if (!s->v)
				break;
		}
		s->v[s->n++] = x;
	}
	if (!s->v) {
		fprintf(stderr, PROG ": out of memory\n");
		exit(1);
	}
	if (f != stdin)
		fclose(f);
	if (s->n < 2) {
		fprintf(stderr, PROG ": %s: %zu value(s); at least 2 are needed\n", path, s->n);
		exit(1);
	}
	s->mean = 0;
	for (size_t i = 0; i < s->n; i++)
		s->mean += s->v[i];
	s->mean /= s->n;
	s->var = 0;
	for (size_t i = 0; i < s->n; i++)
		s->var += (s->v[i] - s->mean) * (s->v[i] - s->mean);
	s->var /= s->n - 1;
	s->sd = sqrt(s->var);
	qsort(s->v, s->n, sizeof(double), cmp_double);
}

static double median(const struct sample *s)
{
	return s->n % 2 ? s->v[s->n / 2] : (s->v[s->n / 2 - 1] + s->v[s->n / 2]) / 2;
}

static double number(const char *what, const char *s)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (!*s || *end || errno || !isfinite(v)) {
		fprintf(stderr, PROG ": %s: '%s' is not a number\n", what, s);
		exit(2);
	}
	return v;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: " PROG " summary FILE | welch FILE_A FILE_B | qt P DF | pt T DF\n"
		"  (FILE: numbers separated by white space; - is standard input)\n");
}

int main(int argc, char **argv)
{
	struct sample a, b;

	if (argc == 3 && !strcmp(argv[1], "summary")) {
		double h;

		load(argv[2], &a);
		h = qt(0.975, a.n - 1) * a.sd / sqrt(a.n);
		printf("n %zu\nmean %.10g\nsd %.10g\nmedian %.10g\nmin %.10g\nmax %.10g\n"
		       "ci95_low %.10g\nci95_high %.10g\n", a.n, a.mean, a.sd, median(&a), a.v[0],
		       a.v[a.n - 1], a.mean - h, a.mean + h);
		return 0;
	}
	if (argc == 4 && !strcmp(argv[1], "welch")) {
		double va, vb, se, t, df, p, h, diff;

		load(argv[2], &a);
		load(argv[3], &b);
		va = a.var / a.n;
		vb = b.var / b.n;
		se = sqrt(va + vb);
		diff = b.mean - a.mean;
		if (se == 0) {
			/* Both constant: equal means are no evidence, different ones are certain. */
			t = diff == 0 ? 0 : (diff > 0 ? INFINITY : -INFINITY);
			df = a.n + b.n - 2;
			p = diff == 0 ? 1 : 0;
			h = 0;
		} else {
			t = diff / se;
			df = (va + vb) * (va + vb) /
			     (va * va / (a.n - 1) + vb * vb / (b.n - 1));
			p = 2 * (1 - pt(fabs(t), df));
			h = qt(0.975, df) * se;
		}
		printf("n_a %zu\nn_b %zu\nmean_a %.10g\nmean_b %.10g\nsd_a %.10g\nsd_b %.10g\n"
		       "median_a %.10g\nmedian_b %.10g\ndiff %.10g\n", a.n, b.n, a.mean, b.mean, a.sd,
		       b.sd, median(&a), median(&b), diff);
		printf("rel_diff %.10g\n", a.mean != 0 ? diff / fabs(a.mean) : NAN);
		printf("diff_ci95_low %.10g\ndiff_ci95_high %.10g\nt %.10g\ndf %.10g\np %.10g\n",
		       diff - h, diff + h, t, df, p);
		return 0;
	}
	if (argc == 4 && (!strcmp(argv[1], "qt") || !strcmp(argv[1], "pt"))) {
		double x = number(argv[1][0] == 'q' ? "P" : "T", argv[2]), df = number("DF", argv[3]);

		if (df <= 0 || (argv[1][0] == 'q' && (x <= 0 || x >= 1))) {
			fprintf(stderr, PROG ": %s: want 0 < P < 1 and DF > 0\n", argv[1]);
			return 2;
		}
		printf("%.10g\n", argv[1][0] == 'q' ? qt(x, df) : pt(x, df));
		return 0;
	}
	if (argc == 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		usage(stdout);
		return 0;
	}
	usage(stderr);
	return 2;
}
