// SPDX-License-Identifier: GPL-2.0
/*
 * ABI-specific time slice extension selftests: the mainline prctl, flags,
 * SIGSEGV rule and debugfs range; rseq-cr without rseq; task_getshared()'s
 * errors and slot lifecycle (distinct slots, reuse, no leak, fork, exec);
 * task-shared's DENIED.
 */
#include "slice_ext_util.h"

#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include "kselftest_harness.h"

#ifndef RSEQ_SIG
#define RSEQ_SIG 0x53053053
#endif
#ifndef ENOTSUPP
#define ENOTSUPP 524
#endif

#define DEBUGFS_MAINLINE_NSEC "/sys/kernel/debug/rseq/slice_ext_nsec"
#define TASK_SHARED_PAGES "/sys/kernel/debug/task_shared_pages"

static long slice_prctl(unsigned long a2, unsigned long a3, unsigned long a4,
			unsigned long a5)
{
	return prctl(PR_RSEQ_SLICE_EXTENSION, a2, a3, a4, a5);
}

/* Unregister glibc's rseq area for the calling thread. */
static int rseq_unregister_glibc(void)
{
	return syscall(__NR_rseq, rseq_area(), __rseq_size > 32 ? __rseq_size : 32,
		       RSEQ_FLAG_UNREGISTER, RSEQ_SIG);
}

static bool cmdline_has(const char *word)
{
	char buf[2048];

	return !read_file("/proc/cmdline", buf, sizeof(buf)) && strstr(buf, word);
}

/* ---- mainline ---------------------------------------------------------------- */

TEST(mainline_prctl_errors)
{
	if (cmdline_has("rseq_slice_ext=0"))
		SKIP(return, "disabled at boot; see mainline_boot_disabled");

	errno = 0;
	EXPECT_EQ(-1, slice_prctl(PR_RSEQ_SLICE_EXTENSION_GET, 1, 0, 0));
	EXPECT_EQ(EINVAL, errno);
	errno = 0;
	EXPECT_EQ(-1, slice_prctl(PR_RSEQ_SLICE_EXTENSION_GET, 0, 1, 0));
	EXPECT_EQ(EINVAL, errno);
	errno = 0;
	EXPECT_EQ(-1, slice_prctl(PR_RSEQ_SLICE_EXTENSION_SET, 1, 0, 1));
	EXPECT_EQ(EINVAL, errno);
	errno = 0;
	EXPECT_EQ(-1, slice_prctl(PR_RSEQ_SLICE_EXTENSION_SET, 2, 0, 0));
	EXPECT_EQ(EINVAL, errno);
	errno = 0;
	EXPECT_EQ(-1, slice_prctl(3, 0, 0, 0));
	EXPECT_EQ(EINVAL, errno);
}

TEST(mainline_prctl_and_flags)
{
	struct rseq *rs = rseq_area();

	if (cmdline_has("rseq_slice_ext=0"))
		SKIP(return, "disabled at boot; see mainline_boot_disabled");

	EXPECT_TRUE(rs->flags & RSEQ_CS_FLAG_SLICE_EXT_AVAILABLE);
	EXPECT_EQ(0, slice_prctl(PR_RSEQ_SLICE_EXTENSION_GET, 0, 0, 0));
	EXPECT_FALSE(rs->flags & RSEQ_CS_FLAG_SLICE_EXT_ENABLED);

	ASSERT_EQ(0, slice_prctl(PR_RSEQ_SLICE_EXTENSION_SET, PR_RSEQ_SLICE_EXT_ENABLE, 0, 0));
	EXPECT_EQ(PR_RSEQ_SLICE_EXT_ENABLE, slice_prctl(PR_RSEQ_SLICE_EXTENSION_GET, 0, 0, 0));
	EXPECT_TRUE(rs->flags & RSEQ_CS_FLAG_SLICE_EXT_AVAILABLE);
	EXPECT_TRUE(rs->flags & RSEQ_CS_FLAG_SLICE_EXT_ENABLED);
	/* Only the two feature bits: the deprecated ones stay clear. */
	EXPECT_EQ(0, rs->flags & 0x7);

	ASSERT_EQ(0, slice_prctl(PR_RSEQ_SLICE_EXTENSION_SET, 0, 0, 0));
	EXPECT_EQ(0, slice_prctl(PR_RSEQ_SLICE_EXTENSION_GET, 0, 0, 0));
	EXPECT_FALSE(rs->flags & RSEQ_CS_FLAG_SLICE_EXT_ENABLED);

	/* Without rseq: ENXIO. */
	ASSERT_EQ(0, rseq_unregister_glibc());
	errno = 0;
	EXPECT_EQ(-1, slice_prctl(PR_RSEQ_SLICE_EXTENSION_SET, PR_RSEQ_SLICE_EXT_ENABLE, 0, 0));
	EXPECT_EQ(ENXIO, errno);
}

