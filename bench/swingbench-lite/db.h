/* SPDX-License-Identifier: GPL-2.0 */
/*
 * db.h: the little database interface swingbench-lite's Order Entry code is
 * written against, with two back ends: SQLite (db_sqlite.c) and PostgreSQL
 * through libpq (db_pg.c).
 *
 * Statements are prepared once per connection under a small integer id and
 * written with PostgreSQL's $1, $2 ... placeholders (the SQLite back end
 * turns them into ?1, ?2). A statement's result rows are kept in the
 * connection until the next statement.
 */
#ifndef SWINGBENCH_DB_H
#define SWINGBENCH_DB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum db_status {
	DB_OK,
	DB_RETRY,	/* busy, locked, serialization failure, deadlock: roll back and retry */
	DB_ERROR,	/* anything else */
};

struct db_param {
	bool text;
	int64_t i;
	const char *s;
};

#define P_INT(v) ((struct db_param){ .i = (v) })
#define P_TXT(v) ((struct db_param){ .text = true, .s = (v) })

struct db;

struct db_ops {
	const char *name;
	/* Connect (PostgreSQL: a DSN; SQLite: a file path). NULL, with err set, on failure. */
	struct db *(*open)(const char *target, char *err, size_t errlen);
	void (*close)(struct db *db);
	/* Prepare sql as statement id (0 <= id < DB_MAX_STMTS). */
	int (*prepare)(struct db *db, int id, const char *sql);
	enum db_status (*exec)(struct db *db, int id, int n, const struct db_param *p);
	/* Run one or more statements with no parameters and no result (DDL, BEGIN, ...). */
	enum db_status (*exec_sql)(struct db *db, const char *sql);
	/* The last statement's result: rows, integer values, rows changed. */
	int (*nrows)(struct db *db);
	int64_t (*get_int)(struct db *db, int row, int col);
	int64_t (*changes)(struct db *db);
	const char *(*errmsg)(struct db *db);
	/* After DB_RETRY (and the rollback): wait until a retry may succeed. */
	void (*wait_retry)(struct db *db, int attempt);
	/* Start a transaction; write: it will write. */
	enum db_status (*begin)(struct db *db, bool write);
	/* End it: commit, or roll back. After a failed commit, roll back. */
	enum db_status (*end)(struct db *db, bool commit);
};

#define DB_MAX_STMTS 64

extern const struct db_ops db_sqlite_ops;
#ifdef HAVE_LIBPQ
extern const struct db_ops db_pg_ops;
#endif

/*
 * SQLite connection options, set before the first open. SQLite runs one
 * write transaction at a time per database; write transactions queue on a
 * process-wide mutex (the "writer gate") before BEGIN IMMEDIATE, as
 * multi-threaded SQLite applications do, rather than all retrying on
 * SQLITE_BUSY/LOCKED.
 */
struct db_sqlite_config {
	bool shared_cache;	/* open with cache=shared (and read_uncommitted) */
	const char *journal;	/* journal_mode: wal, delete, ... */
	int busy_timeout_ms;	/* private cache: how long SQLite waits for a lock */
	int cache_kib;		/* PRAGMA cache_size, in KiB per connection (0: SQLite's) */
	bool pcache;		/* pcache.c is installed: name each connection's file to it */
};
extern struct db_sqlite_config db_sqlite_config;

/*
 * The writer gates (one per database file) in the measured window: write
 * transactions that took one, how many found it taken, the time spent
 * waiting for them and holding them (summed), the longest hold.
 */
struct db_gate_stats {
	uint64_t acquired, contended, wait_ns, held_ns, max_hold_ns;
	uint64_t gates, max_held_ns;	/* summed: how many gates, the most held one's held_ns */
};
void db_sqlite_gate_measure(bool on);
/* SQLite's PRAGMA integrity_check: the rows that are not "ok". 0, or -1 (err). */
int db_sqlite_integrity(struct db *db, int64_t *problems, char *err, size_t errlen);
/* Read after the clients have stopped. */
const struct db_gate_stats *db_sqlite_gate_stats(void);

#endif /* SWINGBENCH_DB_H */
