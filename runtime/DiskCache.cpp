#include "runtime/DiskCache.h"

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <fcntl.h>
#include <atomic>
#include <mutex>
#include <sstream>
#include <sys/stat.h>
#include <unistd.h>
#include <utility>

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

/// Why `directory` (which exists) must not be trusted to hold code this
/// process runs, with how to fix it; empty when it is safe: a directory
/// owned by the effective user that neither group nor others can write.
std::string unsafeBecause(const std::string &directory) {
  struct stat info;
  if (stat(directory.c_str(), &info) != 0 || !S_ISDIR(info.st_mode))
    return "";
  std::string problem;
  if (info.st_uid != geteuid())
    problem = "is owned by user " + std::to_string(info.st_uid) +
              ", not by this process's user " + std::to_string(geteuid());
  else if (info.st_mode & (S_IWGRP | S_IWOTH)) {
    char mode[8];
    std::snprintf(mode, sizeof mode, "%04o",
                  static_cast<unsigned>(info.st_mode & 07777));
    problem = std::string("is writable by ") +
              (info.st_mode & S_IWOTH ? "others" : "its group") + " (mode " +
              mode + ")";
  }
  if (problem.empty())
    return "";
  return "spirjit's kernel cache directory '" + directory + "' " + problem +
         ", so the compiled code in it cannot be trusted; compiling without "
         "the disk cache. Fix: chmod 700 '" +
         directory +
         "' (owned by you), or set SPIRJIT_CACHE_DIR to a directory only you "
         "can write";
}

std::mutex warningMutex;
bool warningRecorded = false; // once per process, taken or not
std::string pendingWarning;
// Read at every launch: the lock is taken only once there is a warning.
std::atomic<bool> warningPending{false};

void recordWarning(const std::string &reason) {
  std::lock_guard<std::mutex> lock(warningMutex);
  if (warningRecorded)
    return;
  warningRecorded = true;
  pendingWarning = reason;
  warningPending.store(true, std::memory_order_release);
}

} // namespace

std::string takeDiskCacheWarning() {
  if (!warningPending.load(std::memory_order_acquire))
    return std::string();
  std::lock_guard<std::mutex> lock(warningMutex);
  warningPending.store(false, std::memory_order_relaxed);
  return std::exchange(pendingWarning, std::string());
}

bool makeDirectories(const std::string &path, unsigned mode) {
  std::string partial;
  std::stringstream parts(path);
  for (std::string part; std::getline(parts, part, '/');) {
    partial += part + "/";
    if (part.empty())
      continue;
    if (mkdir(partial.c_str(), static_cast<mode_t>(mode)) != 0 &&
        errno != EEXIST)
      return false;
  }
  struct stat info;
  return stat(path.c_str(), &info) == 0 && S_ISDIR(info.st_mode);
}

const std::string &compilerBuildId() {
  static const std::string id = [] {
    Dl_info info;
    struct stat file;
    if (dladdr(reinterpret_cast<void *>(&compilerBuildId), &info) &&
        info.dli_fname && stat(info.dli_fname, &file) == 0)
      return std::string(info.dli_fname) + "|" + std::to_string(file.st_size) +
             "|" + std::to_string(file.st_mtime);
    return std::string("spirjit " __DATE__ " " __TIME__);
  }();
  return id;
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
  // 0700: the kernels in it run in this process; no one else may read the
  // code or plant their own.
  if (directory.empty() || !makeDirectories(directory, 0700))
    return DiskCache("");
  if (std::string reason = unsafeBecause(directory); !reason.empty()) {
    recordWarning(reason);
    DiskCache disabled("");
    disabled.disabledReason_ = reason;
    return disabled;
  }
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
  // O_NONBLOCK: opening a FIFO must not wait for a writer; O_NOFOLLOW: a
  // symlink is not an entry. Whatever opens is read only if it is a
  // regular file; anything else is a miss.
  int fd = open(pathFor(key, kind).c_str(),
                O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0)
    return std::nullopt;
  struct stat info;
  std::string file;
  bool complete = fstat(fd, &info) == 0 && S_ISREG(info.st_mode);
  while (complete) {
    char buffer[65536];
    ssize_t got = read(fd, buffer, sizeof buffer);
    if (got == 0)
      break;
    if (got < 0 && errno == EINTR)
      continue;
    if (got < 0)
      complete = false;
    else
      file.append(buffer, static_cast<size_t>(got));
  }
  close(fd);
  if (!complete)
    return std::nullopt;
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
  // A fresh file of our own: whatever a crashed run left at that name (a
  // FIFO would block an ordinary open) goes first.
  unlink(temporary.c_str());
  int fd = open(temporary.c_str(),
                O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0)
    return;
  size_t written = 0;
  while (written < file.size()) {
    ssize_t put = write(fd, file.data() + written, file.size() - written);
    if (put < 0 && errno == EINTR)
      continue;
    if (put <= 0)
      break;
    written += static_cast<size_t>(put);
  }
  bool ok = close(fd) == 0 && written == file.size();
  // Renaming over a directory at the entry's path fails: the entry is
  // not stored, quietly.
  if (!ok || std::rename(temporary.c_str(), path.c_str()) != 0)
    unlink(temporary.c_str());
}

} // namespace spirjit::runtime
