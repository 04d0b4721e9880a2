"""numba-dpex's lists of the dpnp ufunc names its dpjit types (the ufunc
tests take their parameters from them), read from numba-dpex's own file in
the wheel that tests/compat/fetch.py downloaded: only the list and set
literals, nothing of its typing code."""

import ast
import glob
import os
import zipfile

_HERE = os.path.dirname(os.path.abspath(__file__))
_ROOT = os.path.abspath(os.path.join(_HERE, *[os.pardir] * 6))


def _lists():
    wheels = glob.glob(os.path.join(_ROOT, "build", "compat", "wheel",
                                    "numba_dpex-*.whl"))
    if not wheels:
        raise ImportError("numba-dpex's wheel is not in build/compat/wheel; "
                          "run tests/compat/fetch.py")
    with zipfile.ZipFile(wheels[0]) as wheel:
        source = wheel.read("numba_dpex/core/typing/dpnpdecl.py").decode()
    found = {}
    for node in ast.parse(source).body:
        if not (isinstance(node, ast.Assign) and len(node.targets) == 1 and
                isinstance(node.targets[0], ast.Name)):
            continue
        value = node.value
        # `set([...])`, as the file spells _unsupported
        if isinstance(value, ast.Call) and getattr(value.func, "id", "") == \
                "set" and len(value.args) == 1:
            found[node.targets[0].id] = set(ast.literal_eval(value.args[0]))
        elif isinstance(value, (ast.List, ast.Set, ast.Tuple)):
            found[node.targets[0].id] = ast.literal_eval(value)
    return found


globals().update(_lists())
