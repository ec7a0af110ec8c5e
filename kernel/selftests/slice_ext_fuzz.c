// SPDX-License-Identifier: GPL-2.0
/*
 * slice_ext_fuzz: random sequences of every time slice extension ABI's
 * calls, across threads and processes, with random arguments, random
 * writes to the user-visible fields, and the events the review worried
 * about happening during grants: fork, exec, thread exit, munmap/mremap/
 * mprotect of the task_getshared() page, signals, rseq unregistration and
 * re-registration, run-time changes of every knob, membarrier(RSEQ),
 * scheduling policy changes (SCHED_BATCH, SCHED_IDLE, SCHED_FIFO, SCHED_RR,
 * SCHED_DEADLINE, of the thread itself or of a sibling), CPU hotplug, and,
 * in children, seccomp filters, syscall user dispatch and a ptrace tracer
 * that skips calls.
 *
 * The kernel must not oops, warn, leak (kmemleak) or trip lockdep/KASAN,
 * which the guest harness checks on the console. The fuzzer checks one
 * ABI invariant itself: a mainline grant's mark is gone from slice_ctrl
 * once the yield call that ended it returns (a failure fails the run).
 * Operations that may legitimately kill the process (writing rseq's
 * read-only fields under 7.1's rules, clearing the kernel's flag bits
 * before a prctl) run in short-lived children.
 *
 * Seeded and reproducible in the sequence of operations each thread draws
 * (not in their interleaving): -s SEED, printed at the start.
 *
 *   slice_ext_fuzz [-d SECONDS] [-s SEED] [-t THREADS] [-p PROCESSES]
 */
#include "slice_ext_util.h"

#include <linux/membarrier.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/user.h>
#include <sys/wait.h>

#ifndef PR_SET_SYSCALL_USER_DISPATCH
#define PR_SET_SYSCALL_USER_DISPATCH 59
#define PR_SYS_DISPATCH_ON 1
#endif
#ifndef SYSCALL_DISPATCH_FILTER_ALLOW
#define SYSCALL_DISPATCH_FILTER_ALLOW 0
#define SYSCALL_DISPATCH_FILTER_BLOCK 1
#endif
#ifndef SCHED_DEADLINE
#define SCHED_DEADLINE 6
#endif

/* Run time in seconds (-d). */
static unsigned int opt_duration = 20;
/* Base seed (-s); 0: from the clock. */
static uint64_t opt_seed;
/* Worker threads per process (-t). */
static int opt_threads = 4;
/* Fuzzing processes run at once (-p). */
static int opt_procs = 2;

enum op {
	OP_SECTION, OP_WORD, OP_GETSHARED, OP_SHARED_MAP, OP_SHARED_WORD, OP_PRCTL,
	OP_YIELD, OP_FORK, OP_EXEC, OP_THREAD, OP_SIGNAL, OP_KNOB, OP_RSEQ_REG,
	OP_RSEQ_BAD, OP_RISKY, OP_MEMBARRIER, OP_POLICY, OP_HOTPLUG, OP_SECCOMP,
	OP_DISPATCH, OP_PTRACE, NR_OPS,
};

static const char *const op_names[NR_OPS] = {
	"section", "word", "getshared", "shared-map", "shared-word", "prctl",
	"yield", "fork", "exec", "thread-exit", "signal", "knob", "rseq-reregister",
	"rseq-bad-args", "risky-child", "membarrier", "sched-policy", "cpu-hotplug",
	"seccomp-child", "dispatch-child", "ptrace-child",
};

/* Mainline grants whose mark outlived the yield call that ended them. */
static atomic_int marks_left;

/* Per-op counts, shared by every process of the run. */
static uint64_t *op_count;
static volatile sig_atomic_t stop;
static uint64_t deadline;

/* xorshift64*: one stream per thread, from the seed and the thread's index. */
static uint64_t rnd(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 2685821657736338717ull;
}

static uint64_t rnd_below(uint64_t *s, uint64_t n)
{
	return rnd(s) % n;
}

static void count(enum op op)
{
	__atomic_fetch_add(&op_count[op], 1, __ATOMIC_RELAXED);
}

