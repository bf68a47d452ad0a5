#define _GNU_SOURCE
// pool.c: one producer thread hands NITEMS items, one every GAP_US (a
// relative usleep), to NW worker threads through a mutex/condvar queue;
// each item costs WORK_US of CPU. Usage: pool [NW NITEMS GAP_US WORK_US]
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int queued, done, nitems = 300, gap = 2000, work = 3000, nw = 3;
static long served[64];
static void spin(int us) {
	struct timespec a, b;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &a);
	for (;;) {
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &b);
		if ((b.tv_sec - a.tv_sec) * 1000000L + (b.tv_nsec - a.tv_nsec) / 1000 >= us) return;
	}
}
static void *worker(void *arg) {
	long id = (long)arg;
	char name[16];
	snprintf(name, sizeof name, "poolw");
	pthread_setname_np(pthread_self(), name);
	for (;;) {
		pthread_mutex_lock(&mu);
		while (queued == 0 && !done) pthread_cond_wait(&cv, &mu);
		if (queued == 0 && done) { pthread_mutex_unlock(&mu); return NULL; }
		queued--;
		pthread_mutex_unlock(&mu);
		spin(work);
		served[id]++;
	}
}
int main(int argc, char **argv) {
	if (argc > 4) { nw = atoi(argv[1]); nitems = atoi(argv[2]); gap = atoi(argv[3]); work = atoi(argv[4]); }
	pthread_t t[64];
	for (long i = 0; i < nw; i++) pthread_create(&t[i], NULL, worker, (void *)i);
	pthread_setname_np(pthread_self(), "poolp");
	for (int i = 0; i < nitems; i++) {
		usleep(gap);
		pthread_mutex_lock(&mu);
		queued++;
		pthread_cond_signal(&cv);
		pthread_mutex_unlock(&mu);
	}
	pthread_mutex_lock(&mu);
	done = 1;
	pthread_cond_broadcast(&cv);
	pthread_mutex_unlock(&mu);
	for (int i = 0; i < nw; i++) pthread_join(t[i], NULL);
	for (int i = 0; i < nw; i++) fprintf(stderr, "worker %d served %ld\n", i, served[i]);
	return 0;
}
