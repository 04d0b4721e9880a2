// A Reduce kernel's launch shape per device (ArrayKernels.h).
#include "launch/ArrayKernels.h"

#include <algorithm>

namespace spirjit::launch {

namespace {

/// The largest power of two up to 256 that the device's groups allow.
int workGroupSize(const runtime::DeviceInfo &info) {
  size_t limit = std::min<size_t>(
      256, info.maxWorkGroupSize ? info.maxWorkGroupSize : 256);
  int size = 1;
  while (size_t(size) * 2 <= limit)
    size *= 2;
  return size;
}

} // namespace

ReduceShape reduceShape(const runtime::DeviceInfo &info, int64_t rows,
                        int64_t k) {
  ReduceShape shape;
  bool gpu = info.deviceType == "gpu";
  // A CPU runtime runs a group on one core: a contiguous chunk each lets
  // each core stream its own cache lines (Intel's, argmax of 2^20 float32
  // over two groups: interleaved, both cores fetched every line).
  shape.chunked = !gpu;
  // CPU runtimes vectorise a group's items a vector at a time: a group of
  // one vector walks the row in whole cache lines, where 256 items made
  // each vector's pass skip 2 KB between loads (Intel's, max over 2^22
  // float32: 0.92 -> 0.74 ms). The device's own width: 16 items on an AVX2
  // host (8 lanes) ran as two vectors, each reading half of every line
  // of the chunk in its own pass (Intel's, 2^20 float32 in one process,
  // medians of 150: sum 222 -> 116 us, argmax 174 -> 158 us).
  int vector =
      info.floatLanes >= 4 && info.floatLanes <= 16 ? int(info.floatLanes) : 16;
  int lanes = gpu ? workGroupSize(info) : std::min(vector, workGroupSize(info));
  shape.local = lanes;
  // spirjit's native device and PoCL vectorise across a group's items
  // only in an innermost loop, which a reduction's per-item loop is not:
  // there each of 16 items walked the chunk 16 elements a step, and every
  // item fetched every line. One item a group walks its chunk
  // contiguously (2 shared cores, first quartiles over 2^22 float32: max
  // 9.1 -> 2.4 ms native, 10.4 -> 1.5 ms PoCL; sum 8.7 -> 1.6 ms native,
  // 4.0 -> 0.9 ms PoCL).
  if (!gpu && info.vectorizesInnermostItemLoopsOnly)
    shape.local = 1;
  shape.blockedArgFold = shape.chunked && shape.local > 1;
  // Where spirjit's own LLVM pipeline compiles the kernel to machine code
  // (the native device), that item's fold is vectorised along its loop
  // (ArrayExpression::singleItemGroups). PoCL gets SPIR-V, which its
  // compiler does not vectorise so: one chain there was a long scalar
  // sum, slower and less accurate than four.
  shape.singleItemGroups =
      shape.chunked && shape.local == 1 &&
      std::find(info.imageFormats.begin(), info.imageFormats.end(),
                ImageFormat::HostObject) != info.imageFormats.end();
  int64_t units = std::max<int64_t>(info.computeUnits, 1);
  // GPUs: eight groups a multiprocessor keep it busy. CPU runtimes run a
  // work-group per thread: four chunks a core, so that a core another
  // process holds does not keep the rest waiting for its one chunk
  // (Intel's, argmax of 2^20 float32 on 2 shared cores, first quartile of
  // 60: 229 us with 2 groups, 220 with 4, 210 with 8; interleaved rows
  // had been slower with more groups, chunks are not).
  int64_t wanted = gpu ? units * 8 : units * 4;
  int64_t groups = std::max<int64_t>(1, wanted / std::max<int64_t>(rows, 1));
  // A short row is one work-group's: one launch, no partials (up to 1024
  // values on a CPU, whatever its vectors' width).
  if (k <= int64_t(gpu ? lanes : 16) * 64)
    groups = 1;
  groups = std::min<int64_t>(groups, (k + shape.local - 1) / shape.local);
  shape.groups = std::max<int64_t>(groups, 1);
  return shape;
}

} // namespace spirjit::launch
