#!/usr/bin/env python3
"""Launch overhead and compile caching, side by side with pyopencl.

Tiny kernels (n = 64) on DeviceArrays with 1, 3 and 8 array arguments, on
every CPU OpenCL runtime present (Intel's, PoCL), the default device first:

  bare C++ loop    clEnqueueNDRangeKernel on spirjit's kernel with its
                   arguments preset, in C++ (the floor for any dispatcher)
  bare C++, OpenCL C kernel
                   the same loop on pyopencl's kernel and queue (its floor)
  spirjit async    call_kernel_async in a loop, then one wait
  pyopencl async   a kernel with preset arguments, enqueue_nd_range_kernel
  spirjit sync     call_kernel (launch and wait)
  pyopencl sync    enqueue_nd_range_kernel + queue.finish()
  NumPy launch     spirjit.call_kernel with NumPy arguments (copies or
                   host-pointer buffers included)

Then the first-call compile time of vecadd in a fresh process, and the
time a second process takes to get the same kernel from the disk cache.
Medians of interleaved rounds (this machine is noisy); microseconds.

    python benchmarks/bench_dispatch.py [--launches N] [--rounds R]
"""

import os

# OpenBLAS's idle threads would compete with PoCL's for the two cores.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import argparse  # noqa: E402
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "python"))

import spirjit  # noqa: E402
from spirjit import kernel_api as kapi  # noqa: E402

N = 64
SOURCE_TEMPLATE = """
def add{k}(item, {params}):
    i = item.get_id(0)
    {body}
"""


def make_kernel(k):
    """A kernel of k array arguments: out = sum of the others."""
    params = ", ".join(f"a{j}" for j in range(k))
    if k == 1:
        body = "a0[i] = a0[i] + 1.0"
    else:
        body = f"a{k - 1}[i] = " + " + ".join(f"a{j}[i]" for j in range(k - 1))
    namespace = {}
    exec(compile(SOURCE_TEMPLATE.format(k=k, params=params, body=body),
                 f"<dispatch-{k}>", "exec"), namespace)
    return spirjit.kernel(namespace[f"add{k}"])


def opencl_c_source(k):
    params = ", ".join(f"__global float *a{j}" for j in range(k))
    if k == 1:
        body = "a0[i] = a0[i] + 1.0f;"
    else:
        body = f"a{k - 1}[i] = " + " + ".join(f"a{j}[i]" for j in range(k - 1)) + ";"
    return (f"__kernel void add{k}({params}) {{ size_t i = get_global_id(0); "
            f"{body} }}")


def per_launch(fn, launches):
    start = time.perf_counter()
    seconds = fn(launches)  # a case may time itself (the bare loop does)
    if seconds is None:
        seconds = time.perf_counter() - start
    return seconds / launches * 1e6


RUNTIMES = (("Intel", "Intel(R) OpenCL"),
            ("PoCL", "Portable Computing Language"))


def runtimes():
    """[(short name, platform name, spirjit filter)], the default first."""
    default = spirjit.default_device()
    found = []
    for short, plat in RUNTIMES:
        for d in spirjit.devices():
            if d.device_type == "cpu" and d.platform == plat:
                found.append((short, plat, d.filter_string))
                break
    found.sort(key=lambda r: r[1] != default.platform)
    return found


def opencl_queue(platform_name):
    import pyopencl as cl
    for platform in cl.get_platforms():
        if platform_name in platform.name:
            device = platform.get_devices()[0]
            context = cl.Context([device])
            return cl, context, cl.CommandQueue(context)
    raise RuntimeError(f"no OpenCL platform '{platform_name}'")


def measure(k, launches, rounds, platform_name):
    kernel = make_kernel(k)
    host = [np.ones(N, np.float32) for _ in range(k)]
    device = [spirjit.asarray(h) for h in host]
    space = kapi.Range(N)
    spirjit.call_kernel(kernel, space, *device)  # compile and warm

    def bare(count):
        # Bind the DeviceArrays first: the last launch may have been on
        # NumPy arrays whose buffers are gone.
        spirjit.call_kernel(kernel, space, *device)
        return kernel._dispatcher._bare_enqueue_loop([N], count)

    # The loops name their arguments, as user code does (no *args tuple).
    names = ", ".join(f"d[{j}]" for j in range(k))
    loops = {}
    exec(f"""
def sp_async(count, call=spirjit.call_kernel_async, kernel=kernel,
             space=space, d=device):
    event = None
    for _ in range(count):
        event = call(kernel, space, (), {names})
    event.wait()

def sp_sync(count, call=spirjit.call_kernel, kernel=kernel, space=space,
            d=device):
    for _ in range(count):
        call(kernel, space, {names})
""", {"spirjit": spirjit, "kernel": kernel, "space": space,
      "device": device}, loops)
    sp_async, sp_sync = loops["sp_async"], loops["sp_sync"]

    def sp_numpy(count):
        for _ in range(count):
            spirjit.call_kernel(kernel, space, *host)

    cases = {"bare C++ loop": bare, "spirjit async": sp_async,
             "spirjit sync": sp_sync, "NumPy launch": sp_numpy}
    try:
        cl, context, queue = opencl_queue(platform_name)
        program = cl.Program(context, opencl_c_source(k)).build()
        cl_kernel = getattr(program, f"add{k}")
        buffers = [cl.Buffer(context, cl.mem_flags.READ_WRITE |
                             cl.mem_flags.COPY_HOST_PTR, hostbuf=h)
                   for h in host]
        cl_kernel.set_args(*buffers)

        def cl_bare(count):
            from spirjit import _spirjit
            return _spirjit._opencl_bare_loop(queue.int_ptr, cl_kernel.int_ptr,
                                              N, count)

        def cl_async(count):
            for _ in range(count):
                cl.enqueue_nd_range_kernel(queue, cl_kernel, (N,), None)
            queue.finish()

        def cl_sync(count):
            for _ in range(count):
                cl.enqueue_nd_range_kernel(queue, cl_kernel, (N,), None)
                queue.finish()
        cl_async(10)
        cases["bare C++, OpenCL C kernel"] = cl_bare
        cases["pyopencl async"] = cl_async
        cases["pyopencl sync"] = cl_sync
    except Exception as exc:  # shown in the table instead
        cases["pyopencl"] = exc
    samples = {name: [] for name in cases}
    for _ in range(rounds):  # interleaved, so load hits every case alike
        for name, fn in cases.items():
            if callable(fn):
                samples[name].append(per_launch(fn, launches))
    return {name: (statistics.median(v) if v else cases[name])
            for name, v in samples.items()}


