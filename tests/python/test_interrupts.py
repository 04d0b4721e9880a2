"""Ctrl-C while a launch runs, and the interpreter exiting while a thread
waits for one (issue 13, classes 2 and 3). Each case runs in a process of
its own: what failed here once hung (Ctrl-C did nothing during
call_kernel) or aborted the interpreter at exit ("terminate called without
an active exception")."""

import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

PACKAGE_ROOT = os.path.join(os.path.dirname(__file__), "..", "..", "python")

# A kernel that never finishes: its loop counter never moves.
FOREVER = """
    import signal, sys, threading, time
    import numpy as np
    import spirjit
    from spirjit import kernel_api as kapi

    # A child of a shell job may start with SIGINT ignored.
    signal.signal(signal.SIGINT, signal.default_int_handler)

    @spirjit.kernel
    def forever(item: kapi.Item, a, n):
        i = item.get_id(0)
        j = 0
        while j < n:
            a[i] += 1.0
            j = j * 1

    @spirjit.jit
    def forever_jit(a, n):
        for i in spirjit.prange(a.shape[0]):
            j = 0
            while j < n:
                a[i] += 1.0
                j = j * 1

    a = spirjit.zeros(4)
    spirjit.call_kernel(forever, kapi.Range(4), a, 0)   # compiled
    forever_jit(a, 0)
"""

WAYS = {
    "call_kernel": "spirjit.call_kernel(forever, kapi.Range(4), a, 1)",
    "Event.wait": ("spirjit.call_kernel_async(forever, kapi.Range(4), (), "
                   "a, 1).wait()"),
    "jit prange": "forever_jit(a, 1)",
}


def start(source):
    env = dict(os.environ)
    env["PYTHONPATH"] = PACKAGE_ROOT + os.pathsep + env.get("PYTHONPATH", "")
    return subprocess.Popen([sys.executable, "-c", textwrap.dedent(source)],
                            env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


@pytest.mark.parametrize("way", sorted(WAYS))
def test_ctrl_c_stops_waiting_for_a_kernel_that_never_ends(device_filter,
                                                           way):
    child = start(FOREVER + textwrap.indent(textwrap.dedent(f"""
        print("waiting", flush=True)
        start = time.perf_counter()
        try:
            {WAYS[way]}
            print("the launch ended", flush=True)
        except KeyboardInterrupt:
            print("KeyboardInterrupt after %.1f s"
                  % (time.perf_counter() - start), flush=True)
    """), "    "))
    try:
        assert child.stdout.readline() == "waiting\n", child.stderr.read()
        time.sleep(1.0)  # well inside the wait
        child.send_signal(signal.SIGINT)
        # The process exits too, though the kernel still runs on the device.
        out, err = child.communicate(timeout=60)
    finally:
        child.kill()
    assert "KeyboardInterrupt after" in out, out + err
    assert child.returncode == 0, err


# Long launches: the exit finds the thread waiting. Short ones: the thread
# takes the GIL back thousands of times a second, so the exit often comes
# just as it asks (that race once aborted about one exit in 200).
@pytest.mark.parametrize("work", [3000000, 1000], ids=["long", "short"])
def test_interpreter_exits_while_a_daemon_thread_waits(device_filter,
                                                       run_isolated, work):
    result = run_isolated(f"""
        import threading, time
        import numpy as np
        import spirjit
        from spirjit import kernel_api as kapi

        @spirjit.kernel
        def spin(item: kapi.Item, a, n):
            i = item.get_id(0)
            s = 0.0
            for j in range(n):
                s += j * 1e-9
            a[i] = s

        a = np.zeros(64)
        spirjit.call_kernel(spin, kapi.Range(64), a, 10)

        def launches():
            while True:
                spirjit.call_kernel(spin, kapi.Range(64), a, {work})

        threading.Thread(target=launches, daemon=True).start()
        time.sleep(0.5)
        print("exiting", flush=True)
    """, timeout=60)
    assert "terminate called" not in result.stderr
    assert result.returncode == 0, result.stderr
    assert result.stdout == "exiting\n"


# Issue 31: Intel's CPU runtime finishes every queue when its library is
# unloaded at exit, so a kernel still running then (one a parked daemon
# thread waited for, or one launched and dropped) kept the process alive
# for as long as it ran: for ever, for one that never ends. Now the
# process ends at once on every device.
EXIT_WAYS = {
    "daemon call_kernel": """
        threading.Thread(target=lambda: spirjit.call_kernel(
            forever, kapi.Range(4), a, 1), daemon=True).start()""",
    "daemon jit prange": """
        threading.Thread(target=lambda: forever_jit(a, 1),
                         daemon=True).start()""",
    "dropped launch": """
        spirjit.call_kernel_async(forever, kapi.Range(4), (), a, 1)""",
}


@pytest.mark.parametrize("way", sorted(EXIT_WAYS))
def test_interpreter_exits_while_a_kernel_never_ends(device_filter, way):
    child = start(FOREVER + textwrap.indent(textwrap.dedent(EXIT_WAYS[way] + """
        time.sleep(0.5)  # the kernel runs
        print("exiting", flush=True)
    """), "    "))
    try:
        out, err = child.communicate(timeout=60)
    finally:
        child.kill()
    assert out == "exiting\n", out + err
    assert child.returncode == 0, err
