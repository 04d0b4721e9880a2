"""numba_dpex.core: only what numba-dpex's behaviour tests import from it."""

from .. import config  # noqa: F401
