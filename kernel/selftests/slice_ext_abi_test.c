// SPDX-License-Identifier: GPL-2.0
/*
 * ABI-specific time slice extension selftests: the mainline prctl, flags,
 * SIGSEGV rule and debugfs range; rseq-cr without rseq; task_getshared()'s
 * errors and slot lifecycle (distinct slots, reuse, no leak, fork, exec);
 * task-shared's DENIED.
 */
#include "slice_ext_util.h"

#include <linux/membarrier.h>
#include <linux/userfaultfd.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stddef.h>
#include <sys/auxv.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/utsname.h>
#include <sys/wait.h>

#include "kselftest_harness.h"

#define DEBUGFS_MAINLINE_NSEC "/sys/kernel/debug/rseq/slice_ext_nsec"
#define DEBUGFS_RSEQ_STATS "/sys/kernel/debug/rseq/stats"
#define DEBUGFS_RSEQ_DEBUG "/sys/kernel/debug/rseq/debug"
#define TASK_SHARED_PAGES "/sys/kernel/debug/task_shared/pages"

static long slice_prctl(unsigned long a2, unsigned long a3, unsigned long a4,
			unsigned long a5)
{
	return prctl(PR_RSEQ_SLICE_EXTENSION, a2, a3, a4, a5);
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

/* Run @fn in a child; its exit status (or 128 + signal). */
static int in_child(int (*fn)(void))
{
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (pid == 0) {
		alarm(30);
		_exit(fn());
	}
	if (waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WEXITSTATUS(status);
}

/* Restores a knob at the end of the test that changed it. */
struct knob_saved {
	char name[48];
	char val[32];
};

static void knob_save(struct knob_saved *k, const char *name)
{
	snprintf(k->name, sizeof(k->name), "%s", name);
	if (knob_get(name, k->val, sizeof(k->val)))
		k->val[0] = '\0';
}

static void knob_restore(struct knob_saved *k)
{
	if (k->val[0])
		knob_set(k->name, k->val);
}

/*
 * Bits 4 and 5 of rseq::flags are the kernel's feature bits (patch 0001),
 * not deprecated restart flags: an rseq critical section aborted while they
 * are set restarts at its abort handler. Without the mask in
 * rseq_need_restart(), the task gets SIGSEGV at the abort.
 */
static volatile sig_atomic_t restart_alarms;

static void restart_alarm(int sig)
{
	restart_alarms++;
}

/*
 * Spin in an rseq critical section until something aborts it (a signal's
 * delivery or a preemption restarts it at the abort handler, label 4,
 * which leaves; the signature precedes the handler, as the kernel
 * checks); returns how many times it was entered.
 */
static int spin_in_cs(struct rseq *rs)
{
	int entered = 0;

	__asm__ __volatile__(
		"leaq 3f(%%rip), %%rax\n\t"
		"movq %%rax, %[cs]\n\t"
		"incl %[n]\n\t"
		"1:\n\t"
		"jmp 1b\n\t"
		"2:\n\t"
		".pushsection .data.slice_ext_rseq_cs, \"aw\"\n\t"
		".balign 32\n\t"
		"3:\n\t"
		".long 0, 0\n\t"
		".quad 1b, 2b - 1b, 4f\n\t"
		".popsection\n\t"
		".long 0x53053053\n\t"
		"4:\n\t"
		"movq $0, %[cs]\n\t"
		: [cs] "=m" (rs->rseq_cs), [n] "+m" (entered)
		: : "rax", "memory");
	return entered;
}

static int restart_with_feature_bits_child(void)
{
	struct sigaction sa = { .sa_handler = restart_alarm };
	struct itimerval it = { .it_value = { 0, 20000 } };
	struct rseq *rs = glibc_rseq_area();

	if (sigaction(SIGALRM, &sa, NULL))
		return 2;
	rs->flags |= RSEQ_CS_FLAG_SLICE_EXT_AVAILABLE | RSEQ_CS_FLAG_SLICE_EXT_ENABLED;
	if (setitimer(ITIMER_REAL, &it, NULL))
		return 2;
	/*
	 * Spin inside a critical section until the alarm aborts it. A
	 * preemption aborts it too (another task on this CPU, more likely
	 * in a guest with few vCPUs): the loop then enters the section
	 * again until the alarm has come.
	 */
	do
		spin_in_cs(rs);
	while (!restart_alarms);
	return restart_alarms == 1 ? 0 : 3;
}

TEST(rseq_restart_with_feature_bits)
{
	if (__rseq_size == 0)
		SKIP(return, "glibc registered no rseq area");
	EXPECT_EQ(0, in_child(restart_with_feature_bits_child));
}

/*
 * 7.1's V2 registration evaluates rseq_cs only after a switch from a user
 * interrupt or before a signal (this series, like 7.1): a preemption from
 * an interrupt still aborts a critical section. If it did not, the child
 * would spin until the alarm kills it.
 */
static int v2_preempted_cs_child(void)
{
	struct noise noise;

	alarm(20);
	if (pin_to_cpu(0) || rseq_register_v2(0) || noise_start(&noise, 1, 0))
		return 2;
	return spin_in_cs(rseq_area()) == 1 ? 0 : 3;
}

TEST(rseq_v2_cs_aborted_by_preemption)
{
	struct knob_saved k;

	knob_save(&k, "rseq_rules");
	ASSERT_EQ(0, knob_set("rseq_rules", "7.1"));
	EXPECT_EQ(0, in_child(v2_preempted_cs_child));
	knob_restore(&k);
}

/*
 * A voluntary switch (a blocking system call) cannot have interrupted a
 * critical section: under 7.1 a V2 registration's rseq_cs is left as it
 * is across one. Under 7.0's rules (and for a 32-byte registration) the
 * kernel clears a non-NULL rseq_cs after every switch, as 6.12 does.
 */
static struct rseq_cs idle_cs __attribute__((aligned(32)));
static const uint32_t idle_sig[2] = { RSEQ_SIG, 0 };

static int rseq_cs_after_sleep(bool v2)
{
	struct rseq small __attribute__((aligned(32)));
	struct rseq *rs = &small;
	int ret = 2;

	if (v2) {
		if (rseq_register_v2(0))
			return -1;
		rs = rseq_area();
	} else {
		if (__rseq_size && rseq_unregister_glibc())
			return -1;
		memset(&small, 0, sizeof(small));
		if (syscall(__NR_rseq, &small, 32, 0, RSEQ_SIG))
			return -1;
	}
	/*
	 * A valid descriptor whose one-byte range the task is never inside:
	 * the abort handler's address is preceded by the signature, which
	 * the kernel checks when it evaluates the descriptor.
	 */
	idle_cs.start_ip = (uintptr_t)&idle_sig[0];
	idle_cs.post_commit_offset = 1;
	idle_cs.abort_ip = (uintptr_t)&idle_sig[1];
	__atomic_store_n(&rs->rseq_cs, (uint64_t)(uintptr_t)&idle_cs, __ATOMIC_RELAXED);
	usleep(2000);
	ret = __atomic_load_n(&rs->rseq_cs, __ATOMIC_RELAXED) != 0;
	__atomic_store_n(&rs->rseq_cs, 0, __ATOMIC_RELAXED);
	if (!v2)
		syscall(__NR_rseq, &small, 32, RSEQ_FLAG_UNREGISTER, RSEQ_SIG);
	return ret;
}

static int cs_kept_v2(void) { return rseq_cs_after_sleep(true); }
static int cs_kept_legacy(void) { return rseq_cs_after_sleep(false); }

TEST(rseq_v2_cs_kept_across_blocking_call)
{
	struct knob_saved k;

	knob_save(&k, "rseq_rules");
	ASSERT_EQ(0, knob_set("rseq_rules", "7.1"));
	EXPECT_EQ(1, in_child(cs_kept_v2)) TH_LOG("7.1, V2: rseq_cs kept");
	EXPECT_EQ(0, in_child(cs_kept_legacy)) TH_LOG("7.1, 32 bytes: rseq_cs cleared");
	ASSERT_EQ(0, knob_set("rseq_rules", "7.0"));
	EXPECT_EQ(0, in_child(cs_kept_v2)) TH_LOG("7.0 rules: rseq_cs cleared");
	knob_restore(&k);
}

/*
 * 7.1's rules (the default): glibc's 32-byte registration is not shown the
 * feature and the prctl refuses it; a 64-byte one gets it.
 */
TEST(mainline_rules_7_1_need_v2)
{
	struct rseq *rs;
	char rules[16];

	if (cmdline_has("rseq_slice_ext=0"))
		SKIP(return, "disabled at boot; see mainline_boot_disabled");
	ASSERT_EQ(0, knob_set("slice_ext_abi", "mainline"));
	ASSERT_EQ(0, knob_get("rseq_rules", rules, sizeof(rules)));
	ASSERT_STREQ("7.1", rules);
	ASSERT_GT(__rseq_size, 0);

	rs = glibc_rseq_area();
	EXPECT_FALSE(rs->flags & RSEQ_CS_FLAG_SLICE_EXT_AVAILABLE);
	errno = 0;
	EXPECT_EQ(-1, slice_prctl(PR_RSEQ_SLICE_EXTENSION_SET, PR_RSEQ_SLICE_EXT_ENABLE, 0, 0));
	EXPECT_EQ(ENOTSUPP, errno);

	ASSERT_EQ(0, rseq_register_v2(0));
	rs = rseq_area();
	EXPECT_TRUE(rs->flags & RSEQ_CS_FLAG_SLICE_EXT_AVAILABLE);
	EXPECT_FALSE(rs->flags & RSEQ_CS_FLAG_SLICE_EXT_ENABLED);
	EXPECT_EQ(0, slice_prctl(PR_RSEQ_SLICE_EXTENSION_GET, 0, 0, 0));

	ASSERT_EQ(0, slice_prctl(PR_RSEQ_SLICE_EXTENSION_SET, PR_RSEQ_SLICE_EXT_ENABLE, 0, 0));
	EXPECT_EQ(PR_RSEQ_SLICE_EXT_ENABLE, slice_prctl(PR_RSEQ_SLICE_EXTENSION_GET, 0, 0, 0));
	EXPECT_TRUE(rs->flags & RSEQ_CS_FLAG_SLICE_EXT_AVAILABLE);
	EXPECT_TRUE(rs->flags & RSEQ_CS_FLAG_SLICE_EXT_ENABLED);
	/* Only the two feature bits: the deprecated ones stay clear. */
	EXPECT_EQ(0, rs->flags & 0x7);
	/* No change: 0 at once. */
	EXPECT_EQ(0, slice_prctl(PR_RSEQ_SLICE_EXTENSION_SET, PR_RSEQ_SLICE_EXT_ENABLE, 0, 0));

	ASSERT_EQ(0, slice_prctl(PR_RSEQ_SLICE_EXTENSION_SET, 0, 0, 0));
	EXPECT_EQ(0, slice_prctl(PR_RSEQ_SLICE_EXTENSION_GET, 0, 0, 0));
	EXPECT_FALSE(rs->flags & RSEQ_CS_FLAG_SLICE_EXT_ENABLED);
	EXPECT_TRUE(rs->flags & RSEQ_CS_FLAG_SLICE_EXT_AVAILABLE);

	/* Without rseq: ENXIO. */
	ASSERT_EQ(0, rseq_unregister_v2());
	errno = 0;
	EXPECT_EQ(-1, slice_prctl(PR_RSEQ_SLICE_EXTENSION_SET, PR_RSEQ_SLICE_EXT_ENABLE, 0, 0));
	EXPECT_EQ(ENXIO, errno);
}

/* 7.0's rules: glibc's 32-byte registration may use it. */
TEST(mainline_rules_7_0_any_registration)
{
	struct knob_saved k;
	struct rseq *rs = glibc_rseq_area();

	if (cmdline_has("rseq_slice_ext=0"))
		SKIP(return, "disabled at boot");
	ASSERT_EQ(0, knob_set("slice_ext_abi", "mainline"));
	knob_save(&k, "rseq_rules");
	ASSERT_EQ(0, knob_set("rseq_rules", "7.0"));
	/* glibc registered under 7.1's rules: AVAILABLE is shown now. */
	EXPECT_EQ(0, slice_prctl(PR_RSEQ_SLICE_EXTENSION_SET, PR_RSEQ_SLICE_EXT_ENABLE, 0, 0));
	EXPECT_TRUE(rs->flags & RSEQ_CS_FLAG_SLICE_EXT_AVAILABLE);
	EXPECT_TRUE(rs->flags & RSEQ_CS_FLAG_SLICE_EXT_ENABLED);
	EXPECT_EQ(-EINVAL, knob_set("rseq_rules", "7.2"));
	knob_restore(&k);
}

/*
 * 7.0's and 7.1's layout: a reserved byte after slice_ctrl makes the
 * feature size 33, so a V2 registration needs 64-byte alignment; an
 * original 32-byte one still needs 32.
 */
TEST(rseq_layout_feature_size_33_align_64)
{
	static __thread char area[256] __attribute__((aligned(64)));

	EXPECT_EQ(33, getauxval(AT_RSEQ_FEATURE_SIZE));
	EXPECT_EQ(64, getauxval(AT_RSEQ_ALIGN));

	ASSERT_EQ(0, rseq_unregister_glibc());
	memset(area, 0, sizeof(area));
	/* V2 at an address aligned to 32 but not 64: refused. */
	errno = 0;
	EXPECT_EQ(-1, syscall(__NR_rseq, area + 32, 64, 0, RSEQ_SIG));
	EXPECT_EQ(EINVAL, errno);
	/* The feature size, 64-byte aligned: accepted. */
	EXPECT_EQ(0, syscall(__NR_rseq, area, 33, 0, RSEQ_SIG));
	EXPECT_EQ(0, syscall(__NR_rseq, area, 33, RSEQ_FLAG_UNREGISTER, RSEQ_SIG));
	/* The original size at a 32-byte boundary: accepted. */
	EXPECT_EQ(0, syscall(__NR_rseq, area + 32, 32, 0, RSEQ_SIG));
	EXPECT_EQ(0, syscall(__NR_rseq, area + 32, 32, RSEQ_FLAG_UNREGISTER, RSEQ_SIG));
}

/*
 * 7.1 does not write bytes 28-31 of an original 32-byte registration;
 * 7.0 zeroes slice_ctrl in every registration.
 */
TEST(rseq_legacy_area_untouched_under_7_1)
{
	static __thread struct rseq small __attribute__((aligned(32)));
	struct knob_saved k;

	if (cmdline_has("rseq_slice_ext=0"))
		SKIP(return, "disabled at boot");
	knob_save(&k, "rseq_rules");
	ASSERT_EQ(0, rseq_unregister_glibc());

	ASSERT_EQ(0, knob_set("rseq_rules", "7.1"));
	memset(&small, 0, sizeof(small));
	small.slice_ctrl.all = 0xdeadbeef;
	ASSERT_EQ(0, syscall(__NR_rseq, &small, 32, 0, RSEQ_SIG));
	EXPECT_EQ(0xdeadbeef, small.slice_ctrl.all);
	ASSERT_EQ(0, syscall(__NR_rseq, &small, 32, RSEQ_FLAG_UNREGISTER, RSEQ_SIG));

	ASSERT_EQ(0, knob_set("rseq_rules", "7.0"));
	small.slice_ctrl.all = 0xdeadbeef;
	ASSERT_EQ(0, syscall(__NR_rseq, &small, 32, 0, RSEQ_SIG));
	EXPECT_EQ(0, small.slice_ctrl.all);
	ASSERT_EQ(0, syscall(__NR_rseq, &small, 32, RSEQ_FLAG_UNREGISTER, RSEQ_SIG));
	knob_restore(&k);
}

/*
 * 7.0 clears slice_ctrl only when the task was scheduled out after it
 * entered the kernel from user mode on an interrupt or exception (or was
 * interrupted by membarrier(RSEQ)), or moved: a request survives a
 * blocking system call and a signal, even one preempted inside the
 * kernel. A preemption from user mode clears it (grants off: the request
 * is seen and refused, and the task is scheduled out beside a hog).
 *
 * Grants are off throughout, so that no grant consumes the request. The
 * first part spends a few instructions in user mode between setting the
 * request and each system call: every try must keep it.
 */
static volatile uint8_t request_in_handler;

static long involuntary_switches(void)
{
	struct rusage ru;

	return getrusage(RUSAGE_THREAD, &ru) ? -1 : ru.ru_nivcsw;
}

static void request_handler(int sig)
{
	request_in_handler = rseq_area()->slice_ctrl.request;
}

TEST(mainline_request_survives_blocking_call_and_signal)
{
	struct knob_saved k;
	struct noise noise;
	bool cleared = false;
	uint64_t end;

	if (cmdline_has("rseq_slice_ext=0"))
		SKIP(return, "disabled at boot");
	ASSERT_EQ(0, knob_set("slice_ext_abi", "mainline"));
	ASSERT_EQ(0, pin_to_cpu(0));
	ASSERT_EQ(0, abi_thread_setup(ABI_MAINLINE));
	ASSERT_NE(SIG_ERR, signal(SIGUSR1, request_handler));
	knob_save(&k, "slice_ext_grant");
	ASSERT_EQ(0, knob_set("slice_ext_grant", "0"));

	for (int tries = 0; tries < 5; tries++) {
		long nivcsw = involuntary_switches();
		uint8_t slept, in_handler, after;

		rseq_area()->slice_ctrl.request = 1;
		for (int i = 0; i < 20; i++)
			usleep(1000);
		slept = rseq_area()->slice_ctrl.request;
		raise(SIGUSR1);
		in_handler = request_in_handler;
		after = rseq_area()->slice_ctrl.request;
		rseq_area()->slice_ctrl.request = 0;
		EXPECT_EQ(1, slept) TH_LOG("try %d, %ld involuntary switches", tries,
					   involuntary_switches() - nivcsw);
		EXPECT_EQ(1, in_handler);
		EXPECT_EQ(1, after);
	}

	ASSERT_EQ(0, noise_start(&noise, 1, 0));
	end = now_ns() + 5000000000ull;
	rseq_area()->slice_ctrl.request = 1;
	while (now_ns() < end && !cleared)
		cleared = !__atomic_load_n(&rseq_area()->slice_ctrl.request, __ATOMIC_RELAXED);
	noise_stop(&noise);
	knob_restore(&k);
	EXPECT_TRUE(cleared) TH_LOG("a preemption from an interrupt left the request");
}

/*
 * A page fault that blocks is an exception entry from user mode followed
 * by a switch: 7.0 clears the request. One that does not block (a fresh
 * anonymous page) leaves it. The blocking fault waits for a userfaultfd
 * handler thread that answers after 20 ms.
 */
struct uffd_server {
	int fd;
	pthread_t tid;
};

static void *uffd_serve(void *arg)
{
	struct uffd_server *srv = arg;
	static char page[4096] __attribute__((aligned(4096)));
	struct pollfd pfd = { .fd = srv->fd, .events = POLLIN };
	struct uffd_msg msg;
	struct uffdio_copy copy;

	if (poll(&pfd, 1, 10000) != 1 || read(srv->fd, &msg, sizeof(msg)) != sizeof(msg) ||
	    msg.event != UFFD_EVENT_PAGEFAULT)
		return (void *)1;
	usleep(20000);
	memset(page, 0x5a, sizeof(page));
	copy.dst = msg.arg.pagefault.address & ~4095ull;
	copy.src = (uintptr_t)page;
	copy.len = 4096;
	copy.mode = 0;
	return ioctl(srv->fd, UFFDIO_COPY, &copy) ? (void *)2 : NULL;
}

TEST(mainline_blocking_page_fault_clears_request)
{
	struct uffdio_api api = { .api = UFFD_API };
	struct uffdio_register reg = { .mode = UFFDIO_REGISTER_MODE_MISSING };
	struct uffd_server srv;
	struct knob_saved k;
	volatile char *fresh, *missing;
	uint8_t after_minor, after_blocking;
	void *served;

	if (cmdline_has("rseq_slice_ext=0"))
		SKIP(return, "disabled at boot");
	ASSERT_EQ(0, knob_set("slice_ext_abi", "mainline"));
	srv.fd = syscall(__NR_userfaultfd, O_CLOEXEC);
	if (srv.fd < 0 && errno == ENOSYS)
		SKIP(return, "no userfaultfd (CONFIG_USERFAULTFD)");
	ASSERT_LE(0, srv.fd);
	ASSERT_EQ(0, ioctl(srv.fd, UFFDIO_API, &api));
	fresh = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	missing = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, fresh);
	ASSERT_NE(MAP_FAILED, missing);
	reg.range.start = (uintptr_t)missing;
	reg.range.len = 4096;
	ASSERT_EQ(0, ioctl(srv.fd, UFFDIO_REGISTER, &reg));
	ASSERT_EQ(0, pthread_create(&srv.tid, NULL, uffd_serve, &srv));

	ASSERT_EQ(0, abi_thread_setup(ABI_MAINLINE));
	knob_save(&k, "slice_ext_grant");
	ASSERT_EQ(0, knob_set("slice_ext_grant", "0"));
	rseq_area()->slice_ctrl.request = 1;
	fresh[0] = 1;
	after_minor = rseq_area()->slice_ctrl.request;
	rseq_area()->slice_ctrl.request = 1;
	EXPECT_EQ(0x5a, missing[0]);
	after_blocking = rseq_area()->slice_ctrl.request;
	rseq_area()->slice_ctrl.request = 0;
	knob_restore(&k);
	ASSERT_EQ(0, pthread_join(srv.tid, &served));
	EXPECT_EQ(NULL, served);
	EXPECT_EQ(1, after_minor) TH_LOG("a fault that did not block cleared the request");
	EXPECT_EQ(0, after_blocking) TH_LOG("a fault that blocked left the request");
	close(srv.fd);
}

/*
 * membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED_RSEQ) from a sibling thread
 * interrupts a thread running in user mode with a request set: 7.0 treats
 * that as a switch from a user interrupt and clears the request. Without
 * the call the request stays (the first 100 ms). A preemption of the
 * spinner from an interrupt also clears it, legitimately: such a try
 * (seen in its involuntary switch count) is not counted, and is tried again.
 */
enum { MB_SETUP_FAILED = -1, MB_WAIT, MB_ASKING, MB_CALLED };
static atomic_int mb_state;
static atomic_int mb_cleared_in;	/* mb_state when the request was seen cleared */
static atomic_long mb_preempted;	/* the spinner's involuntary switches meanwhile */

static void *mb_spinner(void *arg)
{
	long nivcsw;
	uint64_t end;

	if (pin_to_cpu(1) || abi_thread_setup(ABI_MAINLINE)) {
		atomic_store(&mb_state, MB_SETUP_FAILED);
		return NULL;
	}
	nivcsw = involuntary_switches();
	rseq_area()->slice_ctrl.request = 1;
	atomic_store(&mb_state, MB_ASKING);
	end = now_ns() + 10000000000ull;
	while (now_ns() < end &&
	       __atomic_load_n(&rseq_area()->slice_ctrl.request, __ATOMIC_RELAXED))
		;
	atomic_store(&mb_cleared_in, rseq_area()->slice_ctrl.request ? MB_WAIT : atomic_load(&mb_state));
	atomic_store(&mb_preempted, involuntary_switches() - nivcsw);
	rseq_area()->slice_ctrl.request = 0;
	return NULL;
}

TEST(mainline_membarrier_rseq_clears_request)
{
	struct knob_saved k;
	int counted = 0, by_call = 0, early = 0, missed = 0;

	if (cmdline_has("rseq_slice_ext=0"))
		SKIP(return, "disabled at boot");
	ASSERT_EQ(0, knob_set("slice_ext_abi", "mainline"));
	if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
		SKIP(return, "needs two CPUs");
	ASSERT_EQ(0, pin_to_cpu(0));
	ASSERT_EQ(0, syscall(__NR_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED_RSEQ, 0, 0));
	knob_save(&k, "slice_ext_grant");
	ASSERT_EQ(0, knob_set("slice_ext_grant", "0"));
	for (int tries = 0; tries < 10 && counted < 3; tries++) {
		pthread_t tid;

		atomic_store(&mb_state, MB_WAIT);
		ASSERT_EQ(0, pthread_create(&tid, NULL, mb_spinner, NULL));
		while (atomic_load(&mb_state) == MB_WAIT)
			usleep(1000);
		ASSERT_NE(MB_SETUP_FAILED, atomic_load(&mb_state));
		usleep(100000);
		atomic_store(&mb_state, MB_CALLED);
		EXPECT_EQ(0, syscall(__NR_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED_RSEQ, 0, 0));
		pthread_join(tid, NULL);
		if (atomic_load(&mb_preempted)) {
			TH_LOG("try %d: the spinner was preempted, not counted", tries);
			continue;
		}
		counted++;
		by_call += atomic_load(&mb_cleared_in) == MB_CALLED;
		early += atomic_load(&mb_cleared_in) == MB_ASKING;
		missed += atomic_load(&mb_cleared_in) == MB_WAIT;
	}
	knob_restore(&k);
	TH_LOG("%d tries counted: %d cleared by the call, %d before it, %d not at all",
	       counted, by_call, early, missed);
	ASSERT_GT(counted, 0);
	EXPECT_EQ(counted, by_call);
}

/*
 * A registration that fails with EFAULT (a read-only area) changes nothing:
 * no mainline state is left behind for the prctl to report.
 */
TEST(mainline_failed_registration_changes_nothing)
{
	void *ro;

	if (cmdline_has("rseq_slice_ext=0"))
		SKIP(return, "disabled at boot");
	ASSERT_EQ(0, knob_set("slice_ext_abi", "mainline"));
	if (__rseq_size)
		ASSERT_EQ(0, rseq_unregister_glibc());
	ro = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, ro);
	errno = 0;
	EXPECT_EQ(-1, syscall(__NR_rseq, ro, 64, RSEQ_FLAG_SLICE_EXT_DEFAULT_ON, RSEQ_SIG));
	EXPECT_EQ(EFAULT, errno);
	EXPECT_EQ(0, slice_prctl(PR_RSEQ_SLICE_EXTENSION_GET, 0, 0, 0));
	errno = 0;
	EXPECT_EQ(-1, slice_prctl(PR_RSEQ_SLICE_EXTENSION_SET, PR_RSEQ_SLICE_EXT_ENABLE, 0, 0));
	EXPECT_EQ(ENXIO, errno);
}

