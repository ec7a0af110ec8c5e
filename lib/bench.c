// SPDX-License-Identifier: GPL-2.0
/*
 * bench.c: what the slicebench benchmarks share. See bench.h.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"
#include "slice.h"

/* Read at the start and again when the JSON header is written, after the run. */
#define CLOCKSOURCE_FILE "/sys/devices/system/clocksource/clocksource0/current_clocksource"

uint64_t bench_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

void bench_spin_ns(uint64_t ns)
{
	uint64_t end = bench_now_ns() + ns;

	while (bench_now_ns() < end)
		__asm__ __volatile__("pause" ::: "memory");
}

void bench_sleep_us(uint64_t us)
{
	struct timespec ts = { .tv_sec = us / 1000000, .tv_nsec = (us % 1000000) * 1000 };

	while (clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, &ts) == EINTR)
		;
}

/* ---- histograms ---------------------------------------------------------- */

#define HIST_SUB (1u << HIST_SUB_BITS)

static unsigned int hist_index(uint64_t v)
{
	unsigned int msb, shift, idx;

	if (v < HIST_SUB)
		return v;
	msb = 63 - __builtin_clzll(v);
	shift = msb - HIST_SUB_BITS;
	idx = ((shift + 1) << HIST_SUB_BITS) + ((v >> shift) & (HIST_SUB - 1));
	return idx < HIST_BUCKETS ? idx : HIST_BUCKETS - 1;
}

/* The smallest value of bucket idx, and its width. */
static uint64_t hist_lower(unsigned int idx, uint64_t *width)
{
	unsigned int group = idx >> HIST_SUB_BITS, sub = idx & (HIST_SUB - 1);

	if (!group) {
		*width = 1;
		return sub;
	}
	*width = 1ull << (group - 1);
	return (uint64_t)(HIST_SUB + sub) << (group - 1);
}

void hist_init(struct hist *h)
{
	memset(h, 0, sizeof(*h));
	h->min = UINT64_MAX;
}

void hist_add(struct hist *h, uint64_t ns)
{
	h->bucket[hist_index(ns)]++;
	h->count++;
	h->sum += ns;
	if (ns < h->min)
		h->min = ns;
	if (ns > h->max)
		h->max = ns;
}

void hist_add_atomic(struct hist *h, uint64_t ns)
{
	uint64_t old;

	__atomic_fetch_add(&h->bucket[hist_index(ns)], 1, __ATOMIC_RELAXED);
	__atomic_fetch_add(&h->count, 1, __ATOMIC_RELAXED);
	__atomic_fetch_add(&h->sum, ns, __ATOMIC_RELAXED);
	old = __atomic_load_n(&h->min, __ATOMIC_RELAXED);
	while (ns < old && !__atomic_compare_exchange_n(&h->min, &old, ns, true,
							__ATOMIC_RELAXED, __ATOMIC_RELAXED))
		;
	old = __atomic_load_n(&h->max, __ATOMIC_RELAXED);
	while (ns > old && !__atomic_compare_exchange_n(&h->max, &old, ns, true,
							__ATOMIC_RELAXED, __ATOMIC_RELAXED))
		;
}

void hist_merge(struct hist *dst, const struct hist *src)
{
	for (unsigned int i = 0; i < HIST_BUCKETS; i++)
		dst->bucket[i] += src->bucket[i];
	dst->count += src->count;
	dst->sum += src->sum;
	if (src->min < dst->min)
		dst->min = src->min;
	if (src->max > dst->max)
		dst->max = src->max;
}

uint64_t hist_percentile(const struct hist *h, double p)
{
	uint64_t want, seen = 0, width, v;

	if (!h->count)
		return 0;
	want = (uint64_t)ceil(p * h->count);
	if (want < 1)
		want = 1;
	if (want >= h->count)
		return h->max;
	for (unsigned int i = 0; i < HIST_BUCKETS; i++) {
		seen += h->bucket[i];
		if (seen < want)
			continue;
		/* The bucket's middle, kept within what was seen. */
		v = hist_lower(i, &width) + width / 2;
		if (v < h->min)
			v = h->min;
		if (v > h->max)
			v = h->max;
		return v;
	}
	return h->max;
}

double hist_mean(const struct hist *h)
{
	return h->count ? (double)h->sum / h->count : 0;
}

