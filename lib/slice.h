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

#include <linux/futex.h>
#include <sched.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

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
	uint64_t yields;	/* yield calls made for them that returned success */
	uint64_t denied;	/* task-shared: DENIED seen */
};

/*
 * Choose the back end for the whole process and set up the calling thread.
 * SLICE_ABI_AUTO picks the kernel's live ABI (kernel.slice_ext_abi) on a
 * slicebench kernel, mainline on a kernel whose rseq area advertises slice
 * extension (Linux 7.0: RSEQ_CS_FLAG_SLICE_EXT_AVAILABLE), else none. An ABI
 * the kernel does not offer, or a set-up that fails, is an error: returns
 * -1 and writes why into err; the back end is then none.
 */
int slice_init(enum slice_abi want, char *err, size_t errlen);
enum slice_abi slice_current_abi(void);
const char *slice_abi_name(enum slice_abi abi);
/* "auto", "none", "rseq-cr", "task-shared", "mainline"; -1 if unknown. */
int slice_abi_parse(const char *name, enum slice_abi *abi);

/*
 * Per-thread set-up (task-shared: map the thread's shared page; mainline:
 * the prctl opt-in); 0, or -1 with errno set. Call it when a thread starts.
 * A thread that did not is set up by its first lock call, before the lock
 * is taken, or by its first slice_enter(): never inside a section it is
 * already holding a lock for. A failed lazy set-up is reported on stderr
 * and counted (slice_setup_failures()); that thread's sections then ask for
 * nothing. A child of fork() is set up again in the child (task-shared's
 * page is not inherited).
 */
int slice_thread_init(void);
/* Threads whose lazy set-up failed, process-wide. */
uint64_t slice_setup_failures(void);

/* This thread's counters. */
void slice_counters_get(struct slice_counters *c);

/*
 * Stay extended while waiting for a lock (Rostedt's -w): enter the critical
 * section before spinning rather than after acquiring. Process-wide.
 */
void slice_set_extend_while_waiting(bool on);

/*
 * How long the spin-then-futex and spin-then-yield locks spin before they
 * sleep or yield, in ns (default SLICE_SPIN_NS_DEFAULT). Process-wide.
 */
#define SLICE_SPIN_NS_DEFAULT 10000
void slice_set_spin_ns(uint64_t ns);

/*
 * slice_enter()/slice_exit() and the locks are inline: an uncontended
 * lock/unlock is a few instructions more than a plain spinlock (the
 * numbers are in lib/README.md). What follows up to the locks is the
 * library's internals, not API.
 */
/* The kernel protocol, checked against the uapi headers by slice_abi_check.c. */
#define SLICE__WORD_OFFSET		28	/* rseq: cr_counter (rseq-cr), slice_ctrl (mainline) */
#define SLICE__RSEQ_FLAGS_OFFSET	16	/* rseq: flags */
#define SLICE__RSEQ_CR_GRANTED		1U	/* cr_counter bit 0: the kernel extended us */
#define SLICE__RSEQ_FLAG_SLICE_EXT_AVAILABLE (1U << 4)
#define SLICE__TASK_SHARED_REQ		1
#define SLICE__TASK_SHARED_GRANTED	2
#define SLICE__TASK_SHARED_DENIED	3
#define SLICE__NR_TASK_GETSHARED	511
#define SLICE__TASK_SHAREDINFO		1
#define SLICE__NR_RSEQ_SLICE_YIELD	471
#define SLICE__PR_RSEQ_SLICE_EXTENSION	79
#define SLICE__PR_RSEQ_SLICE_EXTENSION_SET 2
#define SLICE__PR_RSEQ_SLICE_EXT_ENABLE	1
#define SLICE__RSEQ_SIG			0x53053053	/* x86's rseq signature */
#define SLICE__RSEQ_ORIG_SIZE		32	/* what glibc before 2.41 registers */
#define SLICE__RSEQ_FLAG_UNREGISTER	1
#define SLICE__ENOTSUPP			524	/* the kernel's ENOTSUPP */

struct slice__thread {
	unsigned int depth;	/* nesting of slice_enter() */
	int state;		/* 0: not set up, 1: ready, -1: set-up failed (asks for nothing) */
	volatile uint16_t *sched_delay;	/* task-shared */
	volatile uint32_t *word;	/* rseq-cr, mainline: the word at offset 28 of the thread's rseq area */
	struct slice_counters c;
};

extern __thread struct slice__thread slice__self;
extern enum slice_abi slice__abi;
extern bool slice__extend_waiting;
extern uint64_t slice__spin_ns;
/* glibc's registered rseq area (glibc 2.35 and later). */
extern const ptrdiff_t __rseq_offset;
extern const unsigned int __rseq_size;

int slice__setup(void);		/* lazy set-up: 0 ready, -1 failed (reported, counted) */
void slice__granted(void);	/* the kernel extended us: count, and give the CPU back */