CACHE_PROBE = """
import sys, time
sys.path.insert(0, {python!r})
t0 = time.perf_counter()
import numpy as np, spirjit
from spirjit import kernel_api as kapi
@spirjit.kernel
def vecadd(item, a, b, c):
    i = item.get_id(0)
    c[i] = a[i] + b[i]
a = np.ones(16, np.float32); c = np.empty_like(a)
t1 = time.perf_counter()
spirjit.call_kernel(vecadd, kapi.Range(16), a, a, c)
t2 = time.perf_counter()
s = vecadd.stats
print(t2 - t1, s["compiles"], s["disk_hits"], s["compile_seconds"])
"""


def cache_times():
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, SPIRJIT_CACHE_DIR=cache, POCL_KERNEL_CACHE="0",
                   SPIRJIT_DISABLE_CACHE="0")
        script = CACHE_PROBE.format(python=os.path.join(ROOT, "python"))
        out = []
        for _ in range(2):
            result = subprocess.run([sys.executable, "-c", script], env=env,
                                    capture_output=True, text=True, check=True)
            seconds, compiles, hits, ours = result.stdout.split()
            out.append((float(seconds), int(compiles), int(hits), float(ours)))
        return out


def report_dispatch(rows):
    names = list(rows[1])
    print(f"{'case':26}" + "".join(f"| {k} array{'s' if k > 1 else ''}   "
                                   for k in rows))
    for name in names:
        cells = []
        for k in rows:
            v = rows[k][name]
            cells.append(f"| {v:9.2f}  " if isinstance(v, float)
                         else f"| unavailable: {v}")
        print(f"{name:26}" + "".join(cells))
    three = rows[3]
    if isinstance(three.get("pyopencl async"), float):
        added = three["spirjit async"] - three["bare C++ loop"]
        print(f"spirjit adds {added:.2f} us per async launch over the bare "
              f"C++ loop (3 arrays; target <= 2): "
              f"{'yes' if added <= 2 else 'no'}")
        print("spirjit async beats pyopencl async (3 arrays): "
              f"{'yes' if three['spirjit async'] < three['pyopencl async'] else 'no'}"
              f" ({three['spirjit async']:.2f} vs {three['pyopencl async']:.2f})")
        print("spirjit sync beats pyopencl sync (3 arrays): "
              f"{'yes' if three['spirjit sync'] < three['pyopencl sync'] else 'no'}"
              f" ({three['spirjit sync']:.2f} vs {three['pyopencl sync']:.2f})")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--launches", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--png-dir", default=None,
                        help="also write a PNG chart of the 3-array rows")
    args, _ = parser.parse_known_args(argv)
    chosen = os.environ.get("SPIRJIT_DEVICE")
    three = {}
    for short, platform_name, device_filter in runtimes():
        os.environ["SPIRJIT_DEVICE"] = device_filter
        print(f"== dispatch on [{short}] ({device_filter}): n = 64 float32 "
              f"DeviceArrays, median of {args.rounds} interleaved rounds of "
              f"{args.launches} launches, us per launch")
        rows = {k: measure(k, args.launches, args.rounds, platform_name)
                for k in (1, 3, 8)}
        report_dispatch(rows)
        three[short] = rows[3]
        print()
    if args.png_dir and three:
        sys.path.insert(0, HERE)
        from charts import dispatch_chart
        path = dispatch_chart(args.png_dir, three)
        if path:
            print(f"chart: {path}")
    if chosen is None:
        os.environ.pop("SPIRJIT_DEVICE", None)
    else:
        os.environ["SPIRJIT_DEVICE"] = chosen
    first, second = cache_times()
    print(f"== compile cache (vecadd, fresh processes, default device, "
          f"PoCL's own cache off)\nfirst process:  {first[0] * 1e3:8.1f} ms to a runnable "
          f"kernel (our compile {first[3] * 1e3:.1f} ms, compiles "
          f"{first[1]})\nsecond process: {second[0] * 1e3:8.1f} ms (disk "
          f"hits {second[2]}); {first[0] / second[0]:.0f}x faster "
          f"(target >= 10x: {'yes' if first[0] / second[0] >= 10 else 'no'})")


STANDALONE = [main]

if __name__ == "__main__":
    main()
