// SPDX-License-Identifier: GPL-2.0
/*
 * slice.c: extension-aware critical sections and spinlocks. See slice.h.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "slice.h"

#define SLICE_EXT_ABI_KNOB		"/proc/sys/kernel/slice_ext_abi"

static const char *const abi_names[] = {
	[SLICE_ABI_NONE] = "none",
	[SLICE_ABI_RSEQ_CR] = "rseq-cr",
	[SLICE_ABI_TASK_SHARED] = "task-shared",
	[SLICE_ABI_MAINLINE] = "mainline",
	[SLICE_ABI_AUTO] = "auto",
};

/* The process-wide back end, set by slice_init(). */
enum slice_abi slice__abi = SLICE_ABI_NONE;
/* Enter before spinning for a lock instead of after taking it. */
bool slice__extend_waiting;
uint64_t slice__spin_ns = SLICE_SPIN_NS_DEFAULT;

__thread struct slice__thread slice__self;

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
	return slice__abi;
}

static inline char *rseq_area(void)
{
	return (char *)__builtin_thread_pointer() + __rseq_offset;
}

/*
 * A thread's own rseq area, longer than the original 32 bytes. Linux
 * 7.0.10 and 7.1 offer slice extension only to such "RSEQ V2"
 * registrations, and glibc before 2.41 registers 32 bytes. The kernel
 * keeps a fork() child's registration, at the same address in its copy of
 * this thread's TLS.
 */
struct slice__rseq_v2 {
	uint32_t cpu_id_start;
	uint32_t cpu_id;
	uint64_t rseq_cs;
	uint32_t flags;
	uint32_t node_id;
	uint32_t mm_cid;
	uint32_t slice_ctrl;
	char pad[32];
} __attribute__((aligned(64)));

_Static_assert(offsetof(struct slice__rseq_v2, flags) == SLICE__RSEQ_FLAGS_OFFSET, "rseq flags");
_Static_assert(offsetof(struct slice__rseq_v2, slice_ctrl) == SLICE__WORD_OFFSET, "rseq word");

static __thread struct slice__rseq_v2 own_rseq;
static __thread bool own_rseq_registered;

/* Move the calling thread from glibc's rseq registration to its own. */
static int register_own_rseq(void)
{
	if (own_rseq_registered)
		return 0;
	/*
	 * glibc registers a new thread only if the creating thread's area
	 * shows a CPU, which it no longer does once that thread moved to
	 * its own area: then there is nothing to unregister (EINVAL).
	 */
	if (__rseq_size && syscall(__NR_rseq, rseq_area(),
				   __rseq_size > SLICE__RSEQ_ORIG_SIZE ? __rseq_size : SLICE__RSEQ_ORIG_SIZE,
				   SLICE__RSEQ_FLAG_UNREGISTER, SLICE__RSEQ_SIG) && errno != EINVAL)
		return -1;
	memset(&own_rseq, 0, sizeof(own_rseq));
	own_rseq.cpu_id = (uint32_t)-1;
	if (syscall(__NR_rseq, &own_rseq, sizeof(own_rseq), 0, SLICE__RSEQ_SIG))
		return -1;
	own_rseq_registered = true;
	return 0;
}

static volatile uint32_t *rseq_word(void)
{
	if (own_rseq_registered)
		return &own_rseq.slice_ctrl;
	return (volatile uint32_t *)(rseq_area() + SLICE__WORD_OFFSET);
}

/*
 * The mainline opt-in. Under Linux 7.0's rules glibc's registration is
 * enough; under 7.0.10's and 7.1's the prctl refuses a 32-byte one with
 * ENOTSUPP, and the thread registers its own area and asks again (also
 * when glibc registered none for it: ENXIO).
 */