static inline volatile uint32_t *slice__rseq_word(void)
{
	return slice__self.word;
}

#define slice__barrier() __asm__ __volatile__("" ::: "memory")

static inline void slice_enter(void)
{
	struct slice__thread *me = &slice__self;

	if (me->depth++)
		return;
	me->c.sections++;
	if (__builtin_expect(me->state <= 0, 0) && slice__setup())
		return;
	switch (slice__abi) {
	case SLICE_ABI_RSEQ_CR:
		/* One instruction: the kernel only looks while we are stopped. */
		__asm__ __volatile__("addl $2, %0" : "+m"(*slice__rseq_word()) :: "memory");
		break;
	case SLICE_ABI_TASK_SHARED:
		*me->sched_delay = SLICE__TASK_SHARED_REQ;
		slice__barrier();
		break;
	case SLICE_ABI_MAINLINE:
		/* slice_ctrl.request is the word's first byte. */
		*(volatile uint8_t *)slice__rseq_word() = 1;
		slice__barrier();
		break;
	default:
		break;
	}
}

static inline void slice_exit(void)
{
	struct slice__thread *me = &slice__self;
	uint16_t old;

	if (--me->depth || me->state < 0)
		return;
	switch (slice__abi) {
	case SLICE_ABI_RSEQ_CR:
		__asm__ __volatile__("subl $2, %0" : "+m"(*slice__rseq_word()) :: "memory");
		/* Out of every critical section, and the kernel extended us. */
		if (__builtin_expect(*slice__rseq_word() == SLICE__RSEQ_CR_GRANTED, 0))
			slice__granted();
		break;
	case SLICE_ABI_TASK_SHARED:
		/* Withdraw the request and read the answer in one instruction. */
		old = __atomic_exchange_n(me->sched_delay, 0, __ATOMIC_RELAXED);
		if (__builtin_expect(old == SLICE__TASK_SHARED_GRANTED, 0))
			slice__granted();
		else if (old == SLICE__TASK_SHARED_DENIED)
			me->c.denied++;
		break;
	case SLICE_ABI_MAINLINE:
		slice__barrier();
		*(volatile uint8_t *)slice__rseq_word() = 0;
		slice__barrier();
		/* slice_ctrl.granted is the second byte. */
		if (__builtin_expect(((volatile uint8_t *)slice__rseq_word())[1], 0))
			slice__granted();
		break;
	default:
		break;
	}
}

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

static inline void slice__cpu_relax(void)
{
	__asm__ __volatile__("pause" ::: "memory");
}

/* A thread's set-up, before it takes its first lock (cold, once). */
static inline void slice__prepare(void)
{
	if (__builtin_expect(slice__self.state == 0, 0))
		slice__setup();
}

/* Each lock function returns true if the lock was contended (had to spin). */
static inline bool slice_spin_lock(struct slice_spinlock *l)
{
	bool contended = false, early = slice__extend_waiting;

	slice__prepare();
	if (early)
		slice_enter();
	while (__atomic_exchange_n(&l->locked, 1, __ATOMIC_ACQUIRE)) {
		contended = true;
		while (__atomic_load_n(&l->locked, __ATOMIC_RELAXED))
			slice__cpu_relax();
	}
	if (!early)
		slice_enter();
	return contended;
}

/* One attempt, no spinning: true if taken (and the section entered). */
static inline bool slice_spin_trylock(struct slice_spinlock *l)
{
	slice__prepare();
	if (__atomic_load_n(&l->locked, __ATOMIC_RELAXED) ||
	    __atomic_exchange_n(&l->locked, 1, __ATOMIC_ACQUIRE))
		return false;
	slice_enter();
	return true;
}

static inline void slice_spin_unlock(struct slice_spinlock *l)
{
	__atomic_store_n(&l->locked, 0, __ATOMIC_RELEASE);
	slice_exit();
}

static inline bool slice_ticket_lock(struct slice_ticketlock *l)
{
	bool contended = false, early = slice__extend_waiting;
	uint32_t ticket;

	slice__prepare();
	if (early)
		slice_enter();
	ticket = __atomic_fetch_add(&l->next, 1, __ATOMIC_RELAXED);
	while (__atomic_load_n(&l->owner, __ATOMIC_ACQUIRE) != ticket) {
		contended = true;
		slice__cpu_relax();
	}
	if (!early)
		slice_enter();
	return contended;
}

static inline void slice_ticket_unlock(struct slice_ticketlock *l)
{
	__atomic_store_n(&l->owner, l->owner + 1, __ATOMIC_RELEASE);
	slice_exit();
}

