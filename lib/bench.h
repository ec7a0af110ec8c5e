/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bench.h: what the slicebench benchmarks share.
 *
 *   - a clock and a busy-wait;
 *   - log-linear latency histograms (mergeable across threads);
 *   - strict option parsing (a bad value is an error, never a silent 0);
 *   - the run's environment (kernel release and command line, the time slice
 *     extension knobs) and the kernel's system-wide extension counters;
 *   - one JSON header shared by every tool.
 */
#ifndef SLICEBENCH_BENCH_H
#define SLICEBENCH_BENCH_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define SLICEBENCH_VERSION "0.4"

uint64_t bench_now_ns(void);
/* Busy-wait (no sleep, no syscall) for ns nanoseconds. */
void bench_spin_ns(uint64_t ns);
/* Sleep for us microseconds (clock_nanosleep, restarted on EINTR). */
void bench_sleep_us(uint64_t us);

/*
 * Start a thread with a STACK-byte stack (hundreds of threads: not 8 MB each).
 * On failure, print PROG: pthread_create: ERROR and exit(1).
 */
void bench_start_thread(const char *prog, pthread_t *t, size_t stack, void *(*fn)(void *),
			void *arg);

/*
 * CPU hogs: N threads that spin on pause until bench_hogs_stop(), which
 * joins them. Each first puts itself under POLICY, checks from inside that
 * it is (sched_getscheduler(), getpriority()), then waits at GATE, a
 * barrier counting it, unless NULL. bench_hogs_under_policy() is how many
 * found themselves under it (all of them, unless setting it failed: each
 * failure is reported once on stderr).
 */
enum bench_hog_policy {
	BENCH_HOG_OTHER,	/* SCHED_OTHER at nice 0, like the clients */
	BENCH_HOG_NICE19,	/* SCHED_OTHER at nice 19 */
	BENCH_HOG_IDLE,		/* SCHED_IDLE */
	BENCH_HOG_BATCH,	/* SCHED_BATCH */
};
struct bench_hogs;
struct bench_hogs *bench_hogs_start(const char *prog, long n, pthread_barrier_t *gate,
				    enum bench_hog_policy policy);
long bench_hogs_under_policy(const struct bench_hogs *h);
void bench_hogs_stop(struct bench_hogs *h);
/* "other", "nice19", "idle", "batch"; a bad name exits 2 naming the option. */
enum bench_hog_policy bench_parse_hog_policy(const char *prog, const char *s);
const char *bench_hog_policy_name(enum bench_hog_policy p);

/*
 * Log-linear histogram of nanosecond values: 2^HIST_SUB_BITS buckets per
 * power of two, so a percentile is within 1/2^HIST_SUB_BITS (3%) of the
 * true value. count, sum, min and max are exact. Values up to 2^44 ns (4.9
 * hours). Two histograms merge by adding their buckets.
 */
#define HIST_SUB_BITS 5
#define HIST_GROUPS 40
#define HIST_BUCKETS (HIST_GROUPS << HIST_SUB_BITS)

struct hist {
	uint64_t count, sum, min, max;
	uint64_t bucket[HIST_BUCKETS];
};

void hist_init(struct hist *h);
void hist_add(struct hist *h, uint64_t ns);
/* hist_add() for a histogram that several threads share. */
void hist_add_atomic(struct hist *h, uint64_t ns);
void hist_merge(struct hist *dst, const struct hist *src);
/* The value below which a fraction p (0..1] of the samples lie; 0 if empty. */
uint64_t hist_percentile(const struct hist *h, double p);
double hist_mean(const struct hist *h);

/*
 * Strict number parsing for options: the whole string must be a number in
 * [min, max]. On error, prints "PROG: --OPT: why" to stderr and exits 2.
 */
/* An --abi value; an unknown name prints the choices and exits 2. */
int bench_parse_abi(const char *prog, const char *s);
long bench_parse_long(const char *prog, const char *opt, const char *s, long min, long max);
double bench_parse_double(const char *prog, const char *opt, const char *s, double min, double max);

/* The run's environment, as the guest's /proc shows it. */
struct bench_env {
	char release[128];	/* uname -r */
	char cmdline[2048];	/* /proc/cmdline (x86: at most 2047 bytes) */
	bool have_knobs;	/* the patched kernel's /proc/sys/kernel/slice_ext_* */
	char knob_abi[32];	/* kernel.slice_ext_abi */
	long knob_grant;	/* kernel.slice_ext_grant */
	long knob_nsec;		/* kernel.slice_ext_nsec */
	char knob_rt_policy[32];	/* kernel.slice_ext_rt_policy */
	char knob_rseq_rules[16];	/* kernel.rseq_rules: 7.0 or 7.1 */
	int nr_cpus;		/* online CPUs */
	char clocksource[32];	/* current clocksource: tsc keeps clock_gettime() out of the kernel */
	/* Where the run came from (empty when unknown, e.g. on the host): */
	char commit[80];	/* slicebench.commit= (vm-run): the project's commit, "-dirty..." if changed */
	char kconfig[80];	/* slicebench.kconfig= (vm-run): sha256 prefix of the guest kernel's .config */
	char preset[32];	/* $SLICEBENCH_PRESET (run-all): default, quick, smoke */
	char run_id[128];	/* $SLICEBENCH_RUN_ID (sweep-runner): the run record it ran */
};

