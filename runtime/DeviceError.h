// Failures of a device or driver, carried as C++ exceptions that name the
// backend's own error code (CL_BUILD_PROGRAM_FAILURE) and, for program
// builds, the device compiler's log. The Python bindings turn them into
// spirjit.errors.DeviceError / OutOfDeviceMemoryError.
#pragma once

#include <stdexcept>
#include <string>

namespace spirjit::runtime {

class DeviceError : public std::runtime_error {
public:
  DeviceError(std::string backend, int code, std::string codeName,
              const std::string &what, std::string buildLog = "")
      : std::runtime_error(what + ": " + codeName +
                           (buildLog.empty() ? "" : "\nbuild log:\n" + buildLog)),
        backend_(std::move(backend)), code_(code),
        codeName_(std::move(codeName)), buildLog_(std::move(buildLog)) {}

  const std::string &backend() const { return backend_; }
  int code() const { return code_; }
  const std::string &codeName() const { return codeName_; }
  const std::string &buildLog() const { return buildLog_; }
  bool isOutOfMemory() const {
    return codeName_ == "CL_OUT_OF_RESOURCES" ||
           codeName_ == "CL_OUT_OF_HOST_MEMORY" ||
           codeName_ == "CL_MEM_OBJECT_ALLOCATION_FAILURE" ||
           codeName_ == "CL_INVALID_BUFFER_SIZE" ||
           codeName_ == "ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY" ||
           codeName_ == "ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY" ||
           codeName_ == "CUDA_ERROR_OUT_OF_MEMORY" ||
           codeName_ == "OUT_OF_HOST_MEMORY"; // the native CPU device
  }

private:
  std::string backend_;
  int code_;
  std::string codeName_;
  std::string buildLog_;
};

} // namespace spirjit::runtime
