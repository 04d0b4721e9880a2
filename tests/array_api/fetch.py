#!/usr/bin/env python3
"""Fetches the Array API conformance suite for the array_api tier.

    .venv/bin/python tests/array_api/fetch.py [build/array_api]

Downloads data-apis/array-api-tests and the standard's own repository (its
function stubs, which the suite reads) at the pinned commits below, from
GitHub's archive service, into <dir>/array-api-tests: nothing of either is
committed here. Where GitHub cannot be reached, SPIRJIT_ARRAY_API_TESTS may
name a checkout of the suite (with its array-api submodule) to copy.
Without either it writes the reason to <dir>/not-run.txt, which
run_array_api.py prints as "skipped: ...", and exits 0 so that set-up goes
on.
"""

import io
import os
import shutil
import sys
import tarfile
import urllib.request

TESTS = ("data-apis/array-api-tests",
         "55fcc60179efa2680ddd6cd926ddf17b83530e2b")  # 2026-04-03
SPEC = ("data-apis/array-api",
        "5f847a3858875c682ae901aa22b0413bf24be9da")  # the suite's submodule
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))


def _unpack(repo, commit, into):
    url = f"https://codeload.github.com/{repo}/tar.gz/{commit}"
    with urllib.request.urlopen(url, timeout=60) as response:
        data = response.read()
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as archive:
        top = archive.getmembers()[0].name.split("/")[0]
        archive.extractall(os.path.dirname(into), filter="data")
    shutil.move(os.path.join(os.path.dirname(into), top), into)


def main():
    out = os.path.abspath(sys.argv[1] if len(sys.argv) > 1
                          else os.path.join(ROOT, "build", "array_api"))
    suite = os.path.join(out, "array-api-tests")
    not_run = os.path.join(out, "not-run.txt")
    os.makedirs(out, exist_ok=True)
    if os.path.exists(not_run):
        os.remove(not_run)
    stamp = os.path.join(suite, ".spirjit-commit")
    if os.path.exists(stamp) and open(stamp).read().strip() == TESTS[1]:
        print(f"== Array API tier: the suite at {TESTS[1][:12]} is in {suite}")
        return 0
    shutil.rmtree(suite, ignore_errors=True)
    local = os.environ.get("SPIRJIT_ARRAY_API_TESTS")
    try:
        if local:
            shutil.copytree(local, suite, ignore=shutil.ignore_patterns(
                ".git", ".hypothesis", "__pycache__"))
        else:
            _unpack(*TESTS, suite)
            shutil.rmtree(os.path.join(suite, "array-api"),
                          ignore_errors=True)
            _unpack(*SPEC, os.path.join(suite, "array-api"))
    except Exception as e:  # no network, no GitHub: the tier is skipped
        shutil.rmtree(suite, ignore_errors=True)
        why = (f"the Array API suite did not download from GitHub "
               f"({type(e).__name__}: {e}); set SPIRJIT_ARRAY_API_TESTS to "
               f"a checkout of {TESTS[0]} at {TESTS[1][:12]}")
        with open(not_run, "w") as f:
            f.write(why + "\n")
        print(f"== Array API tier: {why}")
        return 0
    with open(stamp, "w") as f:
        f.write(TESTS[1] + "\n")
    print(f"== Array API tier: {TESTS[0]} at {TESTS[1][:12]} in {suite}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