/* Unregistration writes cpu_id_start 0 (6.12 and 7.1; 7.0.0 wrote -1), cpu_id -1. */
TEST(rseq_unregistration_ids)
{
	ASSERT_EQ(0, rseq_register_v2(0));
	usleep(1000);
	ASSERT_EQ(0, rseq_unregister_v2());
	EXPECT_EQ(0, own_rseq.r.cpu_id_start);
	EXPECT_EQ(RSEQ_CPU_ID_UNINITIALIZED, (int)own_rseq.r.cpu_id);
}

/*
 * task_getshared() is 511 here, not 463: 463 to 470 are upstream's calls of
 * 6.13 to 6.18 (463 is setxattrat()), absent from 6.12: ENOSYS, the answer a
 * program built against newer headers expects on an older kernel.
 */
TEST(syscall_numbers)
{
	void *p = NULL;

	for (long nr = 463; nr <= 470; nr++) {
		errno = 0;
		EXPECT_EQ(-1, syscall(nr, 0, 0, 0, 0, 0, 0)) TH_LOG("syscall %ld", nr);
		EXPECT_EQ(ENOSYS, errno) TH_LOG("syscall %ld", nr);
	}
	EXPECT_EQ(0, syscall(511, TASK_SHAREDINFO, 0, &p));
	EXPECT_NE(NULL, p);
	/* Outside a grant, the yield call returns 0. */
	EXPECT_EQ(0, syscall(471));
}

