// Private to launch/: evaluating array-expression nodes as fused kernels
// (ArrayKernels.cpp). ArrayGraph.cpp decides what runs and when.
#pragma once

#include "launch/ArrayGraph.h"

#include <utility>

namespace spirjit::launch {

/// New C-contiguous memory of `shape` on `device`.
ArrayView contiguous(const std::vector<int64_t> &shape, int64_t itemsize,
                     const std::shared_ptr<runtime::Device> &device,
                     runtime::UsmKind usm);
/// `view` seen at `shape` by NumPy's broadcasting.
ArrayView broadcast(const ArrayView &view, const std::vector<int64_t> &shape);
/// The bytes [low, high) a view reaches.
std::pair<int64_t, int64_t> span(const ArrayView &v, int64_t itemsize);
/// Bytes per element of a dtype.
int64_t itemsizeOf(const Type *element);
/// out = the value of `node` (any kind but Reduce) at out's shape, as one
/// Map kernel, converted to `outDType`; `out` must not overlap what the
/// node reads.
void computeMap(ArrayNode &node, ArrayView out, const Type *outElement,
                const std::string &outDType, int64_t outItemsize,
                const std::shared_ptr<runtime::Device> *on = nullptr);
/// computeMap() (or computeReduce() for a Reduce node) on the host's own
/// device (runtime::hostDevice(): machine code of this host, run on the
/// calling thread) into `out`, memory the host addresses, once the same
/// form (MapForm: the kernel, its layout, not the memory or the scalars)
/// has been offered kHostCompileAfter times on this thread: a value
/// computed once or twice costs no compile. False leaves it to the caller
/// (NumPy in place, or the device).
bool computeMapOnHost(ArrayNode &node, const ArrayView &out,
                      const Type *outElement, const std::string &outDType,
                      int64_t outItemsize);
/// How a Reduce kernel's first pass runs over (rows, k) on a device:
/// groups of `local` items, `groups` of them a row, each folding one
/// contiguous chunk of its row where `chunked` (CPUs), else every
/// groups*local-th value.
struct ReduceShape {
  int local = 1;
  int64_t groups = 1;
  bool chunked = false;
  /// Chunked groups of several items, which CPU runtimes run as vector
  /// lanes: an arg-reduction folds a block at a time
  /// (ArrayExpression::blockedArgFold).
  bool blockedArgFold = false;
  /// One item a group whose kernel spirjit compiles to machine code
  /// itself (ArrayExpression::singleItemGroups).
  bool singleItemGroups = false;
};
ReduceShape reduceShape(const runtime::DeviceInfo &info, int64_t rows,
                        int64_t k);
/// The kernel cache of an expression (ArrayKernelCaches.cpp), made on
/// first use and kept for the process.
KernelCache &arrayKernelCache(const ArrayExpression &expression);
/// out (the result's shape, C-contiguous) = the Reduce node's value;
/// its kernels run on `on` where given (one group a row), else on the
/// node's device.
void computeReduce(ArrayNode &node, const ArrayView &out,
                   const std::shared_ptr<runtime::Device> *on = nullptr);

} // namespace spirjit::launch
