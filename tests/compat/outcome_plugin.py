"""pytest plugin of the compatibility runner: appends each test's outcome to
the JSON-lines file SPIRJIT_COMPAT_LOG as the test ends, so that a run killed
by a crash or a hang keeps what it had; deselects the ids the runner lists in
SPIRJIT_COMPAT_DONE, so that the next run resumes after the crash. A test
that runs longer than SPIRJIT_COMPAT_TEST_TIMEOUT seconds ends the process
through faulthandler's watchdog, which fires even inside a driver call."""

import faulthandler
import json
import os


# Where the watchdog writes the hung test's traceback: pytest captures
# stderr, so the runner reads it from here.
_watchdog_file = None


def _log(record):
    with open(os.environ["SPIRJIT_COMPAT_LOG"], "a") as f:
        f.write(json.dumps(record) + "\n")


def _reason(report):
    # The exception's first line: "Error: message" as pytest prints it.
    crash = getattr(report.longrepr, "reprcrash", None)
    text = crash.message if crash is not None else str(report.longrepr)
    lines = [line for line in text.splitlines() if line.strip()]
    return lines[0].strip() if lines else "failed"


def pytest_collection_modifyitems(config, items):
    done_file = os.environ.get("SPIRJIT_COMPAT_DONE")
    if not done_file or not os.path.exists(done_file):
        return
    with open(done_file) as f:
        done = set(f.read().splitlines())
    keep = [item for item in items if item.nodeid not in done]
    config.hook.pytest_deselected(
        items=[item for item in items if item.nodeid in done])
    items[:] = keep


def pytest_collectreport(report):
    # A module that does not import: its error is the report's last "E" line.
    if report.failed:
        lines = [line[1:].strip() for line in str(report.longrepr).splitlines()
                 if line.startswith("E ")]
        reason = lines[-1] if lines else _reason(report)
        _log({"id": report.nodeid, "outcome": "failed",
              "reason": "collection: " + reason})


def pytest_runtest_logstart(nodeid, location):
    _log({"id": nodeid, "outcome": "started"})
    global _watchdog_file
    if _watchdog_file is None:
        _watchdog_file = open(os.environ["SPIRJIT_COMPAT_LOG"] + ".hung", "w")
    faulthandler.dump_traceback_later(
        int(os.environ.get("SPIRJIT_COMPAT_TEST_TIMEOUT", "60")), exit=True,
        file=_watchdog_file)


def pytest_runtest_logfinish(nodeid, location):
    faulthandler.cancel_dump_traceback_later()


def pytest_runtest_logreport(report):
    if report.when == "call" or report.failed or report.skipped:
        reason = _reason(report) if report.failed else ""
        if report.skipped:
            reason = str(report.longrepr[-1]) if isinstance(
                report.longrepr, tuple) else "skipped"
        _log({"id": report.nodeid, "outcome": report.outcome,
              "reason": reason})
