// SPDX-License-Identifier: GPL-2.0
/*
 * locktable: Oracle's "lock table test" (seed 004), reconstructed.
 *
 * A "database" of tables, each a row array guarded by an extension-aware
 * user-space spinlock (lib/slice.h). Client threads loop: pick a table
 * (uniformly, or Zipf-skewed), take its lock, run the query's work on its
 * rows under the lock, release, do some work outside the lock, repeat. One
 * loop is one "SQL execution". CPU-hog threads spin beside them, so that
 * lock holders get preempted at the end of their slices: the case the time
 * slice extension is for. Everything is SCHED_OTHER and unpinned.
 *
 * The work is real (hashing into the table's rows) and calibrated in
 * microseconds before the run. At the end every table's row sum must equal
 * the sum of what the clients added to it, and its acquisition counter the
 * clients' acquisitions; a mismatch fails the run (exit 1).
 *
 * A hold that lasts longer than the calibrated work plus --preempt-threshold
 * counts as "preempted while holding": the holder was off the CPU (or the
 * whole vCPU was, on an oversubscribed host; both arms of a comparison pay
 * that alike). It counts if it ends in the measured window, even if it began
 * in the warm-up: on one CPU with hundreds of threads such a hold stalls
 * every client for a whole round of the scheduler, inside the window.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <libgen.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"
#include "slice.h"

/* Client threads ("SQL sessions"). */
static long opt_clients = 300;
/* CPU-hog threads. */
static long opt_hogs = 400;
/* Tables, each with its own lock. */
static long opt_tables = 32;
/* Rows per table. */
static long opt_rows = 256;
/* Work done under the table lock, per execution, in microseconds. */
static double opt_work_in_us = 5;
/* Work done outside any lock, per execution, in microseconds. */
static double opt_work_out_us = 10;
/* Zipf exponent of the table choice; 0 is uniform. */
static double opt_skew;
/* Measured seconds, after the warmup. */
static long opt_duration = 10;
/* Seconds of warmup (not measured). */
static double opt_warmup = 2;
/* Seconds between progress lines; 0 for none. */
static long opt_interval = 1;
/* Time slice extension ABI: auto|none|rseq-cr|task-shared|mainline. */
static enum slice_abi opt_abi = SLICE_ABI_AUTO;
/* Stay extended while spinning for a lock (Rostedt's -w). */
static int opt_extend_waiting;
/* The table locks' kind (lock_names[]). */
static enum lock_kind {
	LOCK_TAS,	/* test-and-test-and-set spinlock */
	LOCK_TICKET,	/* ticket spinlock */
	LOCK_FUTEX,	/* spin --spin-us, then sleep in FUTEX_WAIT (lib) */
	LOCK_YIELD,	/* spin --spin-us, then sched_yield() (lib) */
	LOCK_PTHREAD,	/* glibc's default pthread mutex */
	LOCK_ADAPTIVE,	/* glibc's PTHREAD_MUTEX_ADAPTIVE_NP */
} opt_lock = LOCK_TAS;
static const char *const lock_names[] = { "tas", "ticket", "futex", "yield", "pthread", "adaptive" };
/* futex and yield locks: how long they spin before they sleep or yield, us. */
static double opt_spin_us = SLICE_SPIN_NS_DEFAULT / 1000.0;
/* The CPU hogs' scheduling policy. */
static enum bench_hog_policy opt_hog_policy = BENCH_HOG_OTHER;
/* A hold this much longer than the calibrated work counts as preempted, in us. */
static long opt_preempt_threshold_us = 500;
/* Seed of the clients' random table choices and work. */
static unsigned long opt_seed = 1;
/* Write the results as JSON here. */
static const char *opt_json;
/*
 * Create this file when the measured window begins (after the start gate,
 * which wakes every thread in one system call, and the warmup): a probe
 * run beside the load (cyclictest, latency-probe) waits for it, so that
 * it measures the load, not the load's start.
 */
