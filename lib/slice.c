// SPDX-License-Identifier: GPL-2.0
/*
 * slice.c: extension-aware critical sections and spinlocks. See slice.h.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "slice.h"

/* The ABIs, by offset and number (kernel/README.md). */
#define RSEQ_SLICE_WORD_OFFSET		28	/* cr_counter / slice_ctrl */
#define RSEQ_FLAGS_OFFSET		16
#define RSEQ_CS_FLAG_SLICE_EXT_AVAILABLE (1U << 4)
#define NR_TASK_GETSHARED		463
#define NR_RSEQ_SLICE_YIELD		471
#define TASK_SHAREDINFO			1
#define TASK_PREEMPT_DELAY_REQ		1
#define TASK_PREEMPT_DELAY_GRANTED	2
#define TASK_PREEMPT_DELAY_DENIED	3
#define PR_RSEQ_SLICE_EXTENSION		79
#define PR_RSEQ_SLICE_EXTENSION_SET	2
#define PR_RSEQ_SLICE_EXT_ENABLE	1
#define SLICE_EXT_ABI_KNOB		"/proc/sys/kernel/slice_ext_abi"

/* glibc's registered rseq area (glibc 2.35 and later). */
extern const ptrdiff_t __rseq_offset;
extern const unsigned int __rseq_size;

static const char *const abi_names[] = {
	[SLICE_ABI_NONE] = "none",
	[SLICE_ABI_RSEQ_CR] = "rseq-cr",
	[SLICE_ABI_TASK_SHARED] = "task-shared",
	[SLICE_ABI_MAINLINE] = "mainline",
	[SLICE_ABI_AUTO] = "auto",
};

/* The process-wide back end, set by slice_init(). */
static enum slice_abi abi = SLICE_ABI_NONE;
/* Enter before spinning for a lock instead of after taking it. */
static bool extend_while_waiting;

struct slice_thread {
	unsigned int depth;	/* nesting of slice_enter() */
	int state;		/* 0: not set up, 1: ready, -1: set-up failed (acts as none) */
	volatile uint16_t *sched_delay;	/* task-shared */
	struct slice_counters c;
};

static __thread struct slice_thread me;

const char *slice_abi_name(enum slice_abi a)
{
	return a <= SLICE_ABI_AUTO ? abi_names[a] : "?";
}

int slice_abi_parse(const char *name, enum slice_abi *out)
{
	for (int a = 0; a <= SLICE_ABI_AUTO; a++) {
		if (!strcmp(name, abi_names[a])) {
			*out = a;
			return 0;
		}
	}
	return -1;
}

enum slice_abi slice_current_abi(void)
{
	return abi;
}

static inline char *rseq_area(void)
{
	return (char *)__builtin_thread_pointer() + __rseq_offset;
}

static inline volatile uint32_t *rseq_word(void)
{
	return (volatile uint32_t *)(rseq_area() + RSEQ_SLICE_WORD_OFFSET);
}

static void fmt(char *err, size_t len, const char *f, ...)
{
	va_list ap;

	if (!err || !len)
		return;
	va_start(ap, f);
	vsnprintf(err, len, f, ap);
	va_end(ap);
}

/* The kernel's live ABI from its knob: 1 found, 0 no knob, -1 unreadable. */
static int kernel_live_abi(enum slice_abi *live)
{
	char buf[32] = "";
	FILE *f = fopen(SLICE_EXT_ABI_KNOB, "r");

	if (!f)
		return errno == ENOENT ? 0 : -1;
	if (!fgets(buf, sizeof(buf), f)) {
		fclose(f);
		return -1;
	}
	fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
	return slice_abi_parse(buf, live) ? -1 : 1;
}

int slice_init(enum slice_abi want, char *err, size_t errlen)
{
	enum slice_abi live = SLICE_ABI_NONE;
	int have = kernel_live_abi(&live);

	if (have < 0) {
		fmt(err, errlen, "cannot read %s", SLICE_EXT_ABI_KNOB);
		return -1;
	}
	if (want == SLICE_ABI_AUTO) {
		abi = have ? live : SLICE_ABI_NONE;
		if (abi == SLICE_ABI_RSEQ_CR && !__rseq_size)
			abi = SLICE_ABI_NONE;
		return 0;
	}
	if (want == SLICE_ABI_NONE) {
		abi = SLICE_ABI_NONE;
		return 0;
	}
	if ((want == SLICE_ABI_RSEQ_CR || want == SLICE_ABI_MAINLINE) && !__rseq_size) {
		fmt(err, errlen, "the %s ABI needs rseq, and glibc did not register it "
		    "(is GLIBC_TUNABLES=glibc.pthread.rseq=0 set?)", slice_abi_name(want));
		return -1;
	}
	if (have) {
		if (live != want) {
			fmt(err, errlen, "the kernel's live time slice extension ABI is %s, not %s "
			    "(set %s)", slice_abi_name(live), slice_abi_name(want), SLICE_EXT_ABI_KNOB);
			return -1;
		}
	} else if (want == SLICE_ABI_MAINLINE) {
		/* A Linux 7.0 kernel: it says so in rseq::flags. */
		uint32_t flags = *(volatile uint32_t *)(rseq_area() + RSEQ_FLAGS_OFFSET);

		if (!(flags & RSEQ_CS_FLAG_SLICE_EXT_AVAILABLE)) {
			fmt(err, errlen, "this kernel (%s absent, rseq does not advertise it) has no time slice extension",
			    SLICE_EXT_ABI_KNOB);
			return -1;
		}
	} else {
		fmt(err, errlen, "this kernel has no time slice extension (%s absent)",
		    SLICE_EXT_ABI_KNOB);
		return -1;
	}
	abi = want;
	/* Set up the calling thread now, so that an error shows here. */
	me.state = 0;
	if (slice_thread_init()) {
		fmt(err, errlen, "setting up the %s ABI failed: %s", slice_abi_name(want),
		    strerror(errno));
		abi = SLICE_ABI_NONE;
		return -1;
	}
	return 0;
}

