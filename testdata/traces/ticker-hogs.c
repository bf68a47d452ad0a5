// ticker-hogs.c (new-user pass 119's periodic.c, with its common.h): a
// ticker thread wakes every 1 ms (clock_nanosleep TIMER_ABSTIME) and does a
// little work until a stop flag, which main sets once it has joined two
// hog threads that each do a fixed amount of CPU work.
// cc -O2 -pthread -DWORK=360000000 -o periodic ticker-hogs.c
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
static volatile uint64_t sink;
static void spin(long n) {
	uint64_t x = sink;
	for (long i = 0; i < n; i++)
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
	sink = x;
}
volatile int stop = 0;
void *hog(void *a) {
	prctl(PR_SET_NAME, "hog");
	char *e = getenv("HOGNICE");
	if (e)
		setpriority(PRIO_PROCESS, syscall(SYS_gettid), atoi(e));
	spin(WORK);
	return 0;
}
void *tick(void *a) {
	prctl(PR_SET_NAME, "ticker");
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	while (!stop) {
		t.tv_nsec += 1000000;
		if (t.tv_nsec >= 1000000000) {
			t.tv_nsec -= 1000000000;
			t.tv_sec++;
		}
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &t, 0);
		spin(5000);
	}
	return 0;
}
int main() {
	pthread_t h1, h2, tk;
	pthread_create(&tk, 0, tick, 0);
	pthread_create(&h1, 0, hog, 0);
	pthread_create(&h2, 0, hog, 0);
	pthread_join(h1, 0);
	pthread_join(h2, 0);
	stop = 1;
	pthread_join(tk, 0);
	return 0;
}
