// SPDX-License-Identifier: BSD-2-Clause
/* The run's flags and the writer's wake-up (run.h). */
#include <pthread.h>
#include <time.h>

#include "run.h"

volatile sig_atomic_t stopping;
volatile sig_atomic_t rotate_requested;
uint64_t start_ns;

/*
 * The writer sleeps while every buffer is empty; a reader that has put
 * blocks in wakes it, once a batch and only when it sleeps.
 */
static struct {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int sleeping;
} writer_wake = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0 };

void mgdump_wake_writer(void)
{
	/* pairs with the writer's fence: it sees our blocks, or we see it asleep */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (!__atomic_load_n(&writer_wake.sleeping, __ATOMIC_RELAXED))
		return;
	pthread_mutex_lock(&writer_wake.lock);
	pthread_cond_signal(&writer_wake.cond);
	pthread_mutex_unlock(&writer_wake.lock);
}

void mgdump_writer_sleep(unsigned int ms, int (*nothing_to_do)(void))
{
	struct timespec until;

	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_nsec += (long)ms * 1000000L;
	if (until.tv_nsec >= 1000000000L) {
		until.tv_sec++;
		until.tv_nsec -= 1000000000L;
	}
	pthread_mutex_lock(&writer_wake.lock);
	__atomic_store_n(&writer_wake.sleeping, 1, __ATOMIC_RELAXED);
	/* pairs with mgdump_wake_writer(): a block committed before it is seen here */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (nothing_to_do())
		pthread_cond_timedwait(&writer_wake.cond, &writer_wake.lock, &until);
	__atomic_store_n(&writer_wake.sleeping, 0, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&writer_wake.lock);
}
