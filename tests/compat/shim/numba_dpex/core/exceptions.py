"""numba-dpex's exception names for spirjit's exceptions of the same meaning."""

from spirjit.errors import DeviceInferenceError as ExecutionQueueInferenceError  # noqa: F401
from spirjit.errors import KernelHasReturnValueError  # noqa: F401
from spirjit.errors import TypingError as InvalidKernelSpecializationError  # noqa: F401
