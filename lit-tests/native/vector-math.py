# REQUIRES: libmvec
# RUN: %spirjit-dump-ir %s waves --sig "(float64[::1], float64[::1])" --stage native | FileCheck %s --check-prefix=F64
# RUN: %spirjit-dump-ir %s waves --sig "(float32[::1], float32[::1])" --stage native | FileCheck %s --check-prefix=F32
# On x86-64 with AVX2 the native CPU device's loops call glibc's libmvec
# for the math LLVM's vectoriser has vector variants of (Target::vectorMath,
# TargetLibraryInfo's LIBMVEC_X86): the vector loop calls _ZGVdN4v_sin
# (4 doubles, AVX2) or _ZGVdN8v_sinf (8 floats); the remainder loop keeps
# libm's scalar calls. erf has no variant in LLVM 15's table but one in
# libmvec since glibc 2.35: spirjit's own table adds it (Optimize.cpp).
# F64-LABEL: define void @spirjit_waves.chunk(
# F64-DAG: call <4 x double> @_ZGVdN4v_sin(<4 x double>
# F64-DAG: call <4 x double> @_ZGVdN4v_exp(<4 x double>
# F64-DAG: call <4 x double> @_ZGVdN4v_log(<4 x double>
# F64-DAG: call <4 x double> @_ZGVdN4v_erf(<4 x double>
# F64-DAG: call double @sin(double
# F32-LABEL: define void @spirjit_waves.chunk(
# F32-DAG: call <8 x float> @_ZGVdN8v_sinf(<8 x float>
# F32-DAG: call <8 x float> @_ZGVdN8v_expf(<8 x float>
# F32-DAG: call <8 x float> @_ZGVdN8v_logf(<8 x float>
# F32-DAG: call <8 x float> @_ZGVdN8v_erff(<8 x float>
# F32-DAG: call float @sinf(float
import math

import numpy as np


def waves(item, a, b):
    i = item.get_id(0)
    b[i] = np.sin(a[i]) + np.exp(a[i]) * np.log(a[i]) - math.erf(a[i])
