/*-------------------------------------------------------------------------
 *
 * slicebench_pg.c
 *	  The postmaster's choice of time-slice-extension ABI, and each
 *	  process's counts at exit. Copied into src/backend/storage/lmgr/ by
 *	  bench/postgres/build.
 *
 * SLICEBENCH_ABI (environment): none (default), auto, rseq-cr,
 * task-shared or mainline. A name lib/ does not know, or an ABI the
 * running kernel does not offer, stops the postmaster with an error.
 *
 * SLICEBENCH_PG_HOLD_US (environment): a test hook, 0 to 1000 (default 0):
 * every section is held that much longer (slicebench_pg.h).
 *
 * SLICEBENCH_PG_COUNTERS (environment): a file; the postmaster and every
 * process it forks append one line to it at exit (an atexit() handler
 * registered before the first fork):
 *
 *   pid=P type=T spin=A/C bufhdr=A/C sections=S grants=G yields=Y
 *   denied=D depth=N setup_failures=F
 *
 * A/C: sections entered and contended acquisitions per lock class;
 * S, G, Y, D: lib/'s counts (slice_counters_get()); N: the section depth
 * at exit, which is 0 unless a lock path entered without leaving.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <fcntl.h>
#include <time.h>
#include <unistd.h>

#include "miscadmin.h"
#include "storage/slicebench_pg.h"

SlicebenchPgCounts slicebench_pg_counts[SLICEBENCH_PG_NR_CLASSES];
int			slicebench_pg_hold_us;

void
slicebench_pg_hold(void)
{
	struct timespec start,
				now;

	clock_gettime(CLOCK_MONOTONIC, &start);
	do
		clock_gettime(CLOCK_MONOTONIC, &now);
	while ((now.tv_sec - start.tv_sec) * 1000000L +
		   (now.tv_nsec - start.tv_nsec) / 1000 < slicebench_pg_hold_us);
}

static void
slicebench_pg_report(void)
{
	const char *path = getenv("SLICEBENCH_PG_COUNTERS");
	struct slice_counters c;
	char		line[512];
	int			fd,
				len;

	if (path == NULL || *path == '\0')
		return;
	slice_counters_get(&c);
	len = snprintf(line, sizeof(line),
				   "pid=%d type=%s spin=" UINT64_FORMAT "/" UINT64_FORMAT
				   " bufhdr=" UINT64_FORMAT "/" UINT64_FORMAT
				   " sections=%llu grants=%llu yields=%llu denied=%llu"
				   " depth=%u setup_failures=%llu\n",
				   (int) getpid(), GetBackendTypeDesc(MyBackendType),
				   slicebench_pg_counts[SLICEBENCH_PG_SPIN].acquired,
				   slicebench_pg_counts[SLICEBENCH_PG_SPIN].contended,
				   slicebench_pg_counts[SLICEBENCH_PG_BUFHDR].acquired,
				   slicebench_pg_counts[SLICEBENCH_PG_BUFHDR].contended,
				   (unsigned long long) c.sections,
				   (unsigned long long) c.grants,
				   (unsigned long long) c.yields,
				   (unsigned long long) c.denied,
				   slice__self.depth,
				   (unsigned long long) slice_setup_failures());
	if (len <= 0 || len >= (int) sizeof(line))
		return;
	/* One write of a short line with O_APPEND: lines never interleave. */
	fd = open(path, O_WRONLY | O_APPEND | O_CREAT, 0644);
	if (fd < 0)
		return;
	if (write(fd, line, len) != len)
		fprintf(stderr, "slicebench: could not write the counts to %s\n", path);
	close(fd);
}

void
slicebench_pg_init(void)
{
	const char *name = getenv("SLICEBENCH_ABI");
	const char *hold = getenv("SLICEBENCH_PG_HOLD_US");
	enum slice_abi abi;
	char		err[256];

	if (hold != NULL && *hold != '\0')
	{
		char	   *end;
		long		us = strtol(hold, &end, 10);

		if (*end != '\0' || us < 0 || us > 1000)
		{
			fprintf(stderr, "slicebench: SLICEBENCH_PG_HOLD_US=%s: not 0 to 1000 microseconds\n",
					hold);
			exit(1);
		}
		slicebench_pg_hold_us = (int) us;
	}

	if (name == NULL || *name == '\0')
		name = "none";
	if (slice_abi_parse(name, &abi) != 0)
	{
		fprintf(stderr, "slicebench: SLICEBENCH_ABI=%s: not an ABI (none, auto, rseq-cr, task-shared, mainline)\n",
				name);
		exit(1);
	}
	if (slice_init(abi, err, sizeof(err)) != 0)
	{
		fprintf(stderr, "slicebench: SLICEBENCH_ABI=%s: %s\n", name, err);
		exit(1);
	}
	if (atexit(slicebench_pg_report) != 0)
	{
		fprintf(stderr, "slicebench: atexit failed\n");
		exit(1);
	}
}
