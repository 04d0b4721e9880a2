#!/usr/bin/env bash
# Builds the documentation site from docs/ into build/docs/html (open
# build/docs/html/index.html), after a build of spirjit: the API reference
# imports the package of this tree. Sphinx runs nitpicky with warnings as
# errors, then scripts/check-doc-links.py checks every internal link and
# anchor of the HTML. Its packages (docs/requirements.txt) come from PyPI
# into .venv with `./scripts/bootstrap.sh test`.
#   usage: scripts/build-docs.sh [OUTPUT_DIR]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$root/build/docs/html}
python=$root/.venv/bin/python
if ! "$python" -c "import sphinx, myst_parser, furo" 2>/dev/null; then
  echo "build-docs: Sphinx is missing from .venv: run" \
       "'.venv/bin/python -m pip install -r docs/requirements.txt'" >&2
  exit 2
fi
# A fresh environment (-E) each time: a warning of an unchanged page must
# fail every build, not only the first.
"$python" -m sphinx -E -n -W --keep-going -q \
  -b html -d "$out/../doctrees" "$root/docs" "$out"
"$python" "$root/scripts/check-doc-links.py" "$out"