/* Register our own rseq area with RSEQ_FLAG_SLICE_EXT_DEFAULT_ON. */
TEST(mainline_default_on)
{
	static __thread struct rseq own __attribute__((aligned(32)));

	if (cmdline_has("rseq_slice_ext=0"))
		SKIP(return, "disabled at boot; see mainline_boot_disabled");

	ASSERT_EQ(0, rseq_unregister_glibc());
	memset(&own, 0, sizeof(own));
	ASSERT_EQ(0, syscall(__NR_rseq, &own, 32, RSEQ_FLAG_SLICE_EXT_DEFAULT_ON, RSEQ_SIG));
	EXPECT_EQ(PR_RSEQ_SLICE_EXT_ENABLE, slice_prctl(PR_RSEQ_SLICE_EXTENSION_GET, 0, 0, 0));
	EXPECT_TRUE(own.flags & RSEQ_CS_FLAG_SLICE_EXT_AVAILABLE);
	EXPECT_TRUE(own.flags & RSEQ_CS_FLAG_SLICE_EXT_ENABLED);
	/* Unknown registration flags are still refused. */
	ASSERT_EQ(0, syscall(__NR_rseq, &own, 32, RSEQ_FLAG_UNREGISTER, RSEQ_SIG));
	EXPECT_EQ(0, slice_prctl(PR_RSEQ_SLICE_EXTENSION_GET, 0, 0, 0));
	errno = 0;
	EXPECT_EQ(-1, syscall(__NR_rseq, &own, 32, 1 << 7, RSEQ_SIG));
	EXPECT_EQ(EINVAL, errno);
}

/* Run on a kernel booted with rseq_slice_ext=0 (tests/kernel-selftests.t). */
TEST(mainline_boot_disabled)
{
	if (!cmdline_has("rseq_slice_ext=0"))
		SKIP(return, "needs rseq_slice_ext=0 on the kernel command line");

	EXPECT_FALSE(rseq_area()->flags & RSEQ_CS_FLAG_SLICE_EXT_AVAILABLE);
	errno = 0;
	EXPECT_EQ(-1, slice_prctl(PR_RSEQ_SLICE_EXTENSION_SET, PR_RSEQ_SLICE_EXT_ENABLE, 0, 0));
	EXPECT_EQ(ENOTSUPP, errno);
}

TEST(mainline_debugfs_range)
{
	char old[32];

	ASSERT_EQ(0, read_file(DEBUGFS_MAINLINE_NSEC, old, sizeof(old)));
	EXPECT_EQ(-ERANGE, write_file(DEBUGFS_MAINLINE_NSEC, "4999"));
	EXPECT_EQ(-ERANGE, write_file(DEBUGFS_MAINLINE_NSEC, "50001"));
	EXPECT_EQ(-ERANGE, write_file(DEBUGFS_MAINLINE_NSEC, "0"));
	EXPECT_EQ(0, write_file(DEBUGFS_MAINLINE_NSEC, "5000"));
	EXPECT_EQ(0, write_file(DEBUGFS_MAINLINE_NSEC, "50000"));
	EXPECT_EQ(0, write_file(DEBUGFS_MAINLINE_NSEC, old));
}

/*
 * A child that sets granted itself while asking, on a busy CPU, must die
 * of SIGSEGV at the next grant decision.
 */
TEST(mainline_user_granted_sigsegv)
{
	int status;
	pid_t pid;

	if (cmdline_has("rseq_slice_ext=0"))
		SKIP(return, "disabled at boot");
	ASSERT_EQ(0, knob_set("slice_ext_abi", "mainline"));
	ASSERT_EQ(0, knob_set("slice_ext_grant", "1"));

	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		struct noise noise;

		alarm(20);
		if (pin_to_cpu(0) || abi_thread_setup(ABI_MAINLINE) || noise_start(&noise, 2, 0))
			_exit(2);
		rseq_area()->slice_ctrl.granted = 1;
		rseq_area()->slice_ctrl.request = 1;
		for (;;)
			__asm__ __volatile__("pause" ::: "memory");
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFSIGNALED(status));
	EXPECT_EQ(SIGSEGV, WTERMSIG(status));
}

/* ---- rseq-cr ----------------------------------------------------------------- */

