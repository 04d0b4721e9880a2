# RUN: env SPIRJIT_PRANGE_COALESCE=always %spirjit-dump-ir %s sweep --jit --sig "(float32[:, ::1], float32[:, ::1])" --stage parfor | FileCheck %s --check-prefix=MAPPED
# RUN: %spirjit-dump-ir %s sweep --jit --sig "(float32[:, ::1], float32[:, ::1])" --target cuda --stage parfor | FileCheck %s --check-prefix=MAPPED
# RUN: %spirjit-dump-ir %s sweep --jit --sig "(float32[:, ::1], float32[:, ::1])" --stage parfor | FileCheck %s --check-prefix=ROWS
# RUN: env SPIRJIT_PRANGE_COALESCE=never %spirjit-dump-ir %s sweep --jit --sig "(float32[:, ::1], float32[:, ::1])" --target cuda --stage parfor | FileCheck %s --check-prefix=ROWS
# A prange over rows whose body is an independent range loop over columns:
# on a GPU (a PTX image, or SPIRJIT_PRANGE_COALESCE=always) the columns
# become the launch's second, fastest-varying dimension, so neighbouring
# work-items read neighbouring elements; on a CPU (a SPIR-V image by
# default, or never) each work-item runs a row.
from spirjit import prange


def sweep(u, v):
    n, m = u.shape
    for i in prange(1, n - 1):
        for j in range(1, m - 1):
            v[i, j] = 0.25 * (u[i - 1, j] + u[i + 1, j] + u[i, j - 1] +
                              u[i, j + 1])

# The host launches over both ranges: (1, n - 1, 1) and (1, m - 1, 1).
# MAPPED-LABEL: after parfor (jit: sweep)
# MAPPED: %[[M:[0-9]+]] = tuple_get 1
# MAPPED: %[[RANGE:[0-9]+]] = global 'range'
# MAPPED: %[[ONE:[0-9]+]] = const 1
# MAPPED: %[[MM1:[0-9]+]] = binop - %[[M]], %{{[0-9]+}}
# MAPPED: launch 0 %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %[[ONE]], %[[MM1]], %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}} : Tuple()
# MAPPED: ; parfor 0: a 2-D launch of kernel sweep_parfor0, argument types (float32[:, ::1], float32[:, ::1])
# MAPPED-NEXT: ; parfor 0: rows mapped onto a 2-D launch (inner range loop independent)
# MAPPED-NEXT: function sweep_parfor0(item, u, v)
# The row is get_id(0), the column get_id(1); no loop is left.
# MAPPED: %[[G0:[0-9]+]] = getattr 'get_id' %0
# MAPPED-NEXT: %[[D0:[0-9]+]] = const 0
# MAPPED-NEXT: call %[[G0]], %[[D0]]
# MAPPED: %[[G1:[0-9]+]] = getattr 'get_id' %0
# MAPPED-NEXT: %[[D1:[0-9]+]] = const 1
# MAPPED-NEXT: %[[COL:[0-9]+]] = call %[[G1]], %[[D1]]
# MAPPED-NEXT: binop + %{{[0-9]+}}, %[[COL]]
# MAPPED-NOT: iter_next
# MAPPED: setitem
# MAPPED-NOT: iter_next
# MAPPED: ret

# ROWS-LABEL: after parfor (jit: sweep)
# ROWS: ; parfor 0: a 1-D launch of kernel sweep_parfor0
# ROWS-NEXT: ; parfor 0: rows kept: the device runs a row per work-item well (the inner range loop is independent)
# ROWS: getattr 'get_id'
# ROWS-NOT: getattr 'get_id'
# ROWS: global 'range'
# ROWS: iter_next
# ROWS: setitem
