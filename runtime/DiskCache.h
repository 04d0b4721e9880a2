// A directory of compiled kernels, shared by processes.
//
// Entries are whole files named by a key's hash; each carries a magic
// header, its own key, and a checksum, so a truncated, corrupt or foreign
// file is ignored (and later rewritten), never trusted. Writes go to a
// temporary file renamed into place, so two processes filling the cache at
// once never see half a file. Knows bytes and files only.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace spirjit::runtime {

class DiskCache {
public:
  /// The cache at SPIRJIT_CACHE_DIR (default ~/.cache/spirjit), or a
  /// disabled one when SPIRJIT_DISABLE_CACHE=1 or no directory is usable.
  static DiskCache fromEnvironment();
  explicit DiskCache(std::string directory) : directory_(std::move(directory)) {}

  bool enabled() const { return !directory_.empty(); }
  const std::string &directory() const { return directory_; }

  /// The payload stored under `key`, if a valid entry exists.
  std::optional<std::vector<char>> load(const std::string &key) const;
  /// Stores `payload` under `key`; failures (read-only disk) are ignored:
  /// the cache only ever saves time.
  void store(const std::string &key, const std::vector<char> &payload) const;
  /// The file an entry for `key` lives in.
  std::string pathFor(const std::string &key) const;

private:
  std::string directory_;
};

/// Creates `path` and its parents; true when it exists as a folder.
bool makeDirectories(const std::string &path);

/// A stable 128-bit hash of `text`, as 32 hex digits.
std::string stableHash(const std::string &text);

} // namespace spirjit::runtime