/* ---- options -------------------------------------------------------------- */

int bench_parse_abi(const char *prog, const char *s)
{
	enum slice_abi abi;

	if (slice_abi_parse(s, &abi)) {
		fprintf(stderr, "%s: --abi: unknown ABI '%s' (auto, none, rseq-cr, task-shared, "
			"mainline)\n", prog, s);
		exit(2);
	}
	return abi;
}

long bench_parse_long(const char *prog, const char *opt, const char *s, long min, long max)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (!*s || *end || errno) {
		fprintf(stderr, "%s: --%s: '%s' is not a whole number\n", prog, opt, s);
		exit(2);
	}
	if (v < min || v > max) {
		fprintf(stderr, "%s: --%s: %ld is out of range [%ld, %ld]\n", prog, opt, v, min, max);
		exit(2);
	}
	return v;
}

double bench_parse_double(const char *prog, const char *opt, const char *s, double min, double max)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (!*s || *end || errno || isnan(v)) {
		fprintf(stderr, "%s: --%s: '%s' is not a number\n", prog, opt, s);
		exit(2);
	}
	if (v < min || v > max) {
		fprintf(stderr, "%s: --%s: %g is out of range [%g, %g]\n", prog, opt, v, min, max);
		exit(2);
	}
	return v;
}

/* ---- environment ---------------------------------------------------------- */

/* The first line of path into buf, without its newline; false if unreadable. */
static bool read_line(const char *path, char *buf, size_t len);

void bench_read_clocksource(char *buf, size_t len)
{
	if (!read_line(CLOCKSOURCE_FILE, buf, len) && len)
		buf[0] = '\0';
}

static bool read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	bool ok;

	buf[0] = '\0';
	if (!f)
		return false;
	ok = fgets(buf, len, f) != NULL;
	fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
	return ok;
}

long bench_read_long(const char *path)
{
	char buf[64];

	return read_line(path, buf, sizeof(buf)) ? strtol(buf, NULL, 10) : -1;
}

/* The value of KEY=value in a kernel command line, or "". */
static void cmdline_value(const char *cmdline, const char *key, char *buf, size_t len)
{
	size_t klen = strlen(key);
	const char *p = cmdline;

	buf[0] = '\0';
	while ((p = strstr(p, key))) {
		if ((p == cmdline || p[-1] == ' ') && p[klen] == '=') {
			p += klen + 1;
			snprintf(buf, len, "%.*s", (int)strcspn(p, " \n"), p);
			return;
		}
		p += klen;
	}
}

void bench_env_read(struct bench_env *env)
{
	struct utsname u;

	memset(env, 0, sizeof(*env));
	if (!uname(&u))
		snprintf(env->release, sizeof(env->release), "%s", u.release);
	read_line("/proc/cmdline", env->cmdline, sizeof(env->cmdline));
	env->have_knobs = read_line("/proc/sys/kernel/slice_ext_abi", env->knob_abi,
				    sizeof(env->knob_abi));
	env->knob_grant = bench_read_long("/proc/sys/kernel/slice_ext_grant");
	env->knob_nsec = bench_read_long("/proc/sys/kernel/slice_ext_nsec");
	read_line("/proc/sys/kernel/slice_ext_rt_policy", env->knob_rt_policy,
		  sizeof(env->knob_rt_policy));
	/* kernel.rseq_rules; the series before it called the knob slice_ext_mainline_rules. */
	if (!read_line("/proc/sys/kernel/rseq_rules", env->knob_rseq_rules,
		      sizeof(env->knob_rseq_rules)))
		read_line("/proc/sys/kernel/slice_ext_mainline_rules", env->knob_rseq_rules,
			  sizeof(env->knob_rseq_rules));
	env->nr_cpus = sysconf(_SC_NPROCESSORS_ONLN);
	read_line(CLOCKSOURCE_FILE, env->clocksource, sizeof(env->clocksource));
	cmdline_value(env->cmdline, "slicebench.commit", env->commit, sizeof(env->commit));
	cmdline_value(env->cmdline, "slicebench.kconfig", env->kconfig, sizeof(env->kconfig));
	snprintf(env->preset, sizeof(env->preset), "%s",
		 getenv("SLICEBENCH_PRESET") ? getenv("SLICEBENCH_PRESET") : "");
	snprintf(env->run_id, sizeof(env->run_id), "%s",
		 getenv("SLICEBENCH_RUN_ID") ? getenv("SLICEBENCH_RUN_ID") : "");
}

