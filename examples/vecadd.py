"""The README's example: a vector add compiled by spirjit, checked by NumPy."""
import numpy as np

import spirjit
from spirjit import kernel_api as kapi


@spirjit.kernel
def vecadd(item: kapi.Item, a, b, c):
    i = item.get_id(0)
    c[i] = a[i] + b[i]


if __name__ == "__main__":
    n = 1 << 20
    a = np.arange(n, dtype=np.float32)
    b = np.full(n, 0.5, dtype=np.float32)
    c = np.empty_like(a)
    spirjit.call_kernel(vecadd, kapi.Range(n), a, b, c)
    assert np.array_equal(c, a + b), "spirjit's result differs from NumPy's"
    device = spirjit.default_device()
    print(f"vecadd on {device.name} ({device.filter_string}): "
          f"c[:4] = {c[:4]}, c[-1] = {c[-1]} -- matches NumPy")
    print(f"compiled bytecode -> validated SPIR-V in "
          f"{vecadd.stats['compile_seconds'] * 1e3:.1f} ms")
