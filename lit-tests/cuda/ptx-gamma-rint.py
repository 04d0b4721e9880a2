# REQUIRES: libdevice
# RUN: %spirjit-dump-ir %s gamma32 --sig "(float32[::1])" --target cuda --stage ptx | FileCheck %s
# libdevice's tgammaf reduces |x| < 1.5 as x - rint(x) through
# llvm.nvvm.round.f, round to nearest even. LLVM 15 would fold that call
# into llvm.round (halves away from zero) and swap gamma(0.5) and
# gamma(-0.5); emitPTX keeps it cvt.rni.
# CHECK-LABEL: after ptx (kernel: gamma32)
# CHECK: cvt.rni.f32.f32 [[R:%f[0-9]+]], [[X:%f[0-9]+]];
# CHECK: sub.rn.f32 {{%f[0-9]+}}, [[X]], {{%f[0-9]+}};
import math


def gamma32(item, a):
    i = item.get_id(0)
    a[i] = math.gamma(a[i])
