#!/usr/bin/env python3
"""The Array API conformance tier: data-apis/array-api-tests (fetched at
set-up by fetch.py) against the module ``spirjit``, once per device.

    run_array_api.py --suite build/array_api/array-api-tests [--device F]

Each device runs the whole suite in a fresh interpreter with
SPIRJIT_DEVICE naming it, 20 examples a test as the issue measured,
derandomized (the same examples every run, no example database) and
without Hypothesis' deadline (timing would make a busy machine fail).
The tests listed in known_failures.txt, each under a comment that says
why, are expected to fail (the suite's --xfails-file); any other failure
fails the tier. The counts go to stdout and to counts-<device>.txt
beside the suite. Without the suite it prints "skipped: <why>" and exits
with 77, which ctest shows as skipped.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile

SKIPPED = 77
HERE = os.path.dirname(os.path.abspath(__file__))


def devices(wanted):
    import spirjit
    if wanted:
        return [spirjit.Device(wanted).filter_string]
    return [d.filter_string for d in spirjit.devices()]


def run(suite, device, examples):
    report = tempfile.NamedTemporaryFile(suffix=".json", delete=False).name
    # The suite runs from its own folder: PYTHONPATH's entries made
    # absolute, so that spirjit is found from there too.
    path = os.pathsep.join(os.path.abspath(p) for p in os.environ.get(
        "PYTHONPATH", "").split(os.pathsep) if p)
    env = dict(os.environ, SPIRJIT_DEVICE=device, PYTHONPATH=path,
               ARRAY_API_TESTS_MODULE="spirjit",
               ARRAY_API_TESTS_VERSION="2024.12")
    # The suite's own folder is pytest's root (test ids as the known
    # failures spell them), whatever pytest configuration lies above it.
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
               "--rootdir", suite, "-c", os.path.join(suite, "pytest.ini"),
               "--max-examples", str(examples), "--hypothesis-derandomize",
               "--hypothesis-disable-deadline",
               "--xfails-file", os.path.join(HERE, "known_failures.txt"),
               "--json-report", f"--json-report-file={report}",
               "-rf", os.path.join(suite, "array_api_tests")]
    done = subprocess.run(command, cwd=suite, env=env, capture_output=True,
                          text=True)
    try:
        with open(report) as f:
            tests = json.load(f).get("tests", [])
    except (OSError, ValueError):
        tests = []
    finally:
        if os.path.exists(report):
            os.remove(report)
    counts = {}
    for t in tests:
        counts[t["outcome"]] = counts.get(t["outcome"], 0) + 1
    failed = [t["nodeid"] for t in tests if t["outcome"] in ("failed",
                                                             "error")]
    return done, counts, failed


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--suite", required=True)
    parser.add_argument("--device")
    parser.add_argument("--examples", type=int, default=20)
    args = parser.parse_args()
    if not os.path.isdir(os.path.join(args.suite, "array_api_tests")):
        why_file = os.path.join(os.path.dirname(args.suite), "not-run.txt")
        why = open(why_file).read().strip() if os.path.exists(why_file) \
            else f"no suite in {args.suite} (run tests/array_api/fetch.py)"
        print(f"skipped: {why}")
        return SKIPPED
    status = 0
    for device in devices(args.device):
        done, counts, failed = run(args.suite, device, args.examples)
        total = sum(counts.values())
        # A listed test that passes here (listed for another device, or
        # mended) passes: it counts with the rest.
        passed = counts.get("passed", 0) + counts.get("xpassed", 0)
        ran = total - counts.get("skipped", 0)
        line = (f"{device}: {passed} of {total} tests pass "
                f"({100.0 * passed / max(total, 1):.1f} %; "
                f"{100.0 * passed / max(ran, 1):.1f} % of those that run), "
                f"{counts.get('xfailed', 0)} known failures, "
                f"{counts.get('xpassed', 0)} listed ones passing, "
                f"{counts.get('skipped', 0)} skipped by the suite, "
                f"{len(failed)} new failures")
        print(line)
        with open(os.path.join(os.path.dirname(args.suite),
                               f"counts-{device.replace(':', '-')}.txt"),
                  "w") as f:
            f.write(line + "\n")
        if failed or not total:
            status = 1
            print("\n".join(f"  new failure: {t}" for t in failed))
            if not total:
                print(done.stdout[-4000:], done.stderr[-4000:])
    return status


if __name__ == "__main__":
    sys.exit(main())
