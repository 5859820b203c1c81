// SPDX-License-Identifier: GPL-2.0-only
/*
 * Run a command and print its CPU time and peak RSS: "user_s sys_s maxrss_kib".
 * A small C parent, so the fork before exec does not inflate the child's peak
 * RSS the way a Python parent's would (ru_maxrss counts that copy too).
 *
 * usage: measure COMMAND [ARGS...]   (the command's output goes to /dev/null)
 */
#include <fcntl.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct rusage ru;
	int status;
	pid_t pid;

	if (argc < 2) {
		fprintf(stderr, "usage: measure COMMAND [ARGS...]\n");
		return 2;
	}
	pid = fork();
	if (pid < 0)
		return 1;
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);

		dup2(null, 1);
		dup2(null, 2);
		execvp(argv[1], argv + 1);
		_exit(127);
	}
	if (wait4(pid, &status, 0, &ru) < 0)
		return 1;
	printf("%ld.%06ld %ld.%06ld %ld\n", (long)ru.ru_utime.tv_sec, (long)ru.ru_utime.tv_usec,
	       (long)ru.ru_stime.tv_sec, (long)ru.ru_stime.tv_usec, ru.ru_maxrss);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
