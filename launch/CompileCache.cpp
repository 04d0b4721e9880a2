// Where a launch's kernel comes from when it is not in memory: the disk
// cache (the device's own binary, else the device image), else the
// compiler, then the device's build. Also what SPIRJIT_DUMP_DIR writes and
// `signatures=`'s compiles at decoration.
#include "launch/Launcher.h"

#include "compiler/HostTarget.h"
#include "frontend/Diagnostics.h"
#include "launch/CallerLock.h"
#include "runtime/DiskCache.h"
#include "runtime/NativeCPU.h"

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>

namespace spirjit::launch {

using runtime::Device;

namespace {

/// The native CPU device's programs are object files of this host, which
/// the compiler's JIT links; the runtime links no compiler, so it is handed
/// the JIT here, before any kernel is compiled.
const bool nativeLinkerSet = [] {
  runtime::setNativeLinker(
      [](const std::vector<char> &object, const std::string &symbol) {
        return HostJIT::instance().load(object, symbol);
      });
  return true;
}();

double secondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
      .count();
}

/// What a disk-cache entry holds: the compiler's output and the device
/// binary (empty where the device gives none).
struct CachedKernel {
  CompiledKernel compiled;
  std::vector<char> deviceBinary;
};

std::vector<char> serialize(const CachedKernel &cached) {
  std::vector<char> out;
  const CompiledKernel &k = cached.compiled;
  runtime::appendField(out, k.entryPoint.data(), k.entryPoint.size());
  std::string flags(1, k.usesGroupScratch ? '1' : '0');
  for (bool written : k.writtenArguments)
    flags += written ? '1' : '0';
  runtime::appendField(out, flags.data(), flags.size());
  runtime::appendField(out, k.image.bytes.data(), k.image.bytes.size());
  runtime::appendField(out, cached.deviceBinary.data(),
                       cached.deviceBinary.size());
  std::string kept;
  for (bool k : cached.compiled.keptParameters)
    kept += k ? '1' : '0';
  runtime::appendField(out, kept.data(), kept.size());
  std::string privateBytes = std::to_string(k.privateBytes);
  runtime::appendField(out, privateBytes.data(), privateBytes.size());
  // A checked kernel's entry has a seventh field: its sites.
  if (k.usesDebugRecord) {
    std::string sites = serializeDebugSites(k.debugSites);
    runtime::appendField(out, sites.data(), sites.size());
  }
  return out;
}

/// The entry, or nothing for one that is corrupt or of another shape: a
/// miss, never an error.
std::optional<CachedKernel> deserialize(const std::vector<char> &in,
                                        const std::vector<const Type *> &types,
                                        ImageFormat format) {
  size_t arguments = types.size();
  size_t at = 0;
  auto take = [&](std::string &field) {
    return runtime::readField(in, at, field);
  };
  std::string entry, flags, image, binary, kept, privateBytes, debug;
  std::vector<DebugSite> sites;
  if (!take(entry) || !take(flags) || !take(image) || !take(binary) ||
      !take(kept) || !take(privateBytes) || privateBytes.empty() ||
      privateBytes.size() > 19 ||
      privateBytes.find_first_not_of("0123456789") != std::string::npos)
    return std::nullopt;
  bool checked = at != in.size();
  if ((checked && (!take(debug) || !parseDebugSites(debug, sites))) ||
      at != in.size() || flags.size() != arguments + 1 ||
      (format == ImageFormat::SPIRV && image.size() % 4) ||
      kept.size() != kernelParameters(types, flags[0] == '1', checked).size())
    return std::nullopt;
  for (char k : kept)
    if (k != '0' && k != '1')
      return std::nullopt;
  CachedKernel cached;
  cached.compiled.entryPoint = entry;
  cached.compiled.usesGroupScratch = flags[0] == '1';
  for (size_t i = 1; i < flags.size(); ++i)
    cached.compiled.writtenArguments.push_back(flags[i] == '1');
  cached.compiled.image.format = format;
  cached.compiled.image.bytes.assign(image.begin(), image.end());
  cached.compiled.argumentTypes = types;
  cached.deviceBinary.assign(binary.begin(), binary.end());
  for (char k : kept)
    cached.compiled.keptParameters.push_back(k == '1');
  cached.compiled.privateBytes = std::stoull(privateBytes);
  cached.compiled.usesDebugRecord = checked;
  cached.compiled.debugSites = std::move(sites);
  return cached;
}

/// The disk-cache key's part for extents compiled in (`label` then the
/// extents: the LocalAccessors', " local", or the work-group's, " group"),
/// empty for none.
std::string extentsText(const char *label, const std::vector<int64_t> &extents) {
  if (extents.empty())
    return "";
  std::string text = label;
  for (int64_t e : extents)
    text += " " + std::to_string(e);
  return text;
}

/// Where SPIRJIT_DUMP_DIR puts a specialisation's stages.
std::string dumpFolder(const std::string &root, const std::string &name,
                       const std::string &key) {
  std::string folder =
      root + "/" + name + "-" + runtime::stableHash(key).substr(0, 8);
  runtime::makeDirectories(folder);
  return folder;
}

const char *stageExtension(Stage stage) {
  switch (stage) {
  case Stage::LLIR:
  case Stage::LLIROpt:
  case Stage::SPIR:
  case Stage::Native:
    return ".ll";
  case Stage::SPV:
    return ".spvasm";
  case Stage::PTX:
    return ".ptx";
  case Stage::Bytecode:
    return ".txt";
  default:
    return ".pyir";
  }
}

/// The item annotation asks for an NdRange launch.
bool takesNdItem(const FunctionDescription &function) {
  if (function.varnames.empty())
    return false;
  auto annotation = function.annotations.find(function.varnames[0]);
  return annotation != function.annotations.end() &&
         annotation->second.name == "spirjit.kernel_api.NdItem";
}

} // namespace