static const char *const abi_knob_values[] = { "none", "rseq-cr", "task-shared", "mainline", "bogus" };
static const char *const knob_names[] = {
	"slice_ext_abi", "slice_ext_grant", "slice_ext_nsec", "slice_ext_rt_policy",
	"rseq_rules",
};

static void op_knob(uint64_t *s)
{
	static const char *const grant[] = { "0", "1", "2", "-1" };
	static const char *const policy[] = { "never-delay-rt", "bounded", "x" };
	static const char *const rules[] = { "7.0", "7.1", "7.2" };
	static const char *const nsec[] = { "1000", "5000", "50000", "1000000", "999", "0", "huge" };
	char buf[32];

	switch (rnd_below(s, 6)) {
	case 0:
		knob_set(knob_names[0], abi_knob_values[rnd_below(s, 5)]);
		break;
	case 1:
		knob_set(knob_names[1], grant[rnd_below(s, 4)]);
		break;
	case 2:
		knob_set(knob_names[2], nsec[rnd_below(s, 7)]);
		break;
	case 3:
		knob_set(knob_names[3], policy[rnd_below(s, 3)]);
		break;
	case 4:
		knob_set(knob_names[4], rules[rnd_below(s, 3)]);
		break;
	default:
		snprintf(buf, sizeof(buf), "%" PRIu64, rnd_below(s, 60000));
		write_file("/sys/kernel/debug/rseq/slice_ext_nsec", buf);
		break;
	}
}

/*
 * Set the thread up for @abi. task-shared asks for its slot every time:
 * another thread may have unmapped its page since.
 */
static int abi_setup(enum abi abi)
{
	if (abi == ABI_TASK_SHARED)
		tls_shared = NULL;
	return abi_thread_setup(abi);
}

/* The thread's view of the ABIs: whatever is live now, set up lazily. */
static enum abi live_abi(void)
{
	char buf[32];

	if (knob_get("slice_ext_abi", buf, sizeof(buf)))
		return ABI_MAINLINE;
	if (!strcmp(buf, "rseq-cr"))
		return ABI_RSEQ_CR;
	if (!strcmp(buf, "task-shared"))
		return ABI_TASK_SHARED;
	return ABI_MAINLINE;
}

static void op_section(uint64_t *s)
{
	enum abi abi = live_abi();
	bool granted;

	if (abi_setup(abi))
		return;
	/* Whatever op_word() left there, the section starts clean. */
	if (abi == ABI_MAINLINE)
		__atomic_store_n(&rseq_area()->slice_ctrl.all, 0, __ATOMIC_RELAXED);
	abi_enter(abi);
	spin_ns(rnd_below(s, 100000));
	granted = abi_exit(abi);
	if (granted)
		abi_yield(abi);
	/*
	 * The invariant: the grant ended in the yield call (or before, in
	 * the kernel), and its mark was cleared before the task ran user
	 * code again. (No new grant can come: the request is withdrawn.)
	 */
	if (abi == ABI_MAINLINE && rseq_area()->slice_ctrl.granted) {
		fprintf(stderr, "# fuzz process %d: slice_ctrl %#x after the grant %s\n",
			getpid(), rseq_area()->slice_ctrl.all,
			granted ? "ended in its yield call" : "was withdrawn");
		atomic_fetch_add(&marks_left, 1);
	}
}

/* A random store into the word at offset 28 of the thread's rseq area. */
static void op_word(uint64_t *s)
{
	volatile uint32_t *w = (volatile uint32_t *)&rseq_area()->slice_ctrl.all;

	switch (rnd_below(s, 4)) {
	case 0:
		*w = (uint32_t)rnd(s);
		break;
	case 1:
		*w = rnd_below(s, 4) << 8 | rnd_below(s, 3);
		break;
	default:
		*w = 0;
		break;
	}
}

