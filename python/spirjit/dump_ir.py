"""spirjit-dump-ir: prints a function at every stage of the compiler.

    spirjit-dump-ir FILE.py FUNCTION --sig "(float32[::1], float32[::1])"
                    [--stage bytecode|pyir|typed|parfor|llir|llir.opt|spv|spir|ptx|native|all]
                    [--image spirv|spir|ptx|native] [--target cuda] [--ndim N]
                    [--nd-range] [--local-shape 16,16 ...] [--disjoint]
                    [--dump-dir DIR]
    spirjit-dump-ir FILE.py FUNCTION --arrays --sig "(float32[:, :], float64)"
                    [--shape 8] [--stage ...] [--target cuda]
"""

import argparse
import functools
import os
import runpy
import stat
import sys
import types

from . import _spirjit, errors
from ._describe import describe_function


def _stage_help():
    return "\n".join(f"  {name:9} {summary}"
                     for name, summary in _spirjit.stage_names())


def _find_function(path, name):
    """The plain Python function `name` of the file at `path`, or a line
    saying why there is none: a mistake in the command line or the file is
    the user's, and a traceback through runpy would only hide it."""
    # Only a regular file is read: a FIFO or a device such as /dev/zero
    # would block or never end, and runpy runs a directory's __main__.py.
    try:
        mode = os.stat(path).st_mode
    except OSError as e:
        return f"cannot read {path}: {e.strerror or e}"
    if not stat.S_ISREG(mode):
        return f"cannot read {path}: {_file_kind(mode)}, not a Python file"
    # Compiled here first, so that a file that is no Python source (null
    # bytes are a ValueError on 3.11) says so instead of a traceback, and a
    # ValueError of the file's own code is not mistaken for one.
    try:
        with open(path, "rb") as source:
            compile(source.read(), path, "exec")
    except OSError as e:
        return f"cannot read {path}: {e.strerror or e}"
    except SyntaxError as e:
        return (f"{e.filename or path}:{e.lineno}: {e.msg}; fix the file's "
                "syntax first")
    except ValueError as e:
        return f"{path} is not Python source: {e}"
    # Run the file as a module of its own, so `if __name__ == "__main__"`
    # blocks stay quiet, then find the function in its namespace.
    sys.path.insert(0, os.path.dirname(os.path.abspath(path)))
    try:
        namespace = runpy.run_path(path, run_name="__spirjit_dump_ir__")
    except OSError as e:
        return f"cannot read {path}: {e.strerror or e}"
    except SyntaxError as e:  # in a module the file imports
        return (f"{e.filename or path}:{e.lineno}: {e.msg}; fix the file's "
                "syntax first")
    if name not in namespace:
        return f"{path} has no function '{name}'"
    # Decorated kernels and device functions keep the function as py_func.
    function = getattr(namespace[name], "py_func", namespace[name])
    if type(namespace[name]).__name__ == "JitFunction":
        function.__spirjit_jit__ = True
    if type(namespace[name]).__name__ == "DeviceFunction":
        function.__spirjit_device_globals__ = namespace
    if not isinstance(getattr(function, "__code__", None), types.CodeType):
        return (f"'{name}' in {path} is not a function but a value of type "
                f"{type(function).__name__}; name a function defined with "
                "def")
    return function


