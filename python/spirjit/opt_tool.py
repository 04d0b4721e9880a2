"""spirjit-opt: runs spirjit's LLVM-level passes, one by one, on textual
LLVM IR (tools/spirjit-opt.cpp; ``spirjit-opt --help``).

The tool is a C++ program: the wheel installs it inside the package
(``spirjit/_bin``), beside the libraries it shares with the bindings, and
this console script runs it. A source build leaves it in
``build/tools/spirjit-opt`` instead.
"""
import os
import sys

_BINARY = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_bin",
                       "spirjit-opt")


def main(argv=None):
    argv = sys.argv[1:] if argv is None else list(argv)
    if not os.path.isfile(_BINARY):
        print(f"spirjit-opt: {_BINARY} is missing: this spirjit is not an "
              "installed wheel; a source build has build/tools/spirjit-opt",
              file=sys.stderr)
        return 1
    os.execv(_BINARY, [_BINARY, *argv])


if __name__ == "__main__":
    sys.exit(main())
