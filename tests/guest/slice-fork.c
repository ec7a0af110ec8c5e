// SPDX-License-Identifier: GPL-2.0
/*
 * slice-fork: lib/slice across fork(), as a pre-forking server uses it. The
 * parent sets the library up and takes a lock, then forks CHILDREN
 * children (one of them from inside a critical section); each child takes
 * extension-aware locks for --duration seconds beside its siblings, all on CPU 0, so
 * the scheduler has to preempt them. Every child must exit 0 (not be killed
 * by a signal) and must have been set up again (the library's set-up
 * failures are 0). Prints one line per child and a summary; exits 0 if all
 * is well, 1 if not, 2 on a usage error.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench.h"
#include "slice.h"

#define PROG "slice-fork"

static int opt_abi = SLICE_ABI_AUTO;	/* --abi */
static long opt_children = 4;		/* --children */
static double opt_seconds = 2;		/* --duration */

struct child_result {
	struct slice_counters c;
	uint64_t setup_failures;
	uint64_t acquisitions;
};

static void run_child(struct child_result *r, bool in_section)
{
	static struct slice_spinlock lock;
	uint64_t end = bench_now_ns() + (uint64_t)(opt_seconds * 1e9);

	if (in_section)
		slice_exit();	/* the section the parent forked in */
	while (bench_now_ns() < end) {
		slice_spin_lock(&lock);
		bench_spin_ns(20000);
		r->acquisitions++;
		slice_spin_unlock(&lock);
		bench_spin_ns(5000);
	}
	slice_counters_get(&r->c);
	r->setup_failures = slice_setup_failures();
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "abi", required_argument, NULL, 'a' },
		{ "children", required_argument, NULL, 'c' },
		{ "duration", required_argument, NULL, 'd' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct child_result *res;
	struct slice_spinlock lock = { 0 };
	char err[256];
	cpu_set_t cpu0;
	int c, bad = 0;
	uint64_t grants = 0;

	while ((c = getopt_long(argc, argv, "a:c:d:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'a': opt_abi = bench_parse_abi(PROG, optarg); break;
		case 'c': opt_children = bench_parse_long(PROG, "--children", optarg, 1, 64); break;
		case 'd': opt_seconds = bench_parse_double(PROG, "--duration", optarg, 0.1, 60); break;
		case 'h':
			printf("usage: " PROG " [--abi ABI] [--children N (4)] [--duration S (2)]\n");
			return 0;
		default: return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, PROG ": unexpected argument '%s'\n", argv[optind]);
		return 2;
	}
	if (slice_init(opt_abi, err, sizeof(err))) {
		fprintf(stderr, PROG ": %s\n", err);
		return 1;
	}
	CPU_ZERO(&cpu0);
	CPU_SET(0, &cpu0);
	sched_setaffinity(0, sizeof(cpu0), &cpu0);
	res = mmap(NULL, opt_children * sizeof(*res), PROT_READ | PROT_WRITE,
		   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (res == MAP_FAILED) {
		perror(PROG ": mmap");
		return 1;
	}
	memset(res, 0, opt_children * sizeof(*res));
	/* The parent uses the library before it forks. */
	slice_spin_lock(&lock);
	slice_spin_unlock(&lock);

	for (long i = 0; i < opt_children; i++) {
		bool in_section = i == 0;
		pid_t pid;

		if (in_section)
			slice_enter();
		pid = fork();
		if (pid < 0) {
			perror(PROG ": fork");
			return 1;
		}
		if (pid == 0) {
			run_child(&res[i], in_section);
			_exit(0);
		}
		if (in_section)
			slice_exit();
	}
	for (long i = 0; i < opt_children; i++) {
		int status;
		pid_t pid = wait(&status);

		if (pid < 0) {
			perror(PROG ": wait");
			return 1;
		}
		if (!WIFEXITED(status) || WEXITSTATUS(status)) {
			printf("a child %s %d\n", WIFSIGNALED(status) ? "was killed by signal" : "exited",
			       WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
			bad++;
		}
	}
	for (long i = 0; i < opt_children; i++) {
		struct child_result *r = &res[i];

		printf("child %ld: %llu acquisitions, %llu sections, %llu grants, %llu yields, %llu set-up failures\n",
		       i, (unsigned long long)r->acquisitions, (unsigned long long)r->c.sections,
		       (unsigned long long)r->c.grants, (unsigned long long)r->c.yields,
		       (unsigned long long)r->setup_failures);
		grants += r->c.grants;
		if (!r->acquisitions || r->setup_failures)
			bad++;
	}
	printf(PROG ": %s, %ld children, %s, %llu grants in the children\n",
	       slice_abi_name(slice_current_abi()), opt_children, bad ? "FAILED" : "all ok",
	       (unsigned long long)grants);
	return bad ? 1 : 0;
}
