# RUN: %spirjit-dump-ir %s argmax --arrays --sig "(float32[:],)" --shape 100000 --stage bytecode | FileCheck %s --check-prefix=GRAPH
# RUN: %spirjit-dump-ir %s argmax --arrays --sig "(float32[:],)" --shape 100000 --stage llir.opt | FileCheck %s
# On a CPU runtime (the tests' default device) a reduction's work-groups
# each fold one contiguous chunk of the row, one core's, where groups
# interleaved by cache lines made every core fetch every line. The chunk
# is a uint64 parameter, so the k's the loop reads are never negative:
# no wrap-around select before the load (Intel's vectoriser gathered
# where there was one). Over the elements, in order, argmax takes two
# compares an element (ugt and ord) for NumPy's NaN rule.
# GRAPH: reduce argmax into float32 {{.*}}chunked
# CHECK-LABEL: after llir.opt (array kernel: array_reduce
# CHECK: get_group_id
# CHECK: phi i64
# CHECK-NOT: select i1 {{.*}}%p0.shape1
# CHECK: load float
# CHECK-NEXT: fcmp ugt float
# CHECK-NEXT: fcmp ord float
# CHECK-NEXT: and i1
# CHECK-NEXT: select i1
# CHECK-NEXT: select i1


def argmax(x):
    return x.argmax()
