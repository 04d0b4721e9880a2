#include "runtime/DiskCache.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <sys/stat.h>
#include <unistd.h>

namespace spirjit::runtime {
namespace {

constexpr char kMagic[] = "SPIRJIT-CACHE-1\n";
constexpr uint64_t kFnvOffsetBasis = 14695981039346656037ull;

uint64_t fnv1a(const char *data, size_t size, uint64_t hash) {
  for (size_t i = 0; i < size; ++i) {
    hash ^= static_cast<unsigned char>(data[i]);
    hash *= 1099511628211ull;
  }
  return hash;
}

} // namespace

bool makeDirectories(const std::string &path) {
  std::string partial;
  std::stringstream parts(path);
  for (std::string part; std::getline(parts, part, '/');) {
    partial += part + "/";
    if (part.empty())
      continue;
    if (mkdir(partial.c_str(), 0755) != 0 && errno != EEXIST)
      return false;
  }
  struct stat info;
  return stat(path.c_str(), &info) == 0 && S_ISDIR(info.st_mode);
}

std::string stableHash(const std::string &text) {
  uint64_t a = fnv1a(text.data(), text.size(), kFnvOffsetBasis);
  uint64_t b = fnv1a(text.data(), text.size(), 0x9e3779b97f4a7c15ull);
  char buffer[33];
  std::snprintf(buffer, sizeof buffer, "%016llx%016llx",
                static_cast<unsigned long long>(a),
                static_cast<unsigned long long>(b));
  return buffer;
}

DiskCache DiskCache::fromEnvironment() {
  const char *disabled = std::getenv("SPIRJIT_DISABLE_CACHE");
  if (disabled && std::string(disabled) == "1")
    return DiskCache("");
  std::string directory;
  if (const char *dir = std::getenv("SPIRJIT_CACHE_DIR"); dir && *dir)
    directory = dir;
  else if (const char *home = std::getenv("HOME"); home && *home)
    directory = std::string(home) + "/.cache/spirjit";
  if (directory.empty() || !makeDirectories(directory))
    return DiskCache("");
  return DiskCache(directory);
}

std::string DiskCache::pathFor(const std::string &key,
                               const std::string &kind) const {
  return directory_ + "/" + stableHash(key) + "." + kind + ".kernel";
}

std::optional<std::vector<char>>
DiskCache::load(const std::string &key, const std::string &kind) const {
  if (!enabled())
    return std::nullopt;
  std::ifstream in(pathFor(key, kind), std::ios::binary);
  if (!in)
    return std::nullopt;
  std::string file((std::istreambuf_iterator<char>(in)),
                   std::istreambuf_iterator<char>());
  // magic | key field | payload field | checksum (appendField's framing)
  size_t at = sizeof kMagic - 1;
  std::string storedKey, payload;
  uint64_t checksum;
  if (file.compare(0, at, kMagic) != 0 || !readField(file, at, storedKey) ||
      storedKey != key || !readField(file, at, payload) ||
      file.size() - at != sizeof checksum)
    return std::nullopt;
  std::memcpy(&checksum, file.data() + at, sizeof checksum);
  if (checksum != fnv1a(file.data(), at, kFnvOffsetBasis))
    return std::nullopt;
  return std::vector<char>(payload.begin(), payload.end());
}

void DiskCache::store(const std::string &key, const std::string &kind,
                      const std::vector<char> &payload) const {
  if (!enabled())
    return;
  std::string file = kMagic;
  appendField(file, key.data(), key.size());
  appendField(file, payload.data(), payload.size());
  uint64_t checksum = fnv1a(file.data(), file.size(), kFnvOffsetBasis);
  file.append(reinterpret_cast<const char *>(&checksum), sizeof checksum);
  std::string path = pathFor(key, kind);
  std::string temporary = path + ".tmp." + std::to_string(getpid());
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    if (!out)
      return;
    out.write(file.data(), static_cast<std::streamsize>(file.size()));
    if (!out)
      return;
  }
  if (std::rename(temporary.c_str(), path.c_str()) != 0)
    std::remove(temporary.c_str());
}

} // namespace spirjit::runtime
