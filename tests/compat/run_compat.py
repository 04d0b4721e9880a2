#!/usr/bin/env python3
"""The compatibility tier: numba-dpex 0.23.0's own tests, run on spirjit.

    .venv/bin/python tests/compat/run_compat.py [--markdown] [--write-expected]

Runs the tests that tests/compat/fetch.py unpacked (build/compat/
numba_dpex_tests) under pytest, with the mapping layer in tests/compat/shim
first on sys.path, once per OpenCL device (SPIRJIT_DEVICE names it), and on spirjit's native
CPU device where SPIRJIT_NATIVE=1 (ctest's compat_native). Each
test id is then classified, in this order: out of scope
(out_of_scope.txt), divergence (divergences.txt), dpjit (a failure from the
dpjit stand-in of a spirjit without jit), pass, skip, fail. It prints, per
device and per tier (kernel tests; dpjit tests: dpjit_tests/ and
test_prange.py), the counts per directory, the in-scope pass rate, and
every in-scope failure with its reason.

Exit status 0 unless a test listed in expected_pass.txt no longer passes on
some device; newly passing tests are reported, not failed. Without the
unpacked tests (no network at set-up) or without an OpenCL device it prints
"skipped: <why>" and exits with SKIPPED (77), which ctest shows as skipped
(tests/CMakeLists.txt sets SKIP_RETURN_CODE).
"""

import argparse
import collections
import fnmatch
import json
import os
import re
import subprocess
import sys
import tempfile
import time

SKIPPED = 77  # ctest's SKIP_RETURN_CODE for this tier

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
PREFIX = "numba_dpex/tests/"
DPJIT_MISSING = "dpjit: not in spirjit yet"
COLUMNS = ["pass", "fail", "skip", "out of scope", "divergence", "dpjit"]


def read_patterns(name, device=""):
    """(glob, reason) pairs of a list file: `glob  # reason`, one a line.
    `*` is the only wildcard: brackets match themselves, since test ids
    carry their parameters in brackets. A line starting `@backend ` holds
    only on that backend's devices (`@native`: the native CPU device)."""
    patterns = []
    with open(os.path.join(HERE, name)) as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            if line.startswith("@"):
                backend, _, line = line[1:].partition(" ")
                if not device.startswith(backend + ":"):
                    continue
            glob, _, reason = line.partition(" # ")
            patterns.append((glob.strip().replace("[", "[[]"),
                             reason.strip()))
    return patterns


def not_to_run(patterns):
    """The test ids of `patterns` without a wildcard: known to hang or to
    crash on the device, so they are not run at all."""
    return [PREFIX + glob.replace("[[]", "[") for glob, _ in patterns
            if "*" not in glob]


def match(test_id, patterns):
    for glob, reason in patterns:
        if fnmatch.fnmatchcase(test_id, glob):
            return reason
    return None


def opencl_devices():
    """(filter string, label) of every OpenCL device spirjit sees, and the
    native CPU device where SPIRJIT_NATIVE=1 lists it."""
    probe = ("import json, spirjit; print(json.dumps([(d.filter_string, "
             "d.platform, d.name) for d in spirjit.devices() "
             "if d.backend in ('opencl', 'native')]))")
    out = subprocess.run([sys.executable, "-c", probe], check=True,
                         capture_output=True, text=True).stdout
    devices = []
    for filter_string, platform, name in json.loads(out):
        if filter_string.startswith("native:"):
            label = "spirjit's native CPU device"
        elif "Portable Computing Language" in platform:
            label = "PoCL"
        elif "Intel" in platform:
            label = "Intel CPU runtime" if "cpu" in filter_string else platform
        else:
            label = platform
        devices.append((filter_string, f"{label} ({filter_string}, {name})"))
    return devices


