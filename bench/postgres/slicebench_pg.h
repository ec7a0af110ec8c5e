/*-------------------------------------------------------------------------
 *
 * slicebench_pg.h
 *	  Time-slice-extension sections around PostgreSQL's spinlocks, through
 *	  slicebench's lib/ (slice.h). Copied into src/include/storage/ by
 *	  bench/postgres/build.
 *
 * A section is entered once a spinlock or a buffer header lock is held
 * (after any spinning) and left after its release: while it lasts, the
 * backend asks the kernel not to preempt it at the end of its time slice.
 * Whether it asks, and through which ABI, is the postmaster's
 * SLICEBENCH_ABI (none by default: the sections count and nothing more).
 *
 *-------------------------------------------------------------------------
 */
#ifndef SLICEBENCH_PG_H
#define SLICEBENCH_PG_H

#include "slice.h"

typedef enum SlicebenchPgClass
{
	SLICEBENCH_PG_SPIN,			/* slock_t: SpinLockAcquire() */
	SLICEBENCH_PG_BUFHDR,		/* BM_LOCKED: LockBufHdr() */
	SLICEBENCH_PG_NR_CLASSES
} SlicebenchPgClass;

typedef struct SlicebenchPgCounts
{
	uint64		acquired;		/* sections entered */
	uint64		contended;		/* of those, the lock was held at the first try */
} SlicebenchPgCounts;

/* This backend's counts (each backend is a process). */
extern SlicebenchPgCounts slicebench_pg_counts[SLICEBENCH_PG_NR_CLASSES];

static inline void
slicebench_pg_enter(SlicebenchPgClass cls, bool contended)
{
	slicebench_pg_counts[cls].acquired++;
	slicebench_pg_counts[cls].contended += contended;
	slice_enter();
}

static inline void
slicebench_pg_exit(void)
{
	slice_exit();
}

/* The postmaster's set-up, from main(): SLICEBENCH_ABI, the exit report. */
extern void slicebench_pg_init(void);

#endif							/* SLICEBENCH_PG_H */