DeviceCapabilities capabilitiesOf(const Device &device) {
  const runtime::DeviceInfo &info = device.info();
  DeviceCapabilities capabilities;
  capabilities.name = info.name;
  capabilities.fp64 = info.hasFp64;
  capabilities.atomic64 = info.hasAtomic64;
  capabilities.floatAtomics = info.hasFloatAtomics;
  capabilities.addressBits = info.addressBits;
  capabilities.computeCapability = info.computeCapability;
  capabilities.imageFormats = device.acceptedFormats();
  return capabilities;
}

namespace {
std::atomic<int64_t> liveKernelCaches{0};
}

KernelCache::KernelCache(std::function<FunctionDescription()> describe,
                         CompileOptions options)
    : describe_(std::move(describe)), options_(std::move(options)) {
  ++liveKernelCaches;
}

KernelCache::~KernelCache() { --liveKernelCaches; }

int64_t KernelCache::liveCount() { return liveKernelCaches.load(); }

const FunctionDescription &KernelCache::description() {
  if (!description_)
    description_ = describe_();
  return *description_;
}

KernelCache::Entry &
KernelCache::compile(const Key &key, const std::shared_ptr<Device> &device) {
  const FunctionDescription &function = description();
  KernelRequest request = requestFor(key);
  DeviceCapabilities capabilities = capabilitiesOf(*device);
  CompileOptions options = options_;
  ImageFormat format = imageFormatFor(capabilities);

  // The disk-cache key: everything that decides the kernel, the device,
  // the image format and this build of the compiler.
  const runtime::DeviceInfo &info = device->info();
  std::string cacheKey =
      function.fingerprint() + "\ntypes " + types::formatArguments(key.types) +
      "\nrank " + std::to_string(key.dimensions) +
      (key.ndRange ? " ndrange" : " range") + extentsText(" local", key.localExtents) +
      (key.disjoint ? " noalias" : "") +
      extentsText(" group", key.groupExtents) +
      "\nfastmath " +
      std::to_string(options_.fastmath) +
      (options_.reassociateFolds ? " reassociate-folds" : "") + " opt " +
      std::to_string(options_.optLevel) + " boundscheck " +
      std::to_string(options_.boundscheck) + " debug " +
      std::to_string(options_.debug) + "\nimage " + imageFormatName(format) +
      "\ndevice " + info.name + "|" + info.platform + "|" + info.version +
      "\ncompiler " + runtime::compilerBuildId();

  std::string dumpRoot;
  if (const char *dir = std::getenv("SPIRJIT_DUMP_DIR"); dir && *dir) {
    dumpRoot = dumpFolder(dir, function.name, cacheKey);
    options.dump = [&](Stage stage, const std::string &text) {
      int index = 1;
      for (const StageInfo &s : allStages()) {
        if (s.stage == stage) {
          char prefix[8];
          std::snprintf(prefix, sizeof prefix, "%02d-", index);
          std::ofstream(dumpRoot + "/" + prefix + s.name +
                        stageExtension(stage))
              << text;
        }
        ++index;
      }
    };
  }

  auto entry = std::make_unique<Entry>();
  std::shared_ptr<runtime::Kernel> kernel;
  bool fromDisk = false;
  {
    // Compiling needs nothing of the caller: its other threads may run.
    CallerLockReleased unlocked;
    runtime::DiskCache disk = runtime::DiskCache::fromEnvironment();
    std::optional<CachedKernel> cached;
    // A dump needs the stages printed, so it compiles even on a cache hit.
    if (dumpRoot.empty())
      if (auto payload = disk.load(cacheKey, imageFormatName(format)))
        cached = deserialize(*payload, key.types, format);
    auto start = std::chrono::steady_clock::now();
    std::shared_ptr<runtime::Program> program;
    if (cached && !cached->deviceBinary.empty()) {
      try {
        program = device->buildFromDeviceBinary(cached->deviceBinary);
        kernel = device->createKernel(program, cached->compiled.entryPoint);
      } catch (const runtime::DeviceError &) {
        program = nullptr; // an entry the driver no longer takes: rebuild
      }
    }
    // No device binary (the device gives none): its image still saves the
    // compile.
    if (cached && !program && cached->deviceBinary.empty()) {
      program = device->build(cached->compiled.image);
      kernel = device->createKernel(program, cached->compiled.entryPoint);
    }
    if (cached && program) {
      entry->compiled = cached->compiled;
      fromDisk = true;
      for (const auto &callee : function.deviceFunctions)
        countDeviceFunction(callee.first, &DeviceFunctionCounters::diskHits);
    } else {
      entry->compiled = compileKernel(request, capabilities, options);
      for (const auto &callee : function.deviceFunctions)
        countDeviceFunction(callee.first, &DeviceFunctionCounters::compiles);
      start = std::chrono::steady_clock::now();
      program = device->build(entry->compiled.image);
      // The device binary is asked for only to be stored (PoCL takes a
      // millisecond to give it).
      if (disk.enabled())
        disk.store(
            cacheKey, imageFormatName(format),
            serialize({entry->compiled, device->programBinary(*program)}));
    }
    if (!fromDisk)
      kernel = device->createKernel(program, entry->compiled.entryPoint);
    statistics_.deviceBuildSeconds = secondsSince(start);
    entry->resident = std::make_unique<ResidentKernel>(
        std::move(kernel), entry->compiled.image, entry->compiled.entryPoint);
  }
  // The launcher binds the parameters the entry point kept, in order.
  std::vector<KernelParameter> all =
      kernelParameters(key.types, entry->compiled.usesGroupScratch,
                       entry->compiled.usesDebugRecord);
  entry->debugSites = std::make_shared<const std::vector<DebugSite>>(
      entry->compiled.debugSites);
  const std::vector<bool> &kept = entry->compiled.keptParameters;
  SPIRJIT_INTERNAL_CHECK(kept.size() == all.size(),
                         "a kept-parameter mask of the wrong length");
  for (size_t p = 0; p < all.size(); ++p)
    if (kept[p])
      entry->parameters.push_back(all[p]);
  if (fromDisk) {
    ++statistics_.diskHits;
    statistics_.compileSeconds = 0;
  } else {
    ++statistics_.compiles;
    statistics_.compileSeconds = entry->compiled.compileSeconds;
  }
  // Another thread may have compiled the same specialisation meanwhile:
  // keep the first, so references to it stay valid.
  auto [it, inserted] = cache_.emplace(key, std::move(entry));
  return *it->second;
}

