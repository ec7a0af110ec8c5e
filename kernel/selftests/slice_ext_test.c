// SPDX-License-Identifier: GPL-2.0
/*
 * Time slice extension selftests, run for each ABI with the knobs set for
 * it: grants happen under pressure and show in the ABI's flags; no request
 * or the grant switch at 0 means no grant; yield, other system calls and
 * expiry end a grant and clear what it showed; the kernel's per-task
 * counters agree with what user space saw.
 *
 * Pressure: the test thread and two CPU hogs are pinned to one CPU, so the
 * scheduler tick keeps asking the test thread to make room.
 */
#include "slice_ext_util.h"
#include "kselftest_harness.h"

/* What the test does when it sees a grant after its critical section. */
enum on_grant { DO_YIELD, DO_OTHER_SYSCALL, DO_KEEP_SPINNING };

struct run {
	long long iterations;
	long long seen;			/* grants user space saw */
	long long cleared;		/* ...whose flag was clear after the end */
	long long yield_ret1;		/* mainline: rseq_slice_yield() returned 1 */
	long long task[6];		/* per-task kernel counters, delta */
};

static const char *const task_counters[6] = {
	"slice_ext.nr_granted", "slice_ext.nr_denied", "slice_ext.nr_expired",
	"slice_ext.nr_yielded", "slice_ext.nr_revoked", "slice_ext.nr_aborted",
};
enum { T_GRANTED, T_DENIED, T_EXPIRED, T_YIELDED, T_REVOKED, T_ABORTED };

/*
 * Busy-wait until the ABI no longer shows a grant, or @max_ns passed.
 * task-shared: user space took GRANTED back with the request (abi_exit()),
 * and the kernel never clears the slot; spin long enough for the grant's
 * timer to fire, after which the slot must still be clear: the kernel
 * marks no grant without a request.
 */
static void spin_until_cleared(enum abi abi, uint64_t max_ns)
{
	uint64_t end = now_ns() + max_ns;

	if (abi == ABI_TASK_SHARED) {
		spin_ns(3 * 1000 * 1000);
		return;
	}
	while (abi_shows_grant(abi) && now_ns() < end)
		__asm__ __volatile__("pause" ::: "memory");
}

/*
 * Loop for @seconds on CPU 0 beside two hogs: a @cs_us critical section
 * (requested if @request), then what @on_grant says when a grant shows.
 */
static int cs_loop(enum abi abi, double seconds, int cs_us, bool request,
		   enum on_grant on_grant, struct run *r)
{
	struct noise noise;
	long long before[6];
	uint64_t end;
	int err;

	memset(r, 0, sizeof(*r));
	if (pin_to_cpu(0))
		return -errno;
	err = abi_thread_setup(abi);
	if (err)
		return err;
	/* A missing counter reads -1: its delta would be a vacuous 0. */
	for (int i = 0; i < 6; i++)
		if ((before[i] = task_sched_get(task_counters[i])) < 0)
			return -ENOENT;
	if (noise_start(&noise, 2, 0))
		return -EAGAIN;

	end = now_ns() + (uint64_t)(seconds * 1e9);
	while (now_ns() < end) {
		bool granted;

		if (request)
			abi_enter(abi);
		spin_ns(cs_us * 1000ull);
		granted = request ? abi_exit(abi) : false;
		r->iterations++;
		if (granted) {
			r->seen++;
			switch (on_grant) {
			case DO_YIELD:
				if (abi_yield(abi) == 1)
					r->yield_ret1++;
				break;
			case DO_OTHER_SYSCALL:
				getppid();
				break;
			case DO_KEEP_SPINNING:
				/*
				 * No system call: only the timer can end the
				 * grant. Spin until the flag clears, giving up
				 * after a second (guest timers can stall for
				 * milliseconds under emulation).
				 */
				spin_until_cleared(abi, 1000 * 1000 * 1000ull);
				break;
			}
			/* task-shared: the slot stayed clear (see spin_until_cleared()). */
			if (!abi_shows_grant(abi) &&
			    (abi != ABI_TASK_SHARED || !tls_shared->sched_delay))
				r->cleared++;
		}
		spin_ns(5000);
	}
	noise_stop(&noise);
	for (int i = 0; i < 6; i++) {
		long long after = task_sched_get(task_counters[i]);

		if (after < 0)
			return -ENOENT;
		r->task[i] = after - before[i];
	}
	return 0;
}

static void print_run(struct __test_metadata *_metadata, const char *what, struct run *r)
{
	TH_LOG("%s: %lld iterations, %lld grants seen, %lld cleared; kernel: granted %lld denied %lld expired %lld yielded %lld revoked %lld aborted %lld",
	       what, r->iterations, r->seen, r->cleared, r->task[T_GRANTED],
	       r->task[T_DENIED], r->task[T_EXPIRED], r->task[T_YIELDED],
	       r->task[T_REVOKED], r->task[T_ABORTED]);
}

