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

namespace {

void appendU64(std::string &out, uint64_t value) {
  out.append(reinterpret_cast<const char *>(&value), sizeof value);
}

} // namespace

std::string stableHash(const std::string &text) {
  uint64_t a = fnv1a(text.data(), text.size(), 14695981039346656037ull);
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

std::string DiskCache::pathFor(const std::string &key) const {
  return directory_ + "/" + stableHash(key) + ".kernel";
}

std::optional<std::vector<char>>
DiskCache::load(const std::string &key) const {
  if (!enabled())
    return std::nullopt;
  std::ifstream in(pathFor(key), std::ios::binary);
  if (!in)
    return std::nullopt;
  std::string file((std::istreambuf_iterator<char>(in)),
                   std::istreambuf_iterator<char>());
  // magic | key size | key | payload size | payload | checksum
  size_t magic = sizeof kMagic - 1, at = magic;
  auto readU64 = [&](uint64_t &value) {
    if (file.size() < at + sizeof value)
      return false;
    std::memcpy(&value, file.data() + at, sizeof value);
    at += sizeof value;
    return true;
  };
  uint64_t keySize, payloadSize, checksum;
  if (file.compare(0, magic, kMagic) != 0 || !readU64(keySize) ||
      keySize > file.size() - at || file.compare(at, keySize, key) != 0)
    return std::nullopt;
  at += keySize;
  if (!readU64(payloadSize) || payloadSize > file.size() - at)
    return std::nullopt;
  size_t payloadAt = at;
  at += payloadSize;
  if (!readU64(checksum) || at != file.size() ||
      checksum != fnv1a(file.data(), payloadAt + payloadSize,
                        14695981039346656037ull))
    return std::nullopt;
  return std::vector<char>(file.begin() + payloadAt,
                           file.begin() + payloadAt + payloadSize);
}

void DiskCache::store(const std::string &key,
                      const std::vector<char> &payload) const {
  if (!enabled())
    return;
  std::string file = kMagic;
  appendU64(file, key.size());
  file += key;
  appendU64(file, payload.size());
  file.append(payload.begin(), payload.end());
  appendU64(file, fnv1a(file.data(), file.size(), 14695981039346656037ull));
  std::string path = pathFor(key);
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
