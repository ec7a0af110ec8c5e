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
#define RSEQ_FLAGS_OFFSET		16
#define RSEQ_CS_FLAG_SLICE_EXT_AVAILABLE (1U << 4)
#define NR_TASK_GETSHARED		463
#define NR_RSEQ_SLICE_YIELD		471
#define TASK_SHAREDINFO			1
#define PR_RSEQ_SLICE_EXTENSION		79
#define PR_RSEQ_SLICE_EXTENSION_SET	2
#define PR_RSEQ_SLICE_EXT_ENABLE	1
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
		slice__abi = have ? live : SLICE_ABI_NONE;
		if (slice__abi == SLICE_ABI_RSEQ_CR && !__rseq_size)
			slice__abi = SLICE_ABI_NONE;
		return 0;
	}
	if (want == SLICE_ABI_NONE) {
		slice__abi = SLICE_ABI_NONE;
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
	slice__abi = want;
	/* Set up the calling thread now, so that an error shows here. */
	slice__self.state = 0;
	if (slice_thread_init()) {
		fmt(err, errlen, "setting up the %s ABI failed: %s", slice_abi_name(want),
		    strerror(errno));
		slice__abi = SLICE_ABI_NONE;
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
		if (syscall(NR_TASK_GETSHARED, TASK_SHAREDINFO, 0, &ptr))
			ret = -1;
		else
			slice__self.sched_delay = ptr;
		break;
	case SLICE_ABI_MAINLINE:
		if (prctl(PR_RSEQ_SLICE_EXTENSION, PR_RSEQ_SLICE_EXTENSION_SET,
			  PR_RSEQ_SLICE_EXT_ENABLE, 0, 0))
			ret = -1;
		break;
	default:
		break;
	}
	slice__self.state = ret ? -1 : 1;
	return ret;
}

int slice__setup(void)
{
	if (!slice__self.state)
		slice_thread_init();
	return slice__self.state > 0 ? 0 : -1;
}

void slice__granted(void)
{
	slice__self.c.grants++;
	slice__self.c.yields++;
	if (slice__abi == SLICE_ABI_MAINLINE)
		syscall(NR_RSEQ_SLICE_YIELD);
	else
		sched_yield();
}

void slice_counters_get(struct slice_counters *c)
{
	*c = slice__self.c;
}

void slice_set_extend_while_waiting(bool on)
{
	slice__extend_waiting = on;
}
