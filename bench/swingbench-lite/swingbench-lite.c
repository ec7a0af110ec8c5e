// SPDX-License-Identifier: GPL-2.0
/*
 * swingbench-lite: Swingbench's Order Entry workload (seed 004's second
 * benchmark), small and self-contained.
 *
 * Client threads, each with its own connection, run the SOE transaction mix
 * against SQLite (default; the database on tmpfs: Oracle's "cached run") or
 * PostgreSQL through libpq. With SQLite, SQLite's own mutexes are replaced
 * at start-up (--mutex): pthread, a plain spinlock, or lib/slice's
 * extension-aware spinlock, so that time slice extension protects the
 * engine's internal critical sections without patching SQLite. Optional CPU
 * hogs add preemption pressure, as in locktable.
 *
 * Reports SQL exec/s (statements, Oracle's "SQL Execute/s") and
 * transactions/s, per type too, with latency percentiles, retries and
 * errors, the mutexes' acquisition and contention counts, the library's
 * and the kernel's extension counters. After the run the database must be
 * consistent with what the clients committed, or the run fails (exit 1).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"
#include "db.h"
#include "slice.h"
#include "soe.h"
#include "pcache.h"
#include "sqlite_mutex.h"

/* Client threads, one connection each. */
static long opt_clients = 1000;
/* CPU-hog threads. */
static long opt_hogs;
/* Backend: sqlite or pg. */
static const char *opt_backend = "sqlite";
/* SQLite database file (default: on /dev/shm, removed afterwards). */
static const char *opt_db;
/* PostgreSQL connection string. */
static const char *opt_dsn;
/* SQLite's mutexes. */
static enum sb_mutex_kind opt_mutex = SB_MUTEX_SPIN_EXT;
/* Spin kinds: microseconds of spinning before sched_yield(); 0 spins forever. */
static long opt_spin_us = 20;
/* SQLite cache: shared (one page cache and B-tree for all connections) or private. */
static int opt_shared_cache = 1;
/* SQLite journal mode. */
static const char *opt_journal = "wal";
/* Which transactions record a LOGON row: 0 those that write anyway, 1 all customer ones. */
static int opt_logon_all;
/* Data set size (1: 10,000 customers, 1,000 products, 10,000 orders). */
static double opt_scale = 1;
/* Measured seconds, after the warmup. */
static long opt_duration = 10;
/* Seconds of warmup (not measured). */
static long opt_warmup = 2;
/* Seconds between progress lines; 0 for none. */
static long opt_interval = 1;
/* Time slice extension ABI for spin-ext. */
static enum slice_abi opt_abi = SLICE_ABI_AUTO;
/* Attempts of a transaction before it counts as failed. */
static long opt_max_retries = 1000;
/* Random seed (data and clients). */
static unsigned long opt_seed = 1;
/* Reuse the loaded database instead of loading it again. */
static int opt_no_load;
/* Keep the SQLite file afterwards. */
static int opt_keep;
/* Write the results as JSON here. */
static const char *opt_json;
/* A SQLite mutex or the writer gate held longer than this: its holder was preempted. */
static long opt_preempted_us = 500;
/*
 * The database's structure (PREREGISTRATION.md): giant-lock, one database
 * in SQLite's shared cache behind one writer gate; buffer-latches, shards by
 * warehouse (their own files and gates), private caches, and pcache.c's
 * buffer-cache latches.
 */
enum profile { PROFILE_GIANT_LOCK, PROFILE_BUFFER_LATCHES };
static enum profile opt_profile = PROFILE_GIANT_LOCK;
/* buffer-latches: database shards (0: one per 8 clients). */
static long opt_shards;
/* buffer-latches: the page cache's bucket latches. */
static long opt_buckets = 64;
/* buffer-latches: each connection's page cache, in KiB. */
static long opt_cache_kib = 65536;
/* The transaction mix. */
static int weights[TX_NR];

#define PROG "swingbench-lite"
#define GROUP_CLIENTS 16

enum phase { WARMUP, MEASURE, STOP };

struct client {
	pthread_t thread;
	struct soe_client soe;
	uint64_t txns;			/* committed, all run long (progress) */
	uint64_t sql_start, sql_end;	/* statements at the start and end of the window */
	uint64_t committed[TX_NR], retries[TX_NR], failed[TX_NR], errors[TX_NR];
	uint64_t sql_by_type[TX_NR];	/* statements, in the measured window */
	struct slice_counters sc_start, sc_end;
	char first_error[256];
} __attribute__((aligned(64)));

/* Latency histograms, one per GROUP_CLIENTS clients (fewer cache lines shared). */
struct lat_group {
	struct hist lat[TX_NR];
};

static const struct db_ops *ops;
static const char *target;
/* The database's shards (giant-lock and PostgreSQL: one): client i uses i % nparts. */
static int nparts = 1;
static struct soe_shard *parts;
static char (*part_target)[300];
static struct client *clients;
static struct lat_group *groups;
static volatile int phase = WARMUP;
static int total_weight;
static enum soe_txn pick_table[TX_NR * 1000];
static pthread_barrier_t ready;

/*
 * The runnable tasks, sampled every 10 ms in the measured window from
 * /proc/loadavg's fourth field (the system's running count: the clients
 * that are running or waiting for a CPU, the hogs, this sampler). How many
 * sessions compete for the CPUs is what decides whether a preempted latch
 * holder stalls others.
 */
struct runnable {
	pthread_t thread;
	volatile int stop;
	uint64_t samples, sum, max;
};