static const char *opt_ready_file;
/*
 * The work's speed in work units per microsecond. 0: calibrate at start,
 * the fastest of 7 back-to-back timings (about 0.5 ms). A run under TCG
 * can time all 7 while the host has the vCPU off its CPU, and then runs
 * every critical section short: sweep-runner measures the speed once per
 * boot with --calibrate and gives it to each run (LOCKTABLE_UNITS_PER_US),
 * so that every arm in a boot holds its locks for the same work.
 */
static double opt_units_per_us;
/* Print the work's speed (a slower, spread-out calibration) and exit. */
static int opt_calibrate;

#define PROG "locktable"
#define CACHELINE 64

struct table {
	union {
		struct slice_spinlock tas;
		struct slice_ticketlock ticket;
		struct slice_futexlock futex;
		struct slice_yieldlock yield;
		pthread_mutex_t mutex;
	} lock;
	uint64_t acquisitions;		/* under the lock */
	uint64_t *rows;			/* under the lock */
} __attribute__((aligned(CACHELINE)));

struct client {
	pthread_t thread;
	unsigned int id;
	uint64_t rng;
	/* Loops so far, warmup included; read by the progress lines. */
	uint64_t execs;
	/* In the measured window: */
	uint64_t m_execs, m_contended, m_long_holds;
	struct hist wait, hold;
	struct slice_counters sc_start, sc_end;
	/* Per table, all run long: what this client added, and how often it locked. */
	uint64_t *added, *acquired;
	uint64_t private_rows[64];
	int setup_err;
} __attribute__((aligned(CACHELINE)));

enum phase { WARMUP, MEASURE, STOP };

static struct table *tables;
static struct client *clients;
static double *table_cdf;		/* skewed choice: cumulative probabilities */
static volatile int phase = WARMUP;
/* Every thread waits here until all exist, so creating them is not a race with spinners. */
static pthread_barrier_t start_gate;
/* The calibration: work units per microsecond. */
static double units_per_us;
static uint64_t units_in, units_out;
static uint64_t long_hold_ns;

