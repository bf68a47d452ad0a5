#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
static volatile unsigned long sink;
static void spin_ms(int ms){ struct timespec a,b; clock_gettime(CLOCK_MONOTONIC,&a); do { for(int i=0;i<20000;i++) sink+=i; clock_gettime(CLOCK_MONOTONIC,&b);} while((b.tv_sec-a.tv_sec)*1000+(b.tv_nsec-a.tv_nsec)/1000000 < ms); }
static const char *names[] = { "t18-ünï€", "t18 sp,c:o", "t18\x1b[2Jx", "\xff\xfet18", "t18-a234567890123456", "t18%s%n", "t18\tTAB" };
static void *thr(void *arg){ long k=(long)arg; char nm[16];
  snprintf(nm,sizeof nm,"t18w%ld",k); prctl(PR_SET_NAME,nm);
  for(int r=0;r<40;r++){ spin_ms(3); usleep(2000);
    if(r==10) prctl(PR_SET_NAME,names[k%7]);
    if(r==25) { snprintf(nm,sizeof nm,"t18ren%ld",k); prctl(PR_SET_NAME,nm);} }
  return 0; }
int main(int argc,char**argv){ int nshort = argc>1?atoi(argv[1]):200;
  pthread_t t[7]; for(long i=0;i<7;i++) pthread_create(&t[i],0,thr,(void*)i);
  for(int i=0;i<nshort;i++){ pid_t p=fork(); if(!p){ char nm[16]; snprintf(nm,sizeof nm,"t18sh%d",i); prctl(PR_SET_NAME,nm); spin_ms(1); if(i%3==0) execl("/bin/true","true",(char*)0); _exit(0);} if(i%10==0) waitpid(-1,0,0); }
  while(waitpid(-1,0,0)>0);
  for(int i=0;i<7;i++) pthread_join(t[i],0); return 0; }
