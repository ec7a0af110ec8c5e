/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sqlite_mutex.h: SQLite's mutexes as pthread (default or adaptive), spin,
 * spin-then-futex, or their extension-aware forms.
 */
#ifndef SWINGBENCH_SQLITE_MUTEX_H
#define SWINGBENCH_SQLITE_MUTEX_H

#include <stdbool.h>
#include <stdint.h>

#include "bench.h"

enum sb_mutex_kind {
	SB_MUTEX_PTHREAD, SB_MUTEX_SPIN, SB_MUTEX_SPIN_EXT,
	SB_MUTEX_ADAPTIVE, SB_MUTEX_FUTEX, SB_MUTEX_FUTEX_EXT,
	SB_MUTEX_NR
};

/*
 * Before any other SQLite call. spin_ns: the spin kinds yield the CPU after
 * spinning this long (0: never), the futex kinds sleep. SQLITE_OK or
 * SQLite's error.
 */
int sb_mutex_install(enum sb_mutex_kind kind, uint64_t spin_ns);
const char *sb_mutex_kind_name(enum sb_mutex_kind kind);
int sb_mutex_kind_parse(const char *s, enum sb_mutex_kind *kind);

/*
 * Latches of the buffer cache (pcache.c): mutexes of the same kind as
 * SQLite's (sb_mutex_install()), counted and timed as classes of their own.
 * Not recursive. sb_latch_new() after sb_mutex_install().
 */
enum sb_latch_class { SB_LATCH_BUCKET, SB_LATCH_LRU, SB_LATCH_NR };
struct sb_latch;
struct sb_latch *sb_latch_new(enum sb_latch_class cls);
void sb_latch_free(struct sb_latch *l);
void sb_latch_enter(struct sb_latch *l);
void sb_latch_leave(struct sb_latch *l);

/* What a mutex (or a class of them) did in the measured window. */
struct sb_mutex_window {
	uint64_t acquired, contended;	/* outermost acquisitions */
	uint64_t held_ns;		/* summed over the holds */
	uint64_t preempted;		/* holds longer than the preempted threshold */
	struct hist hold;		/* hold times */
};

struct sb_mutex_stat {
	const char *name;
	uint64_t acquired, contended;	/* the whole run, every entry (recursive too) */
	const struct sb_mutex_window *window;	/* the measured window */
	uint64_t grants;		/* extended sections this class's releases ended (window) */
};

/*
 * Open (on) or close the measured window. A hold longer than
 * preempted_after_ns (0: keep the current, default 500 us) counts as
 * preempted while holding.
 */
void sb_mutex_measure(bool on, uint64_t preempted_after_ns);

/*
 * The counts, per kind of mutex with any use; returns how many. Call it
 * after the clients have stopped; the windows stay valid until the next call.
 */
int sb_mutex_stats(struct sb_mutex_stat *out, int max);

#endif /* SWINGBENCH_SQLITE_MUTEX_H */
