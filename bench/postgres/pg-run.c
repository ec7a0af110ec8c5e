// SPDX-License-Identifier: GPL-2.0
/*
 * pg-run: one pgbench run against a PostgreSQL server with
 * extension-aware spinlocks (bench/postgres/README.md), start to finish:
 *
 *   1. copy an initialised data directory (initdb + pgbench -i, made on the
 *      host by bench/postgres/make-data) to a work folder on tmpfs, owned
 *      by the server's user;
 *   2. start the server as that user on a Unix socket only, with the
 *      postmaster's SLICEBENCH_ABI, fsync off;
 *   3. start the CPU hogs, run pgbench for the warmup, read the kernel's
 *      counters, run pgbench for the measured window with a per-transaction
 *      log, read the counters again;
 *   4. check the database's balances (the money each script moved is in
 *      pgbench_history), stop the server, check every backend left its
 *      sections (depth 0) and sum their lock counts.
 *
 * A run fails (exit 1) if pgbench fails, a transaction fails, a balance
 * does not add up, or a backend's section depth is not 0 at exit.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <grp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench.h"
#include "slice.h"

#define PROG "pg-run"

/* The installed PostgreSQL: bin/ and lib/ (bench/postgres/build). */
static const char *opt_pgroot = "/opt/slicebench-pg";
/* The initialised data directory to copy (required). */
static const char *opt_data;
/* Where the copy, the socket and the logs go; must not exist. */
static const char *opt_workdir = "/tmp/pg-run";
/* The server's and pgbench's user when run as root (PostgreSQL refuses root). */
static const char *opt_user = "postgres";
/* SLICEBENCH_ABI for the postmaster: none, auto, rseq-cr, task-shared, mainline. */
static const char *opt_abi = "none";
/* pgbench's built-in script: select (-S), simple-update (-N), tpcb. */
static const char *opt_mode = "select";
/* pgbench clients (-c). */
static long opt_clients = 8;
/* pgbench threads (-j); 0: one per online CPU, at most the clients. */
static long opt_threads;
/* Measured seconds. */
static long opt_duration = 10;
/* Seconds of pgbench before the measured window (not measured). */
static long opt_warmup = 2;
/* The server's shared_buffers: small, so that reads evict (StrategyGetBuffer). */
static const char *opt_shared_buffers = "16MB";
/* huge_pages=on (the server fails to start without them) instead of off. */
static int opt_huge_pages;
/* Test hook: every section held this much longer (SLICEBENCH_PG_HOLD_US). */
static long opt_hold_us;
/* CPU hogs (SCHED_OTHER threads of this process) beside the server. */
static long opt_hogs;
/* Write the results as JSON here. */
static const char *opt_json;

static const struct option long_opts[] = {
	{ "pgroot", required_argument, NULL, 'P' },
	{ "data", required_argument, NULL, 'D' },
	{ "workdir", required_argument, NULL, 'W' },
	{ "user", required_argument, NULL, 'u' },
	{ "abi", required_argument, NULL, 'a' },
	{ "mode", required_argument, NULL, 'm' },
	{ "clients", required_argument, NULL, 'c' },
	{ "threads", required_argument, NULL, 'j' },
	{ "duration", required_argument, NULL, 'd' },
	{ "warmup", required_argument, NULL, 'w' },
	{ "shared-buffers", required_argument, NULL, 'B' },
	{ "huge-pages", no_argument, NULL, 'H' },
	{ "hogs", required_argument, NULL, 'h' },
	{ "hold-us", required_argument, NULL, 'U' },
	{ "json", required_argument, NULL, 'J' },
	{ "help", no_argument, NULL, '?' },
	{ 0 }
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: " PROG " --data DIR [options]\n"
		"\n"
		"One pgbench run against PostgreSQL with extension-aware spinlocks.\n"
		"\n"
		"  --data DIR            initialised data directory to copy (required)\n"
		"  --pgroot DIR          installed PostgreSQL (default: %s)\n"
		"  --workdir DIR         work folder, must not exist; the database's copy\n"
		"                        in it is removed at the end (default: %s)\n"
		"  --user NAME           server and pgbench user when root (default: %s)\n"
		"  --abi NAME            the postmaster's SLICEBENCH_ABI (default: %s)\n"
		"  --mode NAME           select (-S), simple-update (-N), tpcb (default: %s)\n"
		"  --clients N           pgbench clients (default: %ld)\n"
		"  --threads N           pgbench threads, 0: one per CPU (default: %ld)\n"
		"  --duration S          measured seconds (default: %ld)\n"
		"  --warmup S            pgbench seconds before them (default: %ld)\n"
		"  --shared-buffers SIZE the server's shared_buffers (default: %s)\n"
		"  --huge-pages          huge_pages=on (default: off)\n"
		"  --hogs N              CPU hogs beside the server (default: %ld)\n"
		"  --hold-us N           test hook: hold every spinlock N us longer, 0-1000\n"
		"                        (default: %ld; tests/postgres.t, never a benchmark)\n"
		"  --json FILE           write the results as JSON\n",
		opt_pgroot, opt_workdir, opt_user, opt_abi, opt_mode, opt_clients, opt_threads,
		opt_duration, opt_warmup, opt_shared_buffers, opt_hogs, opt_hold_us);
}

