// SPDX-License-Identifier: GPL-2.0
/*
 * sqlite_mutex.c: SQLite's mutexes, replaced at start-up through
 * sqlite3_config(SQLITE_CONFIG_MUTEX), without patching SQLite.
 *
 *   pthread   pthread mutexes, recursive where SQLite asks for it: what
 *             SQLite's own unix implementation does, plus counting
 *   adaptive  the same with glibc's adaptive mutexes (PTHREAD_MUTEX_ADAPTIVE_NP:
 *             a short spin before sleeping) where SQLite needs no recursion
 *   spin      a test-and-test-and-set spinlock with pause
 *   spin-ext  the same on lib/slice: while a thread holds any SQLite mutex
 *             it asks the kernel not to preempt it
 *   futex     lib/slice's spin-then-futex lock: spin spin_ns, then sleep
 *   futex-ext the same, extension-aware
 *
 * Both spin kinds spin for at most spin_ns per attempt, then sched_yield()
 * and try again, as database latches do (Oracle's spin count, PostgreSQL's
 * s_lock()); spin_ns 0 spins forever. The futex kinds sleep instead (spin_ns
 * 0: after 64 pauses). With a thousand threads on a few CPUs
 * a pure spinlock convoys: every waiter burns its whole slice behind a
 * preempted holder. The bound is in time, not in pause loops, because a
 * pause costs ~10 ns on hardware but far more under QEMU's TCG.
 *
 * Every mutex counts its acquisitions and how many found it taken; the
 * counts are kept under the mutex itself, so they cost no atomics. They are
 * summed per kind of mutex (SQLite's static ones by name, the dynamic ones
 * by type) for the report: they show which latches the workload really
 * contends on.
 *
 * Inside the measured window (sb_mutex_measure()) each outermost hold is
 * also timed, under the mutex: a hold-time histogram per mutex, the time
 * held, and the holds longer than preempted_ns, which (as in locktable) can
 * only mean the holder lost its CPU while holding. For the extension-aware
 * kinds, a release that ended an extended section (the library counted a
 * grant) counts a grant for its mutex's class, atomically (grants are rare).
 * Per class these give the structure the extension has to work with: how
 * often a statement takes a latch, how long it holds it, how much of the
 * time it is held, and how often a holder is preempted inside it.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "slice.h"
#include "sqlite_mutex.h"

#define NR_IDS (SQLITE_MUTEX_STATIC_VFS3 + 1)
/* The buffer-cache latches (pcache.c) are classes of their own, after SQLite's. */
#define NR_CLASSES (NR_IDS + SB_LATCH_NR)

struct sb_mutex {
	int id;
	union {
		pthread_mutex_t pm;
		struct slice_spinlock sl;
		struct slice_futexlock fl;
	};
	pthread_t owner;	/* spin and futex kinds: for recursion */
	int depth;
	uint64_t acquired, contended;	/* under the mutex */
	struct sb_mutex *next, *prev;	/* the live dynamic mutexes */
	/* In the measured window, under the mutex: */
	uint64_t since;			/* when the outermost hold began (0: not timed) */
	struct sb_mutex_window w;
};

static enum sb_mutex_kind kind;
static uint64_t spin_ns;
static struct sb_mutex statics[NR_IDS];
/* The live dynamic mutexes, and the counts of freed ones, per type. */
static pthread_mutex_t list_lock = PTHREAD_MUTEX_INITIALIZER;
static struct sb_mutex *live;
static uint64_t freed_acquired[NR_CLASSES], freed_contended[NR_CLASSES];
static struct sb_mutex_window freed_w[NR_CLASSES];
/* The measured window is open (sb_mutex_measure()), and its threshold. */
static volatile int measuring;
static uint64_t preempted_ns = 500000;
/* Grants per class, counted by the releasing thread. */
static uint64_t class_grants[NR_CLASSES];