/* User space cleared the kernel's AVAILABLE bit: SIGSEGV, as in 7.0. */
static int cleared_flags_child(void)
{
	if (rseq_register_v2(0) ||
	    slice_prctl(PR_RSEQ_SLICE_EXTENSION_SET, PR_RSEQ_SLICE_EXT_ENABLE, 0, 0))
		return 2;
	rseq_area()->flags &= ~RSEQ_CS_FLAG_SLICE_EXT_AVAILABLE;
	slice_prctl(PR_RSEQ_SLICE_EXTENSION_SET, 0, 0, 0);
	return 0;
}

TEST(mainline_prctl_user_cleared_flags)
{
	if (cmdline_has("rseq_slice_ext=0"))
		SKIP(return, "disabled at boot");
	ASSERT_EQ(0, knob_set("slice_ext_abi", "mainline"));
	EXPECT_EQ(128 + SIGSEGV, in_child(cleared_flags_child));
}

/* Under another ABI the prctl is refused and nothing is advertised. */
static int other_abi_child(void)
{
	if (rseq_register_v2(0))
		return 2;
	if (rseq_area()->flags & RSEQ_CS_FLAG_SLICE_EXT_AVAILABLE)
		return 3;
	errno = 0;
	if (slice_prctl(PR_RSEQ_SLICE_EXTENSION_SET, PR_RSEQ_SLICE_EXT_ENABLE, 0, 0) != -1 ||
	    errno != ENOTSUPP)
		return 4;
	if (rseq_area()->flags & (RSEQ_CS_FLAG_SLICE_EXT_AVAILABLE | RSEQ_CS_FLAG_SLICE_EXT_ENABLED))
		return 5;
	return 0;
}

