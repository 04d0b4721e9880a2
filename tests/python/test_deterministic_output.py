"""The compiler's output is the same in every process: dumps and disk-cache
keys must not depend on where the heap put things. Device functions used to
be emitted in heap-address order."""

import os
import subprocess
import sys

import spirjit

_PACKAGE_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(
    spirjit.__file__)))
_SIG = "(float32[::1], float32[::1])"


@spirjit.device_func
def square(x):
    return x * x


@spirjit.device_func
def shift(x, k):
    return x + k


@spirjit.device_func
def combine(x, y):
    return shift(square(x), 1) - y


def three_device_functions(item, a, out):
    i = item.get_id(0)
    out[i] = combine(a[i], 2.0) + shift(a[i], 3) + square(a[i])


def _dump(stage, env_extra):
    env = dict(os.environ, PYTHONPATH=_PACKAGE_ROOT, **env_extra)
    done = subprocess.run(
        [sys.executable, "-m", "spirjit.dump_ir", __file__,
         "three_device_functions", "--sig", _SIG, "--stage", stage],
        env=env, capture_output=True, timeout=300)
    assert done.returncode == 0, done.stderr.decode()
    return done.stdout


def test_two_processes_print_the_same_bytes():
    # Different hash seeds and a heap filled differently (glibc's
    # MALLOC_PERTURB_ and a large early allocation) move the objects.
    for stage in ("typed", "llir", "llir.opt"):
        first = _dump(stage, {"PYTHONHASHSEED": "1"})
        second = _dump(stage, {"PYTHONHASHSEED": "2",
                               "MALLOC_PERTURB_": "165",
                               "MALLOC_TOP_PAD_": "67108864"})
        assert first == second, f"stage {stage} differs between processes"


def test_device_functions_follow_the_order_of_first_call():
    text = _dump("llir", {}).decode()
    defined = [line.split("@")[1].split("(")[0]
               for line in text.splitlines() if line.startswith("define ")]
    # The kernel, then combine; combine calls square before shift; the
    # kernel's own shift and square reuse those specialisations.
    assert defined == ["spirjit_three_device_functions",
                       "spirjit_combine.device", "spirjit_square.device",
                       "spirjit_shift.device"]
