// SPDX-License-Identifier: GPL-2.0
/*
 * soe.c: Swingbench's Order Entry schema, a deterministic data generator,
 * the nine transactions, and the consistency check, in SQL that SQLite and
 * PostgreSQL both run. Money is in cents and dates in Unix seconds, so the
 * checks are exact and the SQL portable.
 *
 * Two tables are ours, not Swingbench's: INVENTORY_BASELINE (the stock
 * before any order, for the inventory check) and the counts at load time,
 * kept in ORDERENTRY_METADATA.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "soe.h"

const struct soe_txn_info soe_txns[TX_NR] = {
	[TX_NCR] = { "customer-registration", "ncr", 15, true, true },
	[TX_UCD] = { "update-customer-details", "ucd", 10, true, true },
	[TX_BP] = { "browse-products", "bp", 50, false, true },
	[TX_OP] = { "order-products", "op", 40, true, true },
	[TX_PO] = { "process-orders", "po", 5, true, false },
	[TX_BO] = { "browse-orders", "bo", 5, false, true },
	[TX_SRQ] = { "sales-rep-query", "srq", 0, false, false },
	[TX_WQ] = { "warehouse-query", "wq", 0, false, false },
	[TX_WAQ] = { "warehouse-activity-query", "waq", 0, false, false },
};

#define STATUS_PROCESSED 10	/* order_status of a processed order; 0-4 are pending */
#define SALES_REPS 100
#define DAY 86400

static const char *const schema[] = {
	"CREATE TABLE warehouses (warehouse_id INTEGER PRIMARY KEY, warehouse_name VARCHAR(35), "
	"location_id INTEGER)",
	"CREATE TABLE product_information (product_id INTEGER PRIMARY KEY, product_name VARCHAR(50), "
	"product_description VARCHAR(2000), category_id INTEGER, weight_class INTEGER, "
	"warranty_period INTEGER, supplier_id INTEGER, product_status VARCHAR(20), "
	"list_price BIGINT, min_price BIGINT, catalog_url VARCHAR(50))",
	"CREATE INDEX prod_category_ix ON product_information (category_id)",
	"CREATE TABLE product_descriptions (product_id INTEGER, language_id VARCHAR(3), "
	"translated_name VARCHAR(50), translated_description VARCHAR(2000), "
	"PRIMARY KEY (product_id, language_id))",
	"CREATE TABLE inventories (product_id INTEGER, warehouse_id INTEGER, "
	"quantity_on_hand BIGINT, PRIMARY KEY (product_id, warehouse_id))",
	"CREATE TABLE inventory_baseline (product_id INTEGER, warehouse_id INTEGER, "
	"quantity BIGINT, PRIMARY KEY (product_id, warehouse_id))",
	"CREATE TABLE customers (customer_id BIGINT PRIMARY KEY, cust_first_name VARCHAR(40), "
	"cust_last_name VARCHAR(40), nls_language VARCHAR(3), nls_territory VARCHAR(30), "
	"credit_limit BIGINT, cust_email VARCHAR(100), account_mgr_id INTEGER, "
	"customer_since BIGINT, customer_class VARCHAR(40), suggestions VARCHAR(40), dob BIGINT, "
	"mailshot VARCHAR(1), partner_mailshot VARCHAR(1), preferred_address BIGINT, "
	"preferred_card BIGINT)",
	"CREATE TABLE addresses (address_id BIGINT PRIMARY KEY, customer_id BIGINT, "
	"date_created BIGINT, house_no_or_name VARCHAR(60), street_name VARCHAR(60), "
	"town VARCHAR(60), county VARCHAR(60), country VARCHAR(60), post_code VARCHAR(12), "
	"zip_code VARCHAR(12))",
	"CREATE INDEX address_cust_ix ON addresses (customer_id)",
	"CREATE TABLE card_details (card_id BIGINT PRIMARY KEY, customer_id BIGINT, "
	"card_type VARCHAR(30), card_number BIGINT, expiry_date BIGINT, is_valid VARCHAR(1), "
	"security_code INTEGER)",
	"CREATE INDEX carddetails_cust_ix ON card_details (customer_id)",
	"CREATE TABLE orders (order_id BIGINT PRIMARY KEY, order_date BIGINT, order_mode VARCHAR(8), "
	"customer_id BIGINT, order_status INTEGER, order_total BIGINT, sales_rep_id INTEGER, "
	"promotion_id INTEGER, warehouse_id INTEGER, delivery_type VARCHAR(15), "
	"cost_of_delivery INTEGER, wait_till_all_available VARCHAR(15), "
	"delivery_address_id BIGINT, customer_class VARCHAR(30), card_id BIGINT, "
	"invoice_address_id BIGINT)",
	"CREATE INDEX ord_customer_ix ON orders (customer_id)",
	"CREATE INDEX ord_sales_rep_ix ON orders (sales_rep_id)",
	"CREATE INDEX ord_warehouse_ix ON orders (warehouse_id, order_status)",
	"CREATE INDEX ord_order_date_ix ON orders (order_date)",
	"CREATE TABLE order_items (order_id BIGINT, line_item_id INTEGER, product_id INTEGER, "
	"unit_price BIGINT, quantity INTEGER, dispatch_date BIGINT, return_date BIGINT, "
	"gift_wrap VARCHAR(20), condition VARCHAR(20), supplier_id INTEGER, "
	"estimated_delivery BIGINT, PRIMARY KEY (order_id, line_item_id))",
	"CREATE INDEX item_product_ix ON order_items (product_id)",
	"CREATE TABLE logon (logon_id BIGINT PRIMARY KEY, customer_id BIGINT, logon_date BIGINT)",
	"CREATE TABLE orderentry_metadata (metadata_key VARCHAR(30) PRIMARY KEY, "
	"metadata_value VARCHAR(30))",
};

