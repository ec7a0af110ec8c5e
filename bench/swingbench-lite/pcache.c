// SPDX-License-Identifier: GPL-2.0
/*
 * pcache.c: a page cache for SQLite (SQLITE_CONFIG_PCACHE2) with a latch
 * layer like Oracle's buffer cache: one hash table shared by every
 * connection's cache, in SB_PCACHE buckets, each chain under its own latch
 * (Oracle's "cache buffers chains"), and one LRU latch over the unpinned
 * pages (Oracle's "cache buffers lru chain"). The latches are sqlite_mutex.c's
 * kind of mutex (spin, spin-ext, futex, pthread, ...), counted and timed as
 * classes of their own, so a preempted latch holder shows as it does in an
 * Oracle instance's top latches.
 *
 * Each connection (a private cache) still has its own pages, as SQLite
 * requires: a page is found by (cache, page number). Its chain is chosen by
 * (file, page number), so the connections of one database file fetching the
 * same hot page (a B-tree root, a table's right-hand leaf) take the same
 * latch. The file is the one sb_pcache_set_file() named for the thread that
 * creates the cache (SQLite creates it while opening, or when it first
 * knows the page size).
 *
 * The contract (sqlite3.h, "Custom Page Cache Object"):
 *   xFetch      a page by key, pinned; createFlag 0: only if cached; 1: a
 *               new one if that is easy (under the cache's size, or by
 *               recycling an unpinned page); 2: a new one whatever it costs
 *               (NULL only when out of memory). A new page's extra bytes are
 *               zeroed.
 *   xUnpin      unpin; discard: drop it
 *   xRekey      move a page to a new key, dropping any page that had it
 *   xTruncate   drop every page with key >= iLimit (pinned ones too)
 *   xShrink     free every unpinned page
 *   xDestroy    free the cache and its pages
 * A cache is used by one connection, so its counts need no latch; only the
 * shared chains and the LRU do.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pcache.h"
#include "sqlite_mutex.h"

struct pc_page {
	sqlite3_pcache_page base;	/* pBuf, pExtra: after this struct */
	struct pc_cache *cache;
	unsigned int key;
	bool pinned;
	struct pc_page *hnext;		/* its chain (under the bucket latch) */
	struct pc_page *lprev, *lnext;	/* its cache's LRU list, unpinned only (LRU latch) */
};

struct pc_cache {
	int sz_page, sz_extra;
	bool purgeable;
	unsigned int file;		/* the chain hash's file part */
	unsigned int max;		/* cache size in pages */
	unsigned int npage;		/* pages, pinned and unpinned */
	struct pc_page lru;		/* head of its unpinned pages, least recent first */
};

struct pc_bucket {
	struct sb_latch *latch;
	struct pc_page *head;
} __attribute__((aligned(64)));

static struct pc_bucket *buckets;
static unsigned int nbuckets;
static struct sb_latch *lru_latch;
static __thread unsigned int thread_file;

void sb_pcache_set_file(const char *path)
{
	unsigned int h = 2166136261u;	/* FNV-1a */

	for (const char *p = path; *p; p++)
		h = (h ^ (unsigned char)*p) * 16777619u;
	thread_file = h;
}

static struct pc_bucket *bucket_of(struct pc_cache *c, unsigned int key)
{
	uint64_t h = ((uint64_t)c->file << 32 | key) * 0x9e3779b97f4a7c15ull;

	return &buckets[(h >> 32) % nbuckets];
}

/* Under the page's bucket latch: its chain entry, or NULL. */
static struct pc_page *chain_find(struct pc_bucket *b, struct pc_cache *c, unsigned int key)
{
	for (struct pc_page *p = b->head; p; p = p->hnext)
		if (p->cache == c && p->key == key)
			return p;
	return NULL;
}

static void chain_remove(struct pc_bucket *b, struct pc_page *pg)
{
	for (struct pc_page **pp = &b->head; *pp; pp = &(*pp)->hnext) {
		if (*pp == pg) {
			*pp = pg->hnext;
			return;
		}
	}
}

/* Under the LRU latch. */
static void lru_remove(struct pc_page *p)
{
	p->lprev->lnext = p->lnext;
	p->lnext->lprev = p->lprev;
	p->lprev = p->lnext = NULL;
}

