# blank-names.tv: traceview record -o blank-names.tv -- python3 blank-names.py
# Six children renamed with prctl(PR_SET_NAME): " ", "  ", "\t", "a b", "-", "x\ny";
# each spins 20000 additions and sleeps 1 ms for 0.3 s.
import ctypes, os, time
libc = ctypes.CDLL(None)
names = [b" ", b"  ", b"\t", b"a b", b"-", b"x\ny"]
pids=[]
for n in names:
    pid = os.fork()
    if pid == 0:
        libc.prctl(15, ctypes.c_char_p(n), 0, 0, 0)
        end = time.time() + 0.3
        while time.time() < end:
            x = 0
            for i in range(20000): x += i
            time.sleep(0.001)
        os._exit(0)
    pids.append(pid)
for p in pids: os.waitpid(p, 0)