static const char *const tables[] = {
	"warehouses", "product_information", "product_descriptions", "inventories",
	"inventory_baseline", "customers", "addresses", "card_details", "orders",
	"order_items", "logon", "orderentry_metadata",
};

enum stmt {
	S_LOGON, S_CUST_GET, S_CUST_INS, S_ADDR_INS, S_CARD_INS, S_CUST_SET_ADDR,
	S_PROD_BY_CAT, S_PROD_DESC, S_INV_GET, S_INV_TAKE, S_PRICE, S_ORDER_INS, S_ITEM_INS,
	S_ORDER_TOTAL, S_ORDER_PENDING, S_ORDER_PROCESS, S_ORDERS_BY_CUST, S_ITEMS_BY_ORDER,
	S_SALES_REP, S_WH_QUERY, S_WH_ACTIVITY,
	/* the loader's */
	S_WH_INS, S_PROD_INS, S_DESC_INS, S_INV_INS, S_BASE_INS, S_META_INS,
	S_NR
};

static const char *const stmts[S_NR] = {
	[S_LOGON] = "INSERT INTO logon (logon_id, customer_id, logon_date) VALUES ($1, $2, $3)",
	[S_CUST_GET] = "SELECT customer_id, cust_first_name, cust_last_name, credit_limit, "
		"preferred_address, preferred_card FROM customers WHERE customer_id = $1",
	[S_CUST_INS] = "INSERT INTO customers (customer_id, cust_first_name, cust_last_name, "
		"nls_language, nls_territory, credit_limit, cust_email, account_mgr_id, "
		"customer_since, customer_class, suggestions, dob, mailshot, partner_mailshot, "
		"preferred_address, preferred_card) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, "
		"$11, $12, $13, $14, $15, $16)",
	[S_ADDR_INS] = "INSERT INTO addresses (address_id, customer_id, date_created, "
		"house_no_or_name, street_name, town, county, country, post_code, zip_code) "
		"VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)",
	[S_CARD_INS] = "INSERT INTO card_details (card_id, customer_id, card_type, card_number, "
		"expiry_date, is_valid, security_code) VALUES ($1, $2, $3, $4, $5, $6, $7)",
	[S_CUST_SET_ADDR] = "UPDATE customers SET preferred_address = $2 WHERE customer_id = $1",
	[S_PROD_BY_CAT] = "SELECT p.product_id, p.product_name, p.list_price, i.quantity_on_hand "
		"FROM product_information p JOIN inventories i ON i.product_id = p.product_id "
		"WHERE p.category_id = $1 AND i.warehouse_id = $2 ORDER BY p.product_id LIMIT 10",
	[S_PROD_DESC] = "SELECT translated_name, translated_description FROM product_descriptions "
		"WHERE product_id = $1 AND language_id = $2",
	[S_INV_GET] = "SELECT quantity_on_hand FROM inventories WHERE product_id = $1 "
		"AND warehouse_id = $2",
	[S_INV_TAKE] = "UPDATE inventories SET quantity_on_hand = quantity_on_hand - $3 "
		"WHERE product_id = $1 AND warehouse_id = $2 AND quantity_on_hand >= $3",
	[S_PRICE] = "SELECT list_price FROM product_information WHERE product_id = $1",
	[S_ORDER_INS] = "INSERT INTO orders (order_id, order_date, order_mode, customer_id, "
		"order_status, order_total, sales_rep_id, promotion_id, warehouse_id, delivery_type, "
		"cost_of_delivery, wait_till_all_available, delivery_address_id, customer_class, "
		"card_id, invoice_address_id) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, "
		"$12, $13, $14, $15, $16)",
	[S_ITEM_INS] = "INSERT INTO order_items (order_id, line_item_id, product_id, unit_price, "
		"quantity, dispatch_date, return_date, gift_wrap, condition, supplier_id, "
		"estimated_delivery) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)",
	[S_ORDER_TOTAL] = "UPDATE orders SET order_total = $2, order_status = $3 WHERE order_id = $1",
	[S_ORDER_PENDING] = "SELECT order_id FROM orders WHERE warehouse_id = $1 "
		"AND order_status <= 4 LIMIT 1",
	[S_ORDER_PROCESS] = "UPDATE orders SET order_status = $2 WHERE order_id = $1 "
		"AND order_status <= 4",
	[S_ORDERS_BY_CUST] = "SELECT order_id, order_date, order_total, order_status FROM orders "
		"WHERE customer_id = $1 ORDER BY order_id DESC LIMIT 5",
	[S_ITEMS_BY_ORDER] = "SELECT line_item_id, product_id, unit_price, quantity FROM order_items "
		"WHERE order_id = $1 ORDER BY line_item_id",
	[S_SALES_REP] = "SELECT order_status, count(*), sum(order_total) FROM orders "
		"WHERE sales_rep_id = $1 GROUP BY order_status ORDER BY order_status",
	[S_WH_QUERY] = "SELECT p.category_id, sum(i.quantity_on_hand) FROM inventories i "
		"JOIN product_information p ON p.product_id = i.product_id "
		"WHERE i.warehouse_id = $1 GROUP BY p.category_id ORDER BY 2 DESC LIMIT 10",
	[S_WH_ACTIVITY] = "SELECT order_date / 86400, count(*) FROM orders WHERE warehouse_id = $1 "
		"AND order_date > $2 GROUP BY order_date / 86400 ORDER BY 1 LIMIT 40",
	[S_WH_INS] = "INSERT INTO warehouses (warehouse_id, warehouse_name, location_id) "
		"VALUES ($1, $2, $3)",
	[S_PROD_INS] = "INSERT INTO product_information (product_id, product_name, "
		"product_description, category_id, weight_class, warranty_period, supplier_id, "
		"product_status, list_price, min_price, catalog_url) VALUES ($1, $2, $3, $4, $5, $6, "
		"$7, $8, $9, $10, $11)",
	[S_DESC_INS] = "INSERT INTO product_descriptions (product_id, language_id, translated_name, "
		"translated_description) VALUES ($1, $2, $3, $4)",
	[S_INV_INS] = "INSERT INTO inventories (product_id, warehouse_id, quantity_on_hand) "
		"VALUES ($1, $2, $3)",
	[S_BASE_INS] = "INSERT INTO inventory_baseline (product_id, warehouse_id, quantity) "
		"VALUES ($1, $2, $3)",
	[S_META_INS] = "INSERT INTO orderentry_metadata (metadata_key, metadata_value) "
		"VALUES ($1, $2)",
};

