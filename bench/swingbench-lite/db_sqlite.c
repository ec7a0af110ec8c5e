// SPDX-License-Identifier: GPL-2.0
/*
 * db_sqlite.c: swingbench-lite's SQLite back end.
 *
 * One connection per client thread, opened without a connection mutex
 * (SQLITE_OPEN_NOMUTEX: each is used by one thread only), so the mutexes
 * that remain are the shared ones: the memory allocator's, the shared
 * cache's B-tree mutex, the WAL index's, the VFS's. Those are what
 * sqlite_mutex.c makes extension-aware.
 *
 * Write transactions take the writer gate (db.h) first, so they rarely find
 * another writer active. If one still gets SQLITE_LOCKED (shared cache) the
 * client waits with sqlite3_unlock_notify() (the blocking connection's
 * commit wakes it) and retries the transaction; SQLITE_BUSY (private cache)
 * is waited out by SQLite's busy timeout, then retried.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "db.h"
#include "pcache.h"

struct db_sqlite_config db_sqlite_config = {
	.shared_cache = true,
	.journal = "wal",
	.busy_timeout_ms = 10000,
};

/*
 * Write transactions, one at a time per database file (db.h): a gate per
 * file, found by its path when a connection opens. Its figures in the
 * measured window (db_sqlite_gate_measure()) are kept under the gate.
 */
#define MAX_GATES 256
struct gate {
	char path[256];
	pthread_mutex_t m;
	struct db_gate_stats st;
	uint64_t since;
};
static struct gate gates[MAX_GATES];
static int ngates;
static pthread_mutex_t gates_lock = PTHREAD_MUTEX_INITIALIZER;
static volatile int gate_measuring;
static struct db_gate_stats gate_sum;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

void db_sqlite_gate_measure(bool on)
{
	__atomic_store_n(&gate_measuring, on, __ATOMIC_RELAXED);
}

/* The summed figures of every gate; max_held_ns: the most held gate's. */
const struct db_gate_stats *db_sqlite_gate_stats(void)
{
	memset(&gate_sum, 0, sizeof(gate_sum));
	pthread_mutex_lock(&gates_lock);
	gate_sum.gates = ngates;
	for (int i = 0; i < ngates; i++) {
		const struct db_gate_stats *g = &gates[i].st;

		gate_sum.acquired += g->acquired;
		gate_sum.contended += g->contended;
		gate_sum.wait_ns += g->wait_ns;
		gate_sum.held_ns += g->held_ns;
		if (g->max_hold_ns > gate_sum.max_hold_ns)
			gate_sum.max_hold_ns = g->max_hold_ns;
		if (g->held_ns > gate_sum.max_held_ns)
			gate_sum.max_held_ns = g->held_ns;
	}
	pthread_mutex_unlock(&gates_lock);
	return &gate_sum;
}

static struct gate *gate_for(const char *path)
{
	struct gate *g = NULL;

	pthread_mutex_lock(&gates_lock);
	for (int i = 0; i < ngates && !g; i++)
		if (!strcmp(gates[i].path, path))
			g = &gates[i];
	if (!g && ngates < MAX_GATES) {
		g = &gates[ngates++];
		snprintf(g->path, sizeof(g->path), "%s", path);
		pthread_mutex_init(&g->m, NULL);
	}
	pthread_mutex_unlock(&gates_lock);
	return g;
}

/* Take the gate; in the window, count, time the wait, start the hold. */
static void gate_lock(struct gate *g)
{
	uint64_t t0 = 0, now;
	bool contended = false;

	if (__atomic_load_n(&gate_measuring, __ATOMIC_RELAXED))
		t0 = now_ns();
	if (pthread_mutex_trylock(&g->m)) {
		contended = true;
		pthread_mutex_lock(&g->m);
	}
	g->since = 0;
	if (t0 && __atomic_load_n(&gate_measuring, __ATOMIC_RELAXED)) {
		now = now_ns();
		g->since = now;
		g->st.acquired++;
		g->st.contended += contended;
		g->st.wait_ns += now - t0;
	}
}

static void gate_unlock(struct gate *g)
{
	if (g->since) {
		uint64_t d = now_ns() - g->since;

		g->st.held_ns += d;
		if (d > g->st.max_hold_ns)
			g->st.max_hold_ns = d;
		g->since = 0;
	}
	pthread_mutex_unlock(&g->m);
}

#define MAX_ROWS 64
#define MAX_COLS 8

struct db {
	sqlite3 *h;
	sqlite3_stmt *stmt[DB_MAX_STMTS];
	int nrows, ncols;
	int64_t ival[MAX_ROWS][MAX_COLS];
	int64_t changes;
	bool holds_gate;
	struct gate *gate;
	char err[256];
	/* unlock-notify: registered when a statement fails with SQLITE_LOCKED. */
	bool notify_registered;
	bool notified;
	pthread_mutex_t notify_mutex;
	pthread_cond_t notify_cond;
};

