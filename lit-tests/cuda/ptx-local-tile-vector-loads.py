# RUN: %spirjit-dump-ir %s row_sums --sig "(float32[:, ::1], float32[:, ::1], float32[:, ::1] local)" --ndim 2 --nd-range --local-shape 16,16 --target cuda --stage ptx | FileCheck %s
# RUN: %spirjit-dump-ir %s row_sums --sig "(float32[:, ::1], float32[:, ::1], float32[:, ::1] local)" --ndim 2 --nd-range --target cuda --stage ptx | FileCheck %s --check-prefix=PARAMETERS
# A launch compiles a kernel for its LocalAccessors' shapes: the tile's row
# stride is a constant and its buffer 16-byte aligned in the shared
# segment, so a tile row loads four floats at a time, as nvcc's code does
# for a __shared__ float[16][16]. With the shape a parameter (the dump
# tool without --local-shape) the loads stay scalar.
# CHECK-LABEL: after ptx (kernel: row_sums)
# CHECK: st.shared.f32
# CHECK-COUNT-4: ld.shared.v4.f32
# PARAMETERS-LABEL: after ptx (kernel: row_sums)
# PARAMETERS-NOT: ld.shared.v4.f32
# PARAMETERS: ld.shared.f32
import numpy as np

from spirjit import kernel_api as kapi


def row_sums(item: kapi.NdItem, a, c, tile):
    lr = item.get_local_id(0)
    lc = item.get_local_id(1)
    tile[lr, lc] = a[item.get_global_id(0), item.get_global_id(1)]
    kapi.group_barrier(item.get_group())
    acc = np.float32(0)
    for k in range(16):
        acc += tile[lr, k]
    c[item.get_global_id(0), item.get_global_id(1)] = acc
