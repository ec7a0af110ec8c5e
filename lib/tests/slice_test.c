// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of lib/slice: mutual exclusion under many threads (a plain
 * counter equals the acquisitions), nesting, the none back end, argument
 * parsing, and clear errors for an ABI the kernel does not offer. Runs on
 * any kernel; prints TAP.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "slice.h"

static int n, failed;

static void ok(int cond, const char *fmt, const char *arg)
{
	printf("%s %d - ", cond ? "ok" : "not ok", ++n);
	printf(fmt, arg);
	printf("\n");
	failed += !cond;
}

/*
 * Few enough that a ticket lock, whose FIFO hand-off waits for a preempted
 * waiter, still finishes quickly on an oversubscribed 2-core host.
 */
#define THREADS 4
#define ITERS 5000

static struct slice_spinlock spin;
static struct slice_ticketlock ticket;
static unsigned long counter;		/* protected by the lock under test */
static int use_ticket;

static void *hammer(void *arg)
{
	unsigned long *mine = arg;

	for (int i = 0; i < ITERS; i++) {
		if (use_ticket)
			slice_ticket_lock(&ticket);
		else
			slice_spin_lock(&spin);
		counter++;
		(*mine)++;
		if (use_ticket)
			slice_ticket_unlock(&ticket);
		else
			slice_spin_unlock(&spin);
	}
	return NULL;
}

static void exclusion(int ticket_lock, int wait_extended)
{
	pthread_t t[THREADS];
	unsigned long done[THREADS] = { 0 }, sum = 0;
	char what[96];

	use_ticket = ticket_lock;
	counter = 0;
	slice_set_extend_while_waiting(wait_extended);
	for (int i = 0; i < THREADS; i++)
		pthread_create(&t[i], NULL, hammer, &done[i]);
	for (int i = 0; i < THREADS; i++) {
		pthread_join(t[i], NULL);
		sum += done[i];
	}
	snprintf(what, sizeof(what), "%s lock%s: counter equals the %d acquisitions",
		 ticket_lock ? "ticket" : "spin", wait_extended ? ", extended while waiting" : "",
		 THREADS * ITERS);
	ok(counter == sum && sum == (unsigned long)THREADS * ITERS, "%s", what);
	slice_set_extend_while_waiting(0);
}

int main(void)
{
	struct slice_counters c;
	enum slice_abi a;
	char err[256];
	struct stat st;
	int have_ext = stat("/proc/sys/kernel/slice_ext_abi", &st) == 0;

	printf("TAP version 13\n");

	ok(slice_abi_parse("mainline", &a) == 0 && a == SLICE_ABI_MAINLINE, "%s", "parse mainline");
	ok(slice_abi_parse("task-shared", &a) == 0 && a == SLICE_ABI_TASK_SHARED, "%s", "parse task-shared");
	ok(slice_abi_parse("rseq", &a) == -1, "%s", "an unknown ABI name is refused");

	ok(slice_init(SLICE_ABI_NONE, err, sizeof(err)) == 0 && slice_current_abi() == SLICE_ABI_NONE,
	   "%s", "the none back end initialises anywhere");

	slice_enter();
	slice_enter();
	slice_exit();
	slice_exit();
	slice_counters_get(&c);
	ok(c.sections == 1 && c.grants == 0, "%s", "nested enter/exit count one outermost section, no grant");

	exclusion(0, 0);
	exclusion(0, 1);
	exclusion(1, 0);
	exclusion(1, 1);

	if (have_ext) {
		printf("ok %d - # SKIP the absent-ABI errors need a kernel without time slice extension\n", ++n);
		printf("ok %d - # SKIP\n", ++n);
		printf("ok %d - # SKIP\n", ++n);
	} else {
		err[0] = '\0';
		ok(slice_init(SLICE_ABI_RSEQ_CR, err, sizeof(err)) == -1 && strstr(err, "no time slice extension"),
		   "rseq-cr on this kernel fails clearly: %s", err);
		err[0] = '\0';
		ok(slice_init(SLICE_ABI_MAINLINE, err, sizeof(err)) == -1 && err[0],
		   "mainline on this kernel fails clearly: %s", err);
		err[0] = '\0';
		/*
		 * Not probed with task_getshared(): 511 is this project's
		 * number, not upstream's, and only the slice_ext_abi knob
		 * says the kernel is ours.
		 */
		ok(slice_init(SLICE_ABI_TASK_SHARED, err, sizeof(err)) == -1 && strstr(err, "no time slice extension"),
		   "task-shared on this kernel fails clearly: %s", err);
	}
	ok(slice_init(SLICE_ABI_AUTO, err, sizeof(err)) == 0, "auto picks %s", slice_abi_name(slice_current_abi()));

	printf("1..%d\n", n);
	return failed ? 1 : 0;
}
