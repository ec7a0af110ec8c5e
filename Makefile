# slicebench
#
#   make           build the kernel, the lockstep QEMU, the project's programs
#                  and the guest image
#   make check     install what is missing, build, run every test suite;
#                  the last line is "N passed, N failed"
#   make check-host  the suites that need no kernel or guest (a few minutes)
#   make clean     remove the project's programs and the image (keeps the
#                  kernel trees and objects; `rm -rf build` removes all)

SHELL := /bin/bash
BUILD ?= build

CC ?= gcc
CFLAGS ?= -O2 -g
SB_CFLAGS := -std=gnu11 -Wall -Wextra -Wno-unused-parameter -pthread $(CFLAGS)

# Programs for the guest are linked statically: the initramfs has no libc.
GUEST_BIN := $(BUILD)/guest-payload/usr/local/bin
# Programs that run on the host.
HOST_BIN := $(BUILD)/bin

# name:source pairs of single-file guest programs.
GUEST_PROGS := \
	all-cpus-load:tests/guest/all-cpus-load.c \
	rt-after:guest-image/rt-after.c

# The patched kernel: its uapi headers (the series' ABIs) and the kernel's
# kselftest harness, for the in-guest selftests in kernel/selftests/.
KERNEL_OUT := $(BUILD)/kernel/slicebench
KHDR := $(KERNEL_OUT)/headers/include
KSELFTEST := $(BUILD)/kernel/src-patched/tools/testing/selftests
SELFTESTS := slice_ext_test slice_ext_abi_test slice_ext_sched_test slice_ext_fuzz
# -Wno-clobbered: kselftest_harness.h's TEST_F wrapper reads `child` after
# a longjmp; gcc 12 warns when it inlines a long test body into it. The
# variable is not written between setjmp and longjmp: a false positive.
SELFTEST_CFLAGS := -isystem $(KHDR) -I $(KSELFTEST) -I kernel/selftests -Wno-sign-compare \
	-Wno-clobbered

# Scripts for the guest (busybox sh), installed as they are.
GUEST_SCRIPTS := guest-image/guest-environment guest-image/sweep-runner guest-image/run-rseq-selftests \
	bench/locktable/grant-trace bench/latency-probe/latency-run bench/lock-cost/hyperfine-abis \
	bench/postgres/pg-run-once

# 6.12's own rseq selftests, from the patched tree, unchanged, linked
# statically (the guest has no libc): rseq-NAME in the guest. The _mm_cid
# variants are the same sources built with -DBUILDOPT_RSEQ_PERCPU_MM_CID,
# as their Makefile does.
RSEQ_SELFTESTS := basic_test basic_percpu_ops_test basic_percpu_ops_mm_cid_test param_test \
	param_test_mm_cid
RSEQ_ST := $(KSELFTEST)/rseq

# The benchmarks on lib/: each is bench/NAME/NAME.c, built for the guest
# (static) and for the host (where they run with the ABI "none").
BENCH_PROGS := locktable extend-sched lock-cost latency-probe unused-cost sleep-overshoot smp-probe

guest_targets := $(foreach p,$(GUEST_PROGS),$(GUEST_BIN)/$(firstword $(subst :, ,$(p)))) \
	$(foreach s,$(GUEST_SCRIPTS),$(GUEST_BIN)/$(notdir $(s))) \
	$(addprefix $(GUEST_BIN)/,$(SELFTESTS)) \
	$(addprefix $(GUEST_BIN)/,$(BENCH_PROGS)) $(GUEST_BIN)/swingbench-lite \
	$(BUILD)/slice-abi-checked $(GUEST_BIN)/slice-fork \
	$(addprefix $(GUEST_BIN)/rseq-,$(RSEQ_SELFTESTS))

# The extension-aware locking library and the benchmarks' common code, and
# their host unit tests.
LIB_SRC := lib/slice.c lib/bench.c
LIB_HDR := lib/slice.h lib/bench.h
HOST_PROGS := $(HOST_BIN)/slice_test $(HOST_BIN)/bench_test \
	$(addprefix $(HOST_BIN)/,$(BENCH_PROGS)) $(HOST_BIN)/swingbench-lite $(HOST_BIN)/pcache_test

.PHONY: all deps kernel qemu programs image check check-host check-debug clean

all: kernel qemu image $(HOST_PROGS)

