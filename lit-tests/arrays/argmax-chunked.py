# RUN: %spirjit-dump-ir %s argmax --arrays --sig "(float32[:],)" --shape 100000 --stage bytecode | FileCheck %s --check-prefix=GRAPH
# RUN: %spirjit-dump-ir %s argmax --arrays --sig "(float32[:],)" --shape 100000 --stage llir.opt | FileCheck %s
# On a CPU runtime (the tests' default device) a reduction's work-groups
# each fold one contiguous chunk of the row, one core's, where groups
# interleaved by cache lines made every core fetch every line. The chunk
# is a uint64 parameter, so the k's the loop reads are never negative:
# no wrap-around select before the load (Intel's vectoriser gathered
# where there was one). Intel's runtime runs a group's items as vector
# lanes: there argmax folds values only, a block of rounds at a time, a
# compare and a select an element with a NaN flag beside them, an int32
# mask the width of the compare's (the block holding an item's best is
# read again for its index).
# GRAPH: reduce argmax into float32 {{.*}}chunked blocked
# CHECK-LABEL: after llir.opt (array kernel: array_reduce
# CHECK: get_group_id
# CHECK: phi i64
# CHECK-NOT: select i1 {{.*}}%p0.shape1
# CHECK: load float
# CHECK: load float
# CHECK-NEXT: fcmp uno float
# CHECK-NEXT: fcmp ogt float
# CHECK-NEXT: select i1 {{%[0-9]+}}, float
# CHECK-NEXT: select i1 {{%[0-9]+}}, i32 -1, i32


def argmax(x):
    return x.argmax()
