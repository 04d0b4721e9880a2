#!/usr/bin/env python3
"""ctest's docs: builds the documentation site (scripts/build-docs.sh:
Sphinx with warnings as errors, then every internal link and anchor), checks
that the link checker catches a broken link, then serves the site on the
loopback address and opens its pages in headless Chromium (Debian's
`chromium`): each must render its content (headings and text in the DOM
after its scripts ran), fetch its images, and log no script error; the
search page must find a name of the API.

Without chromium it prints "skipped: ..." after the build and exits with
77, which ctest reports as skipped.

    check_site.py [--site DIR]   (default: build/docs/html)
"""

import argparse
import functools
import html
import http.server
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
check_doc_links = __import__("check-doc-links")

# page (with its query) -> texts its rendered DOM must contain, and the
# images the browser must have fetched for it.
PAGES = {
    "index.html": {
        "text": ["<h1>spirjit", "Install", "./scripts/bootstrap.sh example",
                 "def vecadd(item: kapi.Item, a, b, c)", "Where to go next",
                 'href="user-guide.html"', 'href="reference.html"']},
    "user-guide.html": {
        "text": ["spirjit user guide", "A first kernel", "Launching",
                 "DeviceArrays", "Debugging kernels"]},
    "reference.html": {
        "text": ["Python API reference", 'id="spirjit.kernel"',
                 'id="spirjit.DeviceArray"', 'id="spirjit.DeviceArray.sum"',
                 'id="spirjit.kernel_api.NdRange"',
                 'id="spirjit.errors.TypingError"']},
    "performance.html": {
        "text": ["Performance", "The Laplace solver", "Launch overhead"],
        "images": ["laplace-speedup.png", "bench-vecadd.png",
                   "bench-launch-overhead.png"]},
    "examples.html": {
        "text": ["Examples", "laplace_mpi.py", "def vecadd("]},
    # The search runs in the page's scripts: results only appear if they ran.
    "search.html?q=DeviceArray": {
        "text": ["Search finished, found",
                 'href="reference.html#spirjit.DeviceArray"']},
}

# Chromium's stderr line for a console message (--enable-logging=stderr).
CONSOLE = re.compile(r":CONSOLE[:(]\d*\)?\] \"(.*)\", source: (.*)$")


class _Server(http.server.ThreadingHTTPServer):
    """Serves the site and records (path, status) of each request, so that
    a test can see which images the browser fetched."""

    def __init__(self, site):
        self.requests = []
        handler = functools.partial(_Handler, directory=site)
        super().__init__(("127.0.0.1", 0), handler)


class _Handler(http.server.SimpleHTTPRequestHandler):
    def log_request(self, code="-", size="-"):
        self.server.requests.append((self.path, int(code)))

    def log_message(self, *args):
        pass


def build(site):
    subprocess.run([os.path.join(ROOT, "scripts", "build-docs.sh"), site],
                   check=True)


def check_the_checker():
    """The link checker reports a missing page and a missing anchor."""
    with tempfile.TemporaryDirectory() as site:
        with open(os.path.join(site, "a.html"), "w") as f:
            f.write('<h1 id="top">a</h1><a href="a.html#top">ok</a>'
                    '<a href="#nowhere">x</a><a href="b.html">y</a>'
                    '<a href="https://example.org/">external</a>')
        broken, count = check_doc_links.check(site)
    assert count == 3 and len(broken) == 2, broken
    assert "no anchor '#nowhere'" in broken[0], broken
    assert "no file b.html" in broken[1], broken


def open_page(chromium, url, profile):
    """(DOM after the page's scripts ran, console messages) of `url`."""
    run = subprocess.run(
        [chromium, "--headless", "--no-sandbox", "--disable-gpu",
         "--no-first-run", f"--user-data-dir={profile}",
         "--enable-logging=stderr", "--v=0",
         # Lets timers and the search's fetches run before the dump.
         "--virtual-time-budget=10000", "--dump-dom", url],
        capture_output=True, text=True, timeout=180)
    if run.returncode != 0:
        raise AssertionError(f"chromium exited with {run.returncode} on "
                             f"{url}:\n{run.stderr[-3000:]}")
    console = []
    for line in run.stderr.splitlines():
        found = CONSOLE.search(line)
        if found:
            console.append(f"{found.group(1)} ({found.group(2)})")
    return run.stdout, console


def check_the_console(chromium):
    """A page whose script throws shows as an "Uncaught" console message."""
    with tempfile.TemporaryDirectory() as folder:
        page = os.path.join(folder, "throws.html")
        with open(page, "w") as f:
            f.write("<p>x</p><script>notDefined();</script>")
        dom, console = open_page(chromium, "file://" + page,
                                 os.path.join(folder, "profile"))
    assert "<p>x</p>" in dom, dom
    assert any("Uncaught ReferenceError" in m for m in console), console


def check_pages(chromium, site):
    """The problems of each page of PAGES (an empty list: it rendered)."""
    server = _Server(site)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    problems = {}
    try:
        with tempfile.TemporaryDirectory() as profile:
            for page, expected in PAGES.items():
                url = f"http://127.0.0.1:{server.server_address[1]}/{page}"
                del server.requests[:]
                dom, console = open_page(chromium, url, profile)
                problems[page] = found = []
                text = html.unescape(re.sub(r"<[^>]*>", "", dom))
                missing = [t for t in expected["text"]
                           if t not in dom and t not in text]
                if missing:
                    found.append(f"the rendered page lacks {missing}")
                errors = [m for m in console
                          if re.search(r"Uncaught|Error|Failed to load", m)]
                if errors:
                    found.append(f"script errors: {errors}")
                served = {os.path.basename(p.split("?")[0])
                          for p, status in server.requests if status == 200}
                unfetched = [i for i in expected.get("images", [])
                             if i not in served]
                if unfetched:
                    found.append(f"images not fetched: {unfetched}")
                print(f"{page}: {'FAILED' if found else 'ok'} ({len(dom)} "
                      f"characters of DOM, {len(console)} console messages)")
    finally:
        server.shutdown()
        server.server_close()
    return problems


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--site",
                        default=os.path.join(ROOT, "build", "docs", "html"))
    site = os.path.abspath(parser.parse_args().site)
    check_the_checker()
    build(site)
    chromium = shutil.which("chromium")
    if not chromium:
        print("skipped: the site built, but there is no chromium to open "
              "its pages (apt-get install chromium)")
        return 77
    check_the_console(chromium)
    problems = check_pages(chromium, site)
    for page, found in problems.items():
        for problem in found:
            print(f"{page}: {problem}")
    failed = sum(1 for found in problems.values() if found)
    print(f"{len(problems) - failed} passed, {failed} failed")
    return 1 if failed else 0

if __name__ == "__main__":
    sys.exit(main())