$(HOST_BIN)/%: lib/tests/%.c $(LIB_SRC) $(LIB_HDR) | $(HOST_BIN)
	$(CC) $(SB_CFLAGS) -I lib -o $@ $< $(LIB_SRC) -lm

define bench_rules
$(HOST_BIN)/$(1): bench/$(1)/$(1).c $(LIB_SRC) $(LIB_HDR) | $(HOST_BIN)
	$$(CC) $$(SB_CFLAGS) -I lib -o $$@ $$< $(LIB_SRC) -lm
$(GUEST_BIN)/$(1): bench/$(1)/$(1).c $(LIB_SRC) $(LIB_HDR) | $(GUEST_BIN)
	$$(CC) $$(SB_CFLAGS) -I lib -static -o $$@ $$< $(LIB_SRC) -lm
endef
$(foreach b,$(BENCH_PROGS),$(eval $(call bench_rules,$(b))))

# The library across fork(), in the guest (tests/bench-guest.t).
$(GUEST_BIN)/slice-fork: tests/guest/slice-fork.c $(LIB_SRC) $(LIB_HDR) | $(GUEST_BIN)
	$(CC) $(SB_CFLAGS) -I lib -static -o $@ $< $(LIB_SRC) -lm

# swingbench-lite: SQLite always; PostgreSQL (libpq) on the host only, as
# the guest has no server and libpq does not link statically without its
# own dependencies.
SBL_SRC := $(wildcard bench/swingbench-lite/*.c)
SBL_HDR := $(wildcard bench/swingbench-lite/*.h)
SBL_CFLAGS := -I lib -I bench/swingbench-lite
$(HOST_BIN)/swingbench-lite: $(SBL_SRC) $(SBL_HDR) $(LIB_SRC) $(LIB_HDR) | $(HOST_BIN)
	$(CC) $(SB_CFLAGS) $(SBL_CFLAGS) -DHAVE_LIBPQ -I $$(pg_config --includedir) -o $@ \
		$(SBL_SRC) $(LIB_SRC) -lsqlite3 -lpq -lm
# The page cache's contract tests (tests/swingbench-host.t).
$(HOST_BIN)/pcache_test: bench/swingbench-lite/tests/pcache_test.c bench/swingbench-lite/pcache.c \
		bench/swingbench-lite/sqlite_mutex.c $(SBL_HDR) $(LIB_SRC) $(LIB_HDR) | $(HOST_BIN)
	$(CC) $(SB_CFLAGS) $(SBL_CFLAGS) -o $@ $< bench/swingbench-lite/pcache.c \
		bench/swingbench-lite/sqlite_mutex.c $(LIB_SRC) -lsqlite3 -lm
$(GUEST_BIN)/swingbench-lite: $(filter-out %/db_pg.c,$(SBL_SRC)) $(SBL_HDR) $(LIB_SRC) $(LIB_HDR) | $(GUEST_BIN)
	rm -f $@; $(CC) $(SB_CFLAGS) $(SBL_CFLAGS) -static -o $@ $(filter-out %/db_pg.c,$(SBL_SRC)) \
		$(LIB_SRC) -lsqlite3 -lm 2>&1 | { grep -v -e "Using 'dlopen' in statically linked" \
		-e 'in function .unixDlOpen.' || true; }; test -x $@

# PostgreSQL with extension-aware spinlocks (bench/postgres/, issue 25):
# `make postgres` builds the server from Debian's source (cached, about 7
# minutes cold) and pg-run for the host; `make postgres-image` a guest
# image that carries both (tests/postgres.t, run-all's postgres benchmark).
# Not part of `all`; `make check` builds it.
PG_PREFIX := $(BUILD)/postgres/install/opt/slicebench-pg
$(HOST_BIN)/pg-run: bench/postgres/pg-run.c $(LIB_SRC) $(LIB_HDR) | $(HOST_BIN)
	$(CC) $(SB_CFLAGS) -I lib -o $@ $< $(LIB_SRC) -lm
$(GUEST_BIN)/pg-run: bench/postgres/pg-run.c $(LIB_SRC) $(LIB_HDR) | $(GUEST_BIN)
	$(CC) $(SB_CFLAGS) -I lib -static -o $@ $< $(LIB_SRC) -lm
.PHONY: postgres postgres-image
postgres: $(HOST_BIN)/pg-run
	@bench/postgres/build
postgres-image: postgres programs $(GUEST_BIN)/pg-run
	@guest-image/build-initramfs --payload $(BUILD)/guest-payload --postgres $(PG_PREFIX) \
		-o $(BUILD)/initramfs-postgres.cpio.gz

deps:
	@tools/install-deps

kernel:
	@kernel/build

# The precise testbed's QEMU: Debian's source with qemu/series (lockstep).
qemu:
	@qemu/build

programs: $(guest_targets)

define guest_prog_rule
$(GUEST_BIN)/$(1): $(2) | $(GUEST_BIN)
	$$(CC) $$(SB_CFLAGS) -static -o $$@ $$< $$(LDLIBS)
endef
$(foreach p,$(GUEST_PROGS),$(eval $(call guest_prog_rule,$(firstword $(subst :, ,$(p))),$(lastword $(subst :, ,$(p))))))

# kernel/build writes the stamp last, after the headers.
$(KERNEL_OUT)/stamp:
	@kernel/build

# lib/slice.h's copy of the kernel protocol against the uapi headers the
# kernel build installed: a mismatch is a compile error.
$(BUILD)/slice-abi-checked: lib/slice_abi_check.c lib/slice.h $(KERNEL_OUT)/stamp
	$(CC) -std=gnu11 -fsyntax-only -isystem $(KHDR) -I lib $<
	touch $@

$(GUEST_BIN)/%: kernel/selftests/%.c kernel/selftests/slice_ext_util.h $(KERNEL_OUT)/stamp | $(GUEST_BIN)
	$(CC) $(SB_CFLAGS) $(SELFTEST_CFLAGS) -static -o $@ $< $(LDLIBS)

$(GUEST_BIN)/rseq-%: $(KERNEL_OUT)/stamp | $(GUEST_BIN)
	$(CC) -O2 -g -static -I $(RSEQ_ST) -I $(KSELFTEST)/../../include -isystem $(KHDR) \
		$(if $(findstring mm_cid,$*),-DBUILDOPT_RSEQ_PERCPU_MM_CID) \
		-o $@ $(RSEQ_ST)/$(subst _mm_cid,,$*).c $(RSEQ_ST)/rseq.c -lpthread -ldl

$(GUEST_BIN)/%: guest-image/% | $(GUEST_BIN)
	install -m 0755 $< $@

# A benchmark's own guest scripts (bench/NAME/, named in GUEST_SCRIPTS).
$(foreach s,$(filter bench/%,$(GUEST_SCRIPTS)),$(eval $(GUEST_BIN)/$(notdir $(s)): $(s) | $(GUEST_BIN) ; install -m 0755 $$< $$@))

$(GUEST_BIN) $(HOST_BIN):
	mkdir -p $@

image: programs
	@guest-image/build-initramfs --payload $(BUILD)/guest-payload -o $(BUILD)/initramfs.cpio.gz

check: deps
	@$(MAKE) --no-print-directory all postgres-image
	@tests/run

# The suites that need nothing but the host (tests/run --host: the
# planner, the report, the statistics, the linters, the library and the
# benchmarks on the host): no kernel, no guest image.
check-host: deps
	@$(MAKE) --no-print-directory $(HOST_PROGS)
	@tests/run --host -j $$(nproc)

# The kernel selftests on the debug flavour (lockdep, KASAN, kmemleak). Not
# part of make check: the debug kernel builds and runs far slower.
# The debug kernel under TCG spends tens of seconds in boot-time device
# probing with no preemption point under preempt=none: RCU's 21 s stall
# warning fired there once (CPU 1 in ACPI probing with kmemleak tracking,
# before any test ran), so its boots get a 120 s stall timeout.
check-debug: deps
	@$(MAKE) --no-print-directory all
	@kernel/build --debug
	@SLICEBENCH_FUZZ_SECONDS=600 SLICEBENCH_RSEQ_SELFTESTS=0 \
		SLICEBENCH_APPEND=rcupdate.rcu_cpu_stall_timeout=120 SLICEBENCH_KERNEL=$$(kernel/build --debug --print-image) tests/run tests/kernel-selftests.t

clean:
	rm -rf $(BUILD)/guest-payload $(BUILD)/bin $(BUILD)/initramfs.cpio.gz*