/* Is @addr inside a [task_shared] mapping of this process? */
static bool in_task_shared_mapping(void *addr)
{
	unsigned long lo, hi, a = (unsigned long)addr;
	char line[512];
	bool found = false;
	FILE *f = fopen("/proc/self/maps", "r");

	if (!f)
		return true;	/* cannot tell (no memory): do not fail the run */
	while (!found && fgets(line, sizeof(line), f))
		found = sscanf(line, "%lx-%lx", &lo, &hi) == 2 && a >= lo && a < hi &&
			strstr(line, "[task_shared]");
	fclose(f);
	return found;
}

static void *shared_slot(void)
{
	void *addr = NULL;

	if (syscall(__NR_task_getshared, TASK_SHAREDINFO, 0, &addr))
		return NULL;
	return addr;
}

static void op_getshared(uint64_t *s)
{
	void *out = NULL;
	void *uaddr;

	switch (rnd_below(s, 4)) {
	case 0:
		uaddr = NULL;
		break;
	case 1:
		uaddr = (void *)0xffffffff81000000ul;
		break;
	case 2:
		uaddr = (char *)&out + 1;
		break;
	default:
		uaddr = &out;
		break;
	}
	syscall(__NR_task_getshared, (long)rnd_below(s, 3), (long)(rnd_below(s, 4) == 0),
		uaddr);
}

/*
 * Unmap, mremap or mprotect the page of the thread's slot. After an unmap
 * (munmap(), or a MAP_FIXED mapping over it) the kernel gives the thread
 * a fresh slot in a mapped page when it asks again: check that it does.
 * Other threads of the process with a slot in the page find out when they
 * next ask (abi_setup() asks every time); one that stores into the old
 * address in between takes a SIGSEGV, counted as fallout.
 */
/*
 * Held for writing while a thread unmaps or moves a page of slots, and for
 * reading while a thread asks for a fresh slot and checks its address, so
 * that no other thread of the process can unmap the fresh page in between:
 * any miss is then the kernel's (until 2026-12-06 the check tolerated 19
 * misses in a row instead, and a fresh-check run still saw 20).
 */
static pthread_rwlock_t map_lock = PTHREAD_RWLOCK_INITIALIZER;

static void map_lock_prepare(void)
{
	pthread_rwlock_wrlock(&map_lock);
}

static void map_lock_release(void)
{
	pthread_rwlock_unlock(&map_lock);
}

