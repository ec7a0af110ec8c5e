/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers for the time slice extension selftests: the knobs, the counters,
 * the three ABIs as user space sees them, and CPU pressure.
 */
#ifndef SLICE_EXT_UTIL_H
#define SLICE_EXT_UTIL_H

#define _GNU_SOURCE
#include <errno.h>
#include <linux/filter.h>
#include <linux/prctl.h>
#include <linux/rseq.h>
#include <linux/seccomp.h>
#include <linux/task_shared.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/rseq.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#ifndef __NR_task_getshared
#define __NR_task_getshared 511
#endif
#ifndef __NR_rseq_slice_yield
#define __NR_rseq_slice_yield 471
#endif

#define KNOB_DIR "/proc/sys/kernel/"
#define STATS_FILE "/sys/kernel/debug/slice_ext/stats"

static inline int write_file(const char *path, const char *val)
{
	FILE *f = fopen(path, "w");
	int ret;

	if (!f)
		return -errno;
	ret = fputs(val, f) < 0 ? -EIO : 0;
	if (fclose(f) && !ret)
		ret = -errno;
	return ret;
}

static inline int read_file(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f)
		return -errno;
	n = fread(buf, 1, len - 1, f);
	buf[n] = '\0';
	fclose(f);
	while (n && buf[n - 1] == '\n')
		buf[--n] = '\0';
	return 0;
}

static inline int knob_set(const char *name, const char *val)
{
	char path[128];

	snprintf(path, sizeof(path), KNOB_DIR "%s", name);
	return write_file(path, val);
}

static inline int knob_get(const char *name, char *buf, size_t len)
{
	char path[128];

	snprintf(path, sizeof(path), KNOB_DIR "%s", name);
	return read_file(path, buf, len);
}

/* The kernel's system-wide counter NAME (e.g. "granted", "mainline.yielded"). */
static inline long long stat_get(const char *name)
{
	char line[128], key[96];
	long long val, ret = -1;
	FILE *f = fopen(STATS_FILE, "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%95s %lld", key, &val) == 2 && !strcmp(key, name))
			ret = val;
	fclose(f);
	return ret;
}

/* Field NAME of /proc/self/task/TID/sched for the calling thread, or -1. */
static inline long long task_sched_get(const char *name)
{
	char path[96], line[256];
	long long ret = -1;
	size_t nlen = strlen(name);
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/task/%d/sched", gettid());
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		char *p = line;

		while (*p == ' ')
			p++;
		if (!strncmp(p, name, nlen) && (p[nlen] == ' ' || p[nlen] == ':')) {
			p = strchr(p, ':');
			if (p)
				ret = strtoll(p + 1, NULL, 10);
		}
	}
	fclose(f);
	return ret;
}

static inline uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/* Busy-wait, without system calls (the vDSO clock is not a syscall). */
static inline void spin_ns(uint64_t ns)
{
	uint64_t end = now_ns() + ns;

	while (now_ns() < end)
		__asm__ __volatile__("pause" ::: "memory");
}

static inline int pin_to_cpu(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set);
}

/* Start @fn(@arg) on @cpu, as SCHED_FIFO priority @fifo_prio if not 0. */
static inline int start_pinned(pthread_t *tid, int cpu, int fifo_prio,
			       void *(*fn)(void *), void *arg)
{
	struct sched_param sp = { .sched_priority = fifo_prio };
	pthread_attr_t attr;
	cpu_set_t set;
	int err;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	pthread_attr_init(&attr);
	pthread_attr_setaffinity_np(&attr, sizeof(set), &set);
	if (fifo_prio) {
		pthread_attr_setinheritsched(&attr, PTHREAD_EXPLICIT_SCHED);
		pthread_attr_setschedpolicy(&attr, SCHED_FIFO);
		pthread_attr_setschedparam(&attr, &sp);
	}
	err = pthread_create(tid, &attr, fn, arg);
	pthread_attr_destroy(&attr);
	return err ? -1 : 0;
}

/* Take @cpu offline or bring it back; 0 or -errno. */
static inline int set_cpu_online(int cpu, bool online)
{
	char path[64];

	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/online", cpu);
	return write_file(path, online ? "1" : "0");
}

