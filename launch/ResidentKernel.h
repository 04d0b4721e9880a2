// A compiled kernel's program as the device built it, kept within a bound.
// A built program is the driver's memory, and a lot of it: Intel's CPU
// runtime keeps 1.75 MB per program (its JIT's code and module), so 500
// kernels kept alive took 876 MB. At most SPIRJIT_MAX_BUILT_PROGRAMS
// programs stay built per device (64 by default, 0: no bound); beyond
// them, the one launched longest ago is let go of, keeping the device's
// binary of it (7 KB on Intel's runtime), and is built again from that
// binary (else from the device image) at its next launch.
#pragma once

#include "runtime/Device.h"
#include "runtime/DeviceImage.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace spirjit::launch {

class ResidentKernel {
public:
  /// `kernel`, just built from `image` (kept to build it again) on its
  /// program's device, with entry point `entryPoint`. May let go of
  /// another kernel of the device to stay within the bound.
  ResidentKernel(std::shared_ptr<runtime::Kernel> kernel,
                 const DeviceImage &image, std::string entryPoint);
  ~ResidentKernel();
  ResidentKernel(const ResidentKernel &) = delete;
  ResidentKernel &operator=(const ResidentKernel &) = delete;

  /// The kernel, built again if it was let go of (then `rebuilt` is set
  /// true; a failed build throws the device's DeviceError), marked as
  /// launched now. Callers keep the pointer for one launch: the kernel may
  /// be let go of by another thread meanwhile, and stays alive for them.
  std::shared_ptr<runtime::Kernel> acquire(bool &rebuilt);

private:
  friend struct Residency;
  /// Lets go of the kernel, keeping the device's binary of its program.
  void dropKernel();

  std::shared_ptr<runtime::Device> device_;
  const DeviceImage &image_;
  std::string entryPoint_;
  /// Under the residency's lock.
  std::shared_ptr<runtime::Kernel> kernel_;
  std::vector<char> binary_; // kept when let go of
  uint64_t lastUse_ = 0;
};

} // namespace spirjit::launch