static int mainline_enable(void)
{
	if (own_rseq_registered || __rseq_size) {
		if (!prctl(SLICE__PR_RSEQ_SLICE_EXTENSION, SLICE__PR_RSEQ_SLICE_EXTENSION_SET,
			   SLICE__PR_RSEQ_SLICE_EXT_ENABLE, 0, 0))
			return 0;
		/* ENXIO: glibc did not register this thread (see register_own_rseq()). */
		if ((errno != SLICE__ENOTSUPP && errno != ENXIO) || own_rseq_registered)
			return -1;
	}
	if (register_own_rseq())
		return -1;
	return prctl(SLICE__PR_RSEQ_SLICE_EXTENSION, SLICE__PR_RSEQ_SLICE_EXTENSION_SET,
		     SLICE__PR_RSEQ_SLICE_EXT_ENABLE, 0, 0) ? -1 : 0;
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

/* Linux 7.0: the kernel says in rseq::flags that it offers slice extension. */
static bool rseq_advertises_slice_ext(void)
{
	uint32_t flags;

	if (own_rseq_registered)
		flags = own_rseq.flags;
	else if (__rseq_size)
		flags = *(volatile uint32_t *)(rseq_area() + SLICE__RSEQ_FLAGS_OFFSET);
	else
		return false;
	return flags & SLICE__RSEQ_FLAG_SLICE_EXT_AVAILABLE;
}

static uint64_t setup_failures;
static bool atfork_registered;

/*
 * fork(): the child is the forking thread alone. Its rseq registration is
 * the parent's, but task-shared's page is not inherited, so the cached
 * pointer would point at nothing: set the thread up again, as a new thread
 * (still inside a section if the parent was: re-ask there too).
 */
static void slice_atfork_child(void)
{
	struct slice__thread *me = &slice__self;

	if (!me->state)
		return;
	me->state = 0;
	me->sched_delay = NULL;
	if (slice__setup())
		return;
	if (me->depth && slice__abi == SLICE_ABI_TASK_SHARED)
		*me->sched_delay = SLICE__TASK_SHARED_REQ;
}

int slice_init(enum slice_abi want, char *err, size_t errlen)
{
	enum slice_abi live = SLICE_ABI_NONE;
	int have = kernel_live_abi(&live);

	slice__abi = SLICE_ABI_NONE;
	slice__self.state = 0;
	if (have < 0) {
		fmt(err, errlen, "cannot read %s", SLICE_EXT_ABI_KNOB);
		return -1;
	}
	if (want == SLICE_ABI_AUTO) {
		if (have)
			want = live;
		else
			want = rseq_advertises_slice_ext() ? SLICE_ABI_MAINLINE : SLICE_ABI_NONE;
	}
	if (want == SLICE_ABI_NONE)
		return 0;
	if (want == SLICE_ABI_RSEQ_CR && !__rseq_size) {
		fmt(err, errlen, "the %s ABI needs glibc's rseq area, and glibc did not register it "
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
		if (!rseq_advertises_slice_ext()) {
			fmt(err, errlen, "this kernel (%s absent, rseq does not advertise it) has no time slice extension",
			    SLICE_EXT_ABI_KNOB);
			return -1;
		}
	} else {
		fmt(err, errlen, "this kernel has no time slice extension (%s absent)",
		    SLICE_EXT_ABI_KNOB);
		return -1;
	}
	if (!atfork_registered) {
		if (pthread_atfork(NULL, NULL, slice_atfork_child)) {
			fmt(err, errlen, "pthread_atfork failed");
			return -1;
		}
		atfork_registered = true;
	}
	slice__abi = want;
	/* Set up the calling thread now, so that an error shows here. */
	if (slice_thread_init()) {
		fmt(err, errlen, "setting up the %s ABI failed: %s", slice_abi_name(want),
		    strerror(errno));
		slice__abi = SLICE_ABI_NONE;
		slice__self.state = 0;
		return -1;
	}
	return 0;
}

int slice_thread_init(void)
{
	void *ptr = NULL;
	int ret = 0;

	if (slice__self.state)
		return slice__self.state > 0 ? 0 : -1;
	switch (slice__abi) {
	case SLICE_ABI_TASK_SHARED:
		if (syscall(SLICE__NR_TASK_GETSHARED, SLICE__TASK_SHAREDINFO, 0, &ptr))
			ret = -1;
		else
			slice__self.sched_delay = ptr;
		break;
	case SLICE_ABI_MAINLINE:
		if (mainline_enable())
			ret = -1;
		else
			slice__self.word = rseq_word();
		break;
	case SLICE_ABI_RSEQ_CR:
		slice__self.word = rseq_word();
		break;
	default:
		break;
	}
	slice__self.state = ret ? -1 : 1;
	return ret;
}

int slice__setup(void)
{
	if (!slice__self.state && slice_thread_init()) {
		__atomic_fetch_add(&setup_failures, 1, __ATOMIC_RELAXED);
		fprintf(stderr, "slice: setting up the %s ABI for thread %d failed (%s); "
			"its critical sections ask for no extension\n",
			slice_abi_name(slice__abi), (int)gettid(), strerror(errno));
	}
	return slice__self.state > 0 ? 0 : -1;
}

uint64_t slice_setup_failures(void)
{
	return __atomic_load_n(&setup_failures, __ATOMIC_RELAXED);
}

void slice__granted(void)
{
	long ret;

	slice__self.c.grants++;
	if (slice__abi == SLICE_ABI_MAINLINE)
		ret = syscall(SLICE__NR_RSEQ_SLICE_YIELD);
	else
		ret = sched_yield();
	if (ret >= 0)
		slice__self.c.yields++;
}

void slice_counters_get(struct slice_counters *c)
{
	*c = slice__self.c;
}

void slice_set_spin_ns(uint64_t ns)
{
	slice__spin_ns = ns;
}

void slice_set_extend_while_waiting(bool on)
{
	slice__extend_waiting = on;
}
