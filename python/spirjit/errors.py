"""spirjit's exceptions. Every one is a SpirjitError; the compile errors carry
the user's ``filename`` and ``lineno`` and name them in the message. Each
also derives from the builtin class Python code would catch for the same
mistake (TypeError, ValueError, IndexError, ...), so ``except ValueError``
keeps working."""

from numpy import exceptions as _np_exceptions
from numpy import linalg as _np_linalg


class SpirjitError(Exception):
    """Base of every spirjit exception."""


class CompileError(SpirjitError):
    """The compiler rejected the user's function; ``.filename``, ``.lineno``."""

    def __init__(self, message, filename=None, lineno=None):
        super().__init__(message)
        self.filename = filename
        self.lineno = lineno


class TypingError(CompileError, TypeError):
    """Operand or argument types that spirjit cannot give a meaning to,
    in a kernel or in a call of spirjit's API."""


class UnsupportedFeatureError(CompileError):
    """A Python construct kernels cannot use (try, with, yield, list, ...)."""


class KernelHasReturnValueError(CompileError):
    """A kernel returned a value; kernels write results into arrays."""


class DeviceInferenceError(SpirjitError, ValueError):
    """Arrays of one launch live on different devices."""


class InvalidRangeError(SpirjitError, ValueError):
    """A Range or NdRange that cannot be launched."""


class InvalidArgumentError(SpirjitError, ValueError):
    """An argument of the right type with a value spirjit does not take
    (``opt=5``, ``usm_type="pinned"``, shapes that do not broadcast)."""


class LinAlgError(InvalidArgumentError, _np_linalg.LinAlgError):
    """A matrix a spirjit.linalg function cannot factor or invert (singular,
    not positive definite), with NumPy's message: NumPy's LinAlgError."""


class ArrayIndexError(SpirjitError, IndexError):
    """An index a DeviceArray does not have, as NumPy's IndexError."""


class ArrayAxisError(SpirjitError, _np_exceptions.AxisError):
    """An axis a DeviceArray does not have, as NumPy's AxisError (a
    ValueError and an IndexError)."""


class NotSupportedError(SpirjitError, NotImplementedError):
    """An option of a NumPy-like function that spirjit does not implement
    (``order="F"``, ``out=`` of some methods)."""


class DLPackError(SpirjitError, BufferError):
    """Memory that cannot be shared through DLPack as asked."""


class DeviceError(SpirjitError, RuntimeError):
    """A device or driver failed; ``.code`` names the backend's error code and
    ``.build_log`` holds the device compiler's log for build failures."""

    backend = None
    code = None
    build_log = ""


class OutOfDeviceMemoryError(DeviceError, MemoryError):
    """The device ran out of memory."""


class InternalCompilerError(SpirjitError, RuntimeError):
    """A bug in spirjit itself, not in the user's code: please report it."""


__all__ = [
    "SpirjitError", "CompileError", "TypingError", "UnsupportedFeatureError",
    "KernelHasReturnValueError", "DeviceInferenceError", "InvalidRangeError",
    "InvalidArgumentError", "LinAlgError", "ArrayIndexError",
    "ArrayAxisError", "NotSupportedError", "DLPackError", "DeviceError",
    "OutOfDeviceMemoryError", "InternalCompilerError",
]