static void set_err(struct db *db, const char *what)
{
	snprintf(db->err, sizeof(db->err), "%s: %s (%d)", what, sqlite3_errmsg(db->h),
		 sqlite3_extended_errcode(db->h));
}

static void unlock_cb(void **args, int n)
{
	for (int i = 0; i < n; i++) {
		struct db *db = args[i];

		pthread_mutex_lock(&db->notify_mutex);
		db->notified = true;
		pthread_cond_signal(&db->notify_cond);
		pthread_mutex_unlock(&db->notify_mutex);
	}
}

/* Map an SQLite result code of a failed statement. */
static enum db_status failed(struct db *db, int rc, const char *what)
{
	set_err(db, what);
	if ((rc & 0xff) == SQLITE_LOCKED) {
		db->notified = false;
		/* SQLITE_LOCKED back: a deadlock; wait_retry() just backs off. */
		db->notify_registered = sqlite3_unlock_notify(db->h, unlock_cb, db) == SQLITE_OK;
		return DB_RETRY;
	}
	if ((rc & 0xff) == SQLITE_BUSY)
		return DB_RETRY;
	return DB_ERROR;
}

static enum db_status exec_sql(struct db *db, const char *sql)
{
	char *msg = NULL;
	int rc = sqlite3_exec(db->h, sql, NULL, NULL, &msg);

	sqlite3_free(msg);
	db->nrows = 0;
	return rc == SQLITE_OK ? DB_OK : failed(db, rc, sql);
}

static struct db *db_open(const char *path, char *err, size_t errlen)
{
	struct db *db = calloc(1, sizeof(*db));
	char uri[4096], pragma[128];
	int rc;

	if (!db) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	if (strpbrk(path, "?#%")) {
		snprintf(err, errlen, "%s: the database path may not contain '?', '#' or '%%'", path);
		free(db);
		return NULL;
	}
	db->gate = gate_for(path);
	if (!db->gate) {
		snprintf(err, errlen, "%s: more than %d database files", path, MAX_GATES);
		free(db);
		return NULL;
	}
	pthread_mutex_init(&db->notify_mutex, NULL);
	pthread_cond_init(&db->notify_cond, NULL);
	if (db_sqlite_config.pcache)
		sb_pcache_set_file(path);
	snprintf(uri, sizeof(uri), "file:%s%s", path,
		 db_sqlite_config.shared_cache ? "?cache=shared" : "?cache=private");
	rc = sqlite3_open_v2(uri, &db->h, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE |
			     SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX, NULL);
	if (rc != SQLITE_OK) {
		snprintf(err, errlen, "%s: %s", path, db->h ? sqlite3_errmsg(db->h) : sqlite3_errstr(rc));
		sqlite3_close(db->h);
		free(db);
		return NULL;
	}
	sqlite3_extended_result_codes(db->h, 1);
	sqlite3_busy_timeout(db->h, db_sqlite_config.busy_timeout_ms);
	snprintf(pragma, sizeof(pragma), "PRAGMA journal_mode=%s; PRAGMA synchronous=NORMAL;%s",
		 db_sqlite_config.journal,
		 db_sqlite_config.shared_cache ? " PRAGMA read_uncommitted=1;" : "");
	if (db_sqlite_config.cache_kib) {
		char cs[64];

		snprintf(cs, sizeof(cs), "PRAGMA cache_size=-%d", db_sqlite_config.cache_kib);
		if (exec_sql(db, cs) != DB_OK) {
			snprintf(err, errlen, "%s: %s", path, db->err);
			sqlite3_close(db->h);
			free(db);
			return NULL;
		}
	}
	/* journal_mode needs the database lock: retry while others hold it. */
	for (int i = 0; (rc = exec_sql(db, pragma)) == DB_RETRY && i < 1000; i++) {
		struct timespec ts = { 0, 1000000 };

		nanosleep(&ts, NULL);
	}
	if (rc != DB_OK) {
		snprintf(err, errlen, "%s: %s", path, db->err);
		sqlite3_close(db->h);
		free(db);
		return NULL;
	}
	return db;
}

static void db_close(struct db *db)
{
	if (!db)
		return;
	for (int i = 0; i < DB_MAX_STMTS; i++)
		sqlite3_finalize(db->stmt[i]);
	sqlite3_close(db->h);
	pthread_mutex_destroy(&db->notify_mutex);
	pthread_cond_destroy(&db->notify_cond);
	free(db);
}

