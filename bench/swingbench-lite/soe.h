/* SPDX-License-Identifier: GPL-2.0 */
/*
 * soe.h: Swingbench's Order Entry ("SOE") schema, data and transactions, in
 * portable SQL on db.h.
 */
#ifndef SWINGBENCH_SOE_H
#define SWINGBENCH_SOE_H

#include <stdbool.h>
#include <stdint.h>

#include "db.h"

enum soe_txn {
	TX_NCR,		/* New Customer Registration */
	TX_UCD,		/* Update Customer Details */
	TX_BP,		/* Browse Products */
	TX_OP,		/* Order Products */
	TX_PO,		/* Process Orders */
	TX_BO,		/* Browse Orders */
	TX_SRQ,		/* Sales Rep Query (off by default) */
	TX_WQ,		/* Warehouse Query (off by default) */
	TX_WAQ,		/* Warehouse Activity Query (off by default) */
	TX_NR
};

struct soe_txn_info {
	const char *name;	/* e.g. "order-products" */
	const char *abbrev;	/* e.g. "op" */
	int default_weight;	/* upstream.md section 3 */
	bool writes;		/* writes, apart from the logon row */
	bool logs_on;		/* a customer transaction: Swingbench records a LOGON row */
};
extern const struct soe_txn_info soe_txns[TX_NR];

/*
 * Which transactions insert a LOGON row: false (default) those that write
 * anyway; true every customer transaction, as Swingbench does, which makes
 * the browse transactions writers too (see README.md for why it matters on
 * SQLite).
 */
extern bool soe_logon_all;
bool soe_txn_logs_on(enum soe_txn t);
/* Does t need a write transaction (with the logon policy)? */
bool soe_txn_writes(enum soe_txn t);

/* The size of the data set. Scale 1: the numbers in soe.c's soe_rows(). */
struct soe_rows {
	int64_t customers, products, categories, warehouses, orders;
};
void soe_rows(double scale, struct soe_rows *rows);

/* What committed transactions changed, for the consistency check. */
struct soe_effects {
	int64_t customers, addresses, cards, orders, processed, logons;
};
/* to += e */
void soe_effects_add(struct soe_effects *to, const struct soe_effects *e);

/*
 * One database's state, shared by the clients that use it: the data set's
 * size, the id allocators, and the counts soe_check() compares, as they
 * were when this run attached. One per shard (swingbench-lite --profile
 * buffer-latches), else one.
 */
#define SOE_COUNTED 8
struct soe_shard {
	struct soe_rows rows;
	int64_t next_customer, next_address, next_card, next_order, next_logon;
	int64_t initial_customers;
	int64_t at_start[SOE_COUNTED];
};

struct soe_client {
	const struct db_ops *ops;
	struct db *db;
	struct soe_shard *shard;
	uint64_t rng;
	uint64_t sql;			/* statements executed (BEGIN/COMMIT excluded) */
	struct soe_effects done;	/* committed */
	struct soe_effects pending;	/* of the transaction in progress */
};

/* Drop and create the schema, load it, record the baseline. 0 or -1 (err). */
int soe_load(const struct db_ops *ops, struct db *db, struct soe_shard *shard, double scale,
	     uint64_t seed, char *err, size_t errlen);
/* Read the data set's size and set up the id allocators. 0 or -1 (err). */
int soe_attach(const struct db_ops *ops, struct db *db, struct soe_shard *shard, char *err,
	       size_t errlen);
/* Prepare the transactions' statements on a client's connection. */
int soe_prepare(struct soe_client *c, char *err, size_t errlen);
/*
 * One attempt at one transaction, from BEGIN to COMMIT. On DB_OK its
 * effects are added to c->done; otherwise it was rolled back and nothing of
 * it remains.
 */
enum db_status soe_run(struct soe_client *c, enum soe_txn t);
/*
 * The consistency check after a run: order totals equal their items,
 * inventory plus ordered quantities equals the baseline stock, and the
 * rows added equal the committed transactions' effects. Writes a line per
 * check to report; returns the number of failed checks, or -1 if the
 * check itself could not run (err).
 */
int soe_check(const struct db_ops *ops, struct db *db, const struct soe_shard *shard,
	      const struct soe_effects *done, char *report, size_t reportlen, char *err, size_t errlen);

#endif /* SWINGBENCH_SOE_H */