static const char *const id_names[NR_CLASSES] = {
	[SQLITE_MUTEX_FAST] = "fast (dynamic: shared-cache B-tree, WAL index, ...)",
	[SQLITE_MUTEX_RECURSIVE] = "recursive (dynamic: connections)",
	[SQLITE_MUTEX_STATIC_MAIN] = "static main",
	[SQLITE_MUTEX_STATIC_MEM] = "static mem (malloc statistics)",
	[SQLITE_MUTEX_STATIC_OPEN] = "static open (shared-cache list)",
	[SQLITE_MUTEX_STATIC_PRNG] = "static prng",
	[SQLITE_MUTEX_STATIC_LRU] = "static lru (page cache)",
	[SQLITE_MUTEX_STATIC_PMEM] = "static pmem (page cache memory)",
	[SQLITE_MUTEX_STATIC_APP1] = "static app1",
	[SQLITE_MUTEX_STATIC_APP2] = "static app2",
	[SQLITE_MUTEX_STATIC_APP3] = "static app3",
	[SQLITE_MUTEX_STATIC_VFS1] = "static vfs1 (unix VFS inodes)",
	[SQLITE_MUTEX_STATIC_VFS2] = "static vfs2",
	[SQLITE_MUTEX_STATIC_VFS3] = "static vfs3",
	[NR_IDS + SB_LATCH_BUCKET] = "buffer cache bucket latches (pcache)",
	[NR_IDS + SB_LATCH_LRU] = "buffer cache lru latch (pcache)",
};

static inline bool plain_trylock(struct slice_spinlock *l)
{
	return !__atomic_load_n(&l->locked, __ATOMIC_RELAXED) &&
	       !__atomic_exchange_n(&l->locked, 1, __ATOMIC_ACQUIRE);
}

static void window_add(struct sb_mutex_window *dst, const struct sb_mutex_window *src)
{
	dst->acquired += src->acquired;
	dst->contended += src->contended;
	dst->held_ns += src->held_ns;
	dst->preempted += src->preempted;
	hist_merge(&dst->hold, &src->hold);
}

/* The outermost hold began (the mutex is ours). */
static inline void hold_begin(struct sb_mutex *m, bool contended)
{
	if (!__atomic_load_n(&measuring, __ATOMIC_RELAXED)) {
		m->since = 0;
		return;
	}
	m->since = bench_now_ns();
	m->w.acquired++;
	m->w.contended += contended;
}

/* The outermost hold ends (still ours). */
static inline void hold_end(struct sb_mutex *m)
{
	uint64_t d;

	if (!m->since)
		return;
	d = bench_now_ns() - m->since;
	m->since = 0;
	hist_add(&m->w.hold, d);
	m->w.held_ns += d;
	m->w.preempted += d > preempted_ns;
}

/* Spin for the lock, yielding the CPU after spin_ns of spinning; true if contended. */
static bool spin_lock(struct slice_spinlock *l, bool ext)
{
	uint64_t until = 0;
	unsigned int spins = 0;

	if (ext ? slice_spin_trylock(l) : plain_trylock(l))
		return false;
	if (spin_ns)
		until = bench_now_ns() + spin_ns;
	for (;;) {
		while (__atomic_load_n(&l->locked, __ATOMIC_RELAXED)) {
			__asm__ __volatile__("pause" ::: "memory");
			/* The clock (vDSO) every 16 pauses. */
			if (until && !(++spins & 15) && bench_now_ns() >= until) {
				sched_yield();
				until = bench_now_ns() + spin_ns;
			}
		}
		if (ext ? slice_spin_trylock(l) : plain_trylock(l))
			return true;
	}
}

static bool pthread_kind(void)
{
	return kind == SB_MUTEX_PTHREAD || kind == SB_MUTEX_ADAPTIVE;
}

/* A pthread kind's mutex: recursive if SQLite asks, else default or adaptive. */
static void pm_init(pthread_mutex_t *pm, int id)
{
	pthread_mutexattr_t attr;

	pthread_mutexattr_init(&attr);
	if (id == SQLITE_MUTEX_RECURSIVE)
		pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_RECURSIVE);
	else if (kind == SB_MUTEX_ADAPTIVE)
		pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_ADAPTIVE_NP);
	pthread_mutex_init(pm, &attr);
	pthread_mutexattr_destroy(&attr);
}

static int m_init(void)
{
	for (int i = 0; i < NR_IDS; i++) {
		statics[i].id = i;
		hist_init(&statics[i].w.hold);
		if (pthread_kind())
			pm_init(&statics[i].pm, i);
	}
	return SQLITE_OK;
}

static int m_end(void)
{
	return SQLITE_OK;
}

static sqlite3_mutex *m_alloc(int id)
{
	struct sb_mutex *m;

	if (id > SQLITE_MUTEX_RECURSIVE && id < NR_IDS)
		return (sqlite3_mutex *)&statics[id];
	if (id >= NR_CLASSES)
		return NULL;
	m = calloc(1, sizeof(*m));
	if (!m)
		return NULL;
	m->id = id;
	hist_init(&m->w.hold);
	if (pthread_kind())
		pm_init(&m->pm, id);
	pthread_mutex_lock(&list_lock);
	m->next = live;
	if (live)
		live->prev = m;
	live = m;
	pthread_mutex_unlock(&list_lock);
	return (sqlite3_mutex *)m;
}

