"""Loops that rotate values (`a, b = b, a + b`) on every device.

Intel's CPU runtime 2026.2 kills the process while vectorising such a
kernel; spirjit marks those kernels to be compiled one work-item at a time
(compiler/ScalarLoopHint). Each case runs in its own interpreter, so a
crash fails this test instead of ending the session, and the runtime's
vectoriser is on, as users run it.
"""

import json

import pytest

CASES = {
    # the shape that crashed: only the rotated value leaves the loop
    "swap_int": ("f0, f1 = 0, 1", "f0, f1 = f1, f0 + f1", "f0"),
    "swap_float": ("f0, f1 = 0.0, 1.0", "f0, f1 = f1, f0 + f1", "f0"),
    "swap_both_out": ("f0, f1 = 0, 1", "f0, f1 = f1, f0 + f1",
                      "f0 * 1000 + f1"),
    "rotate_three": ("x, y, z = 0, 1, 2", "x, y, z = y, z, x + y + z",
                     "x + 10 * y"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_rotating_loop_runs_and_matches_python(case, device_filter,
                                               run_isolated):
    init, step, result = CASES[case]
    proc = run_isolated(f"""
        import json
        import numpy as np
        import spirjit
        from spirjit import kernel_api as kapi

        @spirjit.kernel
        def rotate(item: kapi.Item, a, out):
            i = item.get_id(0)
            {init}
            for _ in range(a[i] % 15):
                {step}
            out[i] = {result}

        def reference(n):
            {init}
            for _ in range(n % 15):
                {step}
            return {result}

        a = np.arange(100, dtype=np.int64)
        out = np.zeros(100, dtype=np.float64)
        spirjit.call_kernel(rotate, spirjit.Range(100), a, out)
        print(json.dumps([out.tolist(), [reference(n) for n in range(100)]]))
    """)
    assert proc.returncode == 0, proc.stderr[-2000:]
    got, want = json.loads(proc.stdout.splitlines()[-1])
    assert got == want