static const char *mode_flag(const char *mode)
{
	if (!strcmp(mode, "select"))
		return "-S";
	if (!strcmp(mode, "simple-update"))
		return "-N";
	if (!strcmp(mode, "tpcb"))
		return "-b tpcb-like";
	return NULL;
}

static uid_t run_uid;
static gid_t run_gid;
static bool drop_root;

/*
 * NAME's uid and gid from /etc/passwd, read here rather than through NSS:
 * the guest's copy is static, and its /etc/passwd is the image's own.
 */
static int lookup_user(const char *name, uid_t *uid, gid_t *gid)
{
	char line[512];
	FILE *f = fopen("/etc/passwd", "r");
	size_t len = strlen(name);
	int rc = -1;

	if (!f)
		return -1;
	while (rc && fgets(line, sizeof(line), f)) {
		unsigned int u, g;

		if (!strncmp(line, name, len) && line[len] == ':' &&
		    sscanf(line + len, ":%*[^:]:%u:%u:", &u, &g) == 2) {
			*uid = u;
			*gid = g;
			rc = 0;
		}
	}
	fclose(f);
	return rc;
}

/* Become the run's user (in a child, before exec). */
static void become_user(void)
{
	if (!drop_root)
		return;
	if (setgroups(0, NULL) || setgid(run_gid) || setuid(run_uid)) {
		fprintf(stderr, PROG ": cannot become %s: %s\n", opt_user, strerror(errno));
		_exit(127);
	}
}

/*
 * Run ARGV (as the run's user if AS_USER), stdout to OUT (NULL: inherit),
 * stderr to ERR (NULL: inherit); its exit status, or -1 if it died.
 */
