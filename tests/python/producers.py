"""Array producers of other libraries, as the tests need them."""


class DLPackOnly:
    """A producer that exposes nothing but the DLPack protocol (over a
    NumPy array's memory: a CPU producer that is not NumPy)."""

    def __init__(self, array):
        self._array = array

    def __dlpack__(self, **kwargs):
        return self._array.__dlpack__(**kwargs)

    def __dlpack_device__(self):
        return self._array.__dlpack_device__()