static void op_shared_map(uint64_t *s)
{
	volatile struct task_sharedinfo *fresh;
	void *slot = shared_slot();
	void *page;

	if (!slot)
		return;
	page = (void *)((uintptr_t)slot & ~(uintptr_t)4095);
	switch (rnd_below(s, 5)) {
	case 0:
		pthread_rwlock_wrlock(&map_lock);
		munmap(page, 4096);
		pthread_rwlock_unlock(&map_lock);
		break;
	case 1:
		pthread_rwlock_wrlock(&map_lock);
		mmap(page, 4096, PROT_READ | PROT_WRITE,
		     MAP_FIXED | MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		pthread_rwlock_unlock(&map_lock);
		break;
	case 2:	/* refused by the kernel; were it moved, fill the hole */
		pthread_rwlock_wrlock(&map_lock);
		if (mremap(page, 4096, 8192, MREMAP_MAYMOVE) != MAP_FAILED)
			mmap(page, 4096, PROT_READ | PROT_WRITE,
			     MAP_FIXED | MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		pthread_rwlock_unlock(&map_lock);
		return;
	case 3:
		mprotect(page, 4096, PROT_READ);
		return;
	default:
		mprotect(page, 4096, PROT_NONE);
		mprotect(page, 4096, PROT_READ | PROT_WRITE);
		return;
	}
	tls_shared = NULL;
	pthread_rwlock_rdlock(&map_lock);
	fresh = shared_slot();
	if (fresh && !in_task_shared_mapping((void *)fresh)) {
		fprintf(stderr, "# fuzz process %d: task_getshared() returned %p, not in a [task_shared] mapping\n",
			getpid(), (void *)fresh);
		_exit(1);
	}
	pthread_rwlock_unlock(&map_lock);
	/* NULL: ENOMEM or ENOSPC, the page limit. */
	if (fresh)
		fresh->sched_delay = 0;
}

/* A random value in the thread's sched_delay, writable or not. */
static void op_shared_word(uint64_t *s)
{
	volatile uint16_t *slot = shared_slot();
	void *page = (void *)((uintptr_t)slot & ~(uintptr_t)4095);

	if (!slot || mprotect(page, 4096, PROT_READ | PROT_WRITE))
		return;
	*slot = rnd_below(s, 5);
}

/* A forked child has none of the pages (VM_DONTCOPY), nor a slot. */
static void forget_slot(void)
{
	tls_shared = NULL;
}

static void op_prctl(uint64_t *s)
{
	unsigned long a2 = rnd_below(s, 4), a3 = rnd_below(s, 3);
	unsigned long a4 = rnd_below(s, 8) == 0, a5 = rnd_below(s, 8) == 0;

	prctl(PR_RSEQ_SLICE_EXTENSION, a2, a3, a4, a5);
}

static void op_yield(uint64_t *s)
{
	if (rnd_below(s, 2))
		syscall(__NR_rseq_slice_yield);
	else
		sched_yield();
}

/* A few random harmless operations, for children and short-lived threads. */
static void little_life(uint64_t *s)
{
	for (int i = 0; i < 20; i++) {
		switch (rnd_below(s, 4)) {
		case 0:
			op_section(s);
			break;
		case 1:
			op_word(s);
			break;
		case 2:
			op_yield(s);
			break;
		default:
			op_shared_word(s);
			break;
		}
	}
}

static void reap(pid_t pid)
{
	int status;

	if (pid > 0)
		waitpid(pid, &status, 0);
}

/* fork() from inside a critical section, likely inside a grant. */
static void op_fork(uint64_t *s)
{
	enum abi abi = live_abi();
	pid_t pid;

	if (!abi_setup(abi))
		abi_enter(abi);
	spin_ns(rnd_below(s, 50000));
	pid = fork();
	if (pid == 0) {
		alarm(10);
		little_life(s);
		_exit(0);
	}
	if (abi_exit(abi))
		abi_yield(abi);
	reap(pid);
}

static const char *self_exe = "/proc/self/exe";

/* exec from inside a critical section, in a child. */
static void op_exec(uint64_t *s)
{
	pid_t pid = fork();

	if (pid == 0) {
		enum abi abi = live_abi();
		char seed[32];

		alarm(10);
		if (!abi_setup(abi))
			abi_enter(abi);
		spin_ns(rnd_below(s, 50000));
		snprintf(seed, sizeof(seed), "%" PRIu64, rnd(s));
		execl(self_exe, self_exe, "--exec-child", seed, (char *)NULL);
		_exit(0);
	}
	reap(pid);
}

static void *short_thread(void *arg)
{
	uint64_t s = (uintptr_t)arg | 1;
	enum abi abi = live_abi();

	little_life(&s);
	/* Exit from inside a critical section, likely inside a grant. */
	if (!abi_setup(abi))
		abi_enter(abi);
	spin_ns(rnd_below(&s, 50000));
	if (rnd_below(&s, 2))
		shared_slot();
	return NULL;
}

static void op_thread(uint64_t *s)
{
	pthread_t t;

	if (!pthread_create(&t, NULL, short_thread, (void *)(uintptr_t)rnd(s)))
		pthread_join(t, NULL);
}

static pthread_t *workers;

static void op_signal(uint64_t *s)
{
	/* Not near the end: a worker joined by then is gone. */
	if (now_ns() + 200000000ull < deadline)
		pthread_kill(workers[rnd_below(s, opt_threads)], SIGUSR1);
}

/* Unregister the thread's rseq area and register one again, either kind. */
static void op_rseq_reregister(uint64_t *s)
{
	if (own_rseq_registered) {
		if (rseq_unregister_v2())
			return;
	} else if (__rseq_size) {
		if (rseq_unregister_glibc())
			return;
	}
	if (rnd_below(s, 2)) {
		rseq_register_v2(rnd_below(s, 2) ? RSEQ_FLAG_SLICE_EXT_DEFAULT_ON : 0);
	} else {
		glibc_rseq_area()->cpu_id = RSEQ_CPU_ID_UNINITIALIZED;
		syscall(__NR_rseq, glibc_rseq_area(), __rseq_size > 32 ? __rseq_size : 32,
			rnd_below(s, 2) ? RSEQ_FLAG_SLICE_EXT_DEFAULT_ON : 0, RSEQ_SIG);
	}
}

/* rseq() with random arguments: refused, and nothing changes. */
static void op_rseq_bad(uint64_t *s)
{
	static __thread struct rseq_v2_area spare;
	static const uint32_t lens[] = { 0, 20, 28, 31, 33, 64, 4096 };

	syscall(__NR_rseq, rnd_below(s, 2) ? (void *)&spare : (void *)rnd(s),
		lens[rnd_below(s, 7)], (int)rnd_below(s, 8), RSEQ_SIG);
}

/* membarrier(RSEQ) and friends: aborts and revokes sections process-wide. */
static void op_membarrier(uint64_t *s)
{
	switch (rnd_below(s, 4)) {
	case 0:
		syscall(__NR_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED_RSEQ, 0, 0);
		break;
	case 1:
		syscall(__NR_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED_RSEQ, 0, 0);
		break;
	case 2:
		syscall(__NR_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED_RSEQ,
			MEMBARRIER_CMD_FLAG_CPU, (int)rnd_below(s, 4));
		break;
	default:
		syscall(__NR_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0);
		syscall(__NR_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0);
		break;
	}
}

/* The workers' thread IDs, for policy changes from a sibling. */
static atomic_int *worker_tids;

struct fuzz_sched_attr {
	uint32_t size, policy;
	uint64_t flags;
	int32_t nice;
	uint32_t priority;
	uint64_t runtime, deadline, period;
};

static int set_policy(pid_t tid, uint32_t policy)
{
	struct fuzz_sched_attr a = { .size = sizeof(a), .policy = policy };

	if (policy == SCHED_FIFO || policy == SCHED_RR)
		a.priority = 1;
	if (policy == SCHED_DEADLINE) {
		a.runtime = 200000;
		a.deadline = a.period = 2000000;
	}
	return syscall(__NR_sched_setattr, tid, &a, 0);
}

/*
 * A section under another policy (only fair tasks are extended), or a
 * sibling's policy changed under it for a millisecond, maybe inside its
 * grant. Always back to SCHED_OTHER: a FIFO worker would starve its CPU.
 */
static void op_policy(uint64_t *s)
{
	static const uint32_t policies[] = {
		SCHED_BATCH, SCHED_IDLE, SCHED_FIFO, SCHED_RR, SCHED_DEADLINE, SCHED_OTHER,
	};
	uint32_t policy = policies[rnd_below(s, 6)];
	pid_t tid = 0;

	if (rnd_below(s, 2))
		tid = atomic_load(&worker_tids[rnd_below(s, opt_threads)]);
	if (set_policy(tid, policy))
		return;
	if (tid)
		usleep(1000);
	else
		op_section(s);
	set_policy(tid, SCHED_OTHER);
}

/* A CPU other than 0 offline for up to 20 ms: grants end by migration. */
static void op_hotplug(uint64_t *s)
{
	long n = sysconf(_SC_NPROCESSORS_CONF);
	int cpu;

	if (n < 2)
		return;
	cpu = 1 + (int)rnd_below(s, n - 1);
	if (set_cpu_online(cpu, false))
		return;
	usleep(rnd_below(s, 20000));
	set_cpu_online(cpu, true);
}

/* Bring every CPU back online (a process may have died with one offline). */
static void all_cpus_online(void)
{
	long n = sysconf(_SC_NPROCESSORS_CONF);

	for (int cpu = 1; cpu < n; cpu++)
		set_cpu_online(cpu, true);
}

/* A child under a seccomp filter refusing the yield calls or another call. */
static void op_seccomp(uint64_t *s)
{
	static const long nrs[] = { __NR_rseq_slice_yield, __NR_sched_yield, __NR_getppid };
	pid_t pid = fork();

	if (pid == 0) {
		alarm(10);
		if (install_errno_filter(nrs[rnd_below(s, 3)]))
			_exit(0);
		little_life(s);
		_exit(0);
	}
	reap(pid);
}

/* Syscall user dispatch: the next call, maybe inside a grant, is a SIGSYS. */
static volatile char dispatch_selector = SYSCALL_DISPATCH_FILTER_ALLOW;

static void on_sigsys(int sig)
{
	(void)sig;
	dispatch_selector = SYSCALL_DISPATCH_FILTER_ALLOW;
}

static void op_dispatch(uint64_t *s)
{
	pid_t pid = fork();

	if (pid == 0) {
		struct sigaction sa = { .sa_handler = on_sigsys };

		alarm(10);
		sigaction(SIGSYS, &sa, NULL);
		if (prctl(PR_SET_SYSCALL_USER_DISPATCH, PR_SYS_DISPATCH_ON, 0, 0,
			  &dispatch_selector))
			_exit(0);
		for (int i = 0; i < 20; i++) {
			dispatch_selector = rnd_below(s, 2) ? SYSCALL_DISPATCH_FILTER_BLOCK :
							      SYSCALL_DISPATCH_FILTER_ALLOW;
			little_life(s);
		}
		dispatch_selector = SYSCALL_DISPATCH_FILTER_ALLOW;
		_exit(0);
	}
	reap(pid);
}

/* A traced child: its tracer stops it at every call and skips some. */
static void op_ptrace(uint64_t *s)
{
	pid_t pid = fork();

	if (pid == 0) {
		alarm(10);
		if (ptrace(PTRACE_TRACEME, 0, NULL, NULL))
			_exit(0);
		raise(SIGSTOP);
		little_life(s);
		_exit(0);
	}
	if (pid < 0)
		return;
	for (int stops = 0; stops < 20000; stops++) {
		int status, sig = 0;

		if (waitpid(pid, &status, 0) != pid || !WIFSTOPPED(status))
			return;
		if (WSTOPSIG(status) == SIGTRAP) {
			/* A syscall stop: skip the call one time in four. */
			if (!rnd_below(s, 4))
				ptrace(PTRACE_POKEUSER, pid,
				       (void *)offsetof(struct user, regs.orig_rax), (void *)-1L);
		} else if (WSTOPSIG(status) != SIGSTOP) {
			sig = WSTOPSIG(status);
		}
		if (ptrace(PTRACE_SYSCALL, pid, NULL, (void *)(long)sig))
			break;
	}
	kill(pid, SIGKILL);
	reap(pid);
}

/* Operations that may kill their process, in a child. */
static void op_risky(uint64_t *s)
{
	pid_t pid = fork();

	if (pid == 0) {
		alarm(10);
		little_life(s);
		switch (rnd_below(s, 3)) {
		case 0:	/* read-only fields: SIGSEGV under 7.1's rules (V2) */
			rseq_area()->cpu_id_start = (uint32_t)rnd(s);
			rseq_area()->mm_cid = (uint32_t)rnd(s);
			break;
		case 1:	/* the kernel's flag bits, then the prctl */
			rseq_area()->flags = (uint32_t)rnd(s);
			op_prctl(s);
			break;
		default:
			op_word(s);
			break;
		}
		little_life(s);
		usleep(1000);
		_exit(0);
	}
	reap(pid);
}

static void *worker(void *arg)
{
	uint64_t s = (uintptr_t)arg;

	static atomic_int next_index;

	atomic_store(&worker_tids[atomic_fetch_add(&next_index, 1) % opt_threads], gettid());
	pin_to_cpu(rnd_below(&s, sysconf(_SC_NPROCESSORS_ONLN)));
	while (!stop && now_ns() < deadline) {
		enum op op = rnd_below(&s, NR_OPS);

		/* Knob changes, process ops and hotplug are rarer than the rest. */
		if ((op == OP_KNOB || op == OP_EXEC || op == OP_FORK || op == OP_SECCOMP ||
		     op == OP_DISPATCH || op == OP_PTRACE || op == OP_HOTPLUG) && rnd_below(&s, 4))
			op = OP_SECTION;
		switch (op) {
		case OP_SECTION: op_section(&s); break;
		case OP_WORD: op_word(&s); break;
		case OP_GETSHARED: op_getshared(&s); break;
		case OP_SHARED_MAP: op_shared_map(&s); break;
		case OP_SHARED_WORD: op_shared_word(&s); break;
		case OP_PRCTL: op_prctl(&s); break;
		case OP_YIELD: op_yield(&s); break;
		case OP_FORK: op_fork(&s); break;
		case OP_EXEC: op_exec(&s); break;
		case OP_THREAD: op_thread(&s); break;
		case OP_SIGNAL: op_signal(&s); break;
		case OP_KNOB: op_knob(&s); break;
		case OP_RSEQ_REG: op_rseq_reregister(&s); break;
		case OP_RSEQ_BAD: op_rseq_bad(&s); break;
		case OP_RISKY: op_risky(&s); break;
		case OP_MEMBARRIER: op_membarrier(&s); break;
		case OP_POLICY: op_policy(&s); break;
		case OP_HOTPLUG: op_hotplug(&s); break;
		case OP_SECCOMP: op_seccomp(&s); break;
		case OP_DISPATCH: op_dispatch(&s); break;
		case OP_PTRACE: op_ptrace(&s); break;
		default: break;
		}
		count(op);
	}
	return NULL;
}

static void on_usr1(int sig)
{
	(void)sig;
}

/* The seed of fuzzing process @i of round @round. */
static uint64_t process_seed(uint64_t round, int i)
{
	return opt_seed ^ (round * 131 + i + 1) * 0xbf58476d1ce4e5b9ull;
}

/* One fuzzing process: opt_threads workers, each with its own stream. */
static int fuzz_process(uint64_t seed)
{
	struct sigaction sa = { .sa_handler = on_usr1 };

	sigaction(SIGUSR1, &sa, NULL);
	pthread_atfork(NULL, NULL, forget_slot);
	/* A child starts with the lock free, whoever held it at the fork. */
	pthread_atfork(map_lock_prepare, map_lock_release, map_lock_release);
	workers = calloc(opt_threads, sizeof(*workers));
	worker_tids = calloc(opt_threads, sizeof(*worker_tids));
	if (!workers || !worker_tids) {
		fprintf(stderr, "# fuzz process %d: out of memory\n", getpid());
		return 1;
	}
	for (int i = 0; i < opt_threads; i++) {
		uint64_t s = seed ^ (0x9e3779b97f4a7c15ull * (i + 1));
		int err = pthread_create(&workers[i], NULL, worker, (void *)(uintptr_t)(s | 1));

		if (err) {
			fprintf(stderr, "# fuzz process %d: pthread_create of worker %d: %s\n",
				getpid(), i, strerror(err));
			return 1;
		}
	}
	for (int i = 0; i < opt_threads; i++)
		pthread_join(workers[i], NULL);
	return atomic_load(&marks_left) ? 1 : 0;
}

struct saved_knob {
	char val[32];
	bool ok;
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: slice_ext_fuzz [options]\n"
		"  -d, --duration SECONDS  run time (default %u)\n"
		"  -s, --seed SEED         base seed, 0 for one from the clock (default 0)\n"
		"  -t, --threads N         worker threads per process (default %d)\n"
		"  -p, --processes N       fuzzing processes at once (default %d)\n"
		"  -h, --help              this text\n",
		opt_duration, opt_threads, opt_procs);
}

static bool parse_uint(const char *arg, unsigned long long max, unsigned long long *out)
{
	char *end;

	errno = 0;
	*out = strtoull(arg, &end, 0);
	return !errno && *arg && !*end && *out <= max;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "duration", required_argument, NULL, 'd' },
		{ "seed", required_argument, NULL, 's' },
		{ "threads", required_argument, NULL, 't' },
		{ "processes", required_argument, NULL, 'p' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct saved_knob saved[5], nsec_debugfs;
	unsigned long long v;
	uint64_t total = 0;
	pid_t *pids;
	int c, failed = 0;

	if (argc == 3 && !strcmp(argv[1], "--exec-child")) {
		uint64_t s = strtoull(argv[2], NULL, 0) | 1;

		little_life(&s);
		return 0;
	}
	while ((c = getopt_long(argc, argv, "d:s:t:p:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'd':
			if (!parse_uint(optarg, 86400, &v) || !v)
				goto bad;
			opt_duration = v;
			break;
		case 's':
			if (!parse_uint(optarg, ~0ull, &v))
				goto bad;
			opt_seed = v;
			break;
		case 't':
			if (!parse_uint(optarg, 64, &v) || !v)
				goto bad;
			opt_threads = v;
			break;
		case 'p':
			if (!parse_uint(optarg, 16, &v) || !v)
				goto bad;
			opt_procs = v;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind != argc) {
		fprintf(stderr, "slice_ext_fuzz: unexpected argument '%s'\n", argv[optind]);
		return 2;
	}
	if (!opt_seed)
		opt_seed = now_ns() | 1;

	op_count = mmap(NULL, NR_OPS * sizeof(*op_count), PROT_READ | PROT_WRITE,
			MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	pids = calloc(opt_procs, sizeof(*pids));
	if (op_count == MAP_FAILED || !pids) {
		perror("slice_ext_fuzz");
		return 1;
	}
	for (int i = 0; i < 5; i++)
		saved[i].ok = !knob_get(knob_names[i], saved[i].val, sizeof(saved[i].val));
	nsec_debugfs.ok = !read_file("/sys/kernel/debug/rseq/slice_ext_nsec", nsec_debugfs.val,
				     sizeof(nsec_debugfs.val));

	printf("# slice_ext_fuzz: seed %" PRIu64 ", %u s, %d processes x %d threads\n",
	       opt_seed, opt_duration, opt_procs, opt_threads);
	fflush(stdout);
	deadline = now_ns() + opt_duration * 1000000000ull;
	/* Each process runs for a share of the time, then a new one starts. */
	for (uint64_t round = 0; now_ns() < deadline; round++) {
		for (int i = 0; i < opt_procs; i++) {
			uint64_t seed = process_seed(round, i);

			pids[i] = fork();
			if (pids[i] < 0)
				printf("# round %" PRIu64 ": fork: %s\n", round, strerror(errno));
			if (pids[i] == 0) {
				uint64_t left = deadline - now_ns();

				deadline = now_ns() + (left < 2000000000ull ? left : 2000000000ull);
				_exit(fuzz_process(seed));
			}
		}
		for (int i = 0; i < opt_procs; i++) {
			int status;

			if (pids[i] < 0) {
				failed = 1;
				continue;
			}
			if (waitpid(pids[i], &status, 0) != pids[i]) {
				printf("# round %" PRIu64 ": waitpid %d: %s\n", round, pids[i],
				       strerror(errno));
				failed = 1;
				continue;
			}
			/* A worker may be killed by a risky write of its own (7.1). */
			if (WIFEXITED(status) && WEXITSTATUS(status)) {
				printf("# round %" PRIu64 ": process %d (seed %#" PRIx64 ") exited %d\n",
				       round, pids[i], process_seed(round, i),
				       WEXITSTATUS(status));
				failed = 1;
			}
		}
	}
	all_cpus_online();
	for (int i = 0; i < 5; i++)
		if (saved[i].ok)
			knob_set(knob_names[i], saved[i].val);
	if (nsec_debugfs.ok)
		write_file("/sys/kernel/debug/rseq/slice_ext_nsec", nsec_debugfs.val);

	for (int i = 0; i < NR_OPS; i++) {
		printf("# %-16s %" PRIu64 "\n", op_names[i], op_count[i]);
		total += op_count[i];
	}
	printf("# operations: %" PRIu64 " in all\n", total);
	printf("1..1\n%s 1 fuzz seed %" PRIu64 " ran %u s\n", failed ? "not ok" : "ok",
	       opt_seed, opt_duration);
	return failed;
bad:
	fprintf(stderr, "slice_ext_fuzz: bad value '%s' for -%c\n", optarg, c);
	usage(stderr);
	return 2;
}
