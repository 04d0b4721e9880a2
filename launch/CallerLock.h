// Private to launch/: giving up the caller's lock (setCallerLock) around
// work that blocks.
#pragma once

namespace spirjit::launch {

/// Gives up the caller's lock for the scope: compiles and waits block, and
/// the caller's other threads may run meanwhile.
class CallerLockReleased {
public:
  CallerLockReleased();
  ~CallerLockReleased();
  CallerLockReleased(const CallerLockReleased &) = delete;
  CallerLockReleased &operator=(const CallerLockReleased &) = delete;

private:
  void *state_;
};

} // namespace spirjit::launch