/* Clocksources whose clock_gettime() the vDSO serves without a syscall. */
static bool clock_in_vdso(const char *cs)
{
	static const char *const vdso[] = { "tsc", "tsc-early", "kvm-clock", "arch_sys_counter" };

	for (size_t i = 0; i < sizeof(vdso) / sizeof(vdso[0]); i++)
		if (!strcmp(cs, vdso[i]))
			return true;
	return false;
}

void bench_print_env(FILE *f, const char *abi, const struct bench_env *env)
{
	fprintf(f, "kernel %s, %d CPUs, library ABI %s", env->release, env->nr_cpus, abi);
	if (env->have_knobs)
		fprintf(f, "; kernel: live ABI %s, grants %s, length %ld ns, RT policy %s, "
			"rseq rules %s\n", env->knob_abi, env->knob_grant ? "on" : "off",
			env->knob_nsec, env->knob_rt_policy,
			env->knob_rseq_rules[0] ? env->knob_rseq_rules : "7.0");
	else
		fprintf(f, "; no time slice extension knobs in this kernel\n");
	if (env->clocksource[0] && !clock_in_vdso(env->clocksource))
		fprintf(f, "warning: clocksource %s: clock_gettime() may enter the kernel, and a "
			"syscall inside a critical section ends its extension\n", env->clocksource);
}

const char *const bench_kstat_names[KSTAT_NR] = {
	"granted", "denied", "expired", "yielded", "revoked", "aborted",
};

void bench_kstats_read(struct bench_kstats *s)
{
	FILE *f = fopen("/sys/kernel/debug/slice_ext/stats", "r");
	char name[64];
	unsigned long long v;

	memset(s, 0, sizeof(*s));
	if (!f)
		return;
	/* System-wide lines first ("granted 12"), then per ABI ("mainline.granted 3"). */
	while (fscanf(f, "%63s %llu", name, &v) == 2) {
		for (int i = 0; i < KSTAT_NR; i++)
			if (!strcmp(name, bench_kstat_names[i]))
				s->v[i] = v;
	}
	s->have = true;
	fclose(f);
}

bool bench_print_kstats(FILE *f, const struct bench_kstats *d)
{
	if (!d->have)
		return false;
	fprintf(f, "kernel:");
	for (int i = 0; i < KSTAT_NR; i++)
		fprintf(f, " %s %llu", bench_kstat_names[i], (unsigned long long)d->v[i]);
	fprintf(f, "\n");
	return true;
}

void bench_kstats_delta(struct bench_kstats *d, const struct bench_kstats *before,
			const struct bench_kstats *after)
{
	memset(d, 0, sizeof(*d));
	d->have = before->have && after->have;
	if (!d->have)
		return;
	for (int i = 0; i < KSTAT_NR; i++)
		d->v[i] = after->v[i] - before->v[i];
}

/* ---- the measured window -------------------------------------------------- */

