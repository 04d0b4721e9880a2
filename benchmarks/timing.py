"""The median of repeated timed runs, and the wait for a quiet machine
before each timed run, shared by the benchmark scripts."""

import statistics
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


def wait_until_quiet(limit=0.05):
    """Sleep until no thread of this process burns CPU, at most ``limit``
    seconds: called before each timed run of an interleaved round, so that
    every library starts on idle cores. A library's threads may spin on
    after its call returns: numba's OpenMP workers spin about 3.5 ms after
    each parallel call (libgomp's GOMP_SPINCOUNT; measured on the 2-core
    AMD EPYC VM, 2026-11-27), and the library timed next ran with one of
    the two cores taken (spirjit's native Jacobi sweep 4096^2: 4.96 ms
    right after numba's call, 3.03 ms once numba's threads slept; numba's
    own 3.11 and 3.01). Returns after the first 1 ms window in which the
    process used under a tenth of a core."""
    end = time.perf_counter() + limit
    while time.perf_counter() < end:
        cpu = time.process_time()  # every thread of the process
        time.sleep(0.001)
        if time.process_time() - cpu < 0.0001:
            return
