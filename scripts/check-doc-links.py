#!/usr/bin/env python3
"""Checks every internal link of a built HTML site: each relative href or src
names a file of the site, and each #anchor an id (or <a name>) on the page it
points to. Sphinx's nitpicky mode checks the cross-references it makes; this
checks what reached the HTML, the theme's links and the pages' Markdown
links included. External links (with a scheme, or //host) are not checked:
CI has no network beyond the package registries.

Usage: check-doc-links.py SITE_DIR   (exit status 1 and a list if broken)
"""

import html.parser
import os
import sys
import urllib.parse


class _Page(html.parser.HTMLParser):
    """A page's anchors (ids and <a name>) and its links (tag, attribute,
    value, line)."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.anchors = set()
        self.links = []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if attrs.get("id"):
            self.anchors.add(attrs["id"])
        if tag == "a" and attrs.get("name"):
            self.anchors.add(attrs["name"])
        for name in ("href", "src"):
            value = attrs.get(name)
            if value is not None:
                self.links.append((tag, name, value, self.getpos()[0]))


def _parse(path):
    page = _Page()
    with open(path, encoding="utf-8") as f:
        page.feed(f.read())
    page.close()
    return page


def _internal(value):
    """The (path, fragment) a link names in the site, or None if external."""
    parts = urllib.parse.urlsplit(value)
    if parts.scheme or parts.netloc:
        return None
    return (urllib.parse.unquote(parts.path),
            urllib.parse.unquote(parts.fragment))


def check(site):
    site = os.path.abspath(site)
    pages = {}
    for folder, _, files in os.walk(site):
        for name in files:
            if name.endswith(".html"):
                path = os.path.join(folder, name)
                pages[path] = _parse(path)
    if not pages:
        return [f"{site}: no HTML pages"], 0
    broken = []
    count = 0
    for path, page in sorted(pages.items()):
        where = os.path.relpath(path, site)
        for tag, attribute, value, line in page.links:
            target = _internal(value)
            if target is None:
                continue
            count += 1
            link_path, fragment = target
            if link_path:
                resolved = os.path.normpath(
                    os.path.join(os.path.dirname(path), link_path))
                if os.path.isdir(resolved):
                    resolved = os.path.join(resolved, "index.html")
            else:
                resolved = path
            if not resolved.startswith(site + os.sep):
                broken.append(f"{where}:{line}: <{tag} {attribute}="
                              f"\"{value}\"> leaves the site")
            elif not os.path.isfile(resolved):
                broken.append(f"{where}:{line}: <{tag} {attribute}="
                              f"\"{value}\">: no file "
                              f"{os.path.relpath(resolved, site)}")
            elif fragment and resolved in pages and \
                    fragment not in pages[resolved].anchors:
                broken.append(f"{where}:{line}: <{tag} {attribute}="
                              f"\"{value}\">: no anchor '#{fragment}' in "
                              f"{os.path.relpath(resolved, site)}")
    return broken, count


def main(argv):
    if len(argv) != 2:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    broken, count = check(argv[1])
    for problem in broken:
        print(problem)
    print(f"{count} internal links checked, {len(broken)} broken")
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
