"""Sphinx configuration: docs/ as a site (scripts/build-docs.sh builds it).

The pages stay plain Markdown that reads the same on a repository browser;
myst-parser gives Sphinx them, autodoc the package's docstrings
(reference.rst). The build runs nitpicky with warnings as errors, so every
cross-reference, heading anchor and page link here must resolve.
"""

import os
import sys

from sphinx import addnodes
from sphinx.transforms.post_transforms import SphinxPostTransform

_root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# autodoc imports the package of this tree (its extension module built
# there by the CMake build).
sys.path.insert(0, os.path.join(_root, "python"))

project = "spirjit"
copyright = "the spirjit authors"
import spirjit  # noqa: E402

release = version = spirjit.__version__

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
]

source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
nitpicky = True

# GitHub-style heading slugs, the ones the pages' `page.md#anchor` links use.
myst_heading_anchors = 4

autodoc_member_order = "bysource"
autodoc_typehints = "none"
autodoc_default_options = {"members": True}

html_theme = "furo"
html_title = f"spirjit {release}"
html_show_sourcelink = False

# Classes from outside the package (base classes, and the return type in
# pybind11's signature of DeviceArray.asnumpy): there is no intersphinx (the
# build runs without network), so nitpicky mode would call them unresolved.
nitpick_ignore = [("py:class", "enum.IntEnum"),
                  ("py:class", "numpy.exceptions.AxisError"),
                  ("py:class", "numpy.linalg.LinAlgError"),
                  ("py:class", "numpy.ndarray")]

# Files outside docs/ that the pages link to (so that the links work on a
# repository browser too) and the page of the site that shows each.
_OUTSIDE_PAGES = {"README": "index", "benchmarks/README": "benchmarks"}


class _OutsideLinks(SphinxPostTransform):
    """Points the pages' links to the files of _OUTSIDE_PAGES at their pages,
    before myst-parser resolves links (its resolver's priority is 9)."""

    default_priority = 8

    def run(self, **kwargs):
        for node in self.document.findall(addnodes.pending_xref):
            if node.get("reftype") != "myst" or node.get("refdomain") != "doc":
                continue
            target = node["reftarget"]
            if os.path.isabs(target):
                page = _OUTSIDE_PAGES.get(os.path.relpath(target, _root))
                if page:
                    node["reftarget"] = page


def setup(app):
    app.add_post_transform(_OutsideLinks)
