/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * -z COMMAND: COMMAND FILE runs for every finished file, as tcpdump's -z
 * does, one at a time in the order the files were finished, each in a
 * process group of its own (a Ctrl-C for mgdump is not for it).  The writer
 * never waits for one: a file finished while a command runs waits in a
 * queue, and a queue that grows is reported.  At the end the queue is run
 * to its end, unless *abandon is set (a second signal): then the files left
 * are reported, and a command still running is left to itself.
 */
#ifndef MGDUMP_POSTROTATE_H
#define MGDUMP_POSTROTATE_H

#include <signal.h>
#include <stddef.h>
#include <sys/types.h>

struct postrotate {
	const char *command;
	volatile sig_atomic_t *abandon;	/* NULL: never */
	/* told of each file whose command ended, or could not start (NULL: nobody) */
	void (*on_ran)(const char *path, void *arg);
	void *on_ran_arg;
	char **queue;		/* file names waiting, oldest first */
	size_t queued, cap;
	pid_t running;		/* 0: none */
	char *running_file;
	size_t reported;	/* the longest queue reported so far */
	unsigned long ran, failed;
};

/* A finished file for @command (a dump_output file_done callback; @arg: the postrotate). */
void postrotate_file_done(const char *path, void *arg);

/* Reaps the command that ended and starts the next; never blocks. */
void postrotate_poll(struct postrotate *pr);

/* Runs every queued command, waiting for each; at the end. */
void postrotate_finish(struct postrotate *pr);

#endif /* MGDUMP_POSTROTATE_H */