static void m_free(sqlite3_mutex *p)
{
	struct sb_mutex *m = (struct sb_mutex *)p;

	if (m->id > SQLITE_MUTEX_RECURSIVE && m->id < NR_IDS)
		return;
	pthread_mutex_lock(&list_lock);
	freed_acquired[m->id] += m->acquired;
	freed_contended[m->id] += m->contended;
	window_add(&freed_w[m->id], &m->w);
	if (m->prev)
		m->prev->next = m->next;
	else
		live = m->next;
	if (m->next)
		m->next->prev = m->prev;
	pthread_mutex_unlock(&list_lock);
	if (pthread_kind())
		pthread_mutex_destroy(&m->pm);
	free(m);
}

/* Already ours (a recursive entry)? Only the owner can see itself here. */
static inline bool mine(struct sb_mutex *m)
{
	return m->depth && pthread_equal(__atomic_load_n(&m->owner, __ATOMIC_RELAXED),
					 pthread_self());
}

static void m_enter(sqlite3_mutex *p)
{
	struct sb_mutex *m = (struct sb_mutex *)p;
	bool contended = false;

	if (!pthread_kind() && mine(m)) {
		m->depth++;
		return;
	}
	switch (kind) {
	case SB_MUTEX_PTHREAD:
	case SB_MUTEX_ADAPTIVE:
		if (pthread_mutex_trylock(&m->pm)) {
			contended = true;
			pthread_mutex_lock(&m->pm);
		}
		/* A recursive pthread mutex: only its owner sees depth > 0. */
		m->acquired++;
		m->contended += contended;
		if (m->depth++ == 0)
			hold_begin(m, contended);
		return;
	case SB_MUTEX_SPIN:
		contended = spin_lock(&m->sl, false);
		break;
	case SB_MUTEX_SPIN_EXT:
		contended = spin_lock(&m->sl, true);
		break;
	case SB_MUTEX_FUTEX:
		contended = slice_futex_acquire(&m->fl);
		break;
	default:
		contended = slice_futex_lock(&m->fl);
		break;
	}
	__atomic_store_n(&m->owner, pthread_self(), __ATOMIC_RELAXED);
	m->depth = 1;
	m->acquired++;
	m->contended += contended;
	hold_begin(m, contended);
}

static int m_try(sqlite3_mutex *p)
{
	struct sb_mutex *m = (struct sb_mutex *)p;

	if (!pthread_kind() && mine(m)) {
		m->depth++;
		return SQLITE_OK;
	}
	switch (kind) {
	case SB_MUTEX_PTHREAD:
	case SB_MUTEX_ADAPTIVE:
		if (pthread_mutex_trylock(&m->pm))
			return SQLITE_BUSY;
		m->acquired++;
		if (m->depth++ == 0)
			hold_begin(m, false);
		return SQLITE_OK;
	case SB_MUTEX_SPIN:
		if (!plain_trylock(&m->sl))
			return SQLITE_BUSY;
		break;
	case SB_MUTEX_SPIN_EXT:
		if (!slice_spin_trylock(&m->sl))
			return SQLITE_BUSY;
		break;
	default:
		if (!slice_futex_tryacquire(&m->fl))
			return SQLITE_BUSY;
		if (kind == SB_MUTEX_FUTEX_EXT)
			slice_enter();
		break;
	}
	__atomic_store_n(&m->owner, pthread_self(), __ATOMIC_RELAXED);
	m->depth = 1;
	m->acquired++;
	hold_begin(m, false);
	return SQLITE_OK;
}

static void m_leave(sqlite3_mutex *p)
{
	struct sb_mutex *m = (struct sb_mutex *)p;
	uint64_t grants = slice__self.c.grants;
	int id = m->id;

	if (pthread_kind()) {
		if (--m->depth == 0)
			hold_end(m);
		pthread_mutex_unlock(&m->pm);
		return;
	}
	if (--m->depth)
		return;
	hold_end(m);
	__atomic_store_n(&m->owner, (pthread_t)0, __ATOMIC_RELAXED);
	switch (kind) {
	case SB_MUTEX_SPIN:
		__atomic_store_n(&m->sl.locked, 0, __ATOMIC_RELEASE);
		break;
	case SB_MUTEX_SPIN_EXT:
		slice_spin_unlock(&m->sl);
		break;
	case SB_MUTEX_FUTEX:
		slice_futex_release(&m->fl);
		break;
	default:
		slice_futex_unlock(&m->fl);
		break;
	}
	/*
	 * The release ended an extended section: the library counted the grant
	 * (and yielded). Attribute it to this mutex's class (m is no longer
	 * ours, so not under it).
	 */
	if (slice__self.c.grants != grants && __atomic_load_n(&measuring, __ATOMIC_RELAXED))
		__atomic_fetch_add(&class_grants[id], 1, __ATOMIC_RELAXED);
}

