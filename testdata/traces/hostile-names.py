# hostile-names.tv: a `traceview record` capture (tp_btf) of this script, taken 2026-12-04 on the project VM
# by a new-user pass (issue 28);
# seven children named with prctl(PR_SET_NAME) "a,b\nc", "=cmd\"x", "x;y,z", "\xff\xfebad", "sp ace(3)",
# "12345", "-o" (tids 7221-7227), each running about 70 ms; the name tests of cmd/traceview read it.
import ctypes, os, time
libc = ctypes.CDLL(None)
names = [b"a,b\nc", b"=cmd\"x", b"x;y,z", b"\xff\xfebad", b"sp ace(3)", b"12345", b"-o"]
for n in names:
    pid = os.fork()
    if pid == 0:
        libc.prctl(15, ctypes.c_char_p(n), 0, 0, 0)
        t = time.time()
        while time.time() - t < 0.05: pass
        time.sleep(0.01)
        t = time.time()
        while time.time() - t < 0.02: pass
        os._exit(0)
for n in names: os.wait()