void bench_window_run(const char *prog, struct bench_window *w)
{
	uint64_t last[BENCH_WINDOW_RATES] = { 0 }, end;
	struct bench_kstats before, after;
	size_t max_iv = w->interval_s ? w->duration_s / w->interval_s + 2 : 1;
	double t_last = 0;

	w->iv = calloc(max_iv, sizeof(*w->iv));
	if (!w->iv) {
		fprintf(stderr, "%s: out of memory\n", prog);
		exit(1);
	}
	w->n_iv = 0;
	bench_sleep_us(llround(w->warmup_s * 1000000));
	bench_kstats_read(&before);
	for (int i = 0; i < w->n_rates; i++)
		last[i] = w->count(i, w->arg);
	if (w->open)
		w->open(w->arg);
	w->t_start = bench_now_ns();
	if (w->ready_file) {
		int fd = open(w->ready_file, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);

		if (fd < 0) {
			fprintf(stderr, "%s: --ready-file: cannot create %s: %s\n", prog, w->ready_file,
				strerror(errno));
			exit(1);
		}
		close(fd);
	}
	end = w->t_start + w->duration_s * 1000000000ull;
	while (1) {
		uint64_t now = bench_now_ns();
		uint64_t next = w->interval_s ? w->t_start + (uint64_t)((t_last + w->interval_s) * 1e9) : end;
		struct bench_interval *iv;

		if (next > end)
			next = end;
		if (now < next)
			bench_sleep_us((next - now) / 1000);
		now = bench_now_ns();
		if (!w->interval_s)
			break;
		iv = &w->iv[w->n_iv < max_iv ? w->n_iv++ : max_iv - 1];
		iv->t = (now - w->t_start) / 1e9;
		printf("[ %4.0fs ]", iv->t);
		for (int i = 0; i < w->n_rates; i++) {
			uint64_t c = w->count(i, w->arg);

			iv->rate[i] = (c - last[i]) / (iv->t - t_last);
			last[i] = c;
			printf(" %s: %.0f", w->names[i], iv->rate[i]);
		}
		printf("\n");
		fflush(stdout);
		t_last = iv->t;
		if (now >= end)
			break;
	}
	w->t_end = bench_now_ns();
	if (w->close)
		w->close(w->arg);
	bench_kstats_read(&after);
	bench_kstats_delta(&w->kstats, &before, &after);
}

double bench_window_secs(const struct bench_window *w)
{
	return (w->t_end - w->t_start) / 1e9;
}

/* ---- JSON ----------------------------------------------------------------- */

static void json_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = *s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

/* A comma if needed, the indentation, and "key": when given. */
static void json_key(struct bench_json *j, const char *key)
{
	if (!j->first[j->depth])
		fputc(',', j->f);
	j->first[j->depth] = false;
	fprintf(j->f, "\n%*s", 2 * j->depth, "");
	if (key) {
		json_string(j->f, key);
		fputs(": ", j->f);
	}
}

static void json_open(struct bench_json *j, const char *key, char c)
{
	json_key(j, key);
	fputc(c, j->f);
	if (j->depth + 1 < (int)(sizeof(j->first) / sizeof(j->first[0])))
		j->depth++;
	j->first[j->depth] = true;
}

static void json_close(struct bench_json *j, char c)
{
	j->depth--;
	fprintf(j->f, "\n%*s%c", 2 * j->depth, "", c);
}

void bench_json_obj(struct bench_json *j, const char *key) { json_open(j, key, '{'); }
void bench_json_obj_end(struct bench_json *j) { json_close(j, '}'); }
void bench_json_arr(struct bench_json *j, const char *key) { json_open(j, key, '['); }
void bench_json_arr_end(struct bench_json *j) { json_close(j, ']'); }

void bench_json_u64(struct bench_json *j, const char *key, uint64_t v)
{
	json_key(j, key);
	fprintf(j->f, "%llu", (unsigned long long)v);
}

void bench_json_dbl(struct bench_json *j, const char *key, double v)
{
	json_key(j, key);
	if (isfinite(v))
		fprintf(j->f, "%.6g", v);
	else
		fputs("null", j->f);
}

void bench_json_str(struct bench_json *j, const char *key, const char *v)
{
	json_key(j, key);
	json_string(j->f, v);
}

void bench_json_bool(struct bench_json *j, const char *key, bool v)
{
	json_key(j, key);
	fputs(v ? "true" : "false", j->f);
}

void bench_json_hist(struct bench_json *j, const char *key, const struct hist *h)
{
	bench_json_obj(j, key);
	bench_json_u64(j, "count", h->count);
	bench_json_dbl(j, "mean_ns", hist_mean(h));
	bench_json_u64(j, "min_ns", h->count ? h->min : 0);
	bench_json_u64(j, "p50_ns", hist_percentile(h, 0.50));
	bench_json_u64(j, "p90_ns", hist_percentile(h, 0.90));
	bench_json_u64(j, "p99_ns", hist_percentile(h, 0.99));
	bench_json_u64(j, "p99_9_ns", hist_percentile(h, 0.999));
	bench_json_u64(j, "max_ns", h->max);
	bench_json_u64(j, "total_ns", h->sum);
	/*
	 * The non-empty buckets, [lower_ns, upper_ns, count] with upper
	 * exclusive, one per line: enough for the report's CCDF of a run.
	 */
	bench_json_arr(j, "buckets");
	for (unsigned int i = 0; i < HIST_BUCKETS; i++) {
		uint64_t lower, width, upper;

		if (!h->bucket[i])
			continue;
		lower = hist_lower(i, &width);
		upper = lower + width;
		/* The last bucket also holds everything beyond it. */
		if (i == HIST_BUCKETS - 1 && h->max >= upper)
			upper = h->max + 1;
		json_key(j, NULL);
		fprintf(j->f, "[%llu, %llu, %llu]", (unsigned long long)lower,
			(unsigned long long)upper, (unsigned long long)h->bucket[i]);
	}
	bench_json_arr_end(j);
	bench_json_obj_end(j);
}