/* The counts soe_check() compares, as they were when this run attached. */
static const struct {
	const char *what, *sql;
} counted[] = {
	{ "customers", "SELECT count(*) FROM customers" },
	{ "addresses", "SELECT count(*) FROM addresses" },
	{ "cards", "SELECT count(*) FROM card_details" },
	{ "orders", "SELECT count(*) FROM orders" },
	{ "processed orders", "SELECT count(*) FROM orders WHERE order_status = 10" },
	{ "logons", "SELECT count(*) FROM logon" },
};
#define NR_COUNTED (sizeof(counted) / sizeof(counted[0]))
_Static_assert(NR_COUNTED <= SOE_COUNTED, "struct soe_shard's at_start is too small");

void soe_rows(double scale, struct soe_rows *r)
{
	r->customers = (int64_t)(10000 * scale) > 10 ? (int64_t)(10000 * scale) : 10;
	r->products = (int64_t)(1000 * scale) > 20 ? (int64_t)(1000 * scale) : 20;
	r->categories = r->products / 20;
	r->warehouses = 10;
	r->orders = (int64_t)(10000 * scale) > 10 ? (int64_t)(10000 * scale) : 10;
}

static inline uint64_t rnd(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* Uniform in [lo, hi]. */
static inline int64_t between(uint64_t *s, int64_t lo, int64_t hi)
{
	return lo + (int64_t)(rnd(s) % (uint64_t)(hi - lo + 1));
}

static const char *const first_names[] = {
	"ada", "alan", "barbara", "claude", "dennis", "edsger", "frances", "grace", "ivan",
	"john", "ken", "leslie", "linus", "margaret", "niklaus", "radia", "tony", "yukihiro",
};
static const char *const last_names[] = {
	"lovelace", "turing", "liskov", "shannon", "ritchie", "dijkstra", "allen", "hopper",
	"sutherland", "backus", "thompson", "lamport", "torvalds", "hamilton", "wirth",
	"perlman", "hoare", "matsumoto",
};
static const char *const towns[] = {
	"aberdeen", "bristol", "cambridge", "dundee", "exeter", "glasgow", "hull", "leeds",
	"manchester", "norwich", "oxford", "york",
};
#define PICK(s, a) (a)[rnd(s) % (sizeof(a) / sizeof((a)[0]))]

#define EXEC(c, id, ...) ({ \
	const struct db_param _p[] = { __VA_ARGS__ }; \
	(c)->sql++; \
	(c)->ops->exec((c)->db, (id), sizeof(_p) / sizeof(_p[0]), _p); })