static void lru_append(struct pc_cache *c, struct pc_page *p)
{
	p->lnext = &c->lru;
	p->lprev = c->lru.lprev;
	c->lru.lprev->lnext = p;
	c->lru.lprev = p;
}

/* Drop an unpinned or pinned page from its chain and the LRU, and free it. */
static void page_drop(struct pc_page *p)
{
	struct pc_bucket *b = bucket_of(p->cache, p->key);

	sb_latch_enter(b->latch);
	chain_remove(b, p);
	sb_latch_leave(b->latch);
	if (!p->pinned) {
		sb_latch_enter(lru_latch);
		lru_remove(p);
		sb_latch_leave(lru_latch);
	}
	p->cache->npage--;
	free(p);
}

static int pc_init(void *arg)
{
	nbuckets = (unsigned int)(uintptr_t)arg;
	buckets = calloc(nbuckets, sizeof(*buckets));
	lru_latch = sb_latch_new(SB_LATCH_LRU);
	if (!buckets || !lru_latch)
		return SQLITE_NOMEM;
	for (unsigned int i = 0; i < nbuckets; i++) {
		buckets[i].latch = sb_latch_new(SB_LATCH_BUCKET);
		if (!buckets[i].latch)
			return SQLITE_NOMEM;
	}
	return SQLITE_OK;
}

static void pc_shutdown(void *arg)
{
	for (unsigned int i = 0; buckets && i < nbuckets; i++)
		sb_latch_free(buckets[i].latch);
	sb_latch_free(lru_latch);
	free(buckets);
	buckets = NULL;
	lru_latch = NULL;
}

static sqlite3_pcache *pc_create(int sz_page, int sz_extra, int purgeable)
{
	struct pc_cache *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->sz_page = sz_page;
	c->sz_extra = sz_extra;
	c->purgeable = purgeable;
	c->file = thread_file;
	c->max = 100;
	c->lru.lnext = c->lru.lprev = &c->lru;
	return (sqlite3_pcache *)c;
}

static void pc_cachesize(sqlite3_pcache *pc, int n)
{
	struct pc_cache *c = (struct pc_cache *)pc;

	c->max = n > 0 ? n : 0;
}

static int pc_pagecount(sqlite3_pcache *pc)
{
	return ((struct pc_cache *)pc)->npage;
}

/* The least recently unpinned page of c, taken off the LRU, or NULL. */
static struct pc_page *lru_take(struct pc_cache *c)
{
	struct pc_page *p;

	sb_latch_enter(lru_latch);
	p = c->lru.lnext != &c->lru ? c->lru.lnext : NULL;
	if (p) {
		lru_remove(p);
		p->pinned = true;	/* ours now: no fetch finds it pinned-free */
	}
	sb_latch_leave(lru_latch);
	return p;
}

static sqlite3_pcache_page *pc_fetch(sqlite3_pcache *pc, unsigned int key, int create)
{
	struct pc_cache *c = (struct pc_cache *)pc;
	struct pc_bucket *b = bucket_of(c, key);
	struct pc_page *p, *old = NULL;

	sb_latch_enter(b->latch);
	p = chain_find(b, c, key);
	if (p && !p->pinned) {
		sb_latch_enter(lru_latch);
		lru_remove(p);
		sb_latch_leave(lru_latch);
	}
	if (p)
		p->pinned = true;
	sb_latch_leave(b->latch);
	if (p || !create)
		return p ? &p->base : NULL;
	/* A new page: recycle an unpinned one when the cache is full. */
	if (c->purgeable && c->npage >= c->max) {
		old = lru_take(c);
		if (!old && create == 1)
			return NULL;
	}
	if (old) {
		struct pc_bucket *ob = bucket_of(c, old->key);

		sb_latch_enter(ob->latch);
		chain_remove(ob, old);
		sb_latch_leave(ob->latch);
		p = old;
	} else {
		p = malloc(sizeof(*p) + c->sz_page + c->sz_extra);
		if (!p)
			return NULL;
		c->npage++;
		p->base.pBuf = p + 1;
		p->base.pExtra = (char *)(p + 1) + c->sz_page;
	}
	memset(p->base.pExtra, 0, c->sz_extra);
	p->cache = c;
	p->key = key;
	p->pinned = true;
	p->lprev = p->lnext = NULL;
	sb_latch_enter(b->latch);
	p->hnext = b->head;
	b->head = p;
	sb_latch_leave(b->latch);
	return &p->base;
}