TEST(mainline_refused_under_other_abis)
{
	static const char *const others[] = { "none", "rseq-cr", "task-shared" };
	struct knob_saved k;

	knob_save(&k, "slice_ext_abi");
	for (int i = 0; i < 3; i++) {
		ASSERT_EQ(0, knob_set("slice_ext_abi", others[i]));
		EXPECT_EQ(0, in_child(other_abi_child)) TH_LOG("under %s", others[i]);
	}
	knob_restore(&k);
}

/* RSEQ_FLAG_SLICE_EXT_DEFAULT_ON: on for a V2 registration, not for 32 bytes. */
TEST(mainline_default_on)
{
	static __thread struct rseq small __attribute__((aligned(32)));

	if (cmdline_has("rseq_slice_ext=0"))
		SKIP(return, "disabled at boot; see mainline_boot_disabled");

	ASSERT_EQ(0, rseq_register_v2(RSEQ_FLAG_SLICE_EXT_DEFAULT_ON));
	EXPECT_EQ(PR_RSEQ_SLICE_EXT_ENABLE, slice_prctl(PR_RSEQ_SLICE_EXTENSION_GET, 0, 0, 0));
	EXPECT_TRUE(rseq_area()->flags & RSEQ_CS_FLAG_SLICE_EXT_AVAILABLE);
	EXPECT_TRUE(rseq_area()->flags & RSEQ_CS_FLAG_SLICE_EXT_ENABLED);
	ASSERT_EQ(0, rseq_unregister_v2());
	EXPECT_EQ(0, slice_prctl(PR_RSEQ_SLICE_EXTENSION_GET, 0, 0, 0));

	memset(&small, 0, sizeof(small));
	ASSERT_EQ(0, syscall(__NR_rseq, &small, 32, RSEQ_FLAG_SLICE_EXT_DEFAULT_ON, RSEQ_SIG));
	EXPECT_EQ(0, slice_prctl(PR_RSEQ_SLICE_EXTENSION_GET, 0, 0, 0));
	EXPECT_FALSE(small.flags & RSEQ_CS_FLAG_SLICE_EXT_AVAILABLE);
	ASSERT_EQ(0, syscall(__NR_rseq, &small, 32, RSEQ_FLAG_UNREGISTER, RSEQ_SIG));
	/* Unknown registration flags are still refused. */
	errno = 0;
	EXPECT_EQ(-1, syscall(__NR_rseq, &small, 32, 1 << 7, RSEQ_SIG));
	EXPECT_EQ(EINVAL, errno);
}

/*
 * Registration zeroes slice_ctrl: a grant left in a reused area (a thread
 * killed during a grant) does not show in the next thread.
 */
TEST(mainline_registration_clears_stale_grant)
{
	if (cmdline_has("rseq_slice_ext=0"))
		SKIP(return, "disabled at boot");
	ASSERT_EQ(0, knob_set("slice_ext_abi", "mainline"));
	ASSERT_EQ(0, rseq_unregister_glibc());
	memset(&own_rseq, 0, sizeof(own_rseq));
	own_rseq.r.slice_ctrl.granted = 1;
	own_rseq.r.slice_ctrl.request = 1;
	/* Stale bits in flags: 7.0 stores the feature bits alone. */
	own_rseq.r.flags = 0x80 | RSEQ_CS_FLAG_SLICE_EXT_ENABLED;
	own_rseq.r.node_id = 7;
	ASSERT_EQ(0, syscall(__NR_rseq, &own_rseq, sizeof(own_rseq), 0, RSEQ_SIG));
	own_rseq_registered = true;
	EXPECT_EQ(0, own_rseq.r.slice_ctrl.all);
	EXPECT_EQ(RSEQ_CS_FLAG_SLICE_EXT_AVAILABLE, own_rseq.r.flags);
}

/*
 * 7.1: the IDs of a V2 registration are written, and checked, only when
 * they change. A task that wrote a read-only field survives switches on
 * the same CPU (the field keeps what it wrote) and gets SIGSEGV when it
 * moves to another CPU. Under 7.0's rules the IDs are rewritten after
 * every switch, as in 6.12, and nothing is checked.
 */
static bool ro_rules_7_1;
/* Shared with the parent: the child kept its write through the switches. */
static volatile int *ro_survived_switches;

static int ro_write_child(void)
{
	struct noise noise;

	if (pin_to_cpu(0) || rseq_register_v2(0))
		return 2;
	/* Let the kernel write the IDs once. */
	usleep(1000);
	rseq_area()->cpu_id_start = 4242;
	if (noise_start(&noise, 1, 0))
		return 2;
	for (int i = 0; i < 50; i++)
		usleep(1000);
	noise_stop(&noise);
	if (ro_rules_7_1 ? rseq_area()->cpu_id_start != 4242 : rseq_area()->cpu_id_start != 0)
		return 3;
	*ro_survived_switches = 1;
	rseq_area()->cpu_id_start = 4242;
	if (pin_to_cpu(1))
		return 2;
	usleep(1000);
	return 0;
}

TEST(mainline_rules_7_1_read_only_fields)
{
	struct knob_saved k;

	if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
		SKIP(return, "needs two CPUs");
	ro_survived_switches = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, ro_survived_switches);
	knob_save(&k, "rseq_rules");
	ro_rules_7_1 = true;
	EXPECT_EQ(128 + SIGSEGV, in_child(ro_write_child));
	/* Killed at the migration, not at a switch before it. */
	EXPECT_EQ(1, *ro_survived_switches);
	ASSERT_EQ(0, knob_set("rseq_rules", "7.0"));
	ro_rules_7_1 = false;
	EXPECT_EQ(0, in_child(ro_write_child));
	knob_restore(&k);
}

/* Run on a kernel booted with rseq_slice_ext=0 (tests/kernel-selftests.t). */
TEST(mainline_boot_disabled)
{
	if (!cmdline_has("rseq_slice_ext=0"))
		SKIP(return, "needs rseq_slice_ext=0 on the kernel command line");

	ASSERT_EQ(0, rseq_register_v2(0));
	EXPECT_FALSE(rseq_area()->flags & RSEQ_CS_FLAG_SLICE_EXT_AVAILABLE);
	errno = 0;
	EXPECT_EQ(-1, slice_prctl(PR_RSEQ_SLICE_EXTENSION_SET, PR_RSEQ_SLICE_EXT_ENABLE, 0, 0));
	EXPECT_EQ(ENOTSUPP, errno);
	ASSERT_EQ(0, rseq_unregister_v2());
}

/*
 * 7.0.0 shows AVAILABLE whenever the kernel has the feature, even when it
 * was disabled at boot (7.1 stopped that); the prctl is refused all the
 * same.
 */