/* Fail the transaction body on anything but DB_OK. */
#define TRY(expr) do { enum db_status _st = (expr); if (_st != DB_OK) return _st; } while (0)

static enum db_status insert_customer(struct soe_client *c, int64_t id, int64_t addr,
				      int64_t card, int64_t now)
{
	char email[128];
	const char *first = PICK(&c->rng, first_names), *last = PICK(&c->rng, last_names);

	snprintf(email, sizeof(email), "%s.%s.%lld@example.org", first, last, (long long)id);
	TRY(EXEC(c, S_CUST_INS, P_INT(id), P_TXT(first), P_TXT(last), P_TXT("us"),
		 P_TXT("america"), P_INT(between(&c->rng, 100, 5000) * 100), P_TXT(email),
		 P_INT(between(&c->rng, 1, SALES_REPS)), P_INT(now - between(&c->rng, 0, 3650) * DAY),
		 P_TXT(rnd(&c->rng) % 4 ? "regular" : "business"), P_TXT("none"),
		 P_INT(now - between(&c->rng, 18, 90) * 365 * DAY), P_TXT("n"), P_TXT("n"),
		 P_INT(addr), P_INT(card)));
	return DB_OK;
}

static enum db_status insert_address(struct soe_client *c, int64_t id, int64_t cust, int64_t now)
{
	char house[16], post[16];

	snprintf(house, sizeof(house), "%d", (int)between(&c->rng, 1, 300));
	snprintf(post, sizeof(post), "PC%05d", (int)between(&c->rng, 0, 99999));
	return EXEC(c, S_ADDR_INS, P_INT(id), P_INT(cust), P_INT(now), P_TXT(house),
		    P_TXT("high street"), P_TXT(PICK(&c->rng, towns)), P_TXT("shire"),
		    P_TXT("uk"), P_TXT(post), P_TXT(post));
}

static enum db_status insert_card(struct soe_client *c, int64_t id, int64_t cust, int64_t now)
{
	return EXEC(c, S_CARD_INS, P_INT(id), P_INT(cust), P_TXT(rnd(&c->rng) % 2 ? "visa" : "amex"),
		    P_INT(between(&c->rng, 1000000000000LL, 9999999999999LL)),
		    P_INT(now + between(&c->rng, 30, 1500) * DAY), P_TXT("y"),
		    P_INT(between(&c->rng, 100, 999)));
}

static inline int64_t alloc_id(int64_t *next)
{
	return __atomic_fetch_add(next, 1, __ATOMIC_RELAXED);
}

bool soe_logon_all;

bool soe_txn_logs_on(enum soe_txn t)
{
	return soe_txns[t].logs_on && (soe_logon_all || soe_txns[t].writes);
}

bool soe_txn_writes(enum soe_txn t)
{
	return soe_txns[t].writes || soe_txn_logs_on(t);
}

