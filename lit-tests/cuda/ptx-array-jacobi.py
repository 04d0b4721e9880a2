# RUN: %spirjit-dump-ir %s jacobi --arrays --sig "(float32[:, :], float32[:, :])" --target cuda --stage bytecode --shape 64 | FileCheck %s --check-prefix=GRAPH
# RUN: %spirjit-dump-ir %s jacobi --arrays --sig "(float32[:, :], float32[:, :])" --target cuda --stage ptx --shape 64 | FileCheck %s
# A Jacobi sweep over slices fuses into one flat Map kernel
# (compiler/ArrayKernel.h): each view is the 1-D span of its elements, read
# at i * stride + j, the row stride one uint64 parameter all five views
# share and the unit stride compiled in, so a thread multiplies once (as
# a RawKernel's i * cols + j), where views indexed as 2-D arrays
# multiplied each index by each view's own strides: ten 64-bit multiplies.
# The four views of u overlap but nothing writes them: noalias still
# holds, and their loads take the read-only path (ld.global.nc).
# GRAPH-LABEL: after bytecode (array kernel: array_map
# GRAPH: map rank 2 flat, out at *p[[S:[0-9]+]] 1
# GRAPH: load p1 at *p[[S]] 1
# GRAPH: load p2 at *p[[S]] 1
# GRAPH: load p3 at *p[[S]] 1
# GRAPH: load p4 at *p[[S]] 1
# CHECK-LABEL: after ptx (array kernel: array_map, {{.*}} noalias)
# CHECK: .visible .entry spirjit_array_map(
# CHECK: mul.lo.s64
# CHECK-NOT: mul.lo
# CHECK-COUNT-4: ld.global.nc.f32
# CHECK-NOT: mul.lo
# CHECK: st.global.f32


def jacobi(u, v):
    v[1:-1, 1:-1] = 0.25 * (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] +
                            u[1:-1, 2:])