def run_device(device, tests_root, budget, test_timeout, skipped=()):
    """{test id: (outcome, reason)} of one device. pytest runs again after a
    crash or a hung test (the plugin's watchdog ends those), resuming after
    the test that ended it, until every test ran or the budget is spent.
    The ids in `skipped` are not run."""
    results = {test_id: ("skipped", "not run on this device")
               for test_id in skipped}
    deadline = time.monotonic() + budget
    with tempfile.TemporaryDirectory() as scratch:
        log = os.path.join(scratch, "log.jsonl")
        done = os.path.join(scratch, "done.txt")
        with open(done, "w") as f:
            f.write("\n".join(results))
        env = dict(os.environ)
        env.update({
            "SPIRJIT_DEVICE": device,
            "SPIRJIT_COMPAT_TESTS": tests_root,
            "SPIRJIT_COMPAT_LOG": log,
            "SPIRJIT_COMPAT_DONE": done,
            "SPIRJIT_COMPAT_TEST_TIMEOUT": str(test_timeout),
            "PYTHONPATH": os.pathsep.join(
                [os.path.join(HERE, "shim"), HERE] +
                [os.path.abspath(p) for p in
                 env.get("PYTHONPATH", "").split(os.pathsep) if p]),
        })
        env.setdefault("SPIRJIT_CACHE_DIR",
                       os.path.join(ROOT, "build", "kernel-cache-compat"))
        command = [sys.executable, "-m", "pytest", "-q", "-p",
                   "no:cacheprovider", "-p", "outcome_plugin",
                   "--continue-on-collection-errors", "--rootdir",
                   tests_root, "-c", os.devnull,
                   os.path.join(tests_root, "numba_dpex", "tests")]
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                break
            try:
                proc = subprocess.run(command, cwd=tests_root, env=env,
                                      timeout=left, capture_output=True,
                                      text=True)
                ended = (f"crashed the process (exit status "
                         f"{proc.returncode})")
                hung = log + ".hung"
                if os.path.exists(hung) and os.path.getsize(hung):
                    os.remove(hung)
                    ended = f"hung: ended after {test_timeout} s"
            except subprocess.TimeoutExpired:
                proc, ended = None, (f"not finished: the device's budget of "
                                     f"{budget:.0f} s ran out in it")
            started = read_log(log, results, os.path.join(
                tests_root, PREFIX))
            # The next run logs afresh: a test that ended this one is not
            # read again as unfinished.
            if os.path.exists(log):
                os.remove(log)
            if started is None:
                if proc is not None and proc.returncode not in (0, 1) and \
                        not results:
                    sys.exit(f"pytest could not run (exit status "
                             f"{proc.returncode}):\n{proc.stdout[-3000:]}"
                             f"{proc.stderr[-3000:]}")
                break
            results[started] = ("failed", ended)
            with open(done, "w") as f:
                f.write("\n".join(results))
    return {strip(k): v for k, v in results.items()}


def read_log(log, results, tests_dir):
    """Reads the plugin's records into results; returns the id of a test
    that started and never ended (the run crashed or hung in it), or None."""
    started = None
    if not os.path.exists(log):
        return None
    with open(log) as f:
        for line in f:
            record = json.loads(line)
            test_id, outcome = record["id"], record["outcome"]
            if outcome == "started":
                started = test_id
                continue
            if started == test_id:
                started = None
            previous = results.get(test_id)
            record["reason"] = record["reason"].replace(
                tests_dir, "")
            if previous is None or previous[0] == "passed" or \
                    (previous[0] == "skipped" and outcome == "failed"):
                results[test_id] = (outcome, record["reason"])
    return started


def strip(test_id):
    return test_id[len(PREFIX):] if test_id.startswith(PREFIX) else test_id


def is_dpjit(test_id):
    """A test of numba-dpex's dpjit (prange, dpnp in jit functions): the
    second tier, counted in a table of its own."""
    path = test_id.split("::")[0]
    return path.startswith("dpjit_tests/") or path == "test_prange.py"


def classify(test_id, outcome, reason, out_of_scope, divergences):
    why = match(test_id, out_of_scope)
    if why:
        return "out of scope", why
    why = match(test_id, divergences)
    if why:
        return "divergence", why
    if outcome == "failed" and DPJIT_MISSING in reason:
        return "dpjit", "needs dpjit/prange"
    return {"passed": "pass", "skipped": "skip"}.get(outcome, "fail"), reason


def directory(test_id):
    path = test_id.split("::")[0]
    return path.rsplit("/", 1)[0] if "/" in path else "."


def table(rows, markdown):
    widths = [max(len(str(r[i])) for r in rows) for i in range(len(rows[0]))]
    lines = []
    for n, row in enumerate(rows):
        cells = [str(c).ljust(w) if i == 0 else str(c).rjust(w)
                 for i, (c, w) in enumerate(zip(row, widths))]
        lines.append(("| " + " | ".join(cells) + " |") if markdown
                     else "  ".join(cells))
        if markdown and n == 0:
            lines.append("|" + "|".join(
                "-" * (w + 2) if i == 0 else "-" * (w + 1) + ":"
                for i, w in enumerate(widths)) + "|")
    return "\n".join(lines)


def cause(reason):
    """A failure's reason without the file:line of the kernel it names, so
    that one cause groups the tests it fails."""
    return re.sub(r"\S+\.py:\d+: ", "", reason)