/* Used by SQLite's assert()s only, which release builds do not have. */
static int m_held(sqlite3_mutex *p)
{
	return p == NULL || mine((struct sb_mutex *)p);
}

static int m_notheld(sqlite3_mutex *p)
{
	return p == NULL || !mine((struct sb_mutex *)p);
}

int sb_mutex_install(enum sb_mutex_kind k, uint64_t spin_bound_ns)
{
	static const sqlite3_mutex_methods methods = {
		m_init, m_end, m_alloc, m_free, m_enter, m_try, m_leave, m_held, m_notheld,
	};

	kind = k;
	spin_ns = spin_bound_ns;
	slice_set_spin_ns(spin_bound_ns);
	return sqlite3_config(SQLITE_CONFIG_MUTEX, &methods);
}

static const char *const kind_names[SB_MUTEX_NR] = {
	[SB_MUTEX_PTHREAD] = "pthread",
	[SB_MUTEX_SPIN] = "spin",
	[SB_MUTEX_SPIN_EXT] = "spin-ext",
	[SB_MUTEX_ADAPTIVE] = "adaptive",
	[SB_MUTEX_FUTEX] = "futex",
	[SB_MUTEX_FUTEX_EXT] = "futex-ext",
};

const char *sb_mutex_kind_name(enum sb_mutex_kind k)
{
	return kind_names[k];
}

int sb_mutex_kind_parse(const char *s, enum sb_mutex_kind *k)
{
	for (int i = 0; i < SB_MUTEX_NR; i++) {
		if (!strcmp(s, kind_names[i])) {
			*k = i;
			return 0;
		}
	}
	return -1;
}

/* The buffer-cache latches: mutexes of the chosen kind, in classes of their own. */
struct sb_latch *sb_latch_new(enum sb_latch_class cls)
{
	return (struct sb_latch *)m_alloc(NR_IDS + cls);
}

void sb_latch_free(struct sb_latch *l)
{
	if (l)
		m_free((sqlite3_mutex *)l);
}

void sb_latch_enter(struct sb_latch *l)
{
	m_enter((sqlite3_mutex *)l);
}

void sb_latch_leave(struct sb_latch *l)
{
	m_leave((sqlite3_mutex *)l);
}

void sb_mutex_measure(bool on, uint64_t preempted_after_ns)
{
	if (preempted_after_ns)
		preempted_ns = preempted_after_ns;
	__atomic_store_n(&measuring, on, __ATOMIC_RELAXED);
}

/*
 * Call when no thread uses SQLite any more (the clients have stopped): the
 * window's figures are read without the mutexes.
 */
int sb_mutex_stats(struct sb_mutex_stat *out, int max)
{
	uint64_t acq[NR_CLASSES] = { 0 }, con[NR_CLASSES] = { 0 };
	static struct sb_mutex_window w[NR_CLASSES];
	int n = 0;

	for (int i = 0; i < NR_CLASSES; i++) {
		memset(&w[i], 0, sizeof(w[i]));
		hist_init(&w[i].hold);
	}
	pthread_mutex_lock(&list_lock);
	for (int t = 0; t < NR_CLASSES; t++) {
		acq[t] = freed_acquired[t];
		con[t] = freed_contended[t];
		window_add(&w[t], &freed_w[t]);
	}
	for (struct sb_mutex *m = live; m; m = m->next) {
		acq[m->id] += m->acquired;
		con[m->id] += m->contended;
		window_add(&w[m->id], &m->w);
	}
	pthread_mutex_unlock(&list_lock);
	for (int i = SQLITE_MUTEX_STATIC_MAIN; i < NR_IDS; i++) {
		acq[i] = statics[i].acquired;
		con[i] = statics[i].contended;
		window_add(&w[i], &statics[i].w);
	}
	for (int i = 0; i < NR_CLASSES && n < max; i++) {
		if (!acq[i])
			continue;
		out[n].name = id_names[i];
		out[n].acquired = acq[i];
		out[n].contended = con[i];
		out[n].window = &w[i];
		out[n].grants = __atomic_load_n(&class_grants[i], __ATOMIC_RELAXED);
		n++;
	}
	return n;
}
