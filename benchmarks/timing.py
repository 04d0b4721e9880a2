"""The median of repeated timed runs, and the wait for a quiet machine
before each timed run, shared by the benchmark scripts."""

import os
import statistics
import threading
import time


def median_ms(run, runs, sync=None):
    """Median wall time of ``run()`` in milliseconds over ``runs`` timed
    runs, after one untimed run (compiles, first touch, pools). ``sync``,
    when given, is called after each run inside the timing: the wait for an
    asynchronous device."""
    run()
    if sync:
        sync()
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        run()
        if sync:
            sync()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1e3


def _running_threads():
    """How many threads of this process other than the caller are running
    or ready to run (state R in /proc), or None where /proc has no such
    list."""
    me = threading.get_native_id()
    try:
        tasks = os.listdir("/proc/self/task")
    except OSError:
        return None
    running = 0
    for tid in tasks:
        if int(tid) == me:
            continue
        try:
            with open(f"/proc/self/task/{tid}/stat") as f:
                # "pid (comm) state ...": comm may hold spaces and parens
                state = f.read().rsplit(")", 1)[1].split()[0]
        except (OSError, IndexError):
            continue  # a thread that has just ended
        running += state == "R"
    return running


def wait_until_quiet(limit=0.05):
    """Sleep until no other thread of this process runs, at most ``limit``
    seconds: called before each timed run of an interleaved round, so that
    every library starts on idle cores. A library's threads may spin on
    after its call returns: numba's OpenMP workers spin about 3.5 ms after
    each parallel call (libgomp's GOMP_SPINCOUNT; measured on the 2-core
    AMD EPYC VM, 2026-11-27), its TBB workers 5-10 ms, and the library
    timed next ran with one of the two cores taken (spirjit's native Jacobi
    sweep 4096^2: 4.96 ms right after numba's call, 3.03 ms once numba's
    threads slept; numba's own 3.11 and 3.01). Returns once two looks at
    /proc, 0.5 ms apart, found no other thread running. Where /proc has no
    thread list: after the first 1 ms window in which the process used
    under a tenth of a core (this kernel charges CPU time in 4 ms ticks
    there, so a window can read zero while a thread spins)."""
    end = time.perf_counter() + limit
    quiet = 0
    while time.perf_counter() < end:
        running = _running_threads()
        if running is None:
            cpu = time.process_time()  # every thread of the process
            time.sleep(0.001)
            if time.process_time() - cpu < 0.0001:
                return
            continue
        quiet = quiet + 1 if running == 0 else 0
        if quiet == 2:
            return
        time.sleep(0.0005)
