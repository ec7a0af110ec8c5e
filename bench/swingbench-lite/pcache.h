/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pcache.h: SQLite's page cache with a buffer-cache latch layer (pcache.c).
 */
#ifndef SWINGBENCH_PCACHE_H
#define SWINGBENCH_PCACHE_H

#include <sqlite3.h>

/*
 * Install it (sqlite3_config(SQLITE_CONFIG_PCACHE2)) with nbucket bucket
 * latches, after sb_mutex_install() and before any other SQLite call.
 * SQLITE_OK or SQLite's error.
 */
int sb_pcache_install(unsigned int nbucket);
/* The database file of the caches this thread creates from now on. */
void sb_pcache_set_file(const char *path);
/* The methods, for the contract tests (xInit's pArg: the bucket count). */
const sqlite3_pcache_methods2 *sb_pcache_methods(void);

#endif /* SWINGBENCH_PCACHE_H */
