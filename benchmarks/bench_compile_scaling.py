"""Compile time against kernel size: a kernel of N `if` statements, timed
stage by stage, for several N. Each stage's time should grow about
linearly with N (doubling N about doubles it); a stage whose time grows
fourfold is quadratic.

    .venv/bin/python benchmarks/bench_compile_scaling.py [--sizes 500,1000,...]

Prints one row per N: seconds per stage (the stage's own work and printing
its text) and the whole compilation to SPIR-V without printing. Not part of
run_all.py: it measures the compiler, not a device."""

import argparse
import os
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "python"))

import spirjit  # noqa: E402,F401  (loads the extension)
from spirjit import _spirjit  # noqa: E402
from spirjit._describe import describe_function  # noqa: E402


def kernel_source(branches):
    """A kernel whose body is `branches` dependent if statements."""
    lines = ["def many_ifs(item, a, out):",
             "    i = item.get_id(0)",
             "    x = a[i]"]
    for k in range(branches):
        lines.append(f"    if x > {k % 97}:")
        lines.append(f"        x = x - {k % 13 + 1}")
    lines.append("    out[i] = x")
    return "\n".join(lines) + "\n"


def load(branches, folder):
    path = os.path.join(folder, f"many_ifs_{branches}.py")
    with open(path, "w") as file:
        file.write(kernel_source(branches))
    namespace = {}
    exec(compile(open(path).read(), path, "exec"), namespace)
    return describe_function(namespace["many_ifs"])


def time_stages(description, stages):
    """Seconds from the start to each stage's text, differenced."""
    marks = []
    start = time.perf_counter()
    _spirjit.dump_stages(description, "(int64[::1], int64[::1])", 1, False,
                         stages, lambda stage, text: marks.append(
                             (stage, time.perf_counter())))
    times, previous = {}, start
    for stage, moment in marks:
        times[stage] = moment - previous
        previous = moment
    return times, previous - start


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="500,1000,2000,5000",
                        help="numbers of if statements, comma-separated")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    stages = [name for name, _ in _spirjit.stage_names()]
    print("ifs    " + " ".join(f"{s:>9}" for s in stages) +
          "   to spv (s)")
    with tempfile.TemporaryDirectory() as folder:
        for n in sizes:
            description = load(n, folder)
            per_stage, _ = time_stages(description, stages)
            _, total = time_stages(description, [stages[-1]])
            print(f"{n:<6} " + " ".join(f"{per_stage.get(s, 0):9.3f}"
                                        for s in stages) +
                  f"   {total:10.3f}", flush=True)


if __name__ == "__main__":
    main()