TEST(mainline_boot_disabled_7_0_rules_advertise)
{
	struct knob_saved k;

	if (!cmdline_has("rseq_slice_ext=0"))
		SKIP(return, "needs rseq_slice_ext=0 on the kernel command line");
	knob_save(&k, "rseq_rules");
	ASSERT_EQ(0, knob_set("rseq_rules", "7.0"));
	ASSERT_EQ(0, rseq_register_v2(0));
	EXPECT_TRUE(rseq_area()->flags & RSEQ_CS_FLAG_SLICE_EXT_AVAILABLE);
	errno = 0;
	EXPECT_EQ(-1, slice_prctl(PR_RSEQ_SLICE_EXTENSION_SET, PR_RSEQ_SLICE_EXT_ENABLE, 0, 0));
	EXPECT_EQ(ENOTSUPP, errno);
	ASSERT_EQ(0, rseq_unregister_v2());
	knob_restore(&k);
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

/* debugfs rseq/stats: 7.0's five slice lines, in its format, consistent with ours. */
TEST(mainline_rseq_stats)
{
	static const char *const names[] = { "sgrant:", "sexpir:", "srevok:", "syield:", "sabort:" };
	char buf[512], key[32];
	long long v[5], val;
	int n = 0, off = 0, used;

	ASSERT_EQ(0, read_file(DEBUGFS_RSEQ_STATS, buf, sizeof(buf)));
	while (n < 5 && sscanf(buf + off, "%31s %lld%n", key, &val, &used) == 2) {
		EXPECT_STREQ(names[n], key);
		v[n++] = val;
		off += used;
	}
	ASSERT_EQ(5, n);
	/* Every grant ended one way, or is still running (none here). */
	EXPECT_GE(v[0], v[2] + v[3] + v[4]);
	EXPECT_LE(v[1], v[2]);
}

/*
 * Tests that take long on a slow (debug, KASAN) kernel: ten minutes each
 * instead of the harness's 30 s.
 */
FIXTURE(slow) {};
FIXTURE_SETUP(slow) {}
FIXTURE_TEARDOWN(slow) {}

/*
 * As in 7.0, user space is trusted with granted: a thread that sets it
 * itself is not punished. With rseq debugging (the -debug kernel), a system
 * call made during a grant while the word shows something else is.
 */
/*
 * At most: the child stops after five grants, or dies at the first one.
 * Under in_child()'s 30 s alarm, so that a starved vCPU ends the loop with
 * the grants it saw rather than SIGALRM.
 */
static const uint64_t user_granted_ns = 25000000000ull;

static int user_granted_child(void)
{
	struct noise noise;
	uint64_t end;
	int seen = 0;

	if (pin_to_cpu(0) || abi_thread_setup(ABI_MAINLINE) || noise_start(&noise, 2, 0))
		return 2;
	rseq_area()->slice_ctrl.granted = 1;
	rseq_area()->slice_ctrl.request = 1;
	/* Five grants, not a fixed window: a busy host starves the vCPU. */
	end = now_ns() + user_granted_ns;
	while (seen < 5 && now_ns() < end) {
		/* Granted by the kernel: request is 0 again. Ask once more, then call. */
		if (!rseq_area()->slice_ctrl.request && rseq_area()->slice_ctrl.granted) {
			rseq_area()->slice_ctrl.request = 1;
			getppid();
			rseq_area()->slice_ctrl.granted = 1;
			rseq_area()->slice_ctrl.request = 1;
			seen++;
		}
	}
	/* 3: no grant at all, so nothing was checked. */
	return seen ? 0 : 3;
}

TEST_F_TIMEOUT(slow, mainline_user_granted, 600)
{
	char old_nsec[32], debug[8];
	struct utsname u;
	int ret;

	if (cmdline_has("rseq_slice_ext=0"))
		SKIP(return, "disabled at boot");
	ASSERT_EQ(0, knob_set("slice_ext_abi", "mainline"));
	ASSERT_EQ(0, knob_set("slice_ext_grant", "1"));
	ASSERT_EQ(0, uname(&u));
	/* A long grant, so that it is still there when the task looks. */
	ASSERT_EQ(0, knob_get("slice_ext_nsec", old_nsec, sizeof(old_nsec)));
	ASSERT_EQ(0, knob_set("slice_ext_nsec", "1000000"));
	/* rseq/debug: on by default only with CONFIG_DEBUG_RSEQ (the debug kernel). */
	ASSERT_EQ(0, read_file(DEBUGFS_RSEQ_DEBUG, debug, sizeof(debug)));
	EXPECT_EQ(!!strstr(u.release, "-debug"), atoi(debug));
	ret = in_child(user_granted_child);
	if (atoi(debug)) {
		EXPECT_EQ(128 + SIGSEGV, ret);
	} else {
		EXPECT_EQ(0, ret);
		/* Switched on at run time, the check is made. */
		ASSERT_EQ(0, write_file(DEBUGFS_RSEQ_DEBUG, "1"));
		EXPECT_EQ(128 + SIGSEGV, in_child(user_granted_child));
		ASSERT_EQ(0, write_file(DEBUGFS_RSEQ_DEBUG, "0"));
	}
	EXPECT_EQ(-EINVAL, write_file(DEBUGFS_RSEQ_DEBUG, "2"));
	knob_set("slice_ext_nsec", old_nsec);
}

/* ---- a grant's end and the task's life ------------------------------------ */

/* Ask under @abi on CPU 0, beside two hogs, until the kernel shows a grant. */
static bool wait_for_grant(enum abi abi, uint64_t deadline)
{
	while (now_ns() < deadline) {
		uint64_t stop = now_ns() + 300000;

		abi_enter(abi);
		while (now_ns() < stop) {
			if (abi_shows_grant(abi))
				return true;
			__asm__ __volatile__("pause" ::: "memory");
		}
		if (abi_exit(abi))
			abi_yield(abi);
	}
	return false;
}

/*
 * The mainline ABI live with grants of 1 ms, the calling thread opted in
 * and pinned to CPU 0; @k restores the length. 0, or -1 on a failure.
 */
static int long_mainline_grants(struct knob_saved *k)
{
	knob_save(k, "slice_ext_nsec");
	if (knob_set("slice_ext_abi", "mainline") || knob_set("slice_ext_grant", "1") ||
	    knob_set("slice_ext_nsec", "1000000") || pin_to_cpu(0) ||
	    abi_thread_setup(ABI_MAINLINE))
		return -1;
	return 0;
}

/*
 * The grant is written back into the word the decision read, request 0 and
 * granted 1, in one 32-bit store, as 7.0 does: the two reserved bytes keep
 * what user space put there.
 */
TEST_F_TIMEOUT(slow, mainline_grant_keeps_reserved_bytes, 600)
{
	struct knob_saved k;
	struct noise noise;
	struct rseq_slice_ctrl seen = { 0 };
	bool granted = false;
	uint64_t deadline = now_ns() + 60000000000ull;
	char debug[8] = "";

	if (cmdline_has("rseq_slice_ext=0"))
		SKIP(return, "disabled at boot");
	/*
	 * rseq debugging (on in the debug kernel) wants the word to be
	 * exactly "granted" at a system call in a grant, reserved bytes
	 * included, as 7.0's does: SIGSEGV otherwise. Off for this test.
	 */
	ASSERT_EQ(0, read_file(DEBUGFS_RSEQ_DEBUG, debug, sizeof(debug)));
	ASSERT_EQ(0, write_file(DEBUGFS_RSEQ_DEBUG, "0"));
	ASSERT_EQ(0, long_mainline_grants(&k));
	ASSERT_EQ(0, noise_start(&noise, 2, 0));
	while (!granted && now_ns() < deadline) {
		uint64_t stop = now_ns() + 300000;

		rseq_area()->slice_ctrl.__reserved = 0xbeef;
		abi_enter(ABI_MAINLINE);
		while (!granted && now_ns() < stop) {
			seen.all = __atomic_load_n(&rseq_area()->slice_ctrl.all, __ATOMIC_RELAXED);
			granted = seen.granted;
		}
		if (abi_exit(ABI_MAINLINE) || granted)
			syscall(__NR_rseq_slice_yield);
	}
	noise_stop(&noise);
	knob_restore(&k);
	rseq_area()->slice_ctrl.__reserved = 0;
	write_file(DEBUGFS_RSEQ_DEBUG, debug);
	ASSERT_TRUE(granted);
	EXPECT_EQ(0, seen.request);
	EXPECT_EQ(0xbeef, seen.__reserved);
}

/*
 * Deviation: a V2 task that did not opt in keeps a request it wrote across
 * a preemption from user mode. 7.1 clears slice_ctrl for every V2 task
 * (7.0 for every rseq task: the TCMalloc breakage); this series clears it
 * only for tasks that opted in.
 */
TEST(rseq_v2_not_opted_in_request_kept)
{
	struct noise noise;
	long nivcsw;
	uint64_t end;

	if (cmdline_has("rseq_slice_ext=0"))
		SKIP(return, "disabled at boot");
	ASSERT_EQ(0, pin_to_cpu(0));
	ASSERT_EQ(0, rseq_register_v2(0));
	ASSERT_EQ(0, slice_prctl(PR_RSEQ_SLICE_EXTENSION_GET, 0, 0, 0));
	ASSERT_EQ(0, noise_start(&noise, 1, 0));
	rseq_area()->slice_ctrl.request = 1;
	nivcsw = involuntary_switches();
	end = now_ns() + 2000000000ull;
	while (now_ns() < end && involuntary_switches() - nivcsw < 3)
		spin_ns(1000000);
	noise_stop(&noise);
	EXPECT_LE(3, involuntary_switches() - nivcsw);
	EXPECT_EQ(1, rseq_area()->slice_ctrl.request);
	rseq_area()->slice_ctrl.request = 0;
}

static enum abi lifecycle_abi;

/* The child of a fork() made inside a grant: its copy shows none, and it lives. */
static int forked_in_grant(void)
{
	struct noise noise;
	uint64_t end;

	/*
	 * A grant shown here that the kernel did not make to this child is
	 * the parent's, copied. (rseq-cr's child inherits "in a critical
	 * section" and may get a grant of its own at once.)
	 */
	if (abi_shows_grant(lifecycle_abi) && task_sched_get("slice_ext.nr_granted") == 0)
		return 1;
	if (noise_start(&noise, 1, 0))
		return 2;
	end = now_ns() + 100000000ull;
	while (now_ns() < end) {
		abi_enter(lifecycle_abi);
		spin_ns(20000);
		if (abi_exit(lifecycle_abi))
			abi_yield(lifecycle_abi);
	}
	return 0;
}

static int fork_in_grant_parent(void)
{
	uint64_t deadline = now_ns() + 60000000000ull;
	struct noise noise;
	int forks = 0, regranted = 0;

	if (pin_to_cpu(0) || abi_thread_setup(lifecycle_abi) || noise_start(&noise, 2, 0))
		return 2;
	while (forks < 20) {
		int status;
		pid_t pid;

		if (!wait_for_grant(lifecycle_abi, deadline))
			return 3;
		pid = fork();
		if (pid < 0)
			return 2;
		if (pid == 0)
			_exit(forked_in_grant());
		if (waitpid(pid, &status, 0) != pid)
			return 4;
		/* 10 + the child's exit status, or 40 + its signal. */
		if (WIFSIGNALED(status))
			return 40 + WTERMSIG(status);
		if (WEXITSTATUS(status))
			return 10 + WEXITSTATUS(status);
		/*
		 * The fork ended the grant ("revoked"). The task still asks
		 * (the request is withdrawn only now), so an interrupt after
		 * waitpid() returned may have made a new grant, and that is
		 * given back; a mark the fork left behind would show after
		 * every fork, a new grant only now and then.
		 */
		if (abi_exit(lifecycle_abi)) {
			abi_yield(lifecycle_abi);
			regranted++;
		}
		forks++;
	}
	return regranted * 2 < forks ? 0 : 5;
}

TEST_F_TIMEOUT(slow, fork_inside_grant, 600)
{
	static const enum abi abis[] = { ABI_MAINLINE, ABI_RSEQ_CR };

	ASSERT_EQ(0, knob_set("slice_ext_grant", "1"));
	for (int i = 0; i < 2; i++) {
		lifecycle_abi = abis[i];
		ASSERT_EQ(0, knob_set("slice_ext_abi", abi_names[abis[i]]));
		EXPECT_EQ(0, in_child(fork_in_grant_parent)) TH_LOG("%s", abi_names[abis[i]]);
	}
	knob_set("slice_ext_abi", "mainline");
}

/* A thread that exits inside a grant leaves no grant in its rseq area. */
static void *exit_in_grant_thread(void *arg)
{
	volatile uint32_t **word = arg;

	if (pin_to_cpu(0) || abi_thread_setup(lifecycle_abi) ||
	    !wait_for_grant(lifecycle_abi, now_ns() + 30000000000ull))
		return NULL;
	*word = (volatile uint32_t *)&rseq_area()->slice_ctrl.all;
	/*
	 * exit() itself, with no other system call first (pthread_exit()
	 * makes some, and any of them would end the grant the usual way).
	 * The kernel still clears the thread ID and wakes the joiner.
	 */
	syscall(SYS_exit, 0);
	return NULL;
}

static int exit_in_grant(void)
{
	struct noise noise;

	if (pin_to_cpu(0) || noise_start(&noise, 2, 0))
		return 2;
	for (int i = 0; i < 10; i++) {
		volatile uint32_t *word = NULL;
		pthread_t t;

		if (pthread_create(&t, NULL, exit_in_grant_thread, &word) || pthread_join(t, NULL))
			return 2;
		if (!word)
			return 3;
		/* glibc keeps the stack (and the TLS in it) for reuse. */
		if (lifecycle_abi == ABI_MAINLINE ? (*word & 0xff00) : (*word & 1))
			return 4;
	}
	return 0;
}

TEST_F_TIMEOUT(slow, thread_exit_inside_grant, 600)
{
	static const enum abi abis[] = { ABI_MAINLINE, ABI_RSEQ_CR };

	ASSERT_EQ(0, knob_set("slice_ext_grant", "1"));
	for (int i = 0; i < 2; i++) {
		lifecycle_abi = abis[i];
		ASSERT_EQ(0, knob_set("slice_ext_abi", abi_names[abis[i]]));
		EXPECT_EQ(0, in_child(exit_in_grant)) TH_LOG("%s", abi_names[abis[i]]);
	}
	knob_set("slice_ext_abi", "mainline");
}

/*
 * A yield call that a seccomp filter refuses still ends the grant, at
 * system call entry, as yielded: the task does not run on in it until the
 * timer.
 */
TEST_F_TIMEOUT(slow, mainline_filtered_yield_ends_grant, 600)
{
	uint64_t deadline = now_ns() + 60000000000ull;
	long long yielded0, yielded;
	int calls = 0, still_granted = 0, refused = 0, late = 0, fallback_switched = 0;
	struct knob_saved k;
	struct noise noise;

	if (cmdline_has("rseq_slice_ext=0"))
		SKIP(return, "disabled at boot");
	/* Long grants: one left running would still show after the call. */
	ASSERT_EQ(0, long_mainline_grants(&k));
	ASSERT_EQ(0, install_errno_filter(__NR_rseq_slice_yield));
	yielded0 = task_sched_get("slice_ext.nr_yielded");
	ASSERT_EQ(0, noise_start(&noise, 2, 0));
	while (calls < 10 && now_ns() < deadline) {
		uint64_t stop = now_ns() + 300000;
		bool granted = false;

		abi_enter(ABI_MAINLINE);
		while (!granted && now_ns() < stop)
			granted = abi_shows_grant(ABI_MAINLINE);
		if (granted) {
			errno = 0;
			long nivcsw;

			refused += syscall(__NR_rseq_slice_yield) == -1 && errno == EPERM;
			still_granted += abi_shows_grant(ABI_MAINLINE);
			calls++;
			/*
			 * The fallback a filtered program uses: sched_yield()
			 * must yield to the hogs, not return at once on the
			 * refused call's stale result.
			 */
			nivcsw = involuntary_switches();
			sched_yield();
			fallback_switched += involuntary_switches() != nivcsw;
		}
		/*
		 * A grant that came after the wait gave up (at the last clock
		 * read) must be given back too: the next request would be
		 * written into a live grant, which rseq debugging punishes
		 * (SIGSEGV), as 7.0 does. Its yield call is refused as well,
		 * and ends the grant all the same.
		 */
		if (abi_exit(ABI_MAINLINE) && !granted) {
			syscall(__NR_rseq_slice_yield);
			late++;
		}
	}
	noise_stop(&noise);
	yielded = task_sched_get("slice_ext.nr_yielded") - yielded0;
	knob_restore(&k);
	TH_LOG("%d filtered yield calls in grants: %d refused, %d left a grant, %lld counted yielded "
	       "(%d more for grants made after a wait gave up); %d sched_yield() after them switched",
	       calls, refused, still_granted, yielded, late, fallback_switched);
	ASSERT_GT(calls, 0);
	EXPECT_EQ(calls, refused);
	EXPECT_EQ(0, still_granted);
	/*
	 * With two hogs on the CPU a real yield switches when a hog is
	 * eligible, which EEVDF makes most of the time (7 to 10 of 10 in a
	 * dozen runs, 5 on a busy host); a yield skipped on a stale result
	 * never enters the scheduler (0 of 10 on the kernel-stale-yield-result
	 * mutation).
	 */
	EXPECT_GT(fallback_switched, 0);
	/* A late grant may have expired before its yield call. */
	EXPECT_GE(yielded, calls);
	EXPECT_LE(yielded, calls + late);
}

/* A tracefs instance of our own, so that nothing else's tracing is touched. */
#define TIMER_TRACE "/sys/kernel/tracing/instances/slice_ext_timer"

/* Lines in the instance's trace buffer that are events, not comments. */
static int trace_events_recorded(void)
{
	FILE *f = fopen(TIMER_TRACE "/trace", "r");
	char line[512];
	int n = 0;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		n += line[0] != '#';
	fclose(f);
	return n;
}

/*
 * A yield call in a grant cancels the extension timer, as 7.0 does: the
 * timer does not fire afterwards. Counted with the hrtimer_expire_entry
 * event filtered on the timer's function: only a grant that expired, or
 * one that ended in the scheduler (counted aborted, which leaves the timer
 * to fire once for nothing, as in 7.0), may fire it.
 */
TEST_F_TIMEOUT(slow, mainline_yield_cancels_timer, 600)
{
	uint64_t deadline = now_ns() + 60000000000ull;
	long long expired0, expired, yielded0, yielded, aborted0, aborted;
	int calls = 0, fired;
	struct knob_saved k;
	struct noise noise;

	if (cmdline_has("rseq_slice_ext=0"))
		SKIP(return, "disabled at boot");
	if (mkdir(TIMER_TRACE, 0755) && errno != EEXIST)
		SKIP(return, "no tracefs instance: %s", strerror(errno));
	ASSERT_EQ(0, write_file(TIMER_TRACE "/events/timer/hrtimer_expire_entry/filter",
				"function.function == slice_ext_timer_fn"));
	ASSERT_EQ(0, write_file(TIMER_TRACE "/trace", ""));
	ASSERT_EQ(0, write_file(TIMER_TRACE "/events/timer/hrtimer_expire_entry/enable", "1"));
	/* 1 ms grants: a timer left armed fires during the 3 ms sleep below. */
	ASSERT_EQ(0, long_mainline_grants(&k));
	expired0 = task_sched_get("slice_ext.nr_expired");
	yielded0 = task_sched_get("slice_ext.nr_yielded");
	aborted0 = task_sched_get("slice_ext.nr_aborted");
	ASSERT_EQ(0, noise_start(&noise, 2, 0));
	while (calls < 20 && now_ns() < deadline) {
		if (!wait_for_grant(ABI_MAINLINE, deadline))
			break;
		abi_exit(ABI_MAINLINE);
		syscall(__NR_rseq_slice_yield);
		calls++;
		usleep(3000);
	}
	noise_stop(&noise);
	expired = task_sched_get("slice_ext.nr_expired") - expired0;
	yielded = task_sched_get("slice_ext.nr_yielded") - yielded0;
	aborted = task_sched_get("slice_ext.nr_aborted") - aborted0;
	knob_restore(&k);
	write_file(TIMER_TRACE "/events/timer/hrtimer_expire_entry/enable", "0");
	fired = trace_events_recorded();
	rmdir(TIMER_TRACE);
	TH_LOG("%d grants given back with the yield call: %lld yielded, %lld expired, "
	       "%lld aborted; the extension timer fired %d times",
	       calls, yielded, expired, aborted, fired);
	ASSERT_GT(calls, 0);
	ASSERT_GE(fired, 0);
	EXPECT_GT(yielded, 0);
	/* Only an expiry, or a grant that ended in the scheduler, fires it. */
	EXPECT_LE(fired, expired + aborted);
}

/*
 * Only fair tasks are extended (SCHED_NORMAL, SCHED_BATCH; 7.0 extends
 * every policy): beside two hogs, a SCHED_BATCH requester gets grants; a
 * SCHED_IDLE one, preempted by the hogs, gets none; nor does a SCHED_FIFO
 * one preempted by a SCHED_FIFO thread of higher priority.
 */
static atomic_int fifo_waker_stop;

static void *fifo_waker(void *arg)
{
	while (!atomic_load(&fifo_waker_stop))
		usleep(500);
	return NULL;
}

/* Ask for a second under @policy; the grants and involuntary switches. */
static int ask_under_policy(int policy, long long *granted, long *switches)
{
	struct sched_param sp = { .sched_priority = policy == SCHED_FIFO ? 10 : 0 };
	uint64_t end = now_ns() + 1000000000ull;
	long long g0 = task_sched_get("slice_ext.nr_granted");
	long n0 = involuntary_switches();

	if (sched_setscheduler(0, policy, &sp))
		return -1;
	while (now_ns() < end) {
		abi_enter(ABI_MAINLINE);
		spin_ns(200000);
		if (abi_exit(ABI_MAINLINE))
			syscall(__NR_rseq_slice_yield);
	}
	sp.sched_priority = 0;
	if (sched_setscheduler(0, SCHED_OTHER, &sp))
		return -1;
	*granted = task_sched_get("slice_ext.nr_granted") - g0;
	*switches = involuntary_switches() - n0;
	return 0;
}

TEST_F_TIMEOUT(slow, mainline_requester_policies, 600)
{
	static const struct { const char *name; int policy; bool extended; } cases[] = {
		{ "SCHED_BATCH", SCHED_BATCH, true },
		{ "SCHED_IDLE", SCHED_IDLE, false },
		{ "SCHED_FIFO", SCHED_FIFO, false },
	};
	struct knob_saved k;
	struct noise noise;

	if (cmdline_has("rseq_slice_ext=0"))
		SKIP(return, "disabled at boot");
	ASSERT_EQ(0, long_mainline_grants(&k));
	ASSERT_EQ(0, noise_start(&noise, 2, 0));
	for (int i = 0; i < 3; i++) {
		long long granted = 0;
		long switches = 0;
		pthread_t waker;
		int ret;

		if (cases[i].policy == SCHED_FIFO) {
			/* Above the requester's priority 10. */
			atomic_store(&fifo_waker_stop, 0);
			ASSERT_EQ(0, start_pinned(&waker, 0, 20, fifo_waker, NULL));
		}
		ret = ask_under_policy(cases[i].policy, &granted, &switches);
		if (cases[i].policy == SCHED_FIFO) {
			atomic_store(&fifo_waker_stop, 1);
			pthread_join(waker, NULL);
		}
		TH_LOG("%s requester: %lld grants, %ld involuntary switches", cases[i].name,
		       granted, switches);
		ASSERT_EQ(0, ret);
		if (cases[i].extended) {
			EXPECT_GT(granted, 0);
		} else {
			EXPECT_EQ(0, granted);
			EXPECT_GT(switches, 0);
		}
	}
	noise_stop(&noise);
	knob_restore(&k);
}

/*
 * CPU hotplug during grants: a thread takes mainline grants on CPU 1
 * (beside two hogs) while CPU 1 goes offline and online again, so that
 * grants end by migration and the extension timer, left armed by a grant
 * that ended in the scheduler, is handed to CPU 0. Every grant the thread
 * got ends, with one of the four reasons, and the thread and the kernel
 * survive (a WARN, BUG or Oops fails the run).
 */
struct hotplug_grantee {
	atomic_int stop;
	int setup_failed;
	long long granted, ended;
};

static void *hotplug_grantee_main(void *arg)
{
	static const char *const ends[] = {
		"slice_ext.nr_expired", "slice_ext.nr_yielded",
		"slice_ext.nr_revoked", "slice_ext.nr_aborted",
	};
	struct hotplug_grantee *g = arg;

	if (abi_thread_setup(ABI_MAINLINE)) {
		g->setup_failed = 1;
		return NULL;
	}
	while (!atomic_load(&g->stop)) {
		uint64_t stop = now_ns() + 300000;
		bool granted = false;

		/* Back to CPU 1 once it is online again (offline took it off). */
		pin_to_cpu(1);
		abi_enter(ABI_MAINLINE);
		while (!granted && now_ns() < stop)
			granted = abi_shows_grant(ABI_MAINLINE);
		if (abi_exit(ABI_MAINLINE) || granted)
			syscall(__NR_rseq_slice_yield);
	}
	g->granted = task_sched_get("slice_ext.nr_granted");
	for (int i = 0; i < 4; i++)
		g->ended += task_sched_get(ends[i]);
	return NULL;
}

TEST_F_TIMEOUT(slow, mainline_cpu_hotplug_during_grants, 600)
{
	struct hotplug_grantee g = { 0 };
	struct knob_saved k;
	struct noise noise;
	int cycles = 0, failed = 0;
	pthread_t tid;

	if (cmdline_has("rseq_slice_ext=0"))
		SKIP(return, "disabled at boot");
	if (access("/sys/devices/system/cpu/cpu1/online", W_OK))
		SKIP(return, "no CPU 1 to take offline");
	ASSERT_EQ(0, long_mainline_grants(&k));
	ASSERT_EQ(0, noise_start(&noise, 2, 1));
	ASSERT_EQ(0, pthread_create(&tid, NULL, hotplug_grantee_main, &g));
	for (cycles = 0; cycles < 20; cycles++) {
		usleep(30000);
		failed += set_cpu_online(1, false) != 0;
		usleep(30000);
		failed += set_cpu_online(1, true) != 0;
	}
	usleep(30000);
	atomic_store(&g.stop, 1);
	pthread_join(tid, NULL);
	noise_stop(&noise);
	knob_restore(&k);
	set_cpu_online(1, true);
	TH_LOG("%d offline/online cycles (%d writes failed): %lld grants, %lld ended",
	       cycles, failed, g.granted, g.ended);
	ASSERT_EQ(0, g.setup_failed);
	EXPECT_EQ(0, failed);
	EXPECT_GT(g.granted, 0);
	EXPECT_EQ(g.granted, g.ended);
}

/*
 * The ABI's yield call inside a grant, entered as a 32-bit system call
 * (int $0x80, i386 numbers) or as an x32 one (syscall with
 * __X32_SYSCALL_BIT, the 64-bit numbers), counts as yielded, not as
 * revoked.
 */
enum entry { ENTRY_IA32, ENTRY_X32 };
static const char *const entry_names[] = { "ia32 (int $0x80)", "x32" };
static enum entry compat_entry;

#define X32_SYSCALL_BIT 0x40000000L

static long compat_syscall0(long nr)
{
	long ret;

	if (compat_entry == ENTRY_IA32)
		__asm__ __volatile__("int $0x80" : "=a"(ret) : "a"(nr)
				     : "memory", "r8", "r9", "r10", "r11");
	else
		__asm__ __volatile__("syscall" : "=a"(ret) : "a"(nr | X32_SYSCALL_BIT)
				     : "memory", "rcx", "r11");
	return ret;
}

static int compat_yield(void)
{
	long nr = lifecycle_abi == ABI_MAINLINE ? __NR_rseq_slice_yield : __NR_sched_yield;
	char key[48];
	long long y0, r0;
	struct noise noise;
	int ones = 0;
	long ret;

	if (compat_entry == ENTRY_IA32)
		nr = lifecycle_abi == ABI_MAINLINE ? 471 : 158;	/* i386 numbers */
	if (pin_to_cpu(0) || abi_thread_setup(lifecycle_abi) || noise_start(&noise, 2, 0))
		return 2;
	snprintf(key, sizeof(key), "%s.yielded", abi_names[lifecycle_abi]);
	y0 = stat_get(key);
	snprintf(key, sizeof(key), "%s.revoked", abi_names[lifecycle_abi]);
	r0 = stat_get(key);
	for (int i = 0; i < 5; i++) {
		if (!wait_for_grant(lifecycle_abi, now_ns() + 30000000000ull))
			return 3;
		ret = compat_syscall0(nr);
		if (ret < 0)
			return 4;	/* no IA32 emulation or x32 ABI: -ENOSYS */
		/* 0 when the grant ended (expired, preempted) before the call. */
		ones += ret == 1;
		abi_exit(lifecycle_abi);
	}
	if (stat_get(key) != r0)
		return 6;
	if (lifecycle_abi == ABI_MAINLINE && ones < 3)
		return 5;
	snprintf(key, sizeof(key), "%s.yielded", abi_names[lifecycle_abi]);
	return stat_get(key) - y0 >= 3 ? 0 : 7;
}

TEST_F_TIMEOUT(slow, compat_yield_counts_as_yield, 600)
{
	static const enum abi abis[] = { ABI_MAINLINE, ABI_RSEQ_CR };
	char old[32];

	ASSERT_EQ(0, knob_set("slice_ext_grant", "1"));
	for (int e = ENTRY_IA32; e <= ENTRY_X32; e++) {
		compat_entry = e;
		for (int i = 0; i < 2; i++) {
			lifecycle_abi = abis[i];
			ASSERT_EQ(0, knob_set("slice_ext_abi", abi_names[abis[i]]));
			/* A long grant, so that it is still there when the call comes. */
			ASSERT_EQ(0, knob_get("slice_ext_nsec", old, sizeof(old)));
			ASSERT_EQ(0, knob_set("slice_ext_nsec", "1000000"));
			EXPECT_EQ(0, in_child(compat_yield))
				TH_LOG("%s, %s", abi_names[abis[i]], entry_names[e]);
			knob_set("slice_ext_nsec", old);
		}
	}
	knob_set("slice_ext_abi", "mainline");
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

/* 10,000 threads: minutes on the debug kernel, beyond TEST()'s 30 s. */
TEST_F_TIMEOUT(slow, task_getshared_no_leak, 600)
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

/* Take a slot, unmap its page, exit: the page must go with the last slot. */
static void *getshared_unmap_thread(void *arg)
{
	void *addr = NULL;

	if (syscall(__NR_task_getshared, TASK_SHAREDINFO, 0, &addr) || !addr)
		return NULL;
	if (munmap((void *)((uintptr_t)addr & ~(uintptr_t)4095), 4096))
		return NULL;
	return addr;
}

TEST_F_TIMEOUT(slow, task_getshared_unmap_churn_frees_pages, 600)
{
	long base = shared_pages();
	int status;
	pid_t pid;

	ASSERT_GE(base, 0);
	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		for (int i = 0; i < 20000; i++) {
			void *ret = NULL;
			pthread_t t;

			if (pthread_create(&t, NULL, getshared_unmap_thread, NULL) ||
			    pthread_join(t, &ret) || !ret)
				_exit(2);
		}
		/* Every page was unmapped and its only slot released. */
		_exit(shared_pages() - base <= 1 && maps_count("[task_shared]") == 0 ? 0 : 1);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
	EXPECT_EQ(base, shared_pages());
}

/* Threads that hold a slot in an unmapped page each: ENOSPC past 256 pages. */
static pthread_barrier_t hold_barrier;
static atomic_int hold_enospc, hold_other, hold_done;
static pthread_mutex_t hold_lock = PTHREAD_MUTEX_INITIALIZER;

static void *getshared_hold_thread(void *arg)
{
	void *addr = NULL;

	/* One at a time, so that no thread gets a slot in a page being unmapped. */
	pthread_mutex_lock(&hold_lock);
	if (syscall(__NR_task_getshared, TASK_SHAREDINFO, 0, &addr)) {
		if (errno == ENOSPC)
			atomic_fetch_add(&hold_enospc, 1);
		else
			atomic_fetch_add(&hold_other, 1);
	} else {
		munmap((void *)((uintptr_t)addr & ~(uintptr_t)4095), 4096);
	}
	pthread_mutex_unlock(&hold_lock);
	atomic_fetch_add(&hold_done, 1);
	pthread_barrier_wait(&hold_barrier);
	return NULL;
}

TEST_F_TIMEOUT(slow, task_getshared_page_limit, 600)
{
	enum { N = 260 };
	long base = shared_pages();
	int status;
	pid_t pid;

	ASSERT_GE(base, 0);
	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		static pthread_t t[N];
		pthread_attr_t attr;

		pthread_attr_init(&attr);
		pthread_attr_setstacksize(&attr, 64 * 1024);
		pthread_barrier_init(&hold_barrier, NULL, N + 1);
		for (int i = 0; i < N; i++)
			if (pthread_create(&t[i], &attr, getshared_hold_thread, NULL))
				_exit(2);
		/* All N threads have asked: 256 got a page each, 4 were refused. */
		while (atomic_load(&hold_done) < N)
			usleep(1000);
		if (shared_pages() - base != 256)
			_exit(3);
		pthread_barrier_wait(&hold_barrier);
		for (int i = 0; i < N; i++)
			pthread_join(t[i], NULL);
		_exit(atomic_load(&hold_enospc) == N - 256 && !atomic_load(&hold_other) &&
		      shared_pages() == base ? 0 : 1);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
	EXPECT_EQ(base, shared_pages());
}

/*
 * The pages are charged to the memory cgroup of the process that asked:
 * N threads holding a slot in an unmapped page each (one page per thread)
 * raise the cgroup's "kernel" memory by about N pages. Needs cgroup2 with
 * the memory controller (the debug kernel has it; the others skip).
 */
#define CGROUP_ROOT "/sys/fs/cgroup"
#define CGROUP_TEST CGROUP_ROOT "/slice_ext_task_shared"

static long long memcg_kernel_bytes(void)
{
	char line[128];
	long long val = -1, v;
	FILE *f;

	/* The periodic flush (every 2 s) makes every count current. */
	usleep(2500000);
	f = fopen(CGROUP_TEST "/memory.stat", "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "kernel %lld", &v) == 1)
			val = v;
	fclose(f);
	return val;
}

static pthread_barrier_t memcg_go, memcg_held;

static void *memcg_hold_thread(void *arg)
{
	pthread_barrier_wait(&memcg_go);
	getshared_hold_thread(arg);
	pthread_barrier_wait(&memcg_held);
	return NULL;
}

static int memcg_charge_child(void)
{
	enum { N = 128 };
	static pthread_t t[N];
	long long before, after;
	pthread_attr_t attr;
	char pid[32];

	snprintf(pid, sizeof(pid), "%d", getpid());
	if (write_file(CGROUP_TEST "/cgroup.procs", pid))
		return 2;
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 64 * 1024);
	pthread_barrier_init(&memcg_go, NULL, N + 1);
	pthread_barrier_init(&memcg_held, NULL, N + 1);
	/* getshared_hold_thread() waits for all N + 1 at its end. */
	pthread_barrier_init(&hold_barrier, NULL, N + 1);
	for (int i = 0; i < N; i++)
		if (pthread_create(&t[i], &attr, memcg_hold_thread, NULL))
			return 3;
	before = memcg_kernel_bytes();
	pthread_barrier_wait(&memcg_go);
	while (atomic_load(&hold_done) < N)
		usleep(1000);
	after = memcg_kernel_bytes();
	pthread_barrier_wait(&hold_barrier);
	pthread_barrier_wait(&memcg_held);
	for (int i = 0; i < N; i++)
		pthread_join(t[i], NULL);
	printf("# %d pages of slots held: the cgroup's kernel memory went from %lld to %lld bytes "
	       "(%+lld, %d pages are %d)\n", N, before, after, after - before, N, N * 4096);
	if (before < 0 || after < 0 || atomic_load(&hold_enospc) || atomic_load(&hold_other))
		return 4;
	return after - before >= N * 4096LL * 9 / 10 && after - before <= N * 4096LL * 2 ? 0 : 1;
}

TEST_F_TIMEOUT(slow, task_getshared_charged_to_memcg, 600)
{
	char controllers[256] = "";
	int status;
	pid_t pid;

	if (access(CGROUP_ROOT "/cgroup.controllers", F_OK) &&
	    mount("cgroup2", CGROUP_ROOT, "cgroup2", 0, NULL))
		SKIP(return, "no cgroup2: %s", strerror(errno));
	if (read_file(CGROUP_ROOT "/cgroup.controllers", controllers, sizeof(controllers)) ||
	    !strstr(controllers, "memory"))
		SKIP(return, "no memory controller (CONFIG_MEMCG)");
	ASSERT_EQ(0, write_file(CGROUP_ROOT "/cgroup.subtree_control", "+memory"));
	ASSERT_TRUE(!mkdir(CGROUP_TEST, 0755) || errno == EEXIST);
	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0)
		_exit(memcg_charge_child());
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	rmdir(CGROUP_TEST);
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
}

/*
 * A thread whose slot's page was unmapped gets a fresh slot in a mapped
 * page when it asks again, and the scheduler stops reading the old one: a
 * request left in it is not granted.
 */
TEST_F_TIMEOUT(slow, task_getshared_unmapped_page_gives_fresh_slot, 600)
{
	uint64_t deadline = now_ns() + 60000000000ull;
	struct task_sharedinfo *a, *b;
	struct knob_saved k;
	long long granted0;
	struct noise noise;

	knob_save(&k, "slice_ext_abi");
	ASSERT_EQ(0, knob_set("slice_ext_abi", "task-shared"));
	ASSERT_EQ(0, knob_set("slice_ext_grant", "1"));
	ASSERT_EQ(0, pin_to_cpu(0));
	a = getshared();
	ASSERT_NE(NULL, a);
	a->sched_delay = TASK_PREEMPT_DELAY_REQ;
	ASSERT_EQ(0, munmap((void *)((unsigned long)a & ~4095UL), 4096));
	EXPECT_EQ(0, maps_count("[task_shared]"));

	/* The orphaned request: never granted. */
	granted0 = task_sched_get("slice_ext.nr_granted");
	ASSERT_EQ(0, noise_start(&noise, 2, 0));
	spin_ns(200000000ull);
	noise_stop(&noise);
	EXPECT_EQ(granted0, task_sched_get("slice_ext.nr_granted"));

	b = getshared();
	ASSERT_NE(NULL, b);
	EXPECT_EQ(1, maps_count("[task_shared]"));
	EXPECT_EQ(0, b->sched_delay);
	EXPECT_EQ(b, getshared());
	/* Grants work through it. */
	tls_shared = b;
	ASSERT_EQ(0, noise_start(&noise, 2, 0));
	EXPECT_TRUE(wait_for_grant(ABI_TASK_SHARED, deadline));
	abi_exit(ABI_TASK_SHARED);
	sched_yield();
	noise_stop(&noise);

	/* The same after a MAP_FIXED mapping over the page. */
	ASSERT_NE(MAP_FAILED, mmap((void *)((unsigned long)b & ~4095UL), 4096, PROT_READ | PROT_WRITE,
				   MAP_FIXED | MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
	a = getshared();
	ASSERT_NE(NULL, a);
	EXPECT_NE((unsigned long)b & ~4095UL, (unsigned long)a & ~4095UL);
	EXPECT_EQ(1, maps_count("[task_shared]"));
	a->sched_delay = 0;
	knob_restore(&k);
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
