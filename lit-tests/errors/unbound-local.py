# RUN: %not %spirjit-dump-ir %s one_branch --sig "(int64[::1])" 2>&1 | FileCheck %s
# RUN: %spirjit-dump-ir %s under_same_condition --sig "(int64[::1])" --stage pyir | FileCheck %s --check-prefix=ACCEPTED
# A local that some path leaves unassigned is an error at the read (Python
# raises UnboundLocalError); a read under a branch that was reached with the
# local assigned on some path compiles, since the branch may test what the
# assignment's branch tested.
# CHECK: unbound-local.py:[[@LINE+8]]: 'x' may be used before it is assigned
# ACCEPTED-LABEL: function under_same_condition


def one_branch(item, out):
    i = item.get_id(0)
    if i > 2:
        x = 1
    out[i] = x


def under_same_condition(item, out):
    i = item.get_id(0)
    if i > 2:
        x = 1
    if i > 2:
        out[i] = x
