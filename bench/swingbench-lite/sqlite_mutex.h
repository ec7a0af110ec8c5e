/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sqlite_mutex.h: SQLite's mutexes as pthread (default or adaptive), spin,
 * spin-then-futex, or their extension-aware forms.
 */
#ifndef SWINGBENCH_SQLITE_MUTEX_H
#define SWINGBENCH_SQLITE_MUTEX_H

#include <stdint.h>

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

struct sb_mutex_stat {
	const char *name;
	uint64_t acquired, contended;
};

/* The counts so far, per kind of mutex with any use; returns how many. */
int sb_mutex_stats(struct sb_mutex_stat *out, int max);

#endif /* SWINGBENCH_SQLITE_MUTEX_H */
