// SPDX-License-Identifier: GPL-2.0
/*
 * pcache_test: pcache.c against SQLite's page-cache contract (sqlite3.h,
 * "Custom Page Cache Object"), single-threaded and then with threads
 * sharing the latches, each page's bytes checked on every fetch. Prints TAP.
 * swingbench-lite runs SQLite's own integrity check on the pages it wrote
 * (tests/swingbench-host.t); this checks the methods one by one.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pcache.h"
#include "sqlite_mutex.h"

static int n, failed;
static const sqlite3_pcache_methods2 *m;

static void ok(int cond, const char *what)
{
	n++;
	printf("%sok %d - %s\n", cond ? "" : "not ", n, what);
	if (!cond)
		failed++;
}

#define SZ_PAGE 1024
#define SZ_EXTRA 64

static bool zeroed(const void *p, size_t len)
{
	const unsigned char *c = p;

	for (size_t i = 0; i < len; i++)
		if (c[i])
			return false;
	return true;
}

static void stamp(sqlite3_pcache_page *pg, unsigned int who, unsigned int key)
{
	unsigned int *w = pg->pBuf;

	for (size_t i = 0; i < SZ_PAGE / sizeof(*w); i++)
		w[i] = who * 1000003u + key + i;
}

static bool stamped(sqlite3_pcache_page *pg, unsigned int who, unsigned int key)
{
	unsigned int *w = pg->pBuf;

	for (size_t i = 0; i < SZ_PAGE / sizeof(*w); i++)
		if (w[i] != who * 1000003u + key + i)
			return false;
	return true;
}

static void contract(void)
{
	sqlite3_pcache *c, *c2;
	sqlite3_pcache_page *p, *q, *pinned[12];
	bool all;

	sb_pcache_set_file("/test/a.db");
	c = m->xCreate(SZ_PAGE, SZ_EXTRA, 1);
	ok(c != NULL, "xCreate");
	m->xCachesize(c, 10);
	ok(m->xFetch(c, 1, 0) == NULL, "xFetch createFlag 0: a page not cached is NULL");
	p = m->xFetch(c, 1, 2);
	ok(p && p->pBuf && p->pExtra && zeroed(p->pExtra, SZ_EXTRA), "xFetch createFlag 2: a new page, its extra bytes zeroed");
	ok(m->xPagecount(c) == 1, "xPagecount counts it");
	stamp(p, 1, 1);
	ok(m->xFetch(c, 1, 0) == p, "xFetch of a pinned page: the same page");
	m->xUnpin(c, p, 0);
	q = m->xFetch(c, 1, 0);
	ok(q == p && stamped(q, 1, 1), "xUnpin keeps it: fetched again, its bytes unchanged");
	m->xUnpin(c, q, 1);
	ok(m->xFetch(c, 1, 0) == NULL && m->xPagecount(c) == 0, "xUnpin with discard drops it");

	/* A full cache recycles its least recently unpinned page. */
	for (unsigned int k = 1; k <= 10; k++) {
		p = m->xFetch(c, k, 1);
		stamp(p, 1, k);
		memset(p->pExtra, 0xff, SZ_EXTRA);
		m->xUnpin(c, p, 0);
	}
	ok(m->xPagecount(c) == 10, "ten pages unpinned in a cache of ten");
	p = m->xFetch(c, 11, 1);
	ok(p && m->xPagecount(c) == 10 && zeroed(p->pExtra, SZ_EXTRA),
	   "xFetch createFlag 1 when full: an unpinned page recycled, its extra bytes zeroed again");
	ok(m->xFetch(c, 1, 0) == NULL, "... the least recently unpinned one (key 1)");
	q = m->xFetch(c, 2, 0);
	ok(q && stamped(q, 1, 2), "... the others stay, their bytes unchanged");
	m->xUnpin(c, q, 0);
	m->xUnpin(c, p, 0);

	/* Everything pinned: 1 gives nothing, 2 allocates. */
	all = true;
	for (unsigned int k = 2; k <= 11; k++) {
		pinned[k] = m->xFetch(c, k, 0);
		all &= pinned[k] != NULL;
	}
	ok(all, "the ten pages fetched again (pinned)");
	ok(m->xFetch(c, 20, 1) == NULL, "xFetch createFlag 1, every page pinned: NULL");
	p = m->xFetch(c, 20, 2);
	ok(p && m->xPagecount(c) == 11, "xFetch createFlag 2, every page pinned: a new page beyond the size");
	stamp(p, 1, 20);

	/* xRekey: the page moves; a page that had the new key is dropped. */
	m->xUnpin(c, pinned[5], 0);
	m->xRekey(c, pinned[3], 3, 30);
	ok(m->xFetch(c, 3, 0) == NULL, "xRekey: nothing under the old key");
	q = m->xFetch(c, 30, 0);
	ok(q == pinned[3] && stamped(q, 1, 3), "... the page, its bytes, under the new key");
	m->xRekey(c, pinned[4], 4, 5);
	q = m->xFetch(c, 5, 0);
	ok(q == pinned[4] && stamped(q, 1, 4), "xRekey onto an unpinned page's key: that page dropped, ours there");

	/* xTruncate: every key >= the limit, pinned ones too. */
	m->xTruncate(c, 10);
	ok(m->xFetch(c, 10, 0) == NULL && m->xFetch(c, 11, 0) == NULL && m->xFetch(c, 20, 0) == NULL &&
	   m->xFetch(c, 30, 0) == NULL, "xTruncate(10): keys 10 and up gone, pinned or not");
	q = m->xFetch(c, 6, 0);
	ok(q && stamped(q, 1, 6), "... keys below it stay");
	ok(m->xPagecount(c) == 6, "... and the count follows (keys 2, 5, 6, 7, 8, 9: 6 pages)");

	/* Two caches of one file: the same key is two pages. */
	c2 = m->xCreate(SZ_PAGE, SZ_EXTRA, 1);
	m->xCachesize(c2, 10);
	q = m->xFetch(c2, 6, 2);
	ok(q && q != m->xFetch(c, 6, 0), "another cache of the same file: its own page for the same key");
	m->xUnpin(c2, q, 0);

	/* xShrink frees the unpinned pages only. */
	for (unsigned int k = 2; k <= 9; k++) {
		q = m->xFetch(c, k, 0);
		if (q && k != 2)
			m->xUnpin(c, q, 0);
	}
	m->xShrink(c);
	q = m->xFetch(c, 2, 0);
	ok(q && stamped(q, 1, 2) && m->xPagecount(c) == 1, "xShrink: the unpinned pages freed, the pinned one kept");
	m->xDestroy(c);
	m->xDestroy(c2);
	ok(1, "xDestroy with pages pinned and unpinned");
}