static void pc_unpin(sqlite3_pcache *pc, sqlite3_pcache_page *pp, int discard)
{
	struct pc_cache *c = (struct pc_cache *)pc;
	struct pc_page *p = (struct pc_page *)pp;

	if (discard || (c->purgeable && c->npage > c->max)) {
		page_drop(p);
		return;
	}
	sb_latch_enter(lru_latch);
	p->pinned = false;
	lru_append(c, p);
	sb_latch_leave(lru_latch);
}

static void pc_rekey(sqlite3_pcache *pc, sqlite3_pcache_page *pp, unsigned int oldkey, unsigned int newkey)
{
	struct pc_cache *c = (struct pc_cache *)pc;
	struct pc_page *p = (struct pc_page *)pp, *other;
	struct pc_bucket *ob = bucket_of(c, oldkey), *nb = bucket_of(c, newkey);

	/* A page that had newKey is not pinned (the contract): drop it. */
	sb_latch_enter(nb->latch);
	other = chain_find(nb, c, newkey);
	sb_latch_leave(nb->latch);
	if (other && other != p)
		page_drop(other);
	sb_latch_enter(ob->latch);
	chain_remove(ob, p);
	sb_latch_leave(ob->latch);
	p->key = newkey;
	sb_latch_enter(nb->latch);
	p->hnext = nb->head;
	nb->head = p;
	sb_latch_leave(nb->latch);
}

/* Every page of c with key >= limit (all of them: limit 0). */
static void drop_from(struct pc_cache *c, unsigned int limit)
{
	for (unsigned int i = 0; i < nbuckets && c->npage; i++) {
		struct pc_bucket *b = &buckets[i];
		struct pc_page *p, *mine = NULL;

		sb_latch_enter(b->latch);
		for (struct pc_page **pp = &b->head; (p = *pp);) {
			if (p->cache == c && p->key >= limit) {
				*pp = p->hnext;
				p->hnext = mine;
				mine = p;
			} else {
				pp = &p->hnext;
			}
		}
		sb_latch_leave(b->latch);
		while ((p = mine)) {
			mine = p->hnext;
			if (!p->pinned) {
				sb_latch_enter(lru_latch);
				lru_remove(p);
				sb_latch_leave(lru_latch);
			}
			c->npage--;
			free(p);
		}
	}
}

static void pc_truncate(sqlite3_pcache *pc, unsigned int limit)
{
	drop_from((struct pc_cache *)pc, limit);
}

static void pc_destroy(sqlite3_pcache *pc)
{
	struct pc_cache *c = (struct pc_cache *)pc;

	drop_from(c, 0);
	free(c);
}

static void pc_shrink(sqlite3_pcache *pc)
{
	struct pc_cache *c = (struct pc_cache *)pc;
	struct pc_page *p;

	while ((p = lru_take(c))) {
		struct pc_bucket *b = bucket_of(c, p->key);

		sb_latch_enter(b->latch);
		chain_remove(b, p);
		sb_latch_leave(b->latch);
		c->npage--;
		free(p);
	}
}

static const sqlite3_pcache_methods2 methods = {
	.iVersion = 1,
	.xInit = pc_init,
	.xShutdown = pc_shutdown,
	.xCreate = pc_create,
	.xCachesize = pc_cachesize,
	.xPagecount = pc_pagecount,
	.xFetch = pc_fetch,
	.xUnpin = pc_unpin,
	.xRekey = pc_rekey,
	.xTruncate = pc_truncate,
	.xDestroy = pc_destroy,
	.xShrink = pc_shrink,
};

int sb_pcache_install(unsigned int nbucket)
{
	sqlite3_pcache_methods2 m = methods;

	if (!nbucket)
		return SQLITE_MISUSE;
	m.pArg = (void *)(uintptr_t)nbucket;
	return sqlite3_config(SQLITE_CONFIG_PCACHE2, &m);
}

const sqlite3_pcache_methods2 *sb_pcache_methods(void)
{
	return &methods;
}