static enum db_status logon(struct soe_client *c, enum soe_txn t, int64_t cust, int64_t now)
{
	struct soe_shard *S = c->shard;
	if (!soe_txn_logs_on(t))
		return DB_OK;
	TRY(EXEC(c, S_LOGON, P_INT(alloc_id(&S->next_logon)), P_INT(cust), P_INT(now)));
	c->pending.logons++;
	return DB_OK;
}

/* An order of 1-5 items from one warehouse; stock is taken only if there is enough. */
static enum db_status place_order(struct soe_client *c, int64_t cust, int64_t addr, int64_t card,
				  int64_t when, int status)
{
	struct soe_shard *S = c->shard;
	int64_t order = alloc_id(&S->next_order), wh = between(&c->rng, 1, S->rows.warehouses);
	int64_t total = 0, line = 0, n = between(&c->rng, 1, 5);

	TRY(EXEC(c, S_ORDER_INS, P_INT(order), P_INT(when), P_TXT(rnd(&c->rng) % 2 ? "online" : "direct"),
		 P_INT(cust), P_INT(status), P_INT(0), P_INT(between(&c->rng, 1, SALES_REPS)),
		 P_INT(between(&c->rng, 1, 10)), P_INT(wh), P_TXT("standard"),
		 P_INT(between(&c->rng, 0, 20)), P_TXT("ship_asap"), P_INT(addr), P_TXT("regular"),
		 P_INT(card), P_INT(addr)));
	for (int64_t i = 0; i < n; i++) {
		int64_t prod = between(&c->rng, 1, S->rows.products), qty = between(&c->rng, 1, 3);
		int64_t price;

		TRY(EXEC(c, S_INV_GET, P_INT(prod), P_INT(wh)));
		TRY(EXEC(c, S_INV_TAKE, P_INT(prod), P_INT(wh), P_INT(qty)));
		if (c->ops->changes(c->db) != 1)
			continue;	/* out of stock here */
		TRY(EXEC(c, S_PRICE, P_INT(prod)));
		price = c->ops->get_int(c->db, 0, 0);
		TRY(EXEC(c, S_ITEM_INS, P_INT(order), P_INT(++line), P_INT(prod), P_INT(price),
			 P_INT(qty), P_INT(when + 2 * DAY), P_INT(0), P_TXT("none"), P_TXT("new"),
			 P_INT(between(&c->rng, 1, 50)), P_INT(when + 5 * DAY)));
		total += price * qty;
	}
	TRY(EXEC(c, S_ORDER_TOTAL, P_INT(order), P_INT(total), P_INT(status)));
	c->pending.orders++;
	return DB_OK;
}

static int64_t some_customer(struct soe_client *c)
{
	struct soe_shard *S = c->shard;
	/* Loaded customers only: they always exist, so every transaction does its work. */
	return between(&c->rng, 1, S->initial_customers);
}

static enum db_status body(struct soe_client *c, enum soe_txn t, int64_t now)
{
	struct soe_shard *S = c->shard;
	int64_t cust, addr, card, order, wh;
	int n;

