"""The median of repeated timed runs, shared by the benchmark scripts."""

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