static void *runnable_main(void *arg)
{
	struct runnable *r = arg;

	while (!__atomic_load_n(&r->stop, __ATOMIC_RELAXED)) {
		char buf[128];
		unsigned long running;
		FILE *f = fopen("/proc/loadavg", "r");

		if (f) {
			if (fgets(buf, sizeof(buf), f) &&
			    sscanf(buf, "%*s %*s %*s %lu/", &running) == 1) {
				r->samples++;
				r->sum += running;
				if (running > r->max)
					r->max = running;
			}
			fclose(f);
		}
		bench_sleep_us(10000);
	}
	return NULL;
}

static enum soe_txn pick(uint64_t *rng)
{
	*rng = *rng * 6364136223846793005ull + 1442695040888963407ull;
	return pick_table[(*rng >> 33) % total_weight];
}

static void *client_main(void *arg)
{
	struct client *c = arg;
	struct lat_group *sh = &groups[(c - clients) / GROUP_CLIENTS];
	int seen = WARMUP;
	uint64_t mix_rng = c->soe.rng ^ 0x5bd1e995;

	/* A cache SQLite creates from this thread belongs to the client's shard. */
	if (opt_profile == PROFILE_BUFFER_LATCHES)
		sb_pcache_set_file(part_target[(c - clients) % nparts]);
	/* Set up before the first SQLite mutex, not inside one. */
	if (slice_thread_init()) {
		fprintf(stderr, PROG ": setting up the %s ABI for a client failed: %s\n",
			slice_abi_name(slice_current_abi()), strerror(errno));
		exit(1);
	}
	pthread_barrier_wait(&ready);
	while (1) {
		int ph = __atomic_load_n(&phase, __ATOMIC_RELAXED);
		enum soe_txn t = pick(&mix_rng);
		uint64_t t0, sql0 = c->soe.sql;
		enum db_status st;

		if (ph != seen) {
			if (seen == WARMUP) {
				slice_counters_get(&c->sc_start);
				c->sql_start = c->soe.sql;
			}
			if (ph == STOP)
				break;
			seen = ph;
		}
		t0 = bench_now_ns();
		for (int attempt = 0;; attempt++) {
			st = soe_run(&c->soe, t);
			if (st != DB_RETRY)
				break;
			if (ph == MEASURE)
				c->retries[t]++;
			if (attempt + 1 >= opt_max_retries)
				break;
			ops->wait_retry(c->soe.db, attempt);
		}
		if (ph == MEASURE) {
			c->sql_by_type[t] += c->soe.sql - sql0;
			if (st == DB_OK) {
				c->committed[t]++;
				hist_add_atomic(&sh->lat[t], bench_now_ns() - t0);
			} else if (st == DB_RETRY) {
				c->failed[t]++;
			} else {
				c->errors[t]++;
			}
		}
		if (st == DB_ERROR && !c->first_error[0])
			snprintf(c->first_error, sizeof(c->first_error), "%s: %s", soe_txns[t].name,
				 ops->errmsg(c->soe.db));
		if (st == DB_OK)
			__atomic_store_n(&c->txns, c->txns + 1, __ATOMIC_RELAXED);
	}
	c->sql_end = c->soe.sql;
	slice_counters_get(&c->sc_end);
	return NULL;
}