	switch (t) {
	case TX_NCR:
		cust = alloc_id(&S->next_customer);
		addr = alloc_id(&S->next_address);
		card = alloc_id(&S->next_card);
		TRY(insert_customer(c, cust, addr, card, now));
		TRY(insert_address(c, addr, cust, now));
		TRY(insert_card(c, card, cust, now));
		TRY(logon(c, t, cust, now));
		TRY(EXEC(c, S_CUST_GET, P_INT(cust)));
		c->pending.customers++;
		c->pending.addresses++;
		c->pending.cards++;
		return DB_OK;
	case TX_UCD:
		cust = some_customer(c);
		TRY(logon(c, t, cust, now));
		TRY(EXEC(c, S_CUST_GET, P_INT(cust)));
		addr = alloc_id(&S->next_address);
		TRY(insert_address(c, addr, cust, now));
		TRY(EXEC(c, S_CUST_SET_ADDR, P_INT(cust), P_INT(addr)));
		c->pending.addresses++;
		return DB_OK;
	case TX_BP:
		cust = some_customer(c);
		wh = between(&c->rng, 1, S->rows.warehouses);
		TRY(logon(c, t, cust, now));
		TRY(EXEC(c, S_CUST_GET, P_INT(cust)));
		for (int i = 0; i < 2; i++) {
			int64_t prods[3];

			TRY(EXEC(c, S_PROD_BY_CAT, P_INT(between(&c->rng, 1, S->rows.categories)), P_INT(wh)));
			n = c->ops->nrows(c->db) < 3 ? c->ops->nrows(c->db) : 3;
			for (int k = 0; k < n; k++)
				prods[k] = c->ops->get_int(c->db, k, 0);
			for (int k = 0; k < n; k++)
				TRY(EXEC(c, S_PROD_DESC, P_INT(prods[k]), P_TXT("us")));
		}
		return DB_OK;
	case TX_OP:
		cust = some_customer(c);
		TRY(logon(c, t, cust, now));
		TRY(EXEC(c, S_CUST_GET, P_INT(cust)));
		addr = c->ops->get_int(c->db, 0, 4);
		card = c->ops->get_int(c->db, 0, 5);
		TRY(EXEC(c, S_PROD_BY_CAT, P_INT(between(&c->rng, 1, S->rows.categories)),
			 P_INT(between(&c->rng, 1, S->rows.warehouses))));
		return place_order(c, cust, addr, card, now, between(&c->rng, 0, 4));
	case TX_PO:
		TRY(EXEC(c, S_ORDER_PENDING, P_INT(between(&c->rng, 1, S->rows.warehouses))));
		if (!c->ops->nrows(c->db))
			return DB_OK;
		order = c->ops->get_int(c->db, 0, 0);
		TRY(EXEC(c, S_ORDER_PROCESS, P_INT(order), P_INT(STATUS_PROCESSED)));
		c->pending.processed += c->ops->changes(c->db);
		return DB_OK;
	case TX_BO:
		cust = some_customer(c);
		TRY(logon(c, t, cust, now));
		TRY(EXEC(c, S_CUST_GET, P_INT(cust)));
		TRY(EXEC(c, S_ORDERS_BY_CUST, P_INT(cust)));
		if (c->ops->nrows(c->db)) {
			order = c->ops->get_int(c->db, 0, 0);
			TRY(EXEC(c, S_ITEMS_BY_ORDER, P_INT(order)));
		}
		return DB_OK;
	case TX_SRQ:
		return EXEC(c, S_SALES_REP, P_INT(between(&c->rng, 1, SALES_REPS)));
	case TX_WQ:
		return EXEC(c, S_WH_QUERY, P_INT(between(&c->rng, 1, S->rows.warehouses)));
	case TX_WAQ:
		return EXEC(c, S_WH_ACTIVITY, P_INT(between(&c->rng, 1, S->rows.warehouses)),
			    P_INT(now - 30 * DAY));
	default:
		return DB_ERROR;
	}
}

void soe_effects_add(struct soe_effects *to, const struct soe_effects *e)
{
	to->customers += e->customers;
	to->addresses += e->addresses;
	to->cards += e->cards;
	to->orders += e->orders;
	to->processed += e->processed;
	to->logons += e->logons;
}

enum db_status soe_run(struct soe_client *c, enum soe_txn t)
{
	enum db_status st;

	memset(&c->pending, 0, sizeof(c->pending));
	st = c->ops->begin(c->db, soe_txn_writes(t));
	if (st != DB_OK)
		return st;
	st = body(c, t, time(NULL));
	if (st == DB_OK)
		st = c->ops->end(c->db, true);
	if (st != DB_OK) {
		/* Nothing of it stays. A failed COMMIT may have ended it already. */
		c->ops->end(c->db, false);
		return st;
	}
	soe_effects_add(&c->done, &c->pending);
	return DB_OK;
}

int soe_prepare(struct soe_client *c, char *err, size_t errlen)
{
	for (int i = 0; i < S_NR; i++) {
		if (c->ops->prepare(c->db, i, stmts[i])) {
			snprintf(err, errlen, "preparing statement %d: %s", i, c->ops->errmsg(c->db));
			return -1;
		}
	}
	return 0;
}

#define LOAD_TRY(expr, what) do { \
	if ((expr) != DB_OK) { \
		snprintf(err, errlen, "loading %s: %s", what, ops->errmsg(db)); \
		return -1; \
	} } while (0)