/*
 * The locks users would reach for instead of (or with) the extension: they
 * spin a bounded time (slice_set_spin_ns()), then stop burning the CPU.
 * Both are extension-aware like the spinlocks (with SLICE_ABI_NONE, or
 * grants off, they are the plain kinds).
 *
 * Spin-then-futex: Drepper's three-state mutex ("Futexes Are Tricky",
 * mutex3): 0 free, 1 held, 2 held and maybe waited for. After the spin a
 * waiter sleeps in FUTEX_WAIT; the unlock of a lock in state 2 wakes one.
 */
struct slice_futexlock {
	uint32_t state;
};

/* Spin-then-yield: test-and-test-and-set, sched_yield() after each spin. */
struct slice_yieldlock {
	uint32_t locked;
};

static inline uint64_t slice__now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + ts.tv_nsec;
}

/* Spin until @word reads 0 (free) or the spin budget is spent; true if free. */
static inline bool slice__spin_until_free(const uint32_t *word)
{
	uint64_t deadline = 0;

	for (unsigned int i = 1;; i++) {
		if (!__atomic_load_n(word, __ATOMIC_RELAXED))
			return true;
		slice__cpu_relax();
		/* The clock every 64 pauses: cheap, and fine-grained enough. */
		if (i % 64 == 0) {
			uint64_t now = slice__now_ns();

			if (!deadline)
				deadline = now + slice__spin_ns;
			else if (now >= deadline)
				return false;
		}
	}
}

/*
 * The spin-then-futex lock alone, without a critical section (a plain lock
 * for comparison); true if contended. @in_section: the caller is in one
 * (extend-while-waiting), which is left while sleeping: an extension is for
 * running, not for sleeping.
 */
/* One attempt at the free lock, no section: true if taken ("held", 1). */
static inline bool slice_futex_tryacquire(struct slice_futexlock *l)
{
	uint32_t free = 0;

	return __atomic_compare_exchange_n(&l->state, &free, 1, false, __ATOMIC_ACQUIRE,
					   __ATOMIC_RELAXED);
}

static inline bool slice__futex_acquire(struct slice_futexlock *l, bool in_section)
{
	if (slice_futex_tryacquire(l))
		return false;
	/* Spin while the holder runs; a free lock is taken as "held". */
	while (slice__spin_until_free(&l->state))
		if (slice_futex_tryacquire(l))
			return true;
	/* Sleep: mark the lock waited for; whoever frees it wakes us. */
	if (in_section)
		slice_exit();
	while (__atomic_exchange_n(&l->state, 2, __ATOMIC_ACQUIRE) != 0)
		syscall(SYS_futex, &l->state, FUTEX_WAIT_PRIVATE, 2, NULL, NULL, 0);
	if (in_section)
		slice_enter();
	return true;
}

/* Free the lock; true if a sleeper must be woken (slice__futex_wake()). */
static inline bool slice__futex_release(struct slice_futexlock *l)
{
	return __atomic_exchange_n(&l->state, 0, __ATOMIC_RELEASE) == 2;
}

static inline void slice__futex_wake(struct slice_futexlock *l)
{
	syscall(SYS_futex, &l->state, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

/* The plain spin-then-futex lock: no critical section, any ABI. */
static inline bool slice_futex_acquire(struct slice_futexlock *l)
{
	return slice__futex_acquire(l, false);
}

static inline void slice_futex_release(struct slice_futexlock *l)
{
	if (slice__futex_release(l))
		slice__futex_wake(l);
}

/* The extension-aware one. */
static inline bool slice_futex_lock(struct slice_futexlock *l)
{
	bool contended, early = slice__extend_waiting;

	slice__prepare();
	if (early)
		slice_enter();
	contended = slice__futex_acquire(l, early);
	if (!early)
		slice_enter();
	return contended;
}

static inline void slice_futex_unlock(struct slice_futexlock *l)
{
	bool wake = slice__futex_release(l);

	/*
	 * Leave the section first (a granted extension yields here, the lock
	 * already free), then wake a sleeper: no syscall inside the section.
	 */
	slice_exit();
	if (wake)
		slice__futex_wake(l);
}

static inline bool slice_yield_lock(struct slice_yieldlock *l)
{
	bool contended = false, early = slice__extend_waiting;

	slice__prepare();
	if (early)
		slice_enter();
	while (__atomic_exchange_n(&l->locked, 1, __ATOMIC_ACQUIRE)) {
		contended = true;
		if (!slice__spin_until_free(&l->locked)) {
			/* Waiting for a preempted holder: let it (or anyone) run. */
			if (early)
				slice_exit();
			sched_yield();
			if (early)
				slice_enter();
		}
	}
	if (!early)
		slice_enter();
	return contended;
}

static inline void slice_yield_unlock(struct slice_yieldlock *l)
{
	__atomic_store_n(&l->locked, 0, __ATOMIC_RELEASE);
	slice_exit();
}

#endif /* SLICEBENCH_SLICE_H */
