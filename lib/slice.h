/* SPDX-License-Identifier: GPL-2.0 */
/*
 * slice.h: extension-aware critical sections and spinlocks.
 *
 * slice_enter()/slice_exit() bracket a critical section and ask the kernel,
 * through the chosen time-slice-extension ABI, not to preempt the thread
 * inside it. They nest: only the outermost pair talks to the kernel. When
 * the kernel says it extended the thread, slice_exit() gives the CPU back
 * at once through the ABI's yield call.
 *
 * Back ends:
 *   none         no kernel interaction (any kernel)
 *   rseq-cr      +2/-2 on struct rseq::cr_counter in glibc's rseq area
 *   task-shared  task_getshared()'s per-thread sched_delay
 *   mainline     Linux 7.0's rseq::slice_ctrl, prctl opt-in, rseq_slice_yield()
 *
 * The ABI structures are defined here by offset and number, so the library
 * builds anywhere; the kernel side is kernel/patches/.
 */
#ifndef SLICEBENCH_SLICE_H
#define SLICEBENCH_SLICE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum slice_abi {
	SLICE_ABI_NONE,
	SLICE_ABI_RSEQ_CR,
	SLICE_ABI_TASK_SHARED,
	SLICE_ABI_MAINLINE,
	SLICE_ABI_AUTO,		/* for slice_init(): what the running kernel offers */
};

/* Per-thread counts, as user space saw them. */
struct slice_counters {
	uint64_t sections;	/* outermost critical sections entered */
	uint64_t grants;	/* exits that found an extension granted */
	uint64_t yields;	/* yield calls made for them */
	uint64_t denied;	/* task-shared: DENIED seen */
};

/*
 * Choose the back end for the whole process. SLICE_ABI_AUTO picks the
 * kernel's live ABI (kernel.slice_ext_abi) if the kernel has one, else none.
 * An explicit ABI the kernel does not offer is an error: returns -1 and
 * writes why into err.
 */
int slice_init(enum slice_abi want, char *err, size_t errlen);
enum slice_abi slice_current_abi(void);
const char *slice_abi_name(enum slice_abi abi);
/* "auto", "none", "rseq-cr", "task-shared", "mainline"; -1 if unknown. */
int slice_abi_parse(const char *name, enum slice_abi *abi);

/* Per-thread set-up, done lazily by the first slice_enter(); 0 or -errno. */
int slice_thread_init(void);

void slice_enter(void);
void slice_exit(void);

/* This thread's counters. */
void slice_counters_get(struct slice_counters *c);

/* ---- locks ------------------------------------------------------------------ */

/* Test-and-test-and-set spinlock with pause, the kind the seeds describe. */
struct slice_spinlock {
	volatile int locked;
};

/* Ticket lock: FIFO, for comparing fairness. */
struct slice_ticketlock {
	volatile uint32_t next;
	volatile uint32_t owner;
};

/*
 * Stay extended while waiting for a lock (Rostedt's -w): enter the critical
 * section before spinning rather than after acquiring. Process-wide.
 */
void slice_set_extend_while_waiting(bool on);

/* Each returns true if the lock was contended (had to spin). */
bool slice_spin_lock(struct slice_spinlock *l);
void slice_spin_unlock(struct slice_spinlock *l);
bool slice_ticket_lock(struct slice_ticketlock *l);
void slice_ticket_unlock(struct slice_ticketlock *l);

#endif /* SLICEBENCH_SLICE_H */