int soe_load(const struct db_ops *ops, struct db *db, struct soe_shard *S, double scale, uint64_t seed,
	     char *err, size_t errlen)
{
	struct soe_client c = { .ops = ops, .db = db, .rng = seed, .shard = S };
	int64_t now = 1767225600;	/* 2026-01-01: the data set does not depend on the day */
	char name[64], buf[64];
	int64_t processed = 0;

	for (size_t i = 0; i < sizeof(tables) / sizeof(tables[0]); i++) {
		snprintf(buf, sizeof(buf), "DROP TABLE IF EXISTS %s", tables[i]);
		LOAD_TRY(ops->exec_sql(db, buf), "the old schema");
	}
	for (size_t i = 0; i < sizeof(schema) / sizeof(schema[0]); i++)
		LOAD_TRY(ops->exec_sql(db, schema[i]), "the schema");
	if (soe_prepare(&c, err, errlen))
		return -1;
	soe_rows(scale, &S->rows);
	LOAD_TRY(ops->begin(db, true), "(begin)");
	for (int64_t w = 1; w <= S->rows.warehouses; w++) {
		snprintf(name, sizeof(name), "warehouse %lld", (long long)w);
		LOAD_TRY(EXEC(&c, S_WH_INS, P_INT(w), P_TXT(name), P_INT(w * 100)), "warehouses");
	}
	for (int64_t p = 1; p <= S->rows.products; p++) {
		int64_t price = between(&c.rng, 100, 100000);

		snprintf(name, sizeof(name), "product %lld", (long long)p);
		LOAD_TRY(EXEC(&c, S_PROD_INS, P_INT(p), P_TXT(name), P_TXT("a product"),
			      P_INT(1 + (p - 1) % S->rows.categories), P_INT(between(&c.rng, 1, 5)),
			      P_INT(between(&c.rng, 0, 5)), P_INT(between(&c.rng, 1, 50)),
			      P_TXT("orderable"), P_INT(price), P_INT(price * 9 / 10),
			      P_TXT("http://example.org/")), "products");
		LOAD_TRY(EXEC(&c, S_DESC_INS, P_INT(p), P_TXT("us"), P_TXT(name),
			      P_TXT("a product, described")), "product descriptions");
		for (int64_t w = 1; w <= S->rows.warehouses; w++) {
			int64_t q = between(&c.rng, 1000, 10000);

			LOAD_TRY(EXEC(&c, S_INV_INS, P_INT(p), P_INT(w), P_INT(q)), "inventories");
			LOAD_TRY(EXEC(&c, S_BASE_INS, P_INT(p), P_INT(w), P_INT(q)), "the baseline");
		}
	}
	S->next_customer = S->next_address = S->next_card = S->next_order = S->next_logon = 1;
	for (int64_t i = 1; i <= S->rows.customers; i++) {
		int64_t cust = alloc_id(&S->next_customer), addr = alloc_id(&S->next_address);
		int64_t card = alloc_id(&S->next_card);

		LOAD_TRY(insert_customer(&c, cust, addr, card, now), "customers");
		LOAD_TRY(insert_address(&c, addr, cust, now), "addresses");
		LOAD_TRY(insert_card(&c, card, cust, now), "cards");
	}
	for (int64_t i = 1; i <= S->rows.orders; i++) {
		int64_t cust = between(&c.rng, 1, S->rows.customers);
		int status = between(&c.rng, 0, STATUS_PROCESSED);

		/* A customer's address and card have the customer's number. */
		LOAD_TRY(place_order(&c, cust, cust, cust, now - between(&c.rng, 0, 365) * DAY, status),
			 "orders");
		processed += status == STATUS_PROCESSED;
	}
	{
		const struct { const char *key; int64_t v; } meta[] = {
			{ "customers", S->rows.customers }, { "addresses", S->rows.customers },
			{ "cards", S->rows.customers }, { "orders", S->rows.orders },
			{ "processed", processed }, { "logons", 0 },
			{ "products", S->rows.products }, { "categories", S->rows.categories },
			{ "warehouses", S->rows.warehouses },
		};

		for (size_t i = 0; i < sizeof(meta) / sizeof(meta[0]); i++) {
			snprintf(buf, sizeof(buf), "%lld", (long long)meta[i].v);
			LOAD_TRY(EXEC(&c, S_META_INS, P_TXT(meta[i].key), P_TXT(buf)), "metadata");
		}
	}
	LOAD_TRY(ops->end(db, true), "(commit)");
	return 0;
}