TEST(rseq_cr_unregistered_no_grant)
{
	struct noise noise;
	long long before;
	uint64_t end;

	ASSERT_EQ(0, knob_set("slice_ext_abi", "rseq-cr"));
	ASSERT_EQ(0, knob_set("slice_ext_grant", "1"));
	ASSERT_EQ(0, pin_to_cpu(0));
	ASSERT_EQ(0, rseq_unregister_glibc());
	before = task_sched_get("slice_ext.nr_granted");
	ASSERT_LE(0, before);	/* a missing counter would compare -1 with -1 */
	ASSERT_EQ(0, noise_start(&noise, 2, 0));
	/* The old area still says "in a critical section"; nobody reads it. */
	rseq_area()->cr_counter = 2;
	end = now_ns() + 1500 * 1000 * 1000ull;
	while (now_ns() < end)
		__asm__ __volatile__("pause" ::: "memory");
	noise_stop(&noise);
	EXPECT_EQ(before, task_sched_get("slice_ext.nr_granted"));
	EXPECT_EQ(2, rseq_area()->cr_counter);
}

/* 6.12 refuses an rseq_len below 32, so the word is always covered. */
TEST(rseq_cr_short_len_refused)
{
	static __thread struct rseq own __attribute__((aligned(32)));

	ASSERT_EQ(0, rseq_unregister_glibc());
	errno = 0;
	EXPECT_EQ(-1, syscall(__NR_rseq, &own, 28, 0, RSEQ_SIG));
	EXPECT_EQ(EINVAL, errno);
}

/* ---- task_getshared() -------------------------------------------------------- */

static int maps_count(const char *name)
{
	char line[512];
	int n = 0;
	FILE *f = fopen("/proc/self/maps", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (strstr(line, name))
			n++;
	fclose(f);
	return n;
}

static long shared_pages(void)
{
	char buf[32];

	return read_file(TASK_SHARED_PAGES, buf, sizeof(buf)) ? -1 : atol(buf);
}

static void *getshared(void)
{
	void *p = NULL;

	return syscall(__NR_task_getshared, TASK_SHAREDINFO, 0, &p) ? NULL : p;
}

TEST(task_getshared_errors)
{
	void *p;

	errno = 0;
	EXPECT_EQ(-1, syscall(__NR_task_getshared, 2, 0, &p));
	EXPECT_EQ(EINVAL, errno);
	errno = 0;
	EXPECT_EQ(-1, syscall(__NR_task_getshared, 0, 0, &p));
	EXPECT_EQ(EINVAL, errno);
	errno = 0;
	EXPECT_EQ(-1, syscall(__NR_task_getshared, TASK_SHAREDINFO, 1, &p));
	EXPECT_EQ(EINVAL, errno);
	errno = 0;
	EXPECT_EQ(-1, syscall(__NR_task_getshared, TASK_SHAREDINFO, 0, NULL));
	EXPECT_EQ(EFAULT, errno);
	errno = 0;
	EXPECT_EQ(-1, syscall(__NR_task_getshared, TASK_SHAREDINFO, 0, (void *)-4096L));
	EXPECT_EQ(EFAULT, errno);
	/* A read-only destination. */
	p = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, p);
	errno = 0;
	EXPECT_EQ(-1, syscall(__NR_task_getshared, TASK_SHAREDINFO, 0, p));
	EXPECT_EQ(EFAULT, errno);
	munmap(p, 4096);
}

TEST(task_getshared_same_address)
{
	void *a = getshared(), *b = getshared();

	ASSERT_NE(NULL, a);
	EXPECT_EQ(a, b);
	EXPECT_EQ(1, maps_count("[task_shared]"));
	/* It is ours to write, and reads back. */
	((struct task_sharedinfo *)a)->sched_delay = 0;
	EXPECT_EQ(0, ((struct task_sharedinfo *)a)->sched_delay);
	/* It cannot be moved. */
	EXPECT_EQ(MAP_FAILED, mremap((void *)((unsigned long)a & ~4095UL), 4096, 4096,
				     MREMAP_MAYMOVE | MREMAP_FIXED, (void *)0x7e0000000000UL));
}

#define NTHREADS 100

struct slot_arg {
	pthread_barrier_t *barrier;
	void *addr;
};

static void *slot_thread(void *arg)
{
	struct slot_arg *sa = arg;

	sa->addr = getshared();
	/* Hold the slot until every thread has one. */
	pthread_barrier_wait(sa->barrier);
	return NULL;
}

TEST(task_getshared_100_threads)
{
	static struct slot_arg args[NTHREADS];
	pthread_t tid[NTHREADS];
	pthread_barrier_t barrier;
	int distinct_pages = 0;

	ASSERT_EQ(0, pthread_barrier_init(&barrier, NULL, NTHREADS));
	for (int i = 0; i < NTHREADS; i++) {
		args[i].barrier = &barrier;
		ASSERT_EQ(0, pthread_create(&tid[i], NULL, slot_thread, &args[i]));
	}
	for (int i = 0; i < NTHREADS; i++)
		pthread_join(tid[i], NULL);

	for (int i = 0; i < NTHREADS; i++) {
		bool new_page = true;

		ASSERT_NE(NULL, args[i].addr);
		EXPECT_EQ(0, (unsigned long)args[i].addr % TASK_SHAREDINFO_SLOT_SIZE);
		for (int j = 0; j < i; j++) {
			EXPECT_NE(args[i].addr, args[j].addr);
			if (((unsigned long)args[i].addr >> 12) == ((unsigned long)args[j].addr >> 12))
				new_page = false;
		}
		distinct_pages += new_page;
	}
	/* 100 slots, 32 per page. */
	EXPECT_EQ(4, distinct_pages);
	EXPECT_EQ(4, maps_count("[task_shared]"));
}