def report(label, classified, markdown):
    counts = collections.defaultdict(collections.Counter)
    for test_id, (kind, _) in classified.items():
        counts[directory(test_id)][kind] += 1
    total = collections.Counter()
    rows = [["directory"] + COLUMNS]
    for name in sorted(counts):
        total.update(counts[name])
        rows.append([name] + [counts[name][c] for c in COLUMNS])
    rows.append(["total"] + [total[c] for c in COLUMNS])
    in_scope = total["pass"] + total["fail"]
    rate = 100.0 * total["pass"] / in_scope if in_scope else 0.0
    print(f"\n{'### ' if markdown else '== '}{label}\n")
    print(table(rows, markdown))
    print(f"\nin-scope pass rate: {total['pass']} of {in_scope} "
          f"({rate:.1f}%)")
    failures = sorted((t, r) for t, (k, r) in classified.items() if k == "fail")
    if failures:
        print(f"\nin-scope failures ({len(failures)}), by reason:")
        by_reason = collections.defaultdict(list)
        for test_id, reason in failures:
            by_reason[cause(reason)].append(test_id)
        for reason, ids in sorted(by_reason.items(),
                                  key=lambda kv: (-len(kv[1]), kv[0])):
            print(f"\n{'- ' if markdown else ''}{len(ids)} x {reason}")
            for test_id in ids:
                print(f"    {'- ' if markdown else ''}`{test_id}`" if markdown
                      else f"    {test_id}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tests", default=os.path.join(
        ROOT, "build", "compat", "numba_dpex_tests"),
        help="the unpacked tests (fetch.py's output)")
    parser.add_argument("--device", action="append",
                        help="an OpenCL filter string (default: every "
                             "OpenCL device)")
    # Only a safety net against a run that hangs test after test: each
    # hang already ends after --test-timeout. A busy machine (another build
    # beside the suite) must not run it out: a normal run takes 1-2 min.
    parser.add_argument("--budget", type=float, default=1500,
                        help="seconds for one device's whole run")
    parser.add_argument("--test-timeout", type=int, default=60,
                        help="seconds before one test counts as hung")
    parser.add_argument("--markdown", action="store_true",
                        help="print the tables and lists as markdown")
    parser.add_argument("--write-expected", action="store_true",
                        help="write expected_pass.txt: the tests that pass "
                             "on every device of this run")
    args = parser.parse_args()

    tests_root = os.path.abspath(args.tests)
    if not os.path.isdir(os.path.join(tests_root, "numba_dpex", "tests")):
        why_file = os.path.join(os.path.dirname(tests_root), "not-run.txt")
        why = open(why_file).read().strip() if os.path.exists(why_file) \
            else f"{tests_root} is missing: run tests/compat/fetch.py"
        print(f"skipped: {why}")
        return SKIPPED
    devices = opencl_devices()
    if args.device:
        devices = [d for d in devices if d[0] in args.device]
    if not devices:
        print("skipped: no OpenCL device")
        return SKIPPED

    expected_file = os.path.join(HERE, "expected_pass.txt")
    expected = set()
    if os.path.exists(expected_file):
        expected = set(open(expected_file).read().split())

    regressions, passing_everywhere = [], None
    for filter_string, label in devices:
        started = time.monotonic()
        out_of_scope = read_patterns("out_of_scope.txt", filter_string)
        divergences = read_patterns("divergences.txt", filter_string)
        results = run_device(filter_string, tests_root, args.budget,
                             args.test_timeout, not_to_run(
                                 [p for p in divergences if p not in
                                  read_patterns("divergences.txt")]))
        classified = {t: classify(t, o, r, out_of_scope, divergences)
                      for t, (o, r) in results.items()}
        seconds = time.monotonic() - started
        report(f"{label}, kernel tests: {seconds:.0f} s for both tiers",
               {t: c for t, c in classified.items() if not is_dpjit(t)},
               args.markdown)
        report(f"{label}, dpjit tests",
               {t: c for t, c in classified.items() if is_dpjit(t)},
               args.markdown)
        passed = {t for t, (k, _) in classified.items() if k == "pass"}
        passing_everywhere = passed if passing_everywhere is None \
            else passing_everywhere & passed
        for test_id in sorted(expected - passed):
            outcome = classified.get(test_id, ("did not run", ""))
            regressions.append(f"{label}: {test_id}: {outcome[0]} "
                               f"{outcome[1]}".rstrip())

    if args.write_expected:
        with open(expected_file, "w") as f:
            f.write("".join(t + "\n" for t in sorted(passing_everywhere)))
        print(f"\nwrote {len(passing_everywhere)} ids to {expected_file}")
    newly = passing_everywhere - expected
    if newly and not args.write_expected:
        print(f"\nnow passes ({len(newly)}), add it to "
              f"tests/compat/expected_pass.txt:")
        for test_id in sorted(newly):
            print(f"    {test_id}")
    if regressions and not args.write_expected:
        print(f"\nREGRESSIONS: {len(regressions)} tests listed in "
              f"expected_pass.txt no longer pass:")
        for line in regressions:
            print(f"    {line}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