/* One integer from a query with no parameters, through a throwaway statement id. */
static int query_int(const struct db_ops *ops, struct db *db, const char *sql, int64_t *v,
		     char *err, size_t errlen)
{
	if (ops->prepare(db, DB_MAX_STMTS - 1, sql) ||
	    ops->exec(db, DB_MAX_STMTS - 1, 0, NULL) != DB_OK || ops->nrows(db) != 1) {
		snprintf(err, errlen, "%s: %s", sql, ops->errmsg(db));
		return -1;
	}
	*v = ops->get_int(db, 0, 0);
	return 0;
}

static int meta_int(const struct db_ops *ops, struct db *db, const char *key, int64_t *v,
		    char *err, size_t errlen)
{
	char sql[160];

	snprintf(sql, sizeof(sql), "SELECT CAST(metadata_value AS BIGINT) FROM orderentry_metadata "
		 "WHERE metadata_key = '%s'", key);
	return query_int(ops, db, sql, v, err, errlen);
}

int soe_attach(const struct db_ops *ops, struct db *db, struct soe_shard *S, char *err, size_t errlen)
{
	int64_t v;

	if (meta_int(ops, db, "customers", &S->rows.customers, err, errlen) ||
	    meta_int(ops, db, "products", &S->rows.products, err, errlen) ||
	    meta_int(ops, db, "categories", &S->rows.categories, err, errlen) ||
	    meta_int(ops, db, "warehouses", &S->rows.warehouses, err, errlen))
		return -1;
	S->initial_customers = S->rows.customers;
#define NEXT(var, sql) do { \
	if (query_int(ops, db, sql, &v, err, errlen)) \
		return -1; \
	var = v + 1; } while (0)
	NEXT(S->next_customer, "SELECT COALESCE(MAX(customer_id), 0) FROM customers");
	NEXT(S->next_address, "SELECT COALESCE(MAX(address_id), 0) FROM addresses");
	NEXT(S->next_card, "SELECT COALESCE(MAX(card_id), 0) FROM card_details");
	NEXT(S->next_order, "SELECT COALESCE(MAX(order_id), 0) FROM orders");
	NEXT(S->next_logon, "SELECT COALESCE(MAX(logon_id), 0) FROM logon");
#undef NEXT
	for (size_t i = 0; i < NR_COUNTED; i++)
		if (query_int(ops, db, counted[i].sql, &S->at_start[i], err, errlen))
			return -1;
	return 0;
}

int soe_check(const struct db_ops *ops, struct db *db, const struct soe_shard *S,
	      const struct soe_effects *done, char *report, size_t reportlen, char *err, size_t errlen)
{
	const int64_t added[NR_COUNTED] = {
		done->customers, done->addresses, done->cards, done->orders, done->processed,
		done->logons,
	};
	size_t used = 0;
	int failed = 0;
	int64_t v;

	report[0] = '\0';
#define LINE(...) (used += snprintf(report + used, used < reportlen ? reportlen - used : 0, __VA_ARGS__))
	if (query_int(ops, db, "SELECT count(*) FROM orders o WHERE o.order_total <> "
		      "(SELECT COALESCE(SUM(i.unit_price * i.quantity), 0) FROM order_items i "
		      "WHERE i.order_id = o.order_id)", &v, err, errlen))
		return -1;
	LINE("%s: orders whose total is not the sum of their items: %lld\n", v ? "FAIL" : "ok",
	     (long long)v);
	failed += v != 0;
	if (query_int(ops, db, "SELECT count(*) FROM inventory_baseline b LEFT JOIN inventories v "
		      "ON v.product_id = b.product_id AND v.warehouse_id = b.warehouse_id "
		      "WHERE v.quantity_on_hand IS NULL OR v.quantity_on_hand + "
		      "(SELECT COALESCE(SUM(i.quantity), 0) FROM order_items i JOIN orders o "
		      "ON o.order_id = i.order_id WHERE i.product_id = b.product_id "
		      "AND o.warehouse_id = b.warehouse_id) <> b.quantity", &v, err, errlen))
		return -1;
	LINE("%s: stock items where inventory + ordered != initial stock: %lld\n",
	     v ? "FAIL" : "ok", (long long)v);
	failed += v != 0;
	for (size_t i = 0; i < NR_COUNTED; i++) {
		if (query_int(ops, db, counted[i].sql, &v, err, errlen))
			return -1;
		LINE("%s: %s: %lld in the database, %lld at the start + %lld committed\n",
		     v == S->at_start[i] + added[i] ? "ok" : "FAIL", counted[i].what, (long long)v,
		     (long long)S->at_start[i], (long long)added[i]);
		failed += v != S->at_start[i] + added[i];
	}
#undef LINE
	return failed;
}
