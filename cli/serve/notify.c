// SPDX-License-Identifier: GPL-2.0-only
/*
 * The service manager's notification protocol (sd_notify(3)), written out:
 * one datagram of "KEY=VALUE" lines to the AF_UNIX socket NOTIFY_SOCKET
 * names (a path, or an abstract name after '@'). Without NOTIFY_SOCKET
 * nothing is sent. So serve needs no libsystemd.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "serve.h"

int notify_send(const char *state)
{
	const char *path = getenv("NOTIFY_SOCKET");
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	size_t n;
	ssize_t w;
	int fd;

	if (!path || !path[0])
		return 0;
	n = strlen(path);
	if (n >= sizeof(sa.sun_path) || (path[0] != '/' && path[0] != '@'))
		return -EINVAL;
	memcpy(sa.sun_path, path, n);
	if (path[0] == '@')
		sa.sun_path[0] = '\0'; /* an abstract socket */
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	w = sendto(fd, state, strlen(state), MSG_NOSIGNAL, (struct sockaddr *)&sa,
		   (socklen_t)(offsetof(struct sockaddr_un, sun_path) + n));
	n = w < 0 ? (size_t)errno : 0;
	close(fd);
	return w < 0 ? -(int)n : 0;
}

uint64_t notify_watchdog_usec(void)
{
	const char *usec = getenv("WATCHDOG_USEC"), *pid = getenv("WATCHDOG_PID");
	char *end;
	unsigned long long v;

	if (!usec)
		return 0;
	if (pid && strtol(pid, NULL, 10) != (long)getpid())
		return 0; /* meant for another process */
	errno = 0;
	v = strtoull(usec, &end, 10);
	return errno || *end || end == usec ? 0 : (uint64_t)v;
}
