// What a device builds a program from: bytes in one of the formats a
// driver takes. The compiler produces images; the runtime builds them. Plain
// data, so neither side needs the other's library.
#pragma once

#include <string>
#include <vector>

namespace spirjit {

enum class ImageFormat {
  SPIRV,       // a SPIR-V module (OpenCL 2.1+ IL, Level Zero)
  SPIRBitcode, // SPIR 1.2 LLVM bitcode (OpenCL's cl_khr_spir)
  PTX,         // NVIDIA's PTX text: the next format, no producer yet
  HostObject,  // a relocatable object file of this host: the native CPU
               // device's work-item loops (runtime/NativeABI.h)
};

/// The format's name in cache keys, dump folders and messages: "spirv",
/// "spir", "ptx", "native".
inline const char *imageFormatName(ImageFormat format) {
  switch (format) {
  case ImageFormat::SPIRV:
    return "spirv";
  case ImageFormat::SPIRBitcode:
    return "spir";
  case ImageFormat::PTX:
    return "ptx";
  case ImageFormat::HostObject:
    return "native";
  }
  return "unknown";
}

/// The format imageFormatName calls `name`; false when none is.
inline bool imageFormatByName(const std::string &name, ImageFormat &format) {
  for (ImageFormat known : {ImageFormat::SPIRV, ImageFormat::SPIRBitcode,
                            ImageFormat::PTX, ImageFormat::HostObject})
    if (name == imageFormatName(known)) {
      format = known;
      return true;
    }
  return false;
}

struct DeviceImage {
  ImageFormat format = ImageFormat::SPIRV;
  std::vector<char> bytes;
};

} // namespace spirjit