def _file_kind(mode):
    kinds = [(stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO"),
             (stat.S_ISCHR, "a character device"),
             (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket")]
    return next((kind for test, kind in kinds if test(mode)),
                "not a regular file")


def _prepare_dump_dir(path):
    """None once `path` is a directory the tool can write into, else the
    line saying why not: found before any compiling, so a bad --dump-dir
    costs nothing and leaves no half-written files."""
    if os.path.exists(path) and not os.path.isdir(path):
        return f"--dump-dir {path}: it exists and is not a directory"
    try:
        os.makedirs(path, exist_ok=True)
        probe = os.path.join(path, ".spirjit-dump-ir-probe")
        with open(probe, "w"):
            pass
        os.remove(probe)
    except OSError as e:
        return f"--dump-dir {path}: cannot write there: {e.strerror or e}"
    return None


def _device_function_caller(function, signature):
    """A device function is compiled where a kernel calls it: the kernel
    (and its --sig) that stores its result, and so keeps it through the
    optimiser. Its own stages show the function; after inlining, the
    kernel holds its code."""
    count = function.__code__.co_argcount
    params = ", ".join(f"arg{k}" for k in range(count))
    name = f"call_{function.__name__}"
    source = (f"def {name}(item, result, {params}):\n"
              f"    result[0] = {function.__name__}({params})\n")
    namespace = function.__spirjit_device_globals__
    exec(compile(source, f"<a kernel calling {function.__name__}>", "exec"),
         namespace)
    inner = signature.strip()
    if inner.startswith("(") and inner.endswith(")"):
        inner = inner[1:-1]
    return namespace.pop(name), f"(complex128[::1], {inner})"


def main(argv=None):
    stages = [name for name, _ in _spirjit.stage_names()]
    parser = argparse.ArgumentParser(
        prog="spirjit-dump-ir",
        description="Print a Python function at each stage of spirjit's "
                    "compiler.",
        epilog="stages:\n" + _stage_help(),
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("file",
                        help="the Python file; the tool runs it, as an "
                             "import would, to find the function, so its "
                             "top-level code runs (Ctrl-C ends a file that "
                             "never finishes)")
    parser.add_argument("function",
                        help="a function in the file, decorated or not")
    parser.add_argument("--sig", required=True,
                        help='argument types after the item, numba-style: '
                             '"(float32[::1], int64)"; a LocalAccessor is '
                             '"float32[::1] local"')
    parser.add_argument("--stage", default="all",
                        choices=stages + ["all"], help="the stage to print")
    parser.add_argument("--ndim", type=int, default=1, choices=[1, 2, 3],
                        help="rank of the launch's Range (default 1)")
    parser.add_argument("--nd-range", action="store_true",
                        help="compile for an NdRange launch (NdItem kernels)")
    parser.add_argument("--local-shape", action="append", default=[],
                        metavar="E[,E...]",
                        help="the shape of a LocalAccessor argument, once "
                             "per local array in order: launches compile "
                             "kernels for their LocalAccessors' shapes "
                             "(without it, shapes are parameters)")
    parser.add_argument("--image", choices=["spirv", "spir", "ptx", "native"],
                        help="the device image to compile for: spirv (the "
                             "default; devices that take SPIR-V), spir "
                             "(SPIR 1.2 bitcode, OpenCL devices without "
                             "SPIR-V such as PoCL), ptx (CUDA devices) or "
                             "native (host machine code: the native CPU "
                             "device); --stage spir implies spir, --stage "
                             "ptx ptx, --stage native native")
    parser.add_argument("--target", choices=["opencl", "cuda"],
                        help="cuda: compile for NVIDIA GPUs (the ptx image; "
                             "no GPU needed)")
    parser.add_argument("--boundscheck", action="store_true",
                        help="compile with index checks, as "
                             "@spirjit.kernel(boundscheck=True)")
    parser.add_argument("--debug", action="store_true",
                        help="compile as @spirjit.kernel(debug=True)")
    parser.add_argument("--disjoint", action="store_true",
                        help="compile as for a launch whose arrays share no "
                             "byte, as most do: array parameters are "
                             "noalias (launches compile a kernel for it)")
    parser.add_argument("--jit", action="store_true",
                        help="compile as @spirjit.jit (the default for a "
                             "function so decorated): the host code's "
                             "stages, then each prange loop's kernel's; "
                             "--sig gives all the arguments")
    parser.add_argument("--arrays", action="store_true",
                        help="run FUNCTION on DeviceArrays of --sig's dtypes "
                             "and ranks (numbers for scalars) on the default "
                             "device, and print the fused kernels its array "
                             "operations compile: each one's graph (at the "
                             "bytecode stage) and stages")
    parser.add_argument("--shape", type=int, default=8,
                        help="with --arrays: the extent of every axis "
                             "(default 8)")
    parser.add_argument("--dump-dir",
                        help="also write each stage to DIR/NN-stage files")
    args = parser.parse_args(argv)
    try:
        return _dump(args, stages)
    except KeyboardInterrupt:
        # The shell's convention for a command ended by SIGINT: 128 + 2.
        print("spirjit-dump-ir: interrupted", file=sys.stderr)
        return 130


def _arguments(signature, extent):
    """DeviceArrays (values 1 to 2) and numbers of a numba-style
    signature's types, each axis `extent` long."""
    import numpy as np
    inner = signature.strip()
    if inner.startswith("(") and inner.endswith(")"):
        inner = inner[1:-1]
    parts, depth, start = [], 0, 0
    for i, c in enumerate(inner + ","):
        depth += c == "["
        depth -= c == "]"
        if c == "," and depth == 0:
            if inner[start:i].strip():
                parts.append(inner[start:i].strip())
            start = i + 1
    values = []
    for part in parts:
        name, _, axes = part.partition("[")
        try:
            dtype = np.dtype(name.strip())
        except TypeError:
            raise errors.InvalidArgumentError(
                f"--sig: {name.strip()!r} is not a NumPy dtype") from None
        if not axes:
            values.append(dtype.type(2))
            continue
        shape = (extent,) * (axes.count(",") + 1)
        host = np.linspace(1, 2, int(np.prod(shape))).astype(dtype)
        from . import asarray
        values.append(asarray(host.reshape(shape)))
    return values


def _dump_arrays(args, function, wanted, show, image):
    """Runs `function` on DeviceArrays and shows each fused kernel it
    compiled, in the order they were compiled. For an image the default
    device does not take (--target cuda), each kernel is compiled again
    for it, as the launch specialised it: the same argument layouts and
    noalias decision, and the default device's kernel forms (a CPU's
    reductions fold chunked rows, a GPU's interleaved ones)."""
    import tempfile
    from . import synchronize
    with tempfile.TemporaryDirectory(prefix="spirjit-arrays-") as folder:
        os.environ["SPIRJIT_DUMP_DIR"] = folder
        # Kernels at every size: a CPU runtime computes small values with
        # NumPy otherwise, which compiles nothing to show.
        host = _spirjit._host_evaluation(False)
        try:
            # What it returns is kept until everything pending has run.
            result = function(*_arguments(args.sig, args.shape))
            synchronize()
            del result
        finally:
            del os.environ["SPIRJIT_DUMP_DIR"]
            _spirjit._host_evaluation(host)
        if image == "ptx":
            _spirjit.dump_array_kernels(wanted, show, image)
            return 0
        kernels = sorted((os.path.getmtime(os.path.join(folder, k)), k)
                         for k in os.listdir(folder)
                         if k.startswith(("array_map", "array_reduce")))
        if not kernels:
            print(f"; {function.__name__} compiled no array kernel (its "
                  "kernels were compiled before in this process, or it "
                  "does no DeviceArray arithmetic)")
        for _, kernel in kernels:
            files = {name.split("-", 1)[1].rsplit(".", 1)[0]: name
                     for name in os.listdir(os.path.join(folder, kernel))}
            for stage in wanted:
                if stage in files:
                    with open(os.path.join(folder, kernel,
                                           files[stage])) as f:
                        show(stage, f.read(), f"array kernel: {kernel}")
    return 0


def _dump(args, stages):
    problem = args.dump_dir and _prepare_dump_dir(args.dump_dir)
    if problem:
        print(f"spirjit-dump-ir: {problem}", file=sys.stderr)
        return 2
    function = _find_function(args.file, args.function)
    if isinstance(function, str):
        print(f"spirjit-dump-ir: {function}", file=sys.stderr)
        return 2
    wanted = stages if args.stage == "all" else [args.stage]
    image = args.image or ("ptx" if args.target == "cuda"
                           or args.stage == "ptx" else
                           "spir" if args.stage == "spir" else
                           "native" if args.stage == "native" else "spirv")

    device = hasattr(function, "__spirjit_device_globals__")

    def show(stage, text, what=None):
        what = what or (f"device function: {function.__name__}, called by "
                        f"kernel call_{function.__name__}" if device else
                        f"kernel: {function.__name__}")
        print(f"; ----- after {stage} ({what}) -----")
        print(text.rstrip("\n"), flush=True)
        if args.dump_dir:
            index = stages.index(stage) + 1
            if what.startswith("kernel: ") and \
                    what != f"kernel: {function.__name__}":
                stage = stage + "-" + what[len("kernel: "):]
            with open(os.path.join(args.dump_dir,
                                   f"{index:02d}-{stage}.txt"), "w") as out:
                out.write(text)

    try:
        local_extents = [int(e) for shape in args.local_shape
                         for e in shape.split(",")]
    except ValueError:
        print(f"spirjit-dump-ir: --local-shape takes integers separated by "
              f"commas, not {args.local_shape}", file=sys.stderr)
        return 2
    try:
        if args.arrays:
            return _dump_arrays(args, function, wanted, show, image)
        if args.jit or getattr(function, "__spirjit_jit__", False):
            _spirjit.dump_host_stages(functools.partial(describe_function,
                                                        function),
                                      args.sig,
                                      wanted, show, image, args.disjoint)
        elif device:
            caller, signature = _device_function_caller(function, args.sig)
            _spirjit.dump_stages(describe_function(caller), signature,
                                 args.ndim, args.nd_range, wanted, show,
                                 image, args.boundscheck, args.debug,
                                 local_extents, args.disjoint)
        else:
            _spirjit.dump_stages(describe_function(function), args.sig,
                                 args.ndim, args.nd_range, wanted, show,
                                 image, args.boundscheck, args.debug,
                                 local_extents, args.disjoint)
    except errors.InvalidArgumentError as e:  # the command line's
        print(f"spirjit-dump-ir: {e}", file=sys.stderr)
        return 2
    except errors.SpirjitError as e:
        print(f"spirjit-dump-ir: {e}", file=sys.stderr)
        return 1
    except ValueError as e:
        print(f"spirjit-dump-ir: {e}", file=sys.stderr)
        return 2
    except OSError as e:  # a --dump-dir that stopped taking files
        print(f"spirjit-dump-ir: cannot write {e.filename}: "
              f"{e.strerror or e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