/* Threads: each its own cache (one file), fetching, changing and unpinning shared page numbers. */
#define THREADS 8
#define OPS 20000
#define KEYS 64

struct worker {
	pthread_t t;
	unsigned int id;
	unsigned long bad;
};

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	sqlite3_pcache *c;
	uint64_t rng = w->id * 0x9e3779b97f4a7c15ull + 1;
	bool present[KEYS + 1] = { false };

	sb_pcache_set_file("/test/shared.db");
	c = m->xCreate(SZ_PAGE, SZ_EXTRA, 1);
	m->xCachesize(c, KEYS * 2);
	for (int i = 0; i < OPS; i++) {
		unsigned int k;
		sqlite3_pcache_page *p;

		rng = rng * 6364136223846793005ull + 1442695040888963407ull;
		k = 1 + (rng >> 33) % KEYS;
		p = m->xFetch(c, k, 2);
		if (!p) {
			w->bad++;
			continue;
		}
		if (present[k] ? !stamped(p, w->id, k) : !zeroed(p->pExtra, SZ_EXTRA))
			w->bad++;
		stamp(p, w->id, k);
		present[k] = true;
		if ((rng >> 20) % 16 == 0) {
			m->xUnpin(c, p, 1);
			present[k] = false;
		} else {
			m->xUnpin(c, p, 0);
		}
		if ((rng >> 24) % 512 == 0) {
			m->xTruncate(c, KEYS / 2);
			for (unsigned int j = KEYS / 2; j <= KEYS; j++)
				present[j] = false;
		}
	}
	for (unsigned int k = 1; k <= KEYS; k++) {
		sqlite3_pcache_page *p = m->xFetch(c, k, 0);

		if ((p != NULL) != present[k] || (p && !stamped(p, w->id, k)))
			w->bad++;
		if (p)
			m->xUnpin(c, p, 0);
	}
	m->xDestroy(c);
	return NULL;
}

static void concurrent(void)
{
	struct worker w[THREADS];
	struct sb_mutex_stat st[24];
	unsigned long bad = 0;
	int ns;
	bool bucket = false, lru = false;

	sb_mutex_measure(true, 0);
	for (unsigned int i = 0; i < THREADS; i++) {
		w[i].id = i + 2;
		w[i].bad = 0;
		pthread_create(&w[i].t, NULL, worker_main, &w[i]);
	}
	for (unsigned int i = 0; i < THREADS; i++) {
		pthread_join(w[i].t, NULL);
		bad += w[i].bad;
	}
	sb_mutex_measure(false, 0);
	ok(bad == 0, "8 threads, 20,000 fetches each on 64 shared page numbers: every page's bytes and presence right");
	ns = sb_mutex_stats(st, 24);
	for (int i = 0; i < ns; i++) {
		bucket |= strstr(st[i].name, "bucket") && st[i].window->acquired > 0;
		lru |= strstr(st[i].name, "lru latch") && st[i].window->acquired > 0;
	}
	ok(bucket && lru, "the bucket and LRU latches were taken, and counted as their classes");
}

int main(int argc, char **argv)
{
	enum sb_mutex_kind kind = SB_MUTEX_SPIN;

	if (argc > 1 && sb_mutex_kind_parse(argv[1], &kind)) {
		fprintf(stderr, "pcache_test: unknown mutex kind '%s'\n", argv[1]);
		return 2;
	}
	if (sb_mutex_install(kind, 20000) != SQLITE_OK || sqlite3_initialize() != SQLITE_OK) {
		fprintf(stderr, "pcache_test: SQLite's set-up failed\n");
		return 1;
	}
	m = sb_pcache_methods();
	ok(m->xInit((void *)(uintptr_t)16) == SQLITE_OK, "xInit with 16 bucket latches");
	contract();
	concurrent();
	m->xShutdown(NULL);
	printf("1..%d\n", n);
	return failed != 0;
}
