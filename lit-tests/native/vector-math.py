# REQUIRES: libmvec
# RUN: %spirjit-dump-ir %s waves --sig "(float64[::1], float64[::1])" --stage native | FileCheck %s --check-prefixes=F64,F64-%vector-isa
# RUN: %spirjit-dump-ir %s waves --sig "(float32[::1], float32[::1])" --stage native | FileCheck %s --check-prefixes=F32,F32-%vector-isa
# On x86-64 with AVX2 the native CPU device's loops call glibc's libmvec
# for the math LLVM's vectoriser has vector variants of (Target::vectorMath,
# TargetLibraryInfo's LIBMVEC_X86): the vector loop calls _ZGVdN4v_sin
# (4 doubles, AVX2) or _ZGVdN8v_sinf (8 floats); the remainder loop keeps
# libm's scalar calls. erf has no variant in LLVM 15's table but one in
# libmvec since glibc 2.35, and the table has no AVX-512 variant at all:
# spirjit's own table adds them (Optimize.cpp), so that a host with
# AVX-512 calls _ZGVeN8v_sin (8 doubles) or _ZGVeN16v_sinf (16 floats),
# and AVX2's 8-float variants in the float32 loop's vectorised epilogue.
# F64-LABEL: define void @spirjit_waves.chunk(
# F64-AVX2-DAG: call <4 x double> @_ZGVdN4v_sin(<4 x double>
# F64-AVX2-DAG: call <4 x double> @_ZGVdN4v_exp(<4 x double>
# F64-AVX2-DAG: call <4 x double> @_ZGVdN4v_log(<4 x double>
# F64-AVX2-DAG: call <4 x double> @_ZGVdN4v_erf(<4 x double>
# F64-AVX512-DAG: call <8 x double> @_ZGVeN8v_sin(<8 x double>
# F64-AVX512-DAG: call <8 x double> @_ZGVeN8v_exp(<8 x double>
# F64-AVX512-DAG: call <8 x double> @_ZGVeN8v_log(<8 x double>
# F64-AVX512-DAG: call <8 x double> @_ZGVeN8v_erf(<8 x double>
# F64-DAG: call double @sin(double
# F32-LABEL: define void @spirjit_waves.chunk(
# F32-DAG: call <8 x float> @_ZGVdN8v_sinf(<8 x float>
# F32-DAG: call <8 x float> @_ZGVdN8v_expf(<8 x float>
# F32-DAG: call <8 x float> @_ZGVdN8v_logf(<8 x float>
# F32-DAG: call <8 x float> @_ZGVdN8v_erff(<8 x float>
# F32-AVX2-NOT: @_ZGVeN16v_sinf
# F32-AVX512-DAG: call <16 x float> @_ZGVeN16v_sinf(<16 x float>
# F32-AVX512-DAG: call <16 x float> @_ZGVeN16v_expf(<16 x float>
# F32-AVX512-DAG: call <16 x float> @_ZGVeN16v_logf(<16 x float>
# F32-AVX512-DAG: call <16 x float> @_ZGVeN16v_erff(<16 x float>
# F32-DAG: call float @sinf(float
import math

import numpy as np


def waves(item, a, b):
    i = item.get_id(0)
    b[i] = np.sin(a[i]) + np.exp(a[i]) * np.log(a[i]) - math.erf(a[i])