static inline uint64_t rng_next(uint64_t *s)
{
	/* splitmix64 */
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/*
 * The query's work: units hash steps, each adding a value to one row.
 * Returns the sum added, for the checksum.
 */
static uint64_t do_work(uint64_t *rows, unsigned long nrows, uint64_t units, uint64_t *rng)
{
	uint64_t h = rng_next(rng), sum = 0;

	for (uint64_t i = 0; i < units; i++) {
		uint64_t v;

		h ^= h >> 33;
		h *= 0xff51afd7ed558ccdull;
		h ^= h >> 33;
		v = (h >> 40) | 1;
		rows[h % nrows] += v;
		sum += v;
	}
	return sum;
}

static unsigned int pick_table(uint64_t *rng)
{
	double u;
	unsigned int lo = 0, hi = opt_tables - 1;

	if (!table_cdf)
		return rng_next(rng) % opt_tables;
	u = (rng_next(rng) >> 11) * 0x1.0p-53;
	while (lo < hi) {
		unsigned int mid = (lo + hi) / 2;

		if (table_cdf[mid] < u)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * Take a table's lock, its critical section an extension-aware one whatever
 * the kind (with --abi none, or grants off, a plain one); true if contended.
 */
static bool table_lock(struct table *tb)
{
	switch (opt_lock) {
	case LOCK_TICKET:
		return slice_ticket_lock(&tb->lock.ticket);
	case LOCK_FUTEX:
		return slice_futex_lock(&tb->lock.futex);
	case LOCK_YIELD:
		return slice_yield_lock(&tb->lock.yield);
	case LOCK_PTHREAD:
	case LOCK_ADAPTIVE: {
		bool contended = pthread_mutex_trylock(&tb->lock.mutex) != 0;

		if (contended)
			pthread_mutex_lock(&tb->lock.mutex);
		slice_enter();
		return contended;
	}
	default:
		return slice_spin_lock(&tb->lock.tas);
	}
}

static void table_unlock(struct table *tb)
{
	switch (opt_lock) {
	case LOCK_TICKET:
		slice_ticket_unlock(&tb->lock.ticket);
		break;
	case LOCK_FUTEX:
		slice_futex_unlock(&tb->lock.futex);
		break;
	case LOCK_YIELD:
		slice_yield_unlock(&tb->lock.yield);
		break;
	case LOCK_PTHREAD:
	case LOCK_ADAPTIVE:
		pthread_mutex_unlock(&tb->lock.mutex);
		slice_exit();
		break;
	default:
		slice_spin_unlock(&tb->lock.tas);
		break;
	}
}

static void *client_main(void *arg)
{
	struct client *c = arg;
	int seen = WARMUP;

	if (slice_thread_init())
		c->setup_err = errno ? errno : EINVAL;
	pthread_barrier_wait(&start_gate);
	while (1) {
		int ph = __atomic_load_n(&phase, __ATOMIC_RELAXED);
		unsigned int t = pick_table(&c->rng);
		struct table *tb = &tables[t];
		uint64_t t0, t1, t2, sum;
		bool contended;

		if (ph != seen) {
			if (seen == WARMUP)
				slice_counters_get(&c->sc_start);
			if (ph == STOP)
				break;
			seen = ph;
		}
		t0 = bench_now_ns();
		contended = table_lock(tb);
		t1 = bench_now_ns();
		sum = do_work(tb->rows, opt_rows, units_in, &c->rng);
		tb->acquisitions++;
		t2 = bench_now_ns();
		table_unlock(tb);
		c->added[t] += sum;
		c->acquired[t]++;
		if (ph == MEASURE) {
			c->m_execs++;
			c->m_contended += contended;
			hist_add(&c->wait, t1 - t0);
			hist_add(&c->hold, t2 - t1);
			c->m_long_holds += t2 - t1 > long_hold_ns;
		} else if (ph == WARMUP && t2 - t1 > long_hold_ns &&
			   __atomic_load_n(&phase, __ATOMIC_RELAXED) == MEASURE) {
			c->m_long_holds++;
		}
		if (units_out)
			do_work(c->private_rows, 64, units_out, &c->rng);
		__atomic_store_n(&c->execs, c->execs + 1, __ATOMIC_RELAXED);
	}
	slice_counters_get(&c->sc_end);
	return NULL;
}

/*
 * Work units per microsecond: the fastest of TRIALS timed runs, GAP_US
 * apart. A host preemption or an interrupt only slows a timing down, so
 * the fastest is the work's own speed; spreading the timings over time
 * keeps one long host preemption from covering all of them.
 */
static double calibrate(int trials, long gap_us)
{
	uint64_t rows[256] = { 0 }, rng = 42, units = 20000, best = UINT64_MAX;

	for (int i = 0; i < trials; i++) {
		uint64_t t0 = bench_now_ns(), dt;

		do_work(rows, 256, units, &rng);
		dt = bench_now_ns() - t0;
		if (dt < best)
			best = dt;
		if (gap_us)
			usleep(gap_us);
	}
	return best ? units * 1000.0 / best : 1;
}

static uint64_t sum_execs(void)
{
	uint64_t n = 0;

	for (long i = 0; i < opt_clients; i++)
		n += __atomic_load_n(&clients[i].execs, __ATOMIC_RELAXED);
	return n;
}

/* The measured window's hooks (lib/bench.h: struct bench_window). */
static uint64_t window_execs(int i, void *arg)
{
	return sum_execs();
}

static void window_open(void *arg)
{
	__atomic_store_n(&phase, MEASURE, __ATOMIC_RELAXED);
}

static void window_close(void *arg)
{
	__atomic_store_n(&phase, STOP, __ATOMIC_RELAXED);
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: " PROG " [options]\n"
		"Oracle's lock-table test: clients take table spinlocks among CPU hogs.\n"
		"  -c, --clients N          client threads (default: %ld)\n"
		"  -H, --hogs N             CPU-hog threads (default: %ld)\n"
		"  -t, --tables N           tables, one lock each (default: %ld)\n"
		"      --rows N             rows per table (default: %ld)\n"
		"  -i, --work-in US         work under the lock per execution, us (default: %g)\n"
		"  -o, --work-out US        work outside the lock per execution, us (default: %g)\n"
		"      --skew THETA         Zipf exponent of the table choice, 0 = uniform (default: %g)\n"
		"  -d, --duration S         measured seconds (default: %ld)\n"
		"  -W, --warmup S           warmup seconds, fractions too (default: %g)\n"
		"  -I, --interval S         seconds between progress lines, 0 = none (default: %ld)\n"
		"  -a, --abi ABI            auto|none|rseq-cr|task-shared|mainline (default: auto)\n"
		"  -w, --extend-waiting     stay extended while spinning for a lock (default: off)\n"
		"      --lock KIND          tas|ticket|futex|yield|pthread|adaptive (default: tas):\n"
		"                           spinlocks, spin then FUTEX_WAIT, spin then\n"
		"                           sched_yield(), glibc's default and adaptive mutexes\n"
		"      --spin-us US         futex and yield locks: spin this long first (default: %g)\n"
		"      --hog-policy P       the hogs' scheduling: other|nice19|idle|batch (default: other)\n"
		"      --preempt-threshold US  a hold this much over the work counts as\n"
		"                           preempted (default: %ld)\n"
		"  -S, --seed N             random seed (default: %lu)\n"
		"  -j, --json FILE          also write the results as JSON\n"
		"      --ready-file FILE    create FILE when the measured window begins\n"
		"                           (FILE must not exist; default: none)\n"
		"      --units-per-us N     the work's speed (work units per us) instead of\n"
		"                           calibrating at start; default: the environment's\n"
		"                           LOCKTABLE_UNITS_PER_US, else calibrate (the\n"
		"                           fastest of 7 timings)\n"
		"      --calibrate          print the work's speed, the fastest of 50 timings\n"
		"                           10 ms apart, and exit\n"
		"  -h, --help               this text\n",
		opt_clients, opt_hogs, opt_tables, opt_rows, opt_work_in_us, opt_work_out_us,
		opt_skew, opt_duration, opt_warmup, opt_interval, opt_spin_us, opt_preempt_threshold_us,
		opt_seed);
}

static void parse_options(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "clients", required_argument, NULL, 'c' },
		{ "hogs", required_argument, NULL, 'H' },
		{ "tables", required_argument, NULL, 't' },
		{ "rows", required_argument, NULL, 'R' },
		{ "work-in", required_argument, NULL, 'i' },
		{ "work-out", required_argument, NULL, 'o' },
		{ "skew", required_argument, NULL, 'k' },
		{ "duration", required_argument, NULL, 'd' },
		{ "warmup", required_argument, NULL, 'W' },
		{ "interval", required_argument, NULL, 'I' },
		{ "abi", required_argument, NULL, 'a' },
		{ "extend-waiting", no_argument, NULL, 'w' },
		{ "lock", required_argument, NULL, 'L' },
		{ "spin-us", required_argument, NULL, 's' },
		{ "hog-policy", required_argument, NULL, 'p' },
		{ "preempt-threshold", required_argument, NULL, 'P' },
		{ "seed", required_argument, NULL, 'S' },
		{ "json", required_argument, NULL, 'j' },
		{ "ready-file", required_argument, NULL, 'r' },
		{ "units-per-us", required_argument, NULL, 'U' },
		{ "calibrate", no_argument, NULL, 'C' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	while ((c = getopt_long(argc, argv, "c:H:t:i:o:d:W:I:a:wS:j:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'c': opt_clients = bench_parse_long(PROG, "clients", optarg, 1, 100000); break;
		case 'H': opt_hogs = bench_parse_long(PROG, "hogs", optarg, 0, 100000); break;
		case 't': opt_tables = bench_parse_long(PROG, "tables", optarg, 1, 1000000); break;
		case 'R': opt_rows = bench_parse_long(PROG, "rows", optarg, 1, 1 << 20); break;
		case 'i': opt_work_in_us = bench_parse_double(PROG, "work-in", optarg, 0, 1e6); break;
		case 'o': opt_work_out_us = bench_parse_double(PROG, "work-out", optarg, 0, 1e6); break;
		case 'k': opt_skew = bench_parse_double(PROG, "skew", optarg, 0, 10); break;
		case 'd': opt_duration = bench_parse_long(PROG, "duration", optarg, 1, 86400); break;
		case 'W': opt_warmup = bench_parse_double(PROG, "warmup", optarg, 0, 3600); break;
		case 'I': opt_interval = bench_parse_long(PROG, "interval", optarg, 0, 86400); break;
		case 'a':
			opt_abi = bench_parse_abi(PROG, optarg);
			break;
		case 'w': opt_extend_waiting = 1; break;
		case 'L': {
			size_t i;

			for (i = 0; i < sizeof(lock_names) / sizeof(lock_names[0]); i++)
				if (!strcmp(optarg, lock_names[i]))
					break;
			if (i == sizeof(lock_names) / sizeof(lock_names[0])) {
				fprintf(stderr, PROG ": --lock: unknown kind '%s' (tas, ticket, futex, "
					"yield, pthread, adaptive)\n", optarg);
				exit(2);
			}
			opt_lock = i;
			break;
		}
		case 's': opt_spin_us = bench_parse_double(PROG, "spin-us", optarg, 0, 1e6); break;
		case 'p': opt_hog_policy = bench_parse_hog_policy(PROG, optarg); break;
		case 'P':
			opt_preempt_threshold_us = bench_parse_long(PROG, "preempt-threshold", optarg,
								    1, 10000000);
			break;
		case 'S':
			opt_seed = bench_parse_long(PROG, "seed", optarg, 0, __LONG_MAX__);
			break;
		case 'j': opt_json = optarg; break;
		case 'r':
			/* A file left from an earlier run would start a probe too early. */
			if (!access(optarg, F_OK)) {
				fprintf(stderr, PROG ": --ready-file: %s exists already\n", optarg);
				exit(2);
			} else {
				char *dir = strdup(optarg);

				if (!dir || access(dirname(dir), W_OK)) {
					fprintf(stderr, PROG ": --ready-file: cannot create %s: %s\n",
						optarg, strerror(dir ? errno : ENOMEM));
					exit(2);
				}
				free(dir);
			}
			opt_ready_file = optarg;
			break;
		case 'U':
			opt_units_per_us = bench_parse_double(PROG, "units-per-us", optarg, 1, 1e6);
			break;
		case 'C': opt_calibrate = 1; break;
		case 'h': usage(stdout); exit(0);
		default: usage(stderr); exit(2);
		}
	}
	if (optind < argc) {
		fprintf(stderr, PROG ": unexpected argument '%s' (see --help)\n", argv[optind]);
		exit(2);
	}
	if (!opt_units_per_us && getenv("LOCKTABLE_UNITS_PER_US")) {
		const char *e = getenv("LOCKTABLE_UNITS_PER_US");
		char *end;

		errno = 0;
		opt_units_per_us = strtod(e, &end);
		if (!*e || *end || errno || !(opt_units_per_us >= 1 && opt_units_per_us <= 1e6)) {
			fprintf(stderr, PROG ": LOCKTABLE_UNITS_PER_US: '%s' is not a number "
				"in [1, 1e6]\n", e);
			exit(2);
		}
	}
	if (opt_extend_waiting && (opt_lock == LOCK_PTHREAD || opt_lock == LOCK_ADAPTIVE)) {
		fprintf(stderr, PROG ": --extend-waiting: not with --lock %s (its waiters sleep in "
			"the kernel)\n", lock_names[opt_lock]);
		exit(2);
	}
}

static void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n, size);

	if (!p) {
		fprintf(stderr, PROG ": out of memory\n");
		exit(1);
	}
	return p;
}

int main(int argc, char **argv)
{
	struct bench_window win = { 0 };
	struct slice_counters lib = { 0 };
	struct hist wait, hold;
	struct bench_env env;
	struct bench_json json;
	struct bench_hogs *hogs;
	uint64_t execs = 0, contended = 0, long_holds = 0, t_start;
	uint64_t bad_tables = 0, total_acq = 0;
	long hogs_under_policy;
	double secs;
	char err[256];
	int rc = 0;

	parse_options(argc, argv);
	if (opt_calibrate) {
		printf("%.1f\n", calibrate(50, 10000));
		return 0;
	}
	if (opt_json && bench_json_open(&json, opt_json, PROG))
		return 1;
	if (slice_init(opt_abi, err, sizeof(err))) {
		fprintf(stderr, PROG ": %s\n", err);
		return 1;
	}
	slice_set_extend_while_waiting(opt_extend_waiting);
	slice_set_spin_ns(llround(opt_spin_us * 1000));
	bench_env_read(&env);

	units_per_us = opt_units_per_us ? opt_units_per_us : calibrate(7, 0);
	units_in = llround(opt_work_in_us * units_per_us);
	units_out = llround(opt_work_out_us * units_per_us);
	long_hold_ns = (uint64_t)(opt_work_in_us * 1000) + opt_preempt_threshold_us * 1000;

	tables = aligned_alloc(CACHELINE, opt_tables * sizeof(*tables));
	if (!tables) {
		fprintf(stderr, PROG ": out of memory\n");
		return 1;
	}
	memset(tables, 0, opt_tables * sizeof(*tables));
	for (long t = 0; t < opt_tables; t++) {
		tables[t].rows = xcalloc(opt_rows, sizeof(uint64_t));
		if (opt_lock == LOCK_PTHREAD || opt_lock == LOCK_ADAPTIVE) {
			pthread_mutexattr_t a;

			pthread_mutexattr_init(&a);
			pthread_mutexattr_settype(&a, opt_lock == LOCK_ADAPTIVE ?
						  PTHREAD_MUTEX_ADAPTIVE_NP : PTHREAD_MUTEX_DEFAULT);
			pthread_mutex_init(&tables[t].lock.mutex, &a);
			pthread_mutexattr_destroy(&a);
		}
	}
	if (opt_skew > 0) {
		double norm = 0, acc = 0;

		table_cdf = xcalloc(opt_tables, sizeof(double));
		for (long t = 0; t < opt_tables; t++)
			norm += 1 / pow(t + 1, opt_skew);
		for (long t = 0; t < opt_tables; t++)
			table_cdf[t] = (acc += 1 / pow(t + 1, opt_skew) / norm);
		table_cdf[opt_tables - 1] = 1;
	}

	printf(PROG ": %ld clients, %ld hogs, %ld tables (%s), %.1f us in / %.1f us out "
	       "(%.0f units/us, %s), %s lock%s, %ld s + %g s warmup\n",
	       opt_clients, opt_hogs, opt_tables, opt_skew > 0 ? "zipf" : "uniform",
	       opt_work_in_us, opt_work_out_us, units_per_us,
	       opt_units_per_us ? "given" : "calibrated", lock_names[opt_lock],
	       opt_extend_waiting ? ", extended while waiting" : "", opt_duration, opt_warmup);
	bench_print_env(stdout, slice_abi_name(slice_current_abi()), &env);
	fflush(stdout);

	pthread_barrier_init(&start_gate, NULL, opt_clients + opt_hogs + 1);
	t_start = bench_now_ns();
	hogs = bench_hogs_start(PROG, opt_hogs, &start_gate, opt_hog_policy);
	clients = aligned_alloc(CACHELINE, opt_clients * sizeof(*clients));
	if (!clients) {
		fprintf(stderr, PROG ": out of memory\n");
		return 1;
	}
	memset(clients, 0, opt_clients * sizeof(*clients));
	for (long i = 0; i < opt_clients; i++) {
		struct client *c = &clients[i];

		c->id = i;
		c->rng = opt_seed * 0x100000001b3ull + i;
		hist_init(&c->wait);
		hist_init(&c->hold);
		c->added = xcalloc(opt_tables, sizeof(uint64_t));
		c->acquired = xcalloc(opt_tables, sizeof(uint64_t));
		/* Hundreds of threads: small stacks (the histograms live on the heap). */
		bench_start_thread(PROG, &c->thread, 128 * 1024, client_main, c);
	}
	pthread_barrier_wait(&start_gate);
	printf("started %ld threads in %.1f s\n", opt_clients + opt_hogs,
	       (bench_now_ns() - t_start) / 1e9);
	fflush(stdout);

	win.warmup_s = opt_warmup;
	win.duration_s = opt_duration;
	win.interval_s = opt_interval;
	win.ready_file = opt_ready_file;
	win.n_rates = 1;
	win.names[0] = "exec/s";
	win.count = window_execs;
	win.open = window_open;
	win.close = window_close;
	bench_window_run(PROG, &win);
	/* The hogs go too, or the clients would take long to see STOP. */
	hogs_under_policy = bench_hogs_under_policy(hogs);
	bench_hogs_stop(hogs);
	for (long i = 0; i < opt_clients; i++)
		pthread_join(clients[i].thread, NULL);

	/* Merge the clients' results. */
	hist_init(&wait);
	hist_init(&hold);
	for (long i = 0; i < opt_clients; i++) {
		struct client *c = &clients[i];

		if (c->setup_err) {
			fprintf(stderr, PROG ": client %ld: setting up the %s ABI failed: %s\n", i,
				slice_abi_name(slice_current_abi()), strerror(c->setup_err));
			rc = 1;
		}
		execs += c->m_execs;
		contended += c->m_contended;
		long_holds += c->m_long_holds;
		hist_merge(&wait, &c->wait);
		hist_merge(&hold, &c->hold);
		lib.sections += c->sc_end.sections - c->sc_start.sections;
		lib.grants += c->sc_end.grants - c->sc_start.grants;
		lib.yields += c->sc_end.yields - c->sc_start.yields;
		lib.denied += c->sc_end.denied - c->sc_start.denied;
	}
	secs = bench_window_secs(&win);

	/* Correctness: every table's rows and acquisitions against the clients' books. */
	for (long t = 0; t < opt_tables; t++) {
		uint64_t want_sum = 0, want_acq = 0, got_sum = 0;

		for (long i = 0; i < opt_clients; i++) {
			want_sum += clients[i].added[t];
			want_acq += clients[i].acquired[t];
		}
		for (long r = 0; r < opt_rows; r++)
			got_sum += tables[t].rows[r];
		total_acq += want_acq;
		if (got_sum != want_sum || tables[t].acquisitions != want_acq) {
			if (!bad_tables)
				fprintf(stderr, PROG ": table %ld: row sum %llu, clients added %llu; "
					"%llu acquisitions counted, clients made %llu\n", t,
					(unsigned long long)got_sum, (unsigned long long)want_sum,
					(unsigned long long)tables[t].acquisitions,
					(unsigned long long)want_acq);
			bad_tables++;
		}
	}

	printf("SQL exec/s: %.1f (%llu executions in %.2f s)\n", execs / secs,
	       (unsigned long long)execs, secs);
	printf("lock wait: total %.3f s, mean %.2f us, p50 %.2f, p90 %.2f, p99 %.2f, "
	       "p99.9 %.2f, max %.1f us\n", wait.sum / 1e9, hist_mean(&wait) / 1e3,
	       hist_percentile(&wait, 0.5) / 1e3, hist_percentile(&wait, 0.9) / 1e3,
	       hist_percentile(&wait, 0.99) / 1e3, hist_percentile(&wait, 0.999) / 1e3,
	       wait.max / 1e3);
	printf("hold: mean %.2f us, p99 %.2f, max %.1f us\n", hist_mean(&hold) / 1e3,
	       hist_percentile(&hold, 0.99) / 1e3, hold.max / 1e3);
	printf("contended: %llu (%.1f%% of executions)\n", (unsigned long long)contended,
	       execs ? 100.0 * contended / execs : 0);
	printf("preempted while holding (hold > %.0f us): %llu (%.2f per 1000 executions)\n",
	       long_hold_ns / 1e3, (unsigned long long)long_holds,
	       execs ? 1000.0 * long_holds / execs : 0);
	printf("library: %llu sections, %llu granted, %llu yields, %llu denied\n",
	       (unsigned long long)lib.sections, (unsigned long long)lib.grants,
	       (unsigned long long)lib.yields, (unsigned long long)lib.denied);
	if (!bench_print_kstats(stdout, &win.kstats))
		printf("kernel: no counters (/sys/kernel/debug/slice_ext/stats absent)\n");
	printf("hogs: %ld of %ld under policy %s (checked from inside)\n", hogs_under_policy,
	       opt_hogs, bench_hog_policy_name(opt_hog_policy));
	if (hogs_under_policy != opt_hogs)
		rc = 1;
	if (bad_tables) {
		printf("correctness: FAILED on %llu of %ld tables\n",
		       (unsigned long long)bad_tables, opt_tables);
		rc = 1;
	} else {
		printf("correctness: ok (%ld tables, %llu acquisitions, row sums match)\n",
		       opt_tables, (unsigned long long)total_acq);
	}

	if (opt_json) {
		struct bench_json *j = &json;

		bench_json_header(j, PROG, argc, argv, slice_abi_name(slice_current_abi()), &env);
		bench_json_obj(j, "config");
		bench_json_u64(j, "clients", opt_clients);
		bench_json_u64(j, "hogs", opt_hogs);
		bench_json_u64(j, "tables", opt_tables);
		bench_json_u64(j, "rows", opt_rows);
		bench_json_dbl(j, "work_in_us", opt_work_in_us);
		bench_json_dbl(j, "work_out_us", opt_work_out_us);
		bench_json_dbl(j, "skew", opt_skew);
		bench_json_u64(j, "duration_s", opt_duration);
		bench_json_dbl(j, "warmup_s", opt_warmup);
		bench_json_bool(j, "extend_waiting", opt_extend_waiting);
		bench_json_str(j, "lock", lock_names[opt_lock]);
		bench_json_dbl(j, "spin_us", opt_spin_us);
		bench_json_str(j, "hog_policy", bench_hog_policy_name(opt_hog_policy));
		bench_json_u64(j, "preempt_threshold_us", opt_preempt_threshold_us);
		bench_json_u64(j, "seed", opt_seed);
		bench_json_dbl(j, "units_per_us", units_per_us);
		bench_json_bool(j, "units_per_us_given", !!opt_units_per_us);
		bench_json_obj_end(j);
		bench_json_obj(j, "results");
		bench_json_dbl(j, "seconds", secs);
		bench_json_u64(j, "executions", execs);
		bench_json_dbl(j, "execs_per_s", execs / secs);
		bench_json_hist(j, "wait", &wait);
		bench_json_hist(j, "hold", &hold);
		bench_json_u64(j, "contended", contended);
		bench_json_u64(j, "preempted_holding", long_holds);
		bench_json_u64(j, "hogs_under_policy", hogs_under_policy);
		bench_json_obj(j, "library");
		bench_json_u64(j, "sections", lib.sections);
		bench_json_u64(j, "granted", lib.grants);
		bench_json_u64(j, "yields", lib.yields);
		bench_json_u64(j, "denied", lib.denied);
		bench_json_obj_end(j);
		bench_json_kstats(j, "kernel", &win.kstats);
		bench_json_bool(j, "correct", !bad_tables);
		bench_json_obj_end(j);
		bench_json_arr(j, "intervals");
		for (size_t i = 0; i < win.n_iv; i++) {
			bench_json_obj(j, NULL);
			bench_json_dbl(j, "t", win.iv[i].t);
			bench_json_dbl(j, "execs_per_s", win.iv[i].rate[0]);
			bench_json_obj_end(j);
		}
		bench_json_arr_end(j);
		if (bench_json_end(j))
			rc = 1;
	}
	return rc;
}