void bench_env_read(struct bench_env *env);
/* The kernel's current clocksource into @buf; "" if it cannot be read. */
void bench_read_clocksource(char *buf, size_t len);

/* The kernel's system-wide counters (/sys/kernel/debug/slice_ext/stats). */
enum bench_kstat {
	KSTAT_GRANTED, KSTAT_DENIED, KSTAT_EXPIRED, KSTAT_YIELDED, KSTAT_REVOKED,
	KSTAT_ABORTED, KSTAT_NR
};
extern const char *const bench_kstat_names[KSTAT_NR];

struct bench_kstats {
	bool have;		/* false: no such file (not the patched kernel, or no debugfs) */
	uint64_t v[KSTAT_NR];
};

void bench_kstats_read(struct bench_kstats *s);
/* The number at the start of a file (a /proc or /sys value), or -1. */
long bench_read_long(const char *path);
/* Print "kernel: granted N denied N ..." if d has counters; returns d->have. */
bool bench_print_kstats(FILE *f, const struct bench_kstats *d);
/* after - before, per counter; have only if both have. */
void bench_kstats_delta(struct bench_kstats *d, const struct bench_kstats *before,
			const struct bench_kstats *after);

/*
 * The measured window, as the load generators run it (locktable,
 * swingbench-lite): after warmup_s, the kernel's counters are read, open()
 * starts the program's measuring, and the window runs duration_s; every
 * interval_s (0: never) a progress line "[   Ns ] NAME: RATE ..." gives the
 * rate of each of the program's counters (count(i)) over the interval, and
 * keeps it in iv[]. Then close() stops the measuring and the counters are
 * read again. ready_file, if set, is created when the window opens (a probe
 * started beside the load measures the load, not its start).
 */
#define BENCH_WINDOW_RATES 2

struct bench_interval {
	double t;				/* seconds into the window */
	double rate[BENCH_WINDOW_RATES];	/* per second, over the interval */
};

struct bench_window {
	/* Set by the program: */
	double warmup_s;
	long duration_s;
	long interval_s;
	const char *ready_file;
	int n_rates;				/* counters shown per interval */
	const char *names[BENCH_WINDOW_RATES];	/* e.g. "exec/s" */
	uint64_t (*count)(int i, void *arg);	/* counter i so far */
	void (*open)(void *arg);		/* the window opens */
	void (*close)(void *arg);		/* the window closes */
	void *arg;
	/* Filled by bench_window_run(): */
	uint64_t t_start, t_end;		/* bench_now_ns() */
	struct bench_kstats kstats;		/* the kernel's counters over the window */
	struct bench_interval *iv;		/* the progress lines' figures */
	size_t n_iv;
};

/* Run the window (exits with a message on a ready-file error). */
void bench_window_run(const char *prog, struct bench_window *w);
/* The window's length in seconds. */
double bench_window_secs(const struct bench_window *w);

/*
 * JSON output. bench_json_open() opens FILE at start-up, so that a bad path
 * fails before the run (-1, and it says why). bench_json_header() writes "{"
 * and the shared "header" object: tool, version, kernel release and command
 * line, the project commit (and whether the tree was dirty), the kernel's
 * configuration hash, run-all's preset, the ABI the tool chose, the kernel's knobs (extension length, grant
 * switch, RT policy), the tool's own command line. Then the tool writes its fields with the helpers below, and
 * bench_json_end() closes the object and the file (0, or -1 on a write
 * error, reported).
 */
struct bench_json {
	FILE *f;
	const char *path;
	int depth;
	bool first[8];
};

int bench_json_open(struct bench_json *j, const char *path, const char *tool);
void bench_json_header(struct bench_json *j, const char *tool, int argc, char **argv,
		       const char *abi, const struct bench_env *env);
void bench_json_obj(struct bench_json *j, const char *key);	/* "key": { */
void bench_json_obj_end(struct bench_json *j);			/* } */
void bench_json_arr(struct bench_json *j, const char *key);	/* "key": [ */
void bench_json_arr_end(struct bench_json *j);			/* ] */
void bench_json_u64(struct bench_json *j, const char *key, uint64_t v);	/* key NULL in arrays */
void bench_json_dbl(struct bench_json *j, const char *key, double v);
void bench_json_str(struct bench_json *j, const char *key, const char *v);
void bench_json_bool(struct bench_json *j, const char *key, bool v);
/* "key": {count, mean, min, p50, p90, p99, p99.9, max}, in ns. */
void bench_json_hist(struct bench_json *j, const char *key, const struct hist *h);
void bench_json_kstats(struct bench_json *j, const char *key, const struct bench_kstats *s);
int bench_json_end(struct bench_json *j);

/* Print the environment lines every tool's summary starts with. */
void bench_print_env(FILE *f, const char *abi, const struct bench_env *env);

#endif /* SLICEBENCH_BENCH_H */
