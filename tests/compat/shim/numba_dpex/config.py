"""numba_dpex.config: the settings numba-dpex's tests read and set. None of
them changes what spirjit does; the debugging tests are skipped as numba-dpex
skips them without its debugger."""

CAPTURED_ERRORS = "new_style"
DEBUG = 0
DUMP_KERNEL_LLVM = 0
INLINE_THRESHOLD = None
TESTING_LOG_DEBUGGING = 0
TESTING_SKIP_NO_DEBUGGING = 1