static int run(char *const argv[], bool as_user, const char *out, const char *err)
{
	pid_t pid = fork();
	int st;

	if (pid < 0) {
		fprintf(stderr, PROG ": fork: %s\n", strerror(errno));
		return -1;
	}
	if (pid == 0) {
		if (as_user)
			become_user();
		if (out && !freopen(out, "w", stdout))
			_exit(127);
		if (err && !freopen(err, "w", stderr))
			_exit(127);
		execv(argv[0], argv);
		fprintf(stderr, PROG ": %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static char *path(const char *dir, const char *name)
{
	char *p;

	if (asprintf(&p, "%s/%s", dir, name) < 0) {
		fprintf(stderr, PROG ": out of memory\n");
		exit(1);
	}
	return p;
}

static void print_file(const char *file, const char *what)
{
	char line[512];
	FILE *f = fopen(file, "r");

	if (!f)
		return;
	fprintf(stderr, "--- %s (%s)\n", what, file);
	while (fgets(line, sizeof(line), f))
		fputs(line, stderr);
	fclose(f);
}

/* pgbench's summary: tps (without initial connection time) and counts. */
struct pgbench_result {
	double tps;
	uint64_t processed, failed;
};

static int parse_pgbench(const char *file, struct pgbench_result *r)
{
	char line[512];
	FILE *f = fopen(file, "r");
	int got = 0;

	if (!f)
		return -1;
	memset(r, 0, sizeof(*r));
	while (fgets(line, sizeof(line), f)) {
		unsigned long long v;

		if (sscanf(line, "number of transactions actually processed: %llu", &v) == 1) {
			r->processed = v;
			got |= 1;
		} else if (sscanf(line, "number of failed transactions: %llu", &v) == 1) {
			r->failed = v;
		} else if (sscanf(line, "tps = %lf (without initial connection time)", &r->tps) == 1) {
			got |= 2;
		}
	}
	fclose(f);
	return got == 3 ? 0 : -1;
}

/*
 * pgbench's per-transaction logs (PREFIX.PID[.THREAD]): "client_id
 * transaction_no time script_no time_epoch time_us", time in us.
 */
static int read_latency_logs(const char *dir, struct hist *h, uint64_t *lines)
{
	char cmd[4096], line[256];
	FILE *p;

	snprintf(cmd, sizeof(cmd), "cat %s/txlog.* 2>/dev/null", dir);
	p = popen(cmd, "r");
	if (!p)
		return -1;
	*lines = 0;
	while (fgets(line, sizeof(line), p)) {
		unsigned long long client, tx, us;

		if (sscanf(line, "%llu %llu %llu", &client, &tx, &us) != 3)
			continue;
		hist_add(h, us * 1000);
		(*lines)++;
	}
	return pclose(p) == 0 ? 0 : -1;
}

/* The server's processes' lines in the counters file, summed. */
struct pg_counts {
	uint64_t processes, client_backends, bad_depth, setup_failures;
	uint64_t spin_acq, spin_cont, buf_acq, buf_cont;
	uint64_t sections, grants, yields, denied;
};

static int read_counts(const char *file, struct pg_counts *c)
{
	char line[1024], type[128];
	FILE *f = fopen(file, "r");

	memset(c, 0, sizeof(*c));
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long sa, sc, ba, bc, s, g, y, d, sf;
		unsigned int depth;
		int pid;
		char *t = strstr(line, " type="), *rest;

		/* The type is free text ("client backend"): up to " spin=". */
		rest = t ? strstr(t, " spin=") : NULL;
		if (sscanf(line, "pid=%d", &pid) != 1 || !rest ||
		    sscanf(rest, " spin=%llu/%llu bufhdr=%llu/%llu sections=%llu grants=%llu "
			   "yields=%llu denied=%llu depth=%u setup_failures=%llu",
			   &sa, &sc, &ba, &bc, &s, &g, &y, &d, &depth, &sf) != 10) {
			fprintf(stderr, PROG ": %s: unreadable line: %s", file, line);
			fclose(f);
			return -1;
		}
		snprintf(type, sizeof(type), "%.*s", (int)(rest - t - 6), t + 6);
		c->processes++;
		c->client_backends += !strcmp(type, "client backend");
		c->bad_depth += depth != 0;
		if (depth)
			fprintf(stderr, PROG ": process %d (%s) exited inside %u section(s)\n", pid,
				type, depth);
		c->setup_failures = sf > c->setup_failures ? sf : c->setup_failures;
		c->spin_acq += sa;
		c->spin_cont += sc;
		c->buf_acq += ba;
		c->buf_cont += bc;
		c->sections += s;
		c->grants += g;
		c->yields += y;
		c->denied += d;
	}
	fclose(f);
	return 0;
}

/* pgbench's arguments common to the warmup and the measured run. */
static void pgbench_args(char **a, int *n, char *pgb, char *clients, char *threads, char *sock)
{
	a[(*n)++] = pgb;
	a[(*n)++] = "-n";	/* pgbench -i vacuumed; no vacuum between runs */
	a[(*n)++] = "-M";
	a[(*n)++] = "prepared";
	if (!strcmp(opt_mode, "tpcb")) {
		a[(*n)++] = "-b";
		a[(*n)++] = "tpcb-like";
	} else {
		a[(*n)++] = (char *)mode_flag(opt_mode);
	}
	a[(*n)++] = "-c";
	a[(*n)++] = clients;
	a[(*n)++] = "-j";
	a[(*n)++] = threads;
	a[(*n)++] = "-h";
	a[(*n)++] = sock;
}

#define NR_HUGEPAGES "/proc/sys/vm/nr_hugepages"

static int hugepages_write(long n)
{
	FILE *f = fopen(NR_HUGEPAGES, "w");
	int rc;

	if (!f)
		return -1;
	rc = fprintf(f, "%ld\n", n) < 0;
	return fclose(f) || rc ? -1 : 0;
}

/* The reservation before --huge-pages changed it (-1: unchanged). */
static long hugepages_restore = -1;

static void restore_huge_pages(void)
{
	if (hugepages_restore >= 0 && hugepages_write(hugepages_restore))
		fprintf(stderr, PROG ": could not set nr_hugepages back to %ld\n", hugepages_restore);
	hugepages_restore = -1;
}

/*
 * huge_pages=on needs the pages reserved before the server starts: ask the
 * server how many its shared memory takes (postgres -C
 * shared_memory_size_in_huge_pages, with this run's settings) and reserve
 * them, plus a margin. Returns the reservation to restore after the run
 * (-1: nothing to restore), or -2 on failure.
 */
static long reserve_huge_pages(const char *bin, const char *datadir, const char *maxconn,
			       const char *sb)
{
	char *pg = path(bin, "postgres"), *out = path(opt_workdir, "hugepages.out");
	char *argv_c[] = { pg, "-D", (char *)datadir, "-C", "shared_memory_size_in_huge_pages",
		"-c", (char *)maxconn, "-c", (char *)sb, NULL };
	long need = -1, had = bench_read_long(NR_HUGEPAGES);
	FILE *f;

	if (run(argv_c, true, out, NULL) == 0 && (f = fopen(out, "r"))) {
		if (fscanf(f, "%ld", &need) != 1)
			need = -1;
		fclose(f);
	}
	free(pg);
	free(out);
	if (need < 1 || had < 0) {
		fprintf(stderr, PROG ": --huge-pages: cannot tell how many huge pages the server needs "
			"(postgres -C shared_memory_size_in_huge_pages: %ld; nr_hugepages: %ld)\n", need, had);
		return -2;
	}
	if (had >= need + 4)
		return -1;
	if (hugepages_write(need + 4) || bench_read_long(NR_HUGEPAGES) < need + 4) {
		fprintf(stderr, PROG ": --huge-pages: cannot reserve %ld huge pages "
			"(/proc/sys/vm/nr_hugepages; as root, with enough free memory)\n", need + 4);
		if (had >= 0)
			hugepages_write(had);
		return -2;
	}
	return had;
}

static pid_t server_pid;

static void stop_server(void)
{
	int st;

	if (server_pid <= 0)
		return;
	kill(server_pid, SIGINT);	/* fast shutdown: backends exit normally */
	while (waitpid(server_pid, &st, 0) < 0 && errno == EINTR)
		;
	server_pid = 0;
}

static void on_signal(int sig)
{
	if (server_pid > 0)
		kill(server_pid, SIGQUIT);
	signal(sig, SIG_DFL);
	raise(sig);
}

int main(int argc, char **argv)
{
	char clients_s[32], threads_s[32], dur_s[32], warm_s[32], maxconn[64], sb[96];
	char *bin, *lib, *datadir, *sock, *counters, *txprefix;
	struct bench_env env;
	struct bench_json json = { 0 };
	/* The measured window's counts, and the server's whole life's (ks, ke). */
	struct bench_kstats k0, k1, kd, ks, ke, kl;
	struct pgbench_result pr;
	struct pg_counts pc;
	struct hist lat;
	struct bench_hogs *hogs = NULL;
	uint64_t loglines = 0;
	bool ok = true;
	int c;

	while ((c = getopt_long(argc, argv, "", long_opts, NULL)) != -1) {
		switch (c) {
		case 'P': opt_pgroot = optarg; break;
		case 'D': opt_data = optarg; break;
		case 'W': opt_workdir = optarg; break;
		case 'u': opt_user = optarg; break;
		case 'a': opt_abi = optarg; break;
		case 'm': opt_mode = optarg; break;
		case 'c': opt_clients = bench_parse_long(PROG, "--clients", optarg, 1, 1000); break;
		case 'j': opt_threads = bench_parse_long(PROG, "--threads", optarg, 0, 1000); break;
		case 'd': opt_duration = bench_parse_long(PROG, "--duration", optarg, 1, 86400); break;
		case 'w': opt_warmup = bench_parse_long(PROG, "--warmup", optarg, 0, 86400); break;
		case 'B': opt_shared_buffers = optarg; break;
		case 'H': opt_huge_pages = 1; break;
		case 'h': opt_hogs = bench_parse_long(PROG, "--hogs", optarg, 0, 10000); break;
		case 'U': opt_hold_us = bench_parse_long(PROG, "--hold-us", optarg, 0, 1000); break;
		case 'J': opt_json = optarg; break;
		case '?':
			if (optind > 0 && !strcmp(argv[optind - 1], "--help")) {
				usage(stdout);
				return 0;
			}
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, PROG ": unexpected argument: %s\n", argv[optind]);
		return 2;
	}
	if (!opt_data) {
		fprintf(stderr, PROG ": --data DIR is required (bench/postgres/make-data)\n");
		return 2;
	}
	if (!mode_flag(opt_mode)) {
		fprintf(stderr, PROG ": --mode %s: not select, simple-update or tpcb\n", opt_mode);
		return 2;
	}
	{
		enum slice_abi abi;

		if (slice_abi_parse(opt_abi, &abi)) {
			fprintf(stderr, PROG ": --abi %s: not none, auto, rseq-cr, task-shared or mainline\n",
				opt_abi);
			return 2;
		}
	}
	bin = path(opt_pgroot, "bin");
	lib = path(opt_pgroot, "lib");
	{
		char *pg = path(bin, "postgres"), *pgb = path(bin, "pgbench");
		char *ver = path(opt_data, "PG_VERSION");

		if (access(pg, X_OK) || access(pgb, X_OK)) {
			fprintf(stderr, PROG ": --pgroot %s: no bin/postgres or bin/pgbench\n", opt_pgroot);
			return 2;
		}
		if (access(ver, R_OK)) {
			fprintf(stderr, PROG ": --data %s: not a data directory (no PG_VERSION)\n", opt_data);
			return 2;
		}
		free(pg);
		free(pgb);
		free(ver);
	}
	if (geteuid() == 0) {
		if (lookup_user(opt_user, &run_uid, &run_gid)) {
			fprintf(stderr, PROG ": --user %s: not in /etc/passwd\n", opt_user);
			return 2;
		}
		drop_root = true;
	}
	if (opt_json && bench_json_open(&json, opt_json, PROG))
		return 2;
	if (mkdir(opt_workdir, 0755)) {
		fprintf(stderr, PROG ": --workdir %s: %s (it must not exist)\n", opt_workdir,
			strerror(errno));
		return 2;
	}
	if (!opt_threads) {
		long n = sysconf(_SC_NPROCESSORS_ONLN);

		opt_threads = n < opt_clients ? n : opt_clients;
	}
	if (opt_clients % opt_threads) {
		fprintf(stderr, PROG ": --clients %ld is not a multiple of --threads %ld (pgbench)\n",
			opt_clients, opt_threads);
		return 2;
	}
	bench_env_read(&env);
	hist_init(&lat);
	setenv("LD_LIBRARY_PATH", lib, 1);
	datadir = path(opt_workdir, "data");
	sock = path(opt_workdir, "");
	sock[strlen(sock) - 1] = '\0';
	counters = path(opt_workdir, "counters");
	txprefix = path(opt_workdir, "txlog");

	/* 1. The data directory, the user's. */
	{
		char *cp[] = { "/bin/cp", "-a", (char *)opt_data, datadir, NULL };
		char *ch[] = { "/bin/chown", "-R", NULL, (char *)opt_workdir, NULL };
		char owner[64];

		snprintf(owner, sizeof(owner), "%u:%u", (unsigned)run_uid, (unsigned)run_gid);
		ch[2] = owner;
		if (run(cp, false, NULL, NULL) ||
		    (drop_root && run(ch, false, NULL, NULL)) || chmod(datadir, 0700)) {
			fprintf(stderr, PROG ": cannot copy %s to %s\n", opt_data, datadir);
			return 1;
		}
	}

	/* 2. The server. */
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	snprintf(maxconn, sizeof(maxconn), "max_connections=%ld", opt_clients + 10);
	snprintf(sb, sizeof(sb), "shared_buffers=%s", opt_shared_buffers);
	if (opt_huge_pages) {
		hugepages_restore = reserve_huge_pages(bin, datadir, maxconn, sb);
		if (hugepages_restore == -2)
			return 1;
		atexit(restore_huge_pages);
	}
	{
		char *pg = path(bin, "postgres"), *log = path(opt_workdir, "server.log");
		char *argv_pg[] = { pg, "-D", datadir, "-k", sock, "-c", "listen_addresses=",
			"-c", maxconn, "-c", sb, "-c", "fsync=off", "-c",
			opt_huge_pages ? "huge_pages=on" : "huge_pages=off", "-c",
			"max_wal_size=1GB", NULL };

		bench_kstats_read(&ks);
		setenv("SLICEBENCH_ABI", opt_abi, 1);
		setenv("SLICEBENCH_PG_COUNTERS", counters, 1);
		if (opt_hold_us) {
			char hold[32];

			snprintf(hold, sizeof(hold), "%ld", opt_hold_us);
			setenv("SLICEBENCH_PG_HOLD_US", hold, 1);
		}
		server_pid = fork();
		if (server_pid < 0) {
			fprintf(stderr, PROG ": fork: %s\n", strerror(errno));
			return 1;
		}
		if (server_pid == 0) {
			become_user();
			if (!freopen(log, "w", stdout) || dup2(STDOUT_FILENO, STDERR_FILENO) < 0)
				_exit(127);
			execv(pg, argv_pg);
			_exit(127);
		}
		unsetenv("SLICEBENCH_ABI");
		unsetenv("SLICEBENCH_PG_COUNTERS");
		unsetenv("SLICEBENCH_PG_HOLD_US");
		/* Ready when pg_isready says so (60 s), unless the server died. */
		for (int i = 0;; i++) {
			char *isready = path(bin, "pg_isready");
			char *argv_r[] = { isready, "-q", "-h", sock, "-d", "postgres", NULL };
			int st;

			if (waitpid(server_pid, &st, WNOHANG) == server_pid) {
				server_pid = 0;
				fprintf(stderr, PROG ": the server exited at start-up\n");
				print_file(log, "server log");
				return 1;
			}
			if (run(argv_r, true, NULL, NULL) == 0)
				break;
			if (i == 600) {
				fprintf(stderr, PROG ": the server is not ready after 60 s\n");
				print_file(log, "server log");
				stop_server();
				return 1;
			}
			free(isready);
			bench_sleep_us(100000);
		}
		free(pg);
		free(log);
	}

	/* 3. Hogs, warmup, the measured window. */
	if (opt_hogs)
		hogs = bench_hogs_start(PROG, opt_hogs, NULL, BENCH_HOG_OTHER);
	snprintf(clients_s, sizeof(clients_s), "%ld", opt_clients);
	snprintf(threads_s, sizeof(threads_s), "%ld", opt_threads);
	snprintf(dur_s, sizeof(dur_s), "%ld", opt_duration);
	snprintf(warm_s, sizeof(warm_s), "%ld", opt_warmup);
	{
		char *pgb = path(bin, "pgbench"), *out = path(opt_workdir, "pgbench.out");
		char *err = path(opt_workdir, "pgbench.err"), *wout = path(opt_workdir, "warmup.out");
		char *warm[24], *meas[24];
		int nw = 0, nm = 0, rc;

		/* Both: pgbench -n -M prepared SCRIPT -c N -j N -h SOCK; then their own. */
		pgbench_args(warm, &nw, pgb, clients_s, threads_s, sock);
		warm[nw++] = "-T";
		warm[nw++] = warm_s;
		warm[nw++] = "postgres";
		warm[nw] = NULL;
		pgbench_args(meas, &nm, pgb, clients_s, threads_s, sock);
		meas[nm++] = "-T";
		meas[nm++] = dur_s;
		meas[nm++] = "-l";
		meas[nm++] = "--log-prefix";
		meas[nm++] = txprefix;
		meas[nm++] = "postgres";
		meas[nm] = NULL;
		if (opt_warmup && (rc = run(warm, true, wout, err)) != 0) {
			fprintf(stderr, PROG ": pgbench (warmup) failed (%d)\n", rc);
			print_file(err, "pgbench stderr");
			ok = false;
		}
		bench_kstats_read(&k0);
		if (ok && (rc = run(meas, true, out, err)) != 0) {
			fprintf(stderr, PROG ": pgbench failed (%d)\n", rc);
			print_file(err, "pgbench stderr");
			ok = false;
		}
		bench_kstats_read(&k1);
		if (ok && parse_pgbench(out, &pr)) {
			fprintf(stderr, PROG ": cannot read pgbench's summary\n");
			print_file(out, "pgbench stdout");
			ok = false;
		}
		if (ok && pr.failed) {
			fprintf(stderr, PROG ": %llu transactions failed\n", (unsigned long long)pr.failed);
			ok = false;
		}
		free(pgb);
		free(out);
		free(err);
		free(wout);
	}
	if (hogs)
		bench_hogs_stop(hogs);
	bench_kstats_delta(&kd, &k0, &k1);
	if (ok && (read_latency_logs(opt_workdir, &lat, &loglines) || loglines != pr.processed)) {
		fprintf(stderr, PROG ": the transaction log has %llu lines for %llu transactions\n",
			(unsigned long long)loglines, (unsigned long long)pr.processed);
		ok = false;
	}

	/* 4. Balances: what every script moved is in pgbench_history. */
	bool balanced = false;
	{
		char *psql = path(bin, "psql"), *out = path(opt_workdir, "balances.out");
		char *q = "SELECT (SELECT sum(abalance) FROM pgbench_accounts), "
			  "(SELECT sum(bbalance) FROM pgbench_branches), "
			  "(SELECT sum(tbalance) FROM pgbench_tellers), "
			  "(SELECT coalesce(sum(delta), 0) FROM pgbench_history), "
			  "(SELECT count(*) FROM pgbench_history)";
		char *argv_q[] = { psql, "-X", "-A", "-t", "-F", " ", "-h", sock, "-c", q, "postgres",
			NULL };
		long long a = 0, b = 0, t = 0, d = 0, n = 0;
		FILE *f;

		if (run(argv_q, true, out, NULL) == 0 && (f = fopen(out, "r"))) {
			if (fscanf(f, "%lld %lld %lld %lld %lld", &a, &b, &t, &d, &n) == 5) {
				if (!strcmp(opt_mode, "tpcb"))
					balanced = a == d && b == d && t == d;
				else if (!strcmp(opt_mode, "simple-update"))
					balanced = a == d && b == 0 && t == 0;
				else
					balanced = a == 0 && b == 0 && t == 0 && n == 0;
			}
			fclose(f);
		}
		if (!balanced) {
			fprintf(stderr, PROG ": balances do not add up (accounts %lld, branches %lld, "
				"tellers %lld, history %lld in %lld rows)\n", a, b, t, d, n);
			ok = false;
		}
		free(psql);
		free(out);
	}
	stop_server();
	bench_kstats_read(&ke);
	/* The database's copy (hundreds of MB in a tmpfs); the logs stay. */
	{
		char *rm[] = { "/bin/rm", "-rf", datadir, NULL };

		if (run(rm, false, NULL, NULL))
			fprintf(stderr, PROG ": could not remove %s\n", datadir);
	}
	bench_kstats_delta(&kl, &ks, &ke);
	if (read_counts(counters, &pc)) {
		fprintf(stderr, PROG ": no counts from the server's processes (%s)\n", counters);
		ok = false;
	} else if (pc.bad_depth) {
		ok = false;
	}

	printf(PROG ": %s, %ld clients, %ld threads, %ld s, abi %s%s%s\n", opt_mode, opt_clients,
	       opt_threads, opt_duration, opt_abi, opt_huge_pages ? ", huge pages" : "",
	       opt_hogs ? ", hogs" : "");
	if (opt_hold_us)
		printf("test hook: every spinlock held %ld us longer (not PostgreSQL's own holds)\n",
		       opt_hold_us);
	bench_print_env(stdout, opt_abi, &env);
	if (ok) {
		printf("tps %.1f (%llu transactions); latency p50 %.3f ms p99 %.3f ms p99.9 %.3f ms\n",
		       pr.tps, (unsigned long long)pr.processed, hist_percentile(&lat, 0.5) / 1e6,
		       hist_percentile(&lat, 0.99) / 1e6, hist_percentile(&lat, 0.999) / 1e6);
		printf("locks: spin %llu (%llu contended), buffer headers %llu (%llu contended); "
		       "sections %llu, grants %llu, yields %llu, in %llu processes\n",
		       (unsigned long long)pc.spin_acq, (unsigned long long)pc.spin_cont,
		       (unsigned long long)pc.buf_acq, (unsigned long long)pc.buf_cont,
		       (unsigned long long)pc.sections, (unsigned long long)pc.grants,
		       (unsigned long long)pc.yields, (unsigned long long)pc.processes);
		bench_print_kstats(stdout, &kd);
	}
	if (opt_json) {
		bench_json_header(&json, PROG, argc, argv, opt_abi, &env);
		bench_json_obj(&json, "config");
		bench_json_str(&json, "mode", opt_mode);
		bench_json_u64(&json, "clients", opt_clients);
		bench_json_u64(&json, "threads", opt_threads);
		bench_json_u64(&json, "duration_s", opt_duration);
		bench_json_str(&json, "shared_buffers", opt_shared_buffers);
		bench_json_bool(&json, "huge_pages", opt_huge_pages);
		bench_json_u64(&json, "hogs", opt_hogs);
		bench_json_u64(&json, "hold_us", opt_hold_us);
		bench_json_obj_end(&json);
		bench_json_obj(&json, "results");
		bench_json_bool(&json, "ok", ok);
		bench_json_dbl(&json, "tps", ok ? pr.tps : 0);
		bench_json_u64(&json, "transactions", ok ? pr.processed : 0);
		bench_json_hist(&json, "latency", &lat);
		bench_json_bool(&json, "balanced", balanced);
		bench_json_obj(&json, "locks");
		bench_json_u64(&json, "spin_acquired", pc.spin_acq);
		bench_json_u64(&json, "spin_contended", pc.spin_cont);
		bench_json_u64(&json, "bufhdr_acquired", pc.buf_acq);
		bench_json_u64(&json, "bufhdr_contended", pc.buf_cont);
		bench_json_obj_end(&json);
		bench_json_obj(&json, "lib");
		bench_json_u64(&json, "processes", pc.processes);
		bench_json_u64(&json, "client_backends", pc.client_backends);
		bench_json_u64(&json, "sections", pc.sections);
		bench_json_u64(&json, "grants", pc.grants);
		bench_json_u64(&json, "yields", pc.yields);
		bench_json_u64(&json, "denied", pc.denied);
		bench_json_u64(&json, "bad_depth", pc.bad_depth);
		bench_json_u64(&json, "setup_failures", pc.setup_failures);
		bench_json_obj_end(&json);
		bench_json_kstats(&json, "kernel", &kd);
		/* From the server's start to its stop: the window of lib's counts. */
		bench_json_kstats(&json, "kernel_server_life", &kl);
		bench_json_obj_end(&json);
		if (bench_json_end(&json))
			ok = false;
	}
	return ok ? 0 : 1;
}
