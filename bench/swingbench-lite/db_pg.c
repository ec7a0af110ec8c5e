// SPDX-License-Identifier: GPL-2.0
/*
 * db_pg.c: swingbench-lite's PostgreSQL back end, through libpq. One
 * connection per client thread, server-side prepared statements
 * (PQprepare/PQexecPrepared), parameters and results in text. Serialization
 * failures and deadlocks (SQLSTATE 40001, 40P01) are retried; anything else
 * is an error.
 */
#define _GNU_SOURCE
#include <libpq-fe.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "db.h"

struct db {
	PGconn *conn;
	PGresult *res;		/* the last statement's */
	int64_t changes;
	char err[512];
	char name[DB_MAX_STMTS][8];
	int nparams[DB_MAX_STMTS];
};

static void clear(struct db *db)
{
	PQclear(db->res);
	db->res = NULL;
	db->changes = 0;
}

/* Classify a result; keep it if it succeeded. */
static enum db_status check(struct db *db, PGresult *res, const char *what)
{
	ExecStatusType s = PQresultStatus(res);
	const char *state;

	if (s == PGRES_COMMAND_OK || s == PGRES_TUPLES_OK) {
		db->res = res;
		db->changes = strtoll(PQcmdTuples(res), NULL, 10);
		return DB_OK;
	}
	state = PQresultErrorField(res, PG_DIAG_SQLSTATE);
	snprintf(db->err, sizeof(db->err), "%s: %s", what,
		 res ? PQresultErrorMessage(res) : PQerrorMessage(db->conn));
	db->err[strcspn(db->err, "\n")] = '\0';
	PQclear(res);
	if (state && (!strcmp(state, "40001") || !strcmp(state, "40P01")))
		return DB_RETRY;
	return DB_ERROR;
}

static struct db *db_open(const char *dsn, char *err, size_t errlen)
{
	struct db *db = calloc(1, sizeof(*db));

	if (!db) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	db->conn = PQconnectdb(dsn);
	if (PQstatus(db->conn) != CONNECTION_OK) {
		snprintf(err, errlen, "%s", PQerrorMessage(db->conn));
		err[strcspn(err, "\n")] = '\0';
		PQfinish(db->conn);
		free(db);
		return NULL;
	}
	/* Quiet the loader's DROP TABLE IF EXISTS notices. */
	PQclear(PQexec(db->conn, "SET client_min_messages = warning"));
	return db;
}

static void db_close(struct db *db)
{
	if (!db)
		return;
	clear(db);
	PQfinish(db->conn);
	free(db);
}

static int db_prepare(struct db *db, int id, const char *sql)
{
	PGresult *res;
	int n = 0;

	if (id < 0 || id >= DB_MAX_STMTS) {
		snprintf(db->err, sizeof(db->err), "statement %d: bad id", id);
		return -1;
	}
	clear(db);
	if (db->name[id][0]) {
		char dealloc[32];

		snprintf(dealloc, sizeof(dealloc), "DEALLOCATE s%d", id);
		PQclear(PQexec(db->conn, dealloc));
	}
	snprintf(db->name[id], sizeof(db->name[id]), "s%d", id);
	for (const char *s = sql; (s = strchr(s, '$')); s++) {
		int k = atoi(s + 1);

		if (k > n)
			n = k;
	}
	db->nparams[id] = n;
	res = PQprepare(db->conn, db->name[id], sql, n, NULL);
	if (check(db, res, sql) != DB_OK) {
		db->name[id][0] = '\0';
		return -1;
	}
	clear(db);
	return 0;
}

static enum db_status db_exec(struct db *db, int id, int n, const struct db_param *p)
{
	char buf[32][24];
	const char *values[32];

	clear(db);
	if (n > 32 || n != db->nparams[id]) {
		snprintf(db->err, sizeof(db->err), "statement %d: %d parameters given, %d wanted", id, n,
			 db->nparams[id]);
		return DB_ERROR;
	}
	for (int i = 0; i < n; i++) {
		if (p[i].text) {
			values[i] = p[i].s;
		} else {
			snprintf(buf[i], sizeof(buf[i]), "%lld", (long long)p[i].i);
			values[i] = buf[i];
		}
	}
	return check(db, PQexecPrepared(db->conn, db->name[id], n, values, NULL, NULL, 0),
		     db->name[id]);
}

static enum db_status exec_sql(struct db *db, const char *sql)
{
	clear(db);
	return check(db, PQexec(db->conn, sql), sql);
}

static int db_nrows(struct db *db)
{
	return db->res ? PQntuples(db->res) : 0;
}

static int64_t db_get_int(struct db *db, int row, int col)
{
	if (!db->res || row >= PQntuples(db->res) || col >= PQnfields(db->res))
		return 0;
	return strtoll(PQgetvalue(db->res, row, col), NULL, 10);
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
	/* A deadlock or serialization failure: back off 100 us doubling to 12.8 ms. */
	struct timespec ts = { 0, 100000L << (attempt < 7 ? attempt : 7) };

	nanosleep(&ts, NULL);
}

static enum db_status db_begin(struct db *db, bool write)
{
	return exec_sql(db, "BEGIN");
}

static enum db_status db_end(struct db *db, bool commit)
{
	return exec_sql(db, commit ? "COMMIT" : "ROLLBACK");
}

const struct db_ops db_pg_ops = {
	.name = "pg",
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