FIXTURE(slice_ext) {
	char old_abi[32], old_grant[8], old_nsec[32];
};

FIXTURE_VARIANT(slice_ext) {
	enum abi abi;
};

FIXTURE_VARIANT_ADD(slice_ext, rseq_cr) { .abi = ABI_RSEQ_CR };
FIXTURE_VARIANT_ADD(slice_ext, task_shared) { .abi = ABI_TASK_SHARED };
FIXTURE_VARIANT_ADD(slice_ext, mainline) { .abi = ABI_MAINLINE };

FIXTURE_SETUP(slice_ext)
{
	ASSERT_EQ(0, knob_get("slice_ext_abi", self->old_abi, sizeof(self->old_abi)));
	ASSERT_EQ(0, knob_get("slice_ext_grant", self->old_grant, sizeof(self->old_grant)));
	ASSERT_EQ(0, knob_set("slice_ext_abi", abi_names[variant->abi]));
	ASSERT_EQ(0, knob_set("slice_ext_grant", "1"));
	/* 50 us for every ABI, so that the tests ask the same of each. */
	ASSERT_EQ(0, knob_get("slice_ext_nsec", self->old_nsec, sizeof(self->old_nsec)));
	ASSERT_EQ(0, knob_set("slice_ext_nsec", "50000"));
}

FIXTURE_TEARDOWN(slice_ext)
{
	knob_set("slice_ext_nsec", self->old_nsec);
	knob_set("slice_ext_abi", self->old_abi);
	knob_set("slice_ext_grant", self->old_grant);
}

TEST_F(slice_ext, grants_under_pressure)
{
	long long before = stat_get("granted");
	struct run r;

	ASSERT_EQ(0, cs_loop(variant->abi, 2.0, 30, true, DO_YIELD, &r));
	print_run(_metadata, "request + yield", &r);
	EXPECT_GT(r.seen, 0);
	EXPECT_GT(r.task[T_GRANTED], 0);
	/* Every grant user space saw was made by the kernel for this task. */
	EXPECT_LE(r.seen, r.task[T_GRANTED]);
	EXPECT_GT(stat_get("granted") - before, 0);
	/* Yielding ended them, and cleared what the grant showed. */
	EXPECT_GT(r.task[T_YIELDED], 0);
	EXPECT_EQ(r.seen, r.cleared);
	if (variant->abi == ABI_MAINLINE)
		EXPECT_EQ(r.yield_ret1, r.task[T_YIELDED]);
	/* Each grant ended exactly one way (none is active any more). */
	EXPECT_EQ(r.task[T_GRANTED], r.task[T_EXPIRED] + r.task[T_YIELDED] +
				     r.task[T_REVOKED] + r.task[T_ABORTED]);
}

TEST_F(slice_ext, no_request_no_grant)
{
	struct run r;

	ASSERT_EQ(0, cs_loop(variant->abi, 1.0, 30, false, DO_YIELD, &r));
	print_run(_metadata, "no request", &r);
	EXPECT_EQ(0, r.task[T_GRANTED]);
}

TEST_F(slice_ext, switch_off_no_grant)
{
	struct run r;

	ASSERT_EQ(0, knob_set("slice_ext_grant", "0"));
	ASSERT_EQ(0, cs_loop(variant->abi, 1.5, 30, true, DO_YIELD, &r));
	print_run(_metadata, "grant switch 0", &r);
	EXPECT_EQ(0, r.seen);
	EXPECT_EQ(0, r.task[T_GRANTED]);
	/* The requests were seen, and refused. */
	EXPECT_GT(r.task[T_DENIED], 0);
}

TEST_F(slice_ext, other_syscall_revokes)
{
	struct run r;

	ASSERT_EQ(0, cs_loop(variant->abi, 2.0, 30, true, DO_OTHER_SYSCALL, &r));
	print_run(_metadata, "request + getppid()", &r);
	EXPECT_GT(r.seen, 0);
	EXPECT_GT(r.task[T_REVOKED], 0);
	EXPECT_EQ(0, r.task[T_YIELDED]);
	EXPECT_EQ(r.seen, r.cleared);
}

TEST_F(slice_ext, expiry_forces_schedule)
{
	long long before = stat_get("expired");
	struct run r;

	ASSERT_EQ(0, cs_loop(variant->abi, 2.0, 30, true, DO_KEEP_SPINNING, &r));
	print_run(_metadata, "request, never yield", &r);
	EXPECT_GT(r.seen, 0);
	EXPECT_GT(r.task[T_EXPIRED], 0);
	EXPECT_GT(stat_get("expired") - before, 0);
	/* Forced off at expiry: the flag was cleared without a syscall. */
	EXPECT_EQ(r.seen, r.cleared);
}

TEST_HARNESS_MAIN