void bench_json_kstats(struct bench_json *j, const char *key, const struct bench_kstats *s)
{
	if (!s->have) {
		json_key(j, key);
		fputs("null", j->f);
		return;
	}
	bench_json_obj(j, key);
	for (int i = 0; i < KSTAT_NR; i++)
		bench_json_u64(j, bench_kstat_names[i], s->v[i]);
	bench_json_obj_end(j);
}

int bench_json_open(struct bench_json *j, const char *path, const char *tool)
{
	memset(j, 0, sizeof(*j));
	j->path = path;
	j->f = fopen(path, "w");
	if (!j->f) {
		fprintf(stderr, "%s: cannot write %s: %s\n", tool, path, strerror(errno));
		return -1;
	}
	return 0;
}

void bench_json_header(struct bench_json *j, const char *tool, int argc, char **argv,
		       const char *abi, const struct bench_env *env)
{
	char cs_end[32] = "";

	fputc('{', j->f);
	j->depth = 1;
	j->first[1] = true;
	bench_json_obj(j, "header");
	bench_json_str(j, "tool", tool);
	bench_json_str(j, "version", SLICEBENCH_VERSION);
	bench_json_str(j, "kernel_release", env->release);
	bench_json_str(j, "kernel_cmdline", env->cmdline);
	bench_json_str(j, "kernel_config_sha256", env->kconfig);
	bench_json_str(j, "project_commit", env->commit);
	bench_json_bool(j, "project_dirty", strstr(env->commit, "-dirty") != NULL);
	bench_json_str(j, "preset", env->preset);
	/* The plan's run record this result belongs to (results/NAME/plan.jsonl). */
	bench_json_str(j, "run_id", env->run_id);
	bench_json_u64(j, "nr_cpus", env->nr_cpus);
	bench_json_str(j, "clocksource", env->clocksource);
	/*
	 * The header is written after the run: a clocksource watchdog that
	 * switched away from the TSC meanwhile made clock_gettime() a system
	 * call, which ends any extension at the next clock read.
	 */
	read_line(CLOCKSOURCE_FILE, cs_end, sizeof(cs_end));
	bench_json_str(j, "clocksource_end", cs_end);
	if (strcmp(cs_end, env->clocksource))
		fprintf(stderr, "%s: warning: the clocksource changed from %s to %s during the run\n",
			tool, env->clocksource, cs_end);
	bench_json_str(j, "abi", abi);
	if (env->have_knobs) {
		bench_json_str(j, "kernel_abi", env->knob_abi);
		bench_json_bool(j, "kernel_grant", env->knob_grant > 0);
		bench_json_u64(j, "extension_ns", env->knob_nsec);
		bench_json_str(j, "rt_policy", env->knob_rt_policy);
		/* kernel.rseq_rules (the rules "mainline" follows); kernels before the knob followed 7.0's. */
		bench_json_str(j, "mainline_rules",
			       env->knob_rseq_rules[0] ? env->knob_rseq_rules : "7.0");
	} else {
		bench_json_str(j, "kernel_abi", "none");
	}
	bench_json_arr(j, "argv");
	for (int i = 0; i < argc; i++)
		bench_json_str(j, NULL, argv[i]);
	bench_json_arr_end(j);
	bench_json_obj_end(j);
}

int bench_json_end(struct bench_json *j)
{
	int err;

	fputs("\n}\n", j->f);
	j->depth = 0;
	err = ferror(j->f);
	if (fclose(j->f) || err) {
		fprintf(stderr, "error writing %s\n", j->path);
		return -1;
	}
	return 0;
}

