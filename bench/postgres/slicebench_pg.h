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

/*
 * A test hook, 0 unless SLICEBENCH_PG_HOLD_US is set: every section is held
 * that many microseconds longer (a busy wait after the lock is taken), so
 * that ticks land inside sections and a short test sees grants. PostgreSQL's
 * own holds are far below a microsecond. Never set by a benchmark.
 */
extern int	slicebench_pg_hold_us;
extern void slicebench_pg_hold(void);

static inline void
slicebench_pg_enter(SlicebenchPgClass cls, bool contended)
{
	slicebench_pg_counts[cls].acquired++;
	slicebench_pg_counts[cls].contended += contended;
	slice_enter();
	if (unlikely(slicebench_pg_hold_us))
		slicebench_pg_hold();
}

static inline void
slicebench_pg_exit(void)
{
	slice_exit();
}

/* The postmaster's set-up, from main(): SLICEBENCH_ABI, the exit report. */
extern void slicebench_pg_init(void);

#endif							/* SLICEBENCH_PG_H */
