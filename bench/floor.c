// SPDX-License-Identifier: GPL-2.0-only
/*
 * The floor for bench/run.py: open the same counters pmumon and perf open
 * (system-wide, one per CPU, ENABLED|RUNNING read format), then on the same
 * interval loop only read them. No scaling, no aggregation, no output: what
 * counting costs when nothing else is done. With -g the events of each CPU
 * form one group read with one read(2), as pmumon reads software-context PMUs.
 *
 * usage: floor [-g] INTERVAL_MS DURATION_MS TYPE:CONFIG...
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static void add_ns(struct timespec *t, long ns)
{
	t->tv_nsec += ns;
	while (t->tv_nsec >= 1000000000L) {
		t->tv_nsec -= 1000000000L;
		t->tv_sec++;
	}
}

int main(int argc, char **argv)
{
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN), interval, duration, n = 0;
	int fds[4096], nfd = 0, nread;
	struct timespec next;
	uint64_t buf[3 + 4096], sink = 0;
	bool group = argc > 1 && !strcmp(argv[1], "-g");

	if (group) {
		argv++;
		argc--;
	}
	if (argc < 4) {
		fprintf(stderr, "usage: floor [-g] INTERVAL_MS DURATION_MS TYPE:CONFIG...\n");
		return 2;
	}
	interval = atol(argv[1]) * 1000000L;
	duration = atol(argv[2]) / atol(argv[1]);
	for (int a = 3; a < argc; a++) {
		struct perf_event_attr attr = { .size = sizeof(attr),
						.disabled = 1,
						.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED |
							       PERF_FORMAT_TOTAL_TIME_RUNNING |
							       (group ? PERF_FORMAT_GROUP : 0) };
		bool member = group && a > 3;

		if (sscanf(argv[a], "%u:%llu", &attr.type, (unsigned long long *)&attr.config) != 2)
			return 2;
		for (int cpu = 0; cpu < ncpu && nfd < 4096; cpu++) {
			/* with -g: the first event of each CPU leads that CPU's group */
			int lead = member ? fds[cpu] : -1, fd;

			attr.disabled = !member;
			fd = (int)syscall(SYS_perf_event_open, &attr, -1, cpu, lead, 0);
			if (fd < 0) {
				perror("perf_event_open");
				return 1;
			}
			fds[nfd++] = fd;
		}
	}
	nread = group ? (int)ncpu : nfd;
	for (int i = 0; i < nread; i++)
		ioctl(fds[i], PERF_EVENT_IOC_ENABLE, 0);
	clock_gettime(CLOCK_MONOTONIC, &next);
	while (n++ < duration) {
		add_ns(&next, interval);
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL) == EINTR)
			;
		for (int i = 0; i < nread; i++)
			if (read(fds[i], buf, sizeof(buf)) > 0)
				sink += buf[group ? 3 : 0];
	}
	printf("%llu\n", (unsigned long long)(sink & 1));
	return 0;
}