static int parse_mix(const char *spec)
{
	char *copy = strdup(spec), *save = NULL;

	if (!copy)
		return -1;
	for (char *item = strtok_r(copy, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(item, '=');
		int t;

		if (!eq) {
			fprintf(stderr, PROG ": --mix: '%s' is not NAME=WEIGHT\n", item);
			exit(2);
		}
		*eq = '\0';
		for (t = 0; t < TX_NR; t++)
			if (!strcmp(item, soe_txns[t].name) || !strcmp(item, soe_txns[t].abbrev))
				break;
		if (t == TX_NR) {
			fprintf(stderr, PROG ": --mix: unknown transaction '%s' (", item);
			for (int k = 0; k < TX_NR; k++)
				fprintf(stderr, "%s%s/%s", k ? ", " : "", soe_txns[k].name, soe_txns[k].abbrev);
			fprintf(stderr, ")\n");
			exit(2);
		}
		weights[t] = bench_parse_long(PROG, "mix", eq + 1, 0, 1000);
	}
	free(copy);
	return 0;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: " PROG " [options]\n"
		"Swingbench's Order Entry mix on SQLite (or PostgreSQL), with extension-aware mutexes.\n"
		"  -c, --clients N        client threads, one connection each (default: %ld)\n"
		"  -H, --hogs N           CPU-hog threads (default: %ld)\n"
		"  -b, --backend NAME     sqlite | pg (default: %s)\n"
		"      --db FILE          SQLite database (default: /dev/shm/" PROG "-PID.db, removed after)\n"
		"      --dsn DSN          PostgreSQL connection string (with --backend pg)\n"
		"  -m, --mutex KIND       SQLite's mutexes: pthread | adaptive | spin | spin-ext |\n"
		"                         futex | futex-ext (default: %s)\n"
		"      --spin-us US       spin kinds: spin this long, then yield the CPU (0: never);\n"
		"                         futex kinds: spin this long, then sleep (default: %ld)\n"
		"      --cache MODE       SQLite cache: shared | private (default: %s)\n"
		"      --journal MODE     SQLite journal mode: wal | delete | truncate | memory (default: %s)\n"
		"      --logon WHICH      transactions that insert a LOGON row: writers (those that\n"
		"                         write anyway) | all (every customer one, as Swingbench;\n"
		"                         browsing then writes too) (default: %s)\n"
		"  -s, --scale X          data set size, 1 = 10,000 customers (default: %g)\n"
		"      --mix NAME=W,...   transaction weights (default:",
		opt_clients, opt_hogs, opt_backend, sb_mutex_kind_name(opt_mutex), opt_spin_us,
		opt_shared_cache ? "shared" : "private", opt_journal,
		opt_logon_all ? "all" : "writers", opt_scale);
	for (int t = 0; t < TX_NR; t++)
		fprintf(f, "%s%s=%d", t ? "," : " ", soe_txns[t].abbrev, soe_txns[t].default_weight);
	fprintf(f, ")\n"
		"                         names: ");
	for (int t = 0; t < TX_NR; t++)
		fprintf(f, "%s%s (%s)", t ? ", " : "", soe_txns[t].name, soe_txns[t].abbrev);
	fprintf(f, "\n"
		"  -d, --duration S       measured seconds (default: %ld)\n"
		"  -W, --warmup S         warmup seconds (default: %ld)\n"
		"  -I, --interval S       seconds between progress lines, 0 = none (default: %ld)\n"
		"  -a, --abi ABI          auto|none|rseq-cr|task-shared|mainline, for spin-ext (default: auto)\n"
		"      --max-retries N    attempts before a transaction counts as failed (default: %ld)\n"
		"  -S, --seed N           random seed (default: %lu)\n"
		"      --no-load          use the database as it is (loaded by an earlier run)\n"
		"      --keep             keep the SQLite file\n"
		"  -j, --json FILE        also write the results as JSON\n"
		"      --preempted-us US  a mutex hold longer than this counts as preempted while\n"
		"                         holding (default: %ld)\n"
		"      --profile NAME     giant-lock: one database in SQLite's shared cache, one\n"
		"                         writer gate; buffer-latches: shards (a file and a gate\n"
		"                         each), private caches, a page cache with bucket and LRU\n"
		"                         latches of the --mutex kind (PREREGISTRATION.md)\n"
		"                         (default: giant-lock)\n"
		"      --shards N         buffer-latches: database shards (default: one per 8 clients)\n"
		"      --buckets N        buffer-latches: the page cache's bucket latches (default: %ld)\n"
		"      --cache-kib N      buffer-latches: each connection's page cache (default: %ld)\n"
		"  -h, --help             this text\n",
		opt_duration, opt_warmup, opt_interval, opt_max_retries, opt_seed, opt_preempted_us,
		opt_buckets, opt_cache_kib);
}

