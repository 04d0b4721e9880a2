// A directory of compiled kernels, shared by processes.
//
// Entries are whole files named by a key's hash and the kind of what they
// hold (`<hash>.<kind>.kernel`, the kind being a device image format's
// name, so `ls` tells SPIR-V entries from SPIR or PTX ones, and `host` for
// a jit function's host code, an object file); each carries a magic
// header, its own key, and a checksum, so a truncated, corrupt or foreign
// file is ignored (and later rewritten), never trusted. Writes go to a
// temporary file renamed into place, so two processes filling the cache at
// once never see half a file. Knows bytes and files only.
//
// The cache holds code the process will run, so it is trusted only in a
// directory of the current user's that no one else can write (created
// 0700); elsewhere it is disabled, with a reason for the caller to warn
// about. Only regular files are read, without blocking: a FIFO, directory,
// socket or symlink at an entry's path is a miss, never a hang or an error.
#pragma once

#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

namespace spirjit::runtime {

class DiskCache {
public:
  /// The cache at SPIRJIT_CACHE_DIR (default ~/.cache/spirjit), or a
  /// disabled one when SPIRJIT_DISABLE_CACHE=1, no directory is usable, or
  /// the directory is not safe to run code from (see disabledReason).
  static DiskCache fromEnvironment();
  explicit DiskCache(std::string directory) : directory_(std::move(directory)) {}

  bool enabled() const { return !directory_.empty(); }
  /// Why a cache directory that exists was refused (another user's, or
  /// writable by others), with how to fix it; empty otherwise.
  const std::string &disabledReason() const { return disabledReason_; }

  /// The payload stored under `key` as a `kind` entry, if a valid entry
  /// exists.
  std::optional<std::vector<char>> load(const std::string &key,
                                        const std::string &kind) const;
  /// Stores `payload` under `key` as a `kind` entry; failures (read-only
  /// disk) are ignored: the cache only ever saves time.
  void store(const std::string &key, const std::string &kind,
             const std::vector<char> &payload) const;
  /// The file a `kind` entry for `key` lives in.
  std::string pathFor(const std::string &key, const std::string &kind) const;

private:
  std::string directory_;
  std::string disabledReason_;
};

/// The first disabledReason fromEnvironment gave in this process, once:
/// later calls, and calls before any refusal, give an empty string. The
/// bindings turn it into one RuntimeWarning; the runtime stays Python-free.
std::string takeDiskCacheWarning();

/// Creates `path` and its parents with `mode` (those that exist keep
/// theirs); true when it exists as a folder.
bool makeDirectories(const std::string &path, unsigned mode = 0755);

/// Identifies this build of spirjit (the file holding this code, its size
/// and time), for cache keys: a rebuilt compiler never gets code its
/// predecessor cached.
const std::string &compilerBuildId();

/// A stable 128-bit hash of `text`, as 32 hex digits.
std::string stableHash(const std::string &text);

/// Byte fields as cache entries and their payloads frame them: a u64 size
/// (host order), then the bytes. appendField adds one to `out` (a
/// std::string or std::vector<char>).
template <typename Bytes>
void appendField(Bytes &out, const void *data, size_t size) {
  uint64_t n = size;
  const char *p = reinterpret_cast<const char *>(&n);
  out.insert(out.end(), p, p + sizeof n);
  p = static_cast<const char *>(data);
  out.insert(out.end(), p, p + size);
}

/// Reads the field at `at` in `in` into `field` and moves `at` past it;
/// false, and nothing read, when `in` is cut short.
template <typename Bytes>
bool readField(const Bytes &in, size_t &at, std::string &field) {
  uint64_t n;
  if (at > in.size() || in.size() - at < sizeof n)
    return false;
  std::memcpy(&n, in.data() + at, sizeof n);
  if (in.size() - at - sizeof n < n)
    return false;
  field.assign(in.data() + at + sizeof n, n);
  at += sizeof n + n;
  return true;
}

} // namespace spirjit::runtime