static void *getshared_thread(void *arg)
{
	*(void **)arg = getshared();
	return NULL;
}

TEST(task_getshared_slot_reused)
{
	void *first = NULL, *second = NULL;
	pthread_t t;

	ASSERT_EQ(0, pthread_create(&t, NULL, getshared_thread, &first));
	pthread_join(t, NULL);
	ASSERT_EQ(0, pthread_create(&t, NULL, getshared_thread, &second));
	pthread_join(t, NULL);
	ASSERT_NE(NULL, first);
	EXPECT_EQ(first, second);
}

TEST(task_getshared_no_leak)
{
	long base = shared_pages(), during;
	int status;
	pid_t pid;

	ASSERT_GE(base, 0);
	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		for (int i = 0; i < 10000; i++) {
			void *addr = NULL;
			pthread_t t;

			if (pthread_create(&t, NULL, getshared_thread, &addr) || pthread_join(t, NULL) || !addr)
				_exit(2);
		}
		/* One thread at a time: one page for the whole churn. */
		_exit(shared_pages() - base == 1 && maps_count("[task_shared]") == 1 ? 0 : 1);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
	/* The child's page went with its mm. */
	during = shared_pages();
	EXPECT_EQ(base, during);
}

TEST(task_getshared_fork_child_has_none)
{
	int status;
	pid_t pid;
	void *parent = getshared();

	ASSERT_NE(NULL, parent);
	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		void *mine;

		/* The mapping was not copied, and the child has no slot. */
		if (maps_count("[task_shared]") != 0)
			_exit(1);
		mine = getshared();
		_exit(mine && maps_count("[task_shared]") == 1 ? 0 : 3);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
	EXPECT_EQ(parent, getshared());
}

/* Run by exec from task_getshared_exec_clears. */
static int exec_check(void)
{
	return maps_count("[task_shared]") == 0 ? 0 : 1;
}

TEST(task_getshared_exec_clears)
{
	int status;
	pid_t pid;

	ASSERT_NE(NULL, getshared());
	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		/* The child asks too, then execs: nothing must survive. */
		if (!getshared())
			_exit(4);
		execl("/proc/self/exe", "slice_ext_abi_test", "--exec-check", NULL);
		_exit(5);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
}

/*
 * task-shared DENIED: ask again inside a grant. With a one-tick extension,
 * the next tick lands inside the grant and finds the new request.
 */
TEST(task_shared_denied_when_asked_again)
{
	char old_nsec[32];
	struct noise noise;
	int granted = 0, denied = 0;
	uint64_t end;

	ASSERT_EQ(0, knob_set("slice_ext_abi", "task-shared"));
	ASSERT_EQ(0, knob_set("slice_ext_grant", "1"));
	ASSERT_EQ(0, knob_get("slice_ext_nsec", old_nsec, sizeof(old_nsec)));
	ASSERT_EQ(0, knob_set("slice_ext_nsec", "1000000"));
	ASSERT_EQ(0, pin_to_cpu(0));
	ASSERT_EQ(0, abi_thread_setup(ABI_TASK_SHARED));
	ASSERT_EQ(0, noise_start(&noise, 2, 0));

	end = now_ns() + 5000 * 1000 * 1000ull;
	while (now_ns() < end && !denied) {
		tls_shared->sched_delay = TASK_PREEMPT_DELAY_REQ;
		spin_ns(30 * 1000);
		if (tls_shared->sched_delay == TASK_PREEMPT_DELAY_GRANTED) {
			granted++;
			/* Ask again without yielding, and keep running. */
			tls_shared->sched_delay = TASK_PREEMPT_DELAY_REQ;
			spin_ns(3 * 1000 * 1000);
			if (tls_shared->sched_delay == TASK_PREEMPT_DELAY_DENIED)
				denied++;
			tls_shared->sched_delay = 0;
			sched_yield();
		}
		tls_shared->sched_delay = 0;
		spin_ns(5 * 1000);
	}
	noise_stop(&noise);
	knob_set("slice_ext_nsec", old_nsec);
	TH_LOG("%d grants, %d denied", granted, denied);
	EXPECT_GT(granted, 0);
	EXPECT_GT(denied, 0);
	EXPECT_GT(task_sched_get("slice_ext.nr_denied"), 0);
}

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "--exec-check"))
		return exec_check();
	return test_harness_run(argc, argv);
}
