// SPDX-License-Identifier: GPL-2.0
/*
 * slice_abi_check.c: the library's copy of the kernel protocol (slice.h's
 * SLICE__* offsets, numbers and flag bits) against the uapi headers of the
 * kernel the build made. Compiled, never linked: a mismatch fails the build.
 */
#include <stddef.h>

#define offsetofend(t, m) (offsetof(t, m) + sizeof(((t *)0)->m))
#include <asm/unistd.h>
#include <linux/prctl.h>
#include <linux/rseq.h>
#include <linux/task_shared.h>

#include "slice.h"

#define SAME(a, b) _Static_assert((a) == (b), #a " is not " #b " in the kernel's uapi headers")

SAME(SLICE__WORD_OFFSET, offsetof(struct rseq, cr_counter));
SAME(SLICE__WORD_OFFSET, offsetof(struct rseq, slice_ctrl));
SAME(0, offsetof(struct rseq_slice_ctrl, request));
SAME(1, offsetof(struct rseq_slice_ctrl, granted));
SAME(SLICE__RSEQ_FLAGS_OFFSET, offsetof(struct rseq, flags));
SAME(SLICE__RSEQ_CR_GRANTED, RSEQ_CR_FLAG_KERNEL_REQUEST_SCHED);
SAME(SLICE__RSEQ_FLAG_SLICE_EXT_AVAILABLE, RSEQ_CS_FLAG_SLICE_EXT_AVAILABLE);
SAME(SLICE__TASK_SHARED_REQ, TASK_PREEMPT_DELAY_REQ);
SAME(SLICE__TASK_SHARED_GRANTED, TASK_PREEMPT_DELAY_GRANTED);
SAME(SLICE__TASK_SHARED_DENIED, TASK_PREEMPT_DELAY_DENIED);
SAME(0, offsetof(struct task_sharedinfo, sched_delay));
SAME(SLICE__TASK_SHAREDINFO, TASK_SHAREDINFO);
SAME(SLICE__NR_TASK_GETSHARED, __NR_task_getshared);
SAME(SLICE__NR_RSEQ_SLICE_YIELD, __NR_rseq_slice_yield);
SAME(SLICE__PR_RSEQ_SLICE_EXTENSION, PR_RSEQ_SLICE_EXTENSION);
SAME(SLICE__PR_RSEQ_SLICE_EXTENSION_SET, PR_RSEQ_SLICE_EXTENSION_SET);
SAME(SLICE__PR_RSEQ_SLICE_EXT_ENABLE, PR_RSEQ_SLICE_EXT_ENABLE);
SAME(SLICE__RSEQ_FLAG_UNREGISTER, RSEQ_FLAG_UNREGISTER);
SAME(SLICE__RSEQ_ORIG_SIZE, offsetofend(struct rseq, slice_ctrl));
/* Linux 7.0's layout: feature size 33, so own V2 areas need 64 bytes, 64-aligned. */
SAME(33, offsetof(struct rseq, end));