void bench_start_thread(const char *prog, pthread_t *t, size_t stack, void *(*fn)(void *),
			void *arg)
{
	pthread_attr_t attr;
	int err;

	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, stack);
	err = pthread_create(t, &attr, fn, arg);
	pthread_attr_destroy(&attr);
	if (err) {
		fprintf(stderr, "%s: pthread_create: %s (try fewer threads)\n", prog,
			strerror(err));
		exit(1);
	}
}

struct bench_hogs {
	long n;
	int stop;
	enum bench_hog_policy policy;
	const char *prog;
	long under_policy;	/* hogs that found themselves under it */
	int reported;		/* a failure was reported */
	pthread_barrier_t *gate;
	pthread_t threads[];
};

static const char *const hog_policy_names[] = {
	[BENCH_HOG_OTHER] = "other",
	[BENCH_HOG_NICE19] = "nice19",
	[BENCH_HOG_IDLE] = "idle",
	[BENCH_HOG_BATCH] = "batch",
};

const char *bench_hog_policy_name(enum bench_hog_policy p)
{
	return hog_policy_names[p];
}

enum bench_hog_policy bench_parse_hog_policy(const char *prog, const char *s)
{
	for (size_t i = 0; i < sizeof(hog_policy_names) / sizeof(hog_policy_names[0]); i++)
		if (!strcmp(s, hog_policy_names[i]))
			return i;
	fprintf(stderr, "%s: --hog-policy: unknown policy '%s' (other, nice19, idle, batch)\n",
		prog, s);
	exit(2);
}

/* Put the calling thread under @p and check it from inside; 0 or an errno. */
static int hog_apply_policy(enum bench_hog_policy p)
{
	struct sched_param sp = { .sched_priority = 0 };
	pid_t tid = syscall(SYS_gettid);
	int want = p == BENCH_HOG_IDLE ? SCHED_IDLE : p == BENCH_HOG_BATCH ? SCHED_BATCH : SCHED_OTHER;
	int nice = p == BENCH_HOG_NICE19 ? 19 : 0;

	/* Linux: scheduling policy and nice value are per thread. */
	if (want != SCHED_OTHER && sched_setscheduler(tid, want, &sp))
		return errno;
	if (p == BENCH_HOG_NICE19 && setpriority(PRIO_PROCESS, tid, nice))
		return errno;
	if (sched_getscheduler(tid) != want)
		return EPERM;
	errno = 0;
	if (p == BENCH_HOG_NICE19 && getpriority(PRIO_PROCESS, tid) != nice)
		return errno ? errno : EPERM;
	return 0;
}

static void *hog_main(void *arg)
{
	struct bench_hogs *h = arg;
	int err = hog_apply_policy(h->policy);

	if (!err)
		__atomic_fetch_add(&h->under_policy, 1, __ATOMIC_RELAXED);
	else if (!__atomic_exchange_n(&h->reported, 1, __ATOMIC_RELAXED))
		fprintf(stderr, "%s: a hog could not put itself under policy %s: %s\n", h->prog,
			hog_policy_names[h->policy], strerror(err));
	if (h->gate)
		pthread_barrier_wait(h->gate);
	while (!__atomic_load_n(&h->stop, __ATOMIC_RELAXED))
		__asm__ __volatile__("pause" ::: "memory");
	return NULL;
}

struct bench_hogs *bench_hogs_start(const char *prog, long n, pthread_barrier_t *gate,
				    enum bench_hog_policy policy)
{
	struct bench_hogs *h = calloc(1, sizeof(*h) + n * sizeof(pthread_t));

	if (!h) {
		fprintf(stderr, "%s: out of memory\n", prog);
		exit(1);
	}
	h->n = n;
	h->gate = gate;
	h->policy = policy;
	h->prog = prog;
	for (long i = 0; i < n; i++)
		bench_start_thread(prog, &h->threads[i], 64 * 1024, hog_main, h);
	return h;
}

long bench_hogs_under_policy(const struct bench_hogs *h)
{
	return __atomic_load_n(&h->under_policy, __ATOMIC_RELAXED);
}

void bench_hogs_stop(struct bench_hogs *h)
{
	__atomic_store_n(&h->stop, 1, __ATOMIC_RELAXED);
	for (long i = 0; i < h->n; i++)
		pthread_join(h->threads[i], NULL);
	free(h);
}