KernelRequest KernelCache::requestFor(const Key &key) {
  KernelRequest request;
  request.function = &description();
  request.argumentTypes = key.types;
  request.itemDimensions = key.dimensions;
  request.ndRange = key.ndRange;
  request.localExtents = key.localExtents;
  request.disjointArrays = key.disjoint;
  request.groupExtents = key.groupExtents;
  return request;
}

std::vector<KernelRequest> KernelCache::requests() {
  std::vector<KernelRequest> out;
  for (const auto &held : cache_)
    out.push_back(requestFor(held.first));
  return out;
}

void KernelCache::setSignatures(const std::vector<std::string> &signatures) {
  // Launches check signatures when they compile or look a key up.
  cache_.clear();
  lastEntry_ = nullptr;
  signatures_.clear();
  signatureTexts_ = signatures;
  for (const std::string &text : signatures) {
    try {
      signatures_.push_back(types::parseSignature(text).arguments);
    } catch (const std::invalid_argument &e) {
      throw LaunchError(LaunchErrorKind::InvalidArgument, e.what());
    }
  }
  if (signatures_.empty())
    return;
  const FunctionDescription &function = description();
  // Without any device the signatures are still compiled, for their
  // errors, but there is nothing to build or keep.
  std::shared_ptr<Device> device;
  if (!runtime::allDevices().empty())
    device = defaultDevice();
  DeviceCapabilities capabilities =
      device ? capabilitiesOf(*device) : DeviceCapabilities();
  bool ndRange = takesNdItem(function);
  for (const auto &arguments : signatures_) {
    KernelRequest request;
    request.function = &function;
    request.argumentTypes = arguments;
    request.ndRange = ndRange;
    {
      CallerLockReleased unlocked;
      request.itemDimensions = requiredItemRank(request, capabilities);
      if (!device)
        compileKernel(request, capabilities, options_);
    }
    if (!device)
      continue;
    // Kept under the key a launch of that rank on the default device
    // looks up; user errors surface here, at decoration.
    Key key{arguments, request.itemDimensions, ndRange, device.get()};
    if (!cache_.count(key))
      compile(key, device);
  }
}

} // namespace spirjit::launch