int slice_thread_init(void)
{
	void *ptr = NULL;
	int ret = 0;

	if (me.state)
		return me.state > 0 ? 0 : -1;
	switch (abi) {
	case SLICE_ABI_TASK_SHARED:
		if (syscall(NR_TASK_GETSHARED, TASK_SHAREDINFO, 0, &ptr))
			ret = -1;
		else
			me.sched_delay = ptr;
		break;
	case SLICE_ABI_MAINLINE:
		if (prctl(PR_RSEQ_SLICE_EXTENSION, PR_RSEQ_SLICE_EXTENSION_SET,
			  PR_RSEQ_SLICE_EXT_ENABLE, 0, 0))
			ret = -1;
		break;
	default:
		break;
	}
	me.state = ret ? -1 : 1;
	return ret;
}

#define barrier() __asm__ __volatile__("" ::: "memory")

void slice_enter(void)
{
	if (me.depth++)
		return;
	if (__builtin_expect(!me.state, 0))
		slice_thread_init();
	me.c.sections++;
	if (me.state < 0)
		return;
	switch (abi) {
	case SLICE_ABI_RSEQ_CR:
		/* One instruction: the kernel only looks while we are stopped. */
		__asm__ __volatile__("addl $2, %0" : "+m"(*rseq_word()) :: "memory");
		break;
	case SLICE_ABI_TASK_SHARED:
		*me.sched_delay = TASK_PREEMPT_DELAY_REQ;
		barrier();
		break;
	case SLICE_ABI_MAINLINE:
		/* slice_ctrl.request is the word's first byte. */
		*(volatile uint8_t *)rseq_word() = 1;
		barrier();
		break;
	default:
		break;
	}
}

void slice_exit(void)
{
	uint32_t v;
	uint16_t old;

	if (--me.depth)
		return;
	if (me.state < 0)
		return;
	switch (abi) {
	case SLICE_ABI_RSEQ_CR:
		__asm__ __volatile__("subl $2, %0" : "+m"(*rseq_word()) :: "memory");
		v = *rseq_word();
		/* Out of every critical section, and the kernel extended us. */
		if (v == 1) {
			me.c.grants++;
			me.c.yields++;
			sched_yield();
		}
		break;
	case SLICE_ABI_TASK_SHARED:
		/* Withdraw the request and read the answer in one instruction. */
		old = __atomic_exchange_n(me.sched_delay, 0, __ATOMIC_RELAXED);
		if (old == TASK_PREEMPT_DELAY_GRANTED) {
			me.c.grants++;
			me.c.yields++;
			sched_yield();
		} else if (old == TASK_PREEMPT_DELAY_DENIED) {
			me.c.denied++;
		}
		break;
	case SLICE_ABI_MAINLINE:
		barrier();
		*(volatile uint8_t *)rseq_word() = 0;
		barrier();
		/* slice_ctrl.granted is the second byte. */
		if (((volatile uint8_t *)rseq_word())[1]) {
			me.c.grants++;
			me.c.yields++;
			syscall(NR_RSEQ_SLICE_YIELD);
		}
		break;
	default:
		break;
	}
}

void slice_counters_get(struct slice_counters *c)
{
	*c = me.c;
}

void slice_set_extend_while_waiting(bool on)
{
	extend_while_waiting = on;
}

static inline void cpu_relax(void)
{
	__asm__ __volatile__("pause" ::: "memory");
}

bool slice_spin_lock(struct slice_spinlock *l)
{
	bool contended = false;

	if (extend_while_waiting)
		slice_enter();
	while (__atomic_exchange_n(&l->locked, 1, __ATOMIC_ACQUIRE)) {
		contended = true;
		while (__atomic_load_n(&l->locked, __ATOMIC_RELAXED))
			cpu_relax();
	}
	if (!extend_while_waiting)
		slice_enter();
	return contended;
}

void slice_spin_unlock(struct slice_spinlock *l)
{
	__atomic_store_n(&l->locked, 0, __ATOMIC_RELEASE);
	slice_exit();
}

bool slice_ticket_lock(struct slice_ticketlock *l)
{
	uint32_t ticket;
	bool contended = false;

	if (extend_while_waiting)
		slice_enter();
	ticket = __atomic_fetch_add(&l->next, 1, __ATOMIC_RELAXED);
	while (__atomic_load_n(&l->owner, __ATOMIC_ACQUIRE) != ticket) {
		contended = true;
		cpu_relax();
	}
	if (!extend_while_waiting)
		slice_enter();
	return contended;
}

void slice_ticket_unlock(struct slice_ticketlock *l)
{
	__atomic_store_n(&l->owner, l->owner + 1, __ATOMIC_RELEASE);
	slice_exit();
}
