import os, time
os.sched_setaffinity(0, {0})
kids = []
for i in range(4):
    pid = os.fork()
    if pid == 0:
        os.sched_setaffinity(0, {1})
        t = time.time()
        while time.time() - t < 0.005:
            pass
        os._exit(0)
    kids.append(pid)
for k in kids:
    os.waitpid(k, 0)