static int db_prepare(struct db *db, int id, const char *sql)
{
	char buf[4096], *o = buf;
	int rc;

	if (id < 0 || id >= DB_MAX_STMTS || strlen(sql) >= sizeof(buf)) {
		snprintf(db->err, sizeof(db->err), "statement %d: bad id or too long", id);
		return -1;
	}
	/* $N -> ?N */
	for (const char *s = sql; *s && o < buf + sizeof(buf) - 1; s++)
		*o++ = (*s == '$' && s[1] >= '0' && s[1] <= '9') ? '?' : *s;
	*o = '\0';
	sqlite3_finalize(db->stmt[id]);
	rc = sqlite3_prepare_v3(db->h, buf, -1, SQLITE_PREPARE_PERSISTENT, &db->stmt[id], NULL);
	if (rc != SQLITE_OK) {
		set_err(db, sql);
		return -1;
	}
	return 0;
}

static enum db_status db_exec(struct db *db, int id, int n, const struct db_param *p)
{
	sqlite3_stmt *st = db->stmt[id];
	enum db_status ret = DB_OK;
	int rc;

	db->nrows = 0;
	db->changes = 0;
	for (int i = 0; i < n; i++) {
		rc = p[i].text ? sqlite3_bind_text(st, i + 1, p[i].s, -1, SQLITE_STATIC) :
				 sqlite3_bind_int64(st, i + 1, p[i].i);
		if (rc != SQLITE_OK) {
			set_err(db, "bind");
			sqlite3_reset(st);
			return DB_ERROR;
		}
	}
	db->ncols = sqlite3_column_count(st);
	if (db->ncols > MAX_COLS)
		db->ncols = MAX_COLS;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int r = db->nrows++;

		if (r >= MAX_ROWS)
			continue;
		for (int c = 0; c < db->ncols; c++)
			db->ival[r][c] = sqlite3_column_int64(st, c);
	}
	if (rc != SQLITE_DONE)
		ret = failed(db, rc, sqlite3_sql(st));
	else
		db->changes = sqlite3_changes64(db->h);
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	return ret;
}

static int db_nrows(struct db *db)
{
	return db->nrows;
}

static int64_t db_get_int(struct db *db, int row, int col)
{
	return row < db->nrows && row < MAX_ROWS && col < db->ncols ? db->ival[row][col] : 0;
}

static int64_t db_changes(struct db *db)
{
	return db->changes;
}

static const char *db_errmsg(struct db *db)
{
	return db->err;
}

static void db_wait_retry(struct db *db, int attempt)
{
	struct timespec ts;

	if (db->notify_registered) {
		/* Woken by the blocking connection's commit or rollback. */
		pthread_mutex_lock(&db->notify_mutex);
		while (!db->notified)
			pthread_cond_wait(&db->notify_cond, &db->notify_mutex);
		pthread_mutex_unlock(&db->notify_mutex);
		db->notify_registered = false;
		return;
	}
	/* Back off: 50 us doubling to 5 ms. */
	ts.tv_sec = 0;
	ts.tv_nsec = 50000L << (attempt < 7 ? attempt : 7);
	nanosleep(&ts, NULL);
}

static enum db_status db_begin(struct db *db, bool write)
{
	enum db_status st;

	if (!write)
		return exec_sql(db, "BEGIN");
	gate_lock(db->gate);
	db->holds_gate = true;
	st = exec_sql(db, "BEGIN IMMEDIATE");
	if (st != DB_OK) {
		db->holds_gate = false;
		gate_unlock(db->gate);
	}
	return st;
}

static enum db_status db_end(struct db *db, bool commit)
{
	enum db_status st = exec_sql(db, commit ? "COMMIT" : "ROLLBACK");

	/* A failed COMMIT leaves the transaction open until the ROLLBACK. */
	if ((st == DB_OK || !commit) && db->holds_gate) {
		db->holds_gate = false;
		gate_unlock(db->gate);
	}
	return st;
}

int db_sqlite_integrity(struct db *db, int64_t *problems, char *err, size_t errlen)
{
	sqlite3_stmt *st;
	int rc;

	*problems = 0;
	rc = sqlite3_prepare_v2(db->h, "PRAGMA integrity_check", -1, &st, NULL);
	while (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		const unsigned char *t = sqlite3_column_text(st, 0);

		if (!t || strcmp((const char *)t, "ok"))
			++*problems;
		rc = SQLITE_OK;
	}
	if (rc != SQLITE_DONE) {
		snprintf(err, errlen, "PRAGMA integrity_check: %s", sqlite3_errmsg(db->h));
		sqlite3_finalize(st);
		return -1;
	}
	sqlite3_finalize(st);
	return 0;
}

const struct db_ops db_sqlite_ops = {
	.name = "sqlite",
	.open = db_open,
	.close = db_close,
	.prepare = db_prepare,
	.exec = db_exec,
	.exec_sql = exec_sql,
	.nrows = db_nrows,
	.get_int = db_get_int,
	.changes = db_changes,
	.errmsg = db_errmsg,
	.wait_retry = db_wait_retry,
	.begin = db_begin,
	.end = db_end,
};