/*
 * A seccomp filter that refuses system call @nr with EPERM and allows the
 * rest (after PR_SET_NO_NEW_PRIVS); for this thread and its children.
 */
static inline int install_errno_filter(long nr)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, nr, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { .len = sizeof(f) / sizeof(f[0]), .filter = f };

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		return -1;
	return syscall(__NR_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog);
}

/* ---- the ABIs, as user space uses them ------------------------------------ */

#ifndef RSEQ_SIG
#define RSEQ_SIG 0x53053053
#endif
#ifndef ENOTSUPP
#define ENOTSUPP 524
#endif

/* glibc's registered rseq area (32 bytes with glibc before 2.41). */
static inline struct rseq *glibc_rseq_area(void)
{
	return (struct rseq *)((char *)__builtin_thread_pointer() + __rseq_offset);
}

/* A thread's own rseq area, longer than 32 bytes: "RSEQ V2" (7.0.10, 7.1). */
struct rseq_v2_area {
	struct rseq r;
	char pad[32];
} __attribute__((aligned(64)));

static __thread struct rseq_v2_area own_rseq;
static __thread bool own_rseq_registered;

/* The calling thread's rseq area: its own once registered, else glibc's. */
static inline struct rseq *rseq_area(void)
{
	return own_rseq_registered ? &own_rseq.r : glibc_rseq_area();
}

/* Unregister glibc's rseq area for the calling thread. */
static inline int rseq_unregister_glibc(void)
{
	return syscall(__NR_rseq, glibc_rseq_area(), __rseq_size > 32 ? __rseq_size : 32,
		       RSEQ_FLAG_UNREGISTER, RSEQ_SIG);
}

/* Move the calling thread to its own 64-byte registration; 0 or -errno. */
static inline int rseq_register_v2(int flags)
{
	if (own_rseq_registered)
		return 0;
	/* glibc registers no new thread once its creator left glibc's area. */
	if (__rseq_size && rseq_unregister_glibc() && errno != EINVAL)
		return -errno;
	memset(&own_rseq, 0, sizeof(own_rseq));
	own_rseq.r.cpu_id = RSEQ_CPU_ID_UNINITIALIZED;
	if (syscall(__NR_rseq, &own_rseq, sizeof(own_rseq), flags, RSEQ_SIG))
		return -errno;
	own_rseq_registered = true;
	return 0;
}

static inline int rseq_unregister_v2(void)
{
	if (syscall(__NR_rseq, &own_rseq, sizeof(own_rseq), RSEQ_FLAG_UNREGISTER, RSEQ_SIG))
		return -errno;
	own_rseq_registered = false;
	return 0;
}

enum abi { ABI_RSEQ_CR, ABI_TASK_SHARED, ABI_MAINLINE };

static const char *const abi_names[] = {
	[ABI_RSEQ_CR] = "rseq-cr",
	[ABI_TASK_SHARED] = "task-shared",
	[ABI_MAINLINE] = "mainline",
};

static __thread struct task_sharedinfo *tls_shared;

/* Per-thread set-up; 0 or -errno. */
static inline int abi_thread_setup(enum abi abi)
{
	switch (abi) {
	case ABI_RSEQ_CR:
		return __rseq_size ? 0 : -ENOSYS;
	case ABI_TASK_SHARED:
		if (tls_shared)
			return 0;
		return syscall(__NR_task_getshared, TASK_SHAREDINFO, 0, &tls_shared) ? -errno : 0;
	case ABI_MAINLINE:
		/*
		 * Under Linux 7.1's rules (the default) glibc's 32-byte
		 * registration is refused with ENOTSUPP: use an own one.
		 */
		if (!prctl(PR_RSEQ_SLICE_EXTENSION, PR_RSEQ_SLICE_EXTENSION_SET,
			   PR_RSEQ_SLICE_EXT_ENABLE, 0, 0))
			return 0;
		if ((errno != ENOTSUPP && errno != ENXIO) || own_rseq_registered)
			return -errno;
		if (rseq_register_v2(0))
			return -errno;
		return prctl(PR_RSEQ_SLICE_EXTENSION, PR_RSEQ_SLICE_EXTENSION_SET,
			     PR_RSEQ_SLICE_EXT_ENABLE, 0, 0) ? -errno : 0;
	}
	return -EINVAL;
}