static void parse_options(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "clients", required_argument, NULL, 'c' },
		{ "hogs", required_argument, NULL, 'H' },
		{ "backend", required_argument, NULL, 'b' },
		{ "db", required_argument, NULL, 'D' },
		{ "dsn", required_argument, NULL, 'N' },
		{ "mutex", required_argument, NULL, 'm' },
		{ "cache", required_argument, NULL, 'C' },
		{ "spin-us", required_argument, NULL, 'Y' },
		{ "journal", required_argument, NULL, 'J' },
		{ "scale", required_argument, NULL, 's' },
		{ "logon", required_argument, NULL, 'L' },
		{ "mix", required_argument, NULL, 'x' },
		{ "duration", required_argument, NULL, 'd' },
		{ "warmup", required_argument, NULL, 'W' },
		{ "interval", required_argument, NULL, 'I' },
		{ "abi", required_argument, NULL, 'a' },
		{ "max-retries", required_argument, NULL, 'R' },
		{ "seed", required_argument, NULL, 'S' },
		{ "no-load", no_argument, NULL, 'n' },
		{ "keep", no_argument, NULL, 'k' },
		{ "json", required_argument, NULL, 'j' },
		{ "preempted-us", required_argument, NULL, 'P' },
		{ "profile", required_argument, NULL, 'F' },
		{ "shards", required_argument, NULL, 'K' },
		{ "buckets", required_argument, NULL, 'B' },
		{ "cache-kib", required_argument, NULL, 'M' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	for (int t = 0; t < TX_NR; t++)
		weights[t] = soe_txns[t].default_weight;
	while ((c = getopt_long(argc, argv, "c:H:b:m:s:d:W:I:a:S:j:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'c': opt_clients = bench_parse_long(PROG, "clients", optarg, 1, 100000); break;
		case 'H': opt_hogs = bench_parse_long(PROG, "hogs", optarg, 0, 100000); break;
		case 'b':
			if (strcmp(optarg, "sqlite") && strcmp(optarg, "pg")) {
				fprintf(stderr, PROG ": --backend: sqlite or pg, not '%s'\n", optarg);
				exit(2);
			}
			opt_backend = optarg;
			break;
		case 'D': opt_db = optarg; break;
		case 'N': opt_dsn = optarg; break;
		case 'm':
			if (sb_mutex_kind_parse(optarg, &opt_mutex)) {
				fprintf(stderr, PROG ": --mutex: pthread, adaptive, spin, spin-ext, futex or "
					"futex-ext, not '%s'\n", optarg);
				exit(2);
			}
			break;
		case 'Y':
			opt_spin_us = bench_parse_long(PROG, "spin-us", optarg, 0, 10000000);
			break;
		case 'C':
			if (!strcmp(optarg, "shared")) {
				opt_shared_cache = 1;
			} else if (!strcmp(optarg, "private")) {
				opt_shared_cache = 0;
			} else {
				fprintf(stderr, PROG ": --cache: shared or private, not '%s'\n", optarg);
				exit(2);
			}
			break;
		case 'J':
			if (strcmp(optarg, "wal") && strcmp(optarg, "delete") &&
			    strcmp(optarg, "truncate") && strcmp(optarg, "memory")) {
				fprintf(stderr, PROG ": --journal: wal, delete, truncate or memory, not '%s'\n",
					optarg);
				exit(2);
			}
			opt_journal = optarg;
			break;
		case 'L':
			if (!strcmp(optarg, "all")) {
				opt_logon_all = 1;
			} else if (!strcmp(optarg, "writers")) {
				opt_logon_all = 0;
			} else {
				fprintf(stderr, PROG ": --logon: writers or all, not '%s'\n", optarg);
				exit(2);
			}
			break;
		case 's': opt_scale = bench_parse_double(PROG, "scale", optarg, 0.001, 1000); break;
		case 'x': parse_mix(optarg); break;
		case 'd': opt_duration = bench_parse_long(PROG, "duration", optarg, 1, 86400); break;
		case 'W': opt_warmup = bench_parse_long(PROG, "warmup", optarg, 0, 3600); break;
		case 'I': opt_interval = bench_parse_long(PROG, "interval", optarg, 0, 86400); break;
		case 'a':
			opt_abi = bench_parse_abi(PROG, optarg);
			break;
		case 'R': opt_max_retries = bench_parse_long(PROG, "max-retries", optarg, 1, 1000000); break;
		case 'S': opt_seed = bench_parse_long(PROG, "seed", optarg, 0, __LONG_MAX__); break;
		case 'P': opt_preempted_us = bench_parse_long(PROG, "preempted-us", optarg, 1, 10000000); break;
		case 'F':
			if (!strcmp(optarg, "giant-lock")) {
				opt_profile = PROFILE_GIANT_LOCK;
			} else if (!strcmp(optarg, "buffer-latches")) {
				opt_profile = PROFILE_BUFFER_LATCHES;
			} else {
				fprintf(stderr, PROG ": --profile: giant-lock or buffer-latches, not '%s'\n", optarg);
				exit(2);
			}
			break;
		case 'K': opt_shards = bench_parse_long(PROG, "shards", optarg, 1, 200); break;
		case 'B': opt_buckets = bench_parse_long(PROG, "buckets", optarg, 1, 1000000); break;
		case 'M': opt_cache_kib = bench_parse_long(PROG, "cache-kib", optarg, 1, 16777216); break;
		case 'n': opt_no_load = 1; break;
		case 'k': opt_keep = 1; break;
		case 'j': opt_json = optarg; break;
		case 'h': usage(stdout); exit(0);
		default: usage(stderr); exit(2);
		}
	}
	if (optind < argc) {
		fprintf(stderr, PROG ": unexpected argument '%s' (see --help)\n", argv[optind]);
		exit(2);
	}
	total_weight = 0;
	for (int t = 0; t < TX_NR; t++)
		total_weight += weights[t];
	if (!total_weight) {
		fprintf(stderr, PROG ": --mix: every weight is 0; nothing to run\n");
		exit(2);
	}
	if (!strcmp(opt_backend, "pg")) {
		if (!opt_dsn) {
			fprintf(stderr, PROG ": --backend pg needs --dsn\n");
			exit(2);
		}
		if (opt_db) {
			fprintf(stderr, PROG ": --db is for SQLite; PostgreSQL takes --dsn\n");
			exit(2);
		}
	} else if (opt_dsn) {
		fprintf(stderr, PROG ": --dsn is for --backend pg\n");
		exit(2);
	}
	if (opt_no_load && !strcmp(opt_backend, "sqlite") && !opt_db) {
		fprintf(stderr, PROG ": --no-load needs --db (the default database is new each run)\n");
		exit(2);
	}
	if (opt_profile == PROFILE_BUFFER_LATCHES && strcmp(opt_backend, "sqlite")) {
		fprintf(stderr, PROG ": --profile buffer-latches is SQLite's (its page cache and files)\n");
		exit(2);
	}
	if (opt_profile == PROFILE_GIANT_LOCK && opt_shards > 1) {
		fprintf(stderr, PROG ": --shards is for --profile buffer-latches\n");
		exit(2);
	}
}

static uint64_t sum_txns(void)
{
	uint64_t n = 0;

	for (long i = 0; i < opt_clients; i++)
		n += __atomic_load_n(&clients[i].txns, __ATOMIC_RELAXED);
	return n;
}

static uint64_t sum_sql(void)
{
	uint64_t n = 0;

	for (long i = 0; i < opt_clients; i++)
		n += __atomic_load_n(&clients[i].soe.sql, __ATOMIC_RELAXED);
	return n;
}

/* The measured window's hooks (lib/bench.h: struct bench_window); arg is the runnable sampler. */
static uint64_t window_count(int i, void *arg)
{
	return i ? sum_sql() : sum_txns();
}

static void window_open(void *arg)
{
	struct runnable *run = arg;

	if (ops == &db_sqlite_ops) {
		sb_mutex_measure(true, opt_preempted_us * 1000ull);
		db_sqlite_gate_measure(true);
	}
	bench_start_thread(PROG, &run->thread, 64 * 1024, runnable_main, run);
	__atomic_store_n(&phase, MEASURE, __ATOMIC_RELAXED);
}

static void window_close(void *arg)
{
	struct runnable *run = arg;

	__atomic_store_n(&phase, STOP, __ATOMIC_RELAXED);
	if (ops == &db_sqlite_ops) {
		sb_mutex_measure(false, 0);
		db_sqlite_gate_measure(false);
	}
	__atomic_store_n(&run->stop, 1, __ATOMIC_RELAXED);
	pthread_join(run->thread, NULL);
}

int main(int argc, char **argv)
{
	struct bench_window win = { 0 };
	struct slice_counters lib = { 0 };
	struct sb_mutex_stat mstat[24];
	struct runnable run = { 0 };
	double in_txn = 0;
	struct soe_effects done = { 0 };
	uint64_t committed[TX_NR] = { 0 }, retries[TX_NR] = { 0 }, failed[TX_NR] = { 0 };
	uint64_t errors[TX_NR] = { 0 }, sql_by_type[TX_NR] = { 0 }, sql = 0, txns = 0, t_start;
	struct hist lat[TX_NR];
	struct bench_env env;
	struct bench_json json;
	char err[512], dbpath[256], report[2048];
	struct bench_hogs *hogs;
	struct db **pdb;
	double secs;
	int rc = 0, nmstat = 0, bad = 0, ngroups;
	const char *first_error = NULL;

	parse_options(argc, argv);
	soe_logon_all = opt_logon_all;
	if (opt_json && bench_json_open(&json, opt_json, PROG))
		return 1;
	if (!strcmp(opt_backend, "pg")) {
#ifdef HAVE_LIBPQ
		ops = &db_pg_ops;
		target = opt_dsn;
#else
		fprintf(stderr, PROG ": this build has no PostgreSQL backend (built without libpq)\n");
		return 1;
#endif
	} else {
		ops = &db_sqlite_ops;
		if (!opt_db) {
			snprintf(dbpath, sizeof(dbpath), "%s/" PROG "-%d.db",
				 access("/dev/shm", W_OK) ? "/tmp" : "/dev/shm", (int)getpid());
			opt_db = dbpath;
		}
		target = opt_db;
		db_sqlite_config.shared_cache = opt_shared_cache;
		db_sqlite_config.journal = opt_journal;
		if (sb_mutex_install(opt_mutex, opt_spin_us * 1000ull) != SQLITE_OK) {
			fprintf(stderr, PROG ": sqlite3_config(SQLITE_CONFIG_MUTEX) failed\n");
			return 1;
		}
		if (opt_profile == PROFILE_BUFFER_LATCHES) {
			nparts = opt_shards ? opt_shards : (opt_clients + 7) / 8;
			db_sqlite_config.shared_cache = false;
			db_sqlite_config.cache_kib = opt_cache_kib;
			db_sqlite_config.pcache = true;
			if (sb_pcache_install(opt_buckets) != SQLITE_OK) {
				fprintf(stderr, PROG ": sqlite3_config(SQLITE_CONFIG_PCACHE2) failed\n");
				return 1;
			}
		}
	}
	parts = calloc(nparts, sizeof(*parts));
	part_target = calloc(nparts, sizeof(*part_target));
	pdb = calloc(nparts, sizeof(*pdb));
	if (!parts || !part_target || !pdb) {
		fprintf(stderr, PROG ": out of memory\n");
		return 1;
	}
	for (int k = 0; k < nparts; k++) {
		if (nparts == 1)
			snprintf(part_target[k], sizeof(part_target[k]), "%s", target);
		else
			snprintf(part_target[k], sizeof(part_target[k]), "%s.s%d", target, k);
	}
	if (slice_init(opt_abi, err, sizeof(err))) {
		fprintf(stderr, PROG ": %s\n", err);
		return 1;
	}
	bench_env_read(&env);

	/*
	 * Load (or attach to) the data set, one connection per shard: each
	 * shard a complete data set of scale / shards (its own customers,
	 * orders and warehouses; the products in every shard).
	 */
	for (int k = 0; k < nparts; k++) {
		struct db *db;

		if (opt_profile == PROFILE_BUFFER_LATCHES)
			sb_pcache_set_file(part_target[k]);
		db = pdb[k] = ops->open(part_target[k], err, sizeof(err));
		if (!db) {
			fprintf(stderr, PROG ": cannot connect: %s\n", err);
			return 1;
		}
		if (!opt_no_load) {
			uint64_t t0 = bench_now_ns();

			if (soe_load(ops, db, &parts[k], opt_scale / nparts, opt_seed + k, err, sizeof(err))) {
				fprintf(stderr, PROG ": %s\n", err);
				return 1;
			}
			if (nparts == 1)
				printf("loaded scale %g in %.1f s\n", opt_scale, (bench_now_ns() - t0) / 1e9);
			else if (k == nparts - 1)
				printf("loaded %d shards of scale %g\n", nparts, opt_scale / nparts);
		}
		if (soe_attach(ops, db, &parts[k], err, sizeof(err))) {
			fprintf(stderr, PROG ": the database has no SOE data set (%s)\n", err);
			return 1;
		}
	}

	printf(PROG ": %ld clients, %ld hogs, %s", opt_clients, opt_hogs, ops->name);
	if (ops == &db_sqlite_ops)
		printf(" (%s mutexes, spinning %ld us, %s cache, %s journal, %s)", sb_mutex_kind_name(opt_mutex),
		       opt_spin_us, db_sqlite_config.shared_cache ? "shared" : "private", opt_journal, opt_db);
	if (opt_profile == PROFILE_BUFFER_LATCHES)
		printf(", buffer-latches: %d shards, %ld bucket latches, %ld KiB caches", nparts, opt_buckets,
		       opt_cache_kib);
	printf(", logon %s, %ld s + %ld s warmup, mix", opt_logon_all ? "all" : "writers",
	       opt_duration, opt_warmup);
	for (int t = 0; t < TX_NR; t++)
		if (weights[t])
			printf(" %s=%d", soe_txns[t].abbrev, weights[t]);
	printf("\n");
	bench_print_env(stdout, slice_abi_name(slice_current_abi()), &env);
	fflush(stdout);

	for (int t = 0, k = 0; t < TX_NR; t++)
		for (int w = 0; w < weights[t]; w++)
			pick_table[k++] = t;
	ngroups = (opt_clients + GROUP_CLIENTS - 1) / GROUP_CLIENTS;
	groups = calloc(ngroups, sizeof(*groups));
	clients = aligned_alloc(64, opt_clients * sizeof(*clients));
	if (!groups || !clients) {
		fprintf(stderr, PROG ": out of memory\n");
		return 1;
	}
	memset(clients, 0, opt_clients * sizeof(*clients));
	for (int g = 0; g < ngroups; g++)
		for (int t = 0; t < TX_NR; t++)
			hist_init(&groups[g].lat[t]);
	hogs = bench_hogs_start(PROG, opt_hogs, NULL, BENCH_HOG_OTHER);
	/*
	 * Connect and prepare here, one client after the other, then hand each
	 * connection to its thread: a thousand threads opening at once would
	 * measure the connection mutexes, not the workload.
	 */
	t_start = bench_now_ns();
	for (long i = 0; i < opt_clients; i++) {
		struct client *c = &clients[i];

		c->soe.ops = ops;
		c->soe.rng = opt_seed * 0x100000001b3ull + i + 1;
		c->soe.shard = &parts[i % nparts];
		if (opt_profile == PROFILE_BUFFER_LATCHES)
			sb_pcache_set_file(part_target[i % nparts]);
		c->soe.db = ops->open(part_target[i % nparts], err, sizeof(err));
		if (!c->soe.db || soe_prepare(&c->soe, err, sizeof(err))) {
			fprintf(stderr, PROG ": client %ld of %ld could not connect: %s\n", i + 1,
				opt_clients, err);
			return 1;
		}
	}
	printf("connected %ld clients in %.1f s\n", opt_clients, (bench_now_ns() - t_start) / 1e9);
	fflush(stdout);
	pthread_barrier_init(&ready, NULL, opt_clients + 1);
	for (long i = 0; i < opt_clients; i++)
		/* SQLite needs some stack, but not 8 MB times a thousand. */
		bench_start_thread(PROG, &clients[i].thread, 512 * 1024, client_main, &clients[i]);
	pthread_barrier_wait(&ready);

	win.warmup_s = opt_warmup;
	win.duration_s = opt_duration;
	win.interval_s = opt_interval;
	win.n_rates = 2;
	win.names[0] = "tx/s";
	win.names[1] = "sql/s";
	win.count = window_count;
	win.open = window_open;
	win.close = window_close;
	win.arg = &run;
	bench_window_run(PROG, &win);
	for (long i = 0; i < opt_clients; i++)
		pthread_join(clients[i].thread, NULL);
	bench_hogs_stop(hogs);
	if (ops == &db_sqlite_ops)
		nmstat = sb_mutex_stats(mstat, 24);
	secs = bench_window_secs(&win);

	for (int t = 0; t < TX_NR; t++)
		hist_init(&lat[t]);
	for (int g = 0; g < ngroups; g++)
		for (int t = 0; t < TX_NR; t++)
			hist_merge(&lat[t], &groups[g].lat[t]);
	for (long i = 0; i < opt_clients; i++) {
		struct client *c = &clients[i];
		struct soe_effects *e = &c->soe.done;

		for (int t = 0; t < TX_NR; t++) {
			committed[t] += c->committed[t];
			retries[t] += c->retries[t];
			failed[t] += c->failed[t];
			errors[t] += c->errors[t];
			sql_by_type[t] += c->sql_by_type[t];
		}
		sql += c->sql_end - c->sql_start;
		soe_effects_add(&done, e);
		lib.sections += c->sc_end.sections - c->sc_start.sections;
		lib.grants += c->sc_end.grants - c->sc_start.grants;
		lib.yields += c->sc_end.yields - c->sc_start.yields;
		lib.denied += c->sc_end.denied - c->sc_start.denied;
		if (c->first_error[0] && !first_error)
			first_error = c->first_error;
		if (c->soe.db)
			ops->close(c->soe.db);
	}
	for (int t = 0; t < TX_NR; t++) {
		txns += committed[t];
		/* Little's law: transactions in progress = rate x mean latency. */
		in_txn += committed[t] / secs * hist_mean(&lat[t]) / 1e9;
	}

	printf("SQL exec/s: %.1f (%llu statements in %.2f s); transactions/s: %.1f\n", sql / secs,
	       (unsigned long long)sql, secs, txns / secs);
	printf("%-26s %9s %8s %8s %7s %6s %6s %9s %9s %9s %9s %9s\n", "transaction", "committed",
	       "tx/s", "sql/s", "retries", "failed", "errors", "p50 ms", "p90 ms", "p99 ms", "p99.9 ms", "max ms");
	for (int t = 0; t < TX_NR; t++) {
		if (!weights[t])
			continue;
		printf("%-26s %9llu %8.1f %8.1f %7llu %6llu %6llu %9.2f %9.2f %9.2f %9.2f %9.2f\n",
		       soe_txns[t].name, (unsigned long long)committed[t], committed[t] / secs,
		       sql_by_type[t] / secs, (unsigned long long)retries[t], (unsigned long long)failed[t],
		       (unsigned long long)errors[t], hist_percentile(&lat[t], 0.5) / 1e6,
		       hist_percentile(&lat[t], 0.9) / 1e6, hist_percentile(&lat[t], 0.99) / 1e6,
		       hist_percentile(&lat[t], 0.999) / 1e6, lat[t].max / 1e6);
	}
	if (nmstat) {
		const struct db_gate_stats *g = db_sqlite_gate_stats();

		printf("SQLite mutexes (whole run):\n");
		for (int i = 0; i < nmstat; i++)
			printf("  %-52s %12llu acquired %10llu contended (%.2f%%)\n", mstat[i].name,
			       (unsigned long long)mstat[i].acquired, (unsigned long long)mstat[i].contended,
			       100.0 * mstat[i].contended / mstat[i].acquired);
		printf("SQLite mutexes, measured window: %-20s %8s %8s %8s %8s %8s %7s %9s %7s\n", "",
		       "per stmt", "p50 us", "p99 us", "max us", "held", "contd", "preempted", "grants");
		for (int i = 0; i < nmstat; i++) {
			const struct sb_mutex_window *w = mstat[i].window;

			if (!w->acquired)
				continue;
			printf("  %-52s %8.2f %8.2f %8.2f %8.1f %7.1f%% %7llu %9llu %7llu\n", mstat[i].name,
			       sql ? (double)w->acquired / sql : 0, hist_percentile(&w->hold, 0.5) / 1e3,
			       hist_percentile(&w->hold, 0.99) / 1e3, w->hold.max / 1e3,
			       100.0 * w->held_ns / (secs * 1e9), (unsigned long long)w->contended,
			       (unsigned long long)w->preempted, (unsigned long long)mstat[i].grants);
		}
		printf("writer gates: %llu, %llu write transactions, %llu waited; each held %.1f%% of the time "
		       "(the most held %.1f%%), %.2f waiting on average, longest hold %.2f ms\n",
		       (unsigned long long)g->gates, (unsigned long long)g->acquired, (unsigned long long)g->contended,
		       100.0 * g->held_ns / (secs * 1e9) / (g->gates ? g->gates : 1),
		       100.0 * g->max_held_ns / (secs * 1e9), g->wait_ns / (secs * 1e9), g->max_hold_ns / 1e6);
	}
	printf("sessions: %.1f in a transaction (Little's law), %.1f runnable on average (max %llu, "
	       "%llu samples of /proc/loadavg) on %ld CPUs\n", in_txn,
	       run.samples ? (double)run.sum / run.samples : 0, (unsigned long long)run.max,
	       (unsigned long long)run.samples, sysconf(_SC_NPROCESSORS_ONLN));
	printf("library: %llu sections, %llu granted, %llu yields, %llu denied\n",
	       (unsigned long long)lib.sections, (unsigned long long)lib.grants,
	       (unsigned long long)lib.yields, (unsigned long long)lib.denied);
	bench_print_kstats(stdout, &win.kstats);
	if (first_error) {
		fprintf(stderr, PROG ": database errors; the first: %s\n", first_error);
		rc = 1;
	}

	/*
	 * Consistency, shard by shard against the effects its clients
	 * committed; on SQLite also its own integrity check (pages, indexes,
	 * free lists), which a page cache that lost or mixed up a page fails.
	 */
	for (int k = 0; k < nparts; k++) {
		struct soe_effects pdone = { 0 };
		int b;

		for (long i = k; i < opt_clients; i += nparts)
			soe_effects_add(&pdone, &clients[i].soe.done);
		b = soe_check(ops, pdb[k], &parts[k], &pdone, report, sizeof(report), err, sizeof(err));
		if (b >= 0 && ops == &db_sqlite_ops) {
			int64_t v;

			if (db_sqlite_integrity(pdb[k], &v, err, sizeof(err))) {
				b = -1;
			} else {
				size_t used = strlen(report);

				snprintf(report + used, sizeof(report) - used, "%s: SQLite integrity check: %lld problems\n",
					 v ? "FAIL" : "ok", (long long)v);
				b += v != 0;
			}
		}
		if (b < 0) {
			fprintf(stderr, PROG ": the consistency check could not run%s: %s\n",
				nparts > 1 ? " on a shard" : "", err);
			rc = 1;
			bad++;
			continue;
		}
		if (nparts > 1) {
			for (char *line = strtok(report, "\n"); line; line = strtok(NULL, "\n"))
				printf("shard %d: %s\n", k, line);
		} else {
			printf("%s", report);
		}
		bad += b;
	}
	printf("consistency: %s\n", bad ? "FAILED" : "ok");
	if (bad)
		rc = 1;
	for (int k = 0; k < nparts; k++)
		ops->close(pdb[k]);
	if (ops == &db_sqlite_ops && !opt_keep) {
		for (int k = 0; k < nparts; k++) {
			char side[320];

			unlink(part_target[k]);
			snprintf(side, sizeof(side), "%s-wal", part_target[k]);
			unlink(side);
			snprintf(side, sizeof(side), "%s-shm", part_target[k]);
			unlink(side);
		}
	}

	if (opt_json) {
		struct bench_json *j = &json;

		bench_json_header(j, PROG, argc, argv, slice_abi_name(slice_current_abi()), &env);
		bench_json_obj(j, "config");
		bench_json_str(j, "backend", ops->name);
		bench_json_u64(j, "clients", opt_clients);
		bench_json_u64(j, "hogs", opt_hogs);
		if (ops == &db_sqlite_ops) {
			bench_json_str(j, "mutex", sb_mutex_kind_name(opt_mutex));
			bench_json_u64(j, "spin_us", opt_spin_us);
			bench_json_str(j, "profile", opt_profile == PROFILE_BUFFER_LATCHES ? "buffer-latches" : "giant-lock");
			bench_json_u64(j, "shards", nparts);
			if (opt_profile == PROFILE_BUFFER_LATCHES) {
				bench_json_u64(j, "buckets", opt_buckets);
				bench_json_u64(j, "cache_kib", opt_cache_kib);
			}
			bench_json_str(j, "cache", db_sqlite_config.shared_cache ? "shared" : "private");
			bench_json_str(j, "journal", opt_journal);
		}
		bench_json_str(j, "logon", opt_logon_all ? "all" : "writers");
		bench_json_dbl(j, "scale", opt_scale);
		bench_json_u64(j, "duration_s", opt_duration);
		bench_json_u64(j, "warmup_s", opt_warmup);
		bench_json_obj(j, "mix");
		for (int t = 0; t < TX_NR; t++)
			bench_json_u64(j, soe_txns[t].name, weights[t]);
		bench_json_obj_end(j);
		bench_json_obj_end(j);
		bench_json_obj(j, "results");
		bench_json_dbl(j, "seconds", secs);
		bench_json_u64(j, "sql", sql);
		bench_json_dbl(j, "sql_per_s", sql / secs);
		bench_json_u64(j, "transactions", txns);
		bench_json_dbl(j, "tx_per_s", txns / secs);
		bench_json_obj(j, "per_type");
		for (int t = 0; t < TX_NR; t++) {
			if (!weights[t])
				continue;
			bench_json_obj(j, soe_txns[t].name);
			bench_json_u64(j, "committed", committed[t]);
			bench_json_u64(j, "sql", sql_by_type[t]);
			bench_json_dbl(j, "sql_per_s", sql_by_type[t] / secs);
			bench_json_u64(j, "retries", retries[t]);
			bench_json_u64(j, "failed", failed[t]);
			bench_json_u64(j, "errors", errors[t]);
			bench_json_hist(j, "latency", &lat[t]);
			bench_json_obj_end(j);
		}
		bench_json_obj_end(j);
		{
			uint64_t all = 0, latches = 0;

			for (int i = 0; i < nmstat; i++) {
				all += mstat[i].window->preempted;
				if (strstr(mstat[i].name, "(pcache)"))
					latches += mstat[i].window->preempted;
			}
			/* Holds past --preempted-us: every class, and the buffer-cache latches'. */
			bench_json_u64(j, "preempted_holding", all);
			bench_json_u64(j, "latch_preempted", latches);
		}
		bench_json_arr(j, "mutexes");
		for (int i = 0; i < nmstat; i++) {
			const struct sb_mutex_window *w = mstat[i].window;

			bench_json_obj(j, NULL);
			bench_json_str(j, "name", mstat[i].name);
			bench_json_u64(j, "acquired", mstat[i].acquired);
			bench_json_u64(j, "contended", mstat[i].contended);
			/* The measured window: outermost holds. */
			bench_json_obj(j, "window");
			bench_json_u64(j, "acquired", w->acquired);
			bench_json_dbl(j, "per_statement", sql ? (double)w->acquired / sql : 0);
			bench_json_u64(j, "contended", w->contended);
			bench_json_dbl(j, "held_share", w->held_ns / (secs * 1e9));
			bench_json_u64(j, "preempted_holding", w->preempted);
			bench_json_u64(j, "grants", mstat[i].grants);
			bench_json_hist(j, "hold", &w->hold);
			bench_json_obj_end(j);
			bench_json_obj_end(j);
		}
		bench_json_arr_end(j);
		if (ops == &db_sqlite_ops) {
			const struct db_gate_stats *g = db_sqlite_gate_stats();

			bench_json_obj(j, "writer_gate");
			bench_json_u64(j, "gates", g->gates);
			bench_json_dbl(j, "max_utilisation", g->max_held_ns / (secs * 1e9));
			bench_json_u64(j, "acquired", g->acquired);
			bench_json_u64(j, "contended", g->contended);
			/* Per gate: the mean over the gates; waiting: clients, over all gates. */
			bench_json_dbl(j, "utilisation", g->held_ns / (secs * 1e9) / (g->gates ? g->gates : 1));
			bench_json_dbl(j, "mean_waiting", g->wait_ns / (secs * 1e9));
			bench_json_dbl(j, "mean_wait_us", g->acquired ? g->wait_ns / 1e3 / g->acquired : 0);
			bench_json_u64(j, "max_hold_ns", g->max_hold_ns);
			bench_json_obj_end(j);
		}
		bench_json_obj(j, "sessions");
		bench_json_dbl(j, "in_transaction", in_txn);
		bench_json_dbl(j, "runnable_mean", run.samples ? (double)run.sum / run.samples : 0);
		bench_json_u64(j, "runnable_max", run.max);
		bench_json_u64(j, "runnable_samples", run.samples);
		bench_json_u64(j, "cpus", sysconf(_SC_NPROCESSORS_ONLN));
		bench_json_obj_end(j);
		bench_json_obj(j, "library");
		bench_json_u64(j, "sections", lib.sections);
		bench_json_u64(j, "granted", lib.grants);
		bench_json_u64(j, "yields", lib.yields);
		bench_json_u64(j, "denied", lib.denied);
		bench_json_obj_end(j);
		bench_json_kstats(j, "kernel", &win.kstats);
		bench_json_bool(j, "consistent", bad == 0);
		bench_json_obj_end(j);
		if (bench_json_end(j))
			rc = 1;
	}
	return rc;
}
