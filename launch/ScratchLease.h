// Per-thread scratch for a hot path that must not allocate once warm.
#pragma once

#include <memory>

namespace spirjit::launch {

/// Lends the calling thread's `Scratch` for one call; a nested call on the
/// same thread gets a scratch of its own. `Scratch` has a `bool inUse` and
/// a `release()` that drops what the call held but keeps capacity.
template <typename Scratch> class ScratchLease {
public:
  ScratchLease() {
    thread_local Scratch shared;
    if (shared.inUse)
      own_ = std::make_unique<Scratch>();
    scratch_ = own_ ? own_.get() : &shared;
    scratch_->inUse = true;
  }
  ~ScratchLease() {
    scratch_->release();
    scratch_->inUse = false;
  }
  ScratchLease(const ScratchLease &) = delete;
  ScratchLease &operator=(const ScratchLease &) = delete;
  Scratch &operator*() { return *scratch_; }

private:
  std::unique_ptr<Scratch> own_;
  Scratch *scratch_;
};

} // namespace spirjit::launch
