// SPDX-License-Identifier: BSD-2-Clause
#include <errno.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "grown.h"
#include "postrotate.h"

extern char **environ;

static void report_failure(struct postrotate *pr, int status)
{
	pr->failed++;
	if (WIFEXITED(status))
		fprintf(stderr, "mgdump: -z %s %s: exit status %d\n", pr->command,
			pr->running_file, WEXITSTATUS(status));
	else
		fprintf(stderr, "mgdump: -z %s %s: killed by signal %d\n", pr->command,
			pr->running_file, WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

/* What the command's end says, reported when it failed; the file passed on. */
static void ended(struct postrotate *pr, int status)
{
	pr->ran++;
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		report_failure(pr, status);
	if (pr->on_ran)
		pr->on_ran(pr->running_file, pr->on_ran_arg);
}

/* The oldest queued file's command, started; a failure to start is reported. */
static void start_next(struct postrotate *pr)
{
	posix_spawnattr_t attr;
	sigset_t defaults, none;
	char *argv[3];
	int err;

	free(pr->running_file);
	pr->running_file = pr->queue[0];
	memmove(pr->queue, pr->queue + 1, --pr->queued * sizeof(*pr->queue));
	argv[0] = (char *)pr->command;
	argv[1] = pr->running_file;
	argv[2] = NULL;
	/* the signals mgdump ignores or catches, as a shell would leave them */
	sigemptyset(&defaults);
	sigaddset(&defaults, SIGPIPE);
	sigaddset(&defaults, SIGINT);
	sigaddset(&defaults, SIGTERM);
	sigaddset(&defaults, SIGHUP);
	sigemptyset(&none);
	err = posix_spawnattr_init(&attr);
	if (!err)
		err = posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF |
					       POSIX_SPAWN_SETSIGMASK);
	if (!err)
		err = posix_spawnattr_setpgroup(&attr, 0);
	if (!err)
		err = posix_spawnattr_setsigdefault(&attr, &defaults);
	if (!err)
		err = posix_spawnattr_setsigmask(&attr, &none);
	if (!err)
		err = posix_spawnp(&pr->running, pr->command, NULL, &attr, argv, environ);
	posix_spawnattr_destroy(&attr);
	if (err) {
		fprintf(stderr, "mgdump: -z %s %s: %s\n", pr->command, pr->running_file,
			strerror(err));
		pr->running = 0;
		pr->failed++;
		if (pr->on_ran)
			pr->on_ran(pr->running_file, pr->on_ran_arg);
	}
}

void postrotate_poll(struct postrotate *pr)
{
	int status;

	if (pr->running && waitpid(pr->running, &status, WNOHANG) == pr->running) {
		ended(pr, status);
		pr->running = 0;
	}
	while (!pr->running && pr->queued)
		start_next(pr);
}

void postrotate_file_done(const char *path, void *arg)
{
	struct postrotate *pr = arg;
	char *copy = strdup(path), **q;

	q = mgdump_grown(pr->queue, &pr->cap, pr->queued + 1, sizeof(*q), SIZE_MAX);
	if (!q) {
		fprintf(stderr, "mgdump: -z %s %s: out of memory\n", pr->command, path);
		free(copy);
		return;
	}
	pr->queue = q;
	if (!copy) {
		fprintf(stderr, "mgdump: -z %s %s: out of memory\n", pr->command, path);
		return;
	}
	pr->queue[pr->queued++] = copy;
	postrotate_poll(pr);
	/* a command slower than the rotation: said once for each new length */
	if (pr->queued > pr->reported) {
		pr->reported = pr->queued;
		fprintf(stderr, "mgdump: -z %s is slower than the files come: %zu waiting\n",
			pr->command, pr->queued);
	}
}

static int abandoned(const struct postrotate *pr)
{
	return pr->abandon && *pr->abandon;
}

void postrotate_finish(struct postrotate *pr)
{
	size_t i;
	int status;

	while (!abandoned(pr)) {
		if (pr->running) {
			pid_t pid;

			while ((pid = waitpid(pr->running, &status, 0)) < 0 && errno == EINTR &&
			       !abandoned(pr))
				;
			if (pid != pr->running)
				break;
			ended(pr, status);
			pr->running = 0;
		}
		if (!pr->queued)
			break;
		start_next(pr);
	}
	if (pr->running)
		fprintf(stderr, "mgdump: -z %s %s: left running\n", pr->command, pr->running_file);
	for (i = 0; i < pr->queued; i++) {
		fprintf(stderr, "mgdump: -z %s %s: not run\n", pr->command, pr->queue[i]);
		free(pr->queue[i]);
	}
	free(pr->running_file);
	free(pr->queue);
	pr->running_file = NULL;
	pr->queue = NULL;
	pr->queued = pr->cap = 0;
}