static inline void abi_enter(enum abi abi)
{
	switch (abi) {
	case ABI_RSEQ_CR:
		__asm__ __volatile__("addl $2, %0" : "+m"(rseq_area()->cr_counter) :: "memory");
		break;
	case ABI_TASK_SHARED:
		tls_shared->sched_delay = TASK_PREEMPT_DELAY_REQ;
		break;
	case ABI_MAINLINE:
		__atomic_store_n(&rseq_area()->slice_ctrl.request, 1, __ATOMIC_RELAXED);
		__asm__ __volatile__("" ::: "memory");
		break;
	}
}

/* Leave the critical section; true if the kernel said it extended us. */
static inline bool abi_exit(enum abi abi)
{
	bool granted = false;

	switch (abi) {
	case ABI_RSEQ_CR:
		__asm__ __volatile__("subl $2, %0" : "+m"(rseq_area()->cr_counter) :: "memory");
		granted = __atomic_load_n(&rseq_area()->cr_counter, __ATOMIC_RELAXED) &
			  RSEQ_CR_FLAG_KERNEL_REQUEST_SCHED;
		break;
	case ABI_TASK_SHARED:
		/*
		 * Take the request back and read the answer in one instruction,
		 * so a grant made just now is not lost.
		 */
		granted = __atomic_exchange_n(&tls_shared->sched_delay, 0, __ATOMIC_RELAXED) ==
			  TASK_PREEMPT_DELAY_GRANTED;
		break;
	case ABI_MAINLINE:
		__asm__ __volatile__("" ::: "memory");
		__atomic_store_n(&rseq_area()->slice_ctrl.request, 0, __ATOMIC_RELAXED);
		__asm__ __volatile__("" ::: "memory");
		granted = __atomic_load_n(&rseq_area()->slice_ctrl.granted, __ATOMIC_RELAXED);
		break;
	}
	return granted;
}

/* Does the ABI's user-visible state still show a grant? */
static inline bool abi_shows_grant(enum abi abi)
{
	switch (abi) {
	case ABI_RSEQ_CR:
		return rseq_area()->cr_counter & RSEQ_CR_FLAG_KERNEL_REQUEST_SCHED;
	case ABI_TASK_SHARED:
		return tls_shared->sched_delay == TASK_PREEMPT_DELAY_GRANTED;
	case ABI_MAINLINE:
		return rseq_area()->slice_ctrl.granted;
	}
	return false;
}

/* The ABI's yield call; returns the syscall's result. */
static inline long abi_yield(enum abi abi)
{
	if (abi == ABI_MAINLINE)
		return syscall(__NR_rseq_slice_yield);
	return sched_yield();
}

/* ---- CPU pressure ----------------------------------------------------------- */

struct noise {
	pthread_t tid[8];
	int n;
	atomic_int stop;
};

/* A CPU hog pinned to the CPU of its creator. */
static void *noise_main(void *arg)
{
	struct noise *noise = arg;

	while (!atomic_load_explicit(&noise->stop, memory_order_relaxed))
		__asm__ __volatile__("pause" ::: "memory");
	return NULL;
}

/* Start N hogs on @cpu. */
static inline int noise_start(struct noise *noise, int n, int cpu)
{
	pthread_attr_t attr;
	cpu_set_t set;

	memset(noise, 0, sizeof(*noise));
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	pthread_attr_init(&attr);
	pthread_attr_setaffinity_np(&attr, sizeof(set), &set);
	for (noise->n = 0; noise->n < n; noise->n++)
		if (pthread_create(&noise->tid[noise->n], &attr, noise_main, noise))
			return -1;
	pthread_attr_destroy(&attr);
	return 0;
}

static inline void noise_stop(struct noise *noise)
{
	atomic_store(&noise->stop, 1);
	for (int i = 0; i < noise->n; i++)
		pthread_join(noise->tid[i], NULL);
}

#endif /* SLICE_EXT_UTIL_H */
