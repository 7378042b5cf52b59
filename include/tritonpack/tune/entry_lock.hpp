// tritonpack/tune/entry_lock.hpp — the lock a process holds while it tunes one entry, so that the
// other processes of a node wait for its result instead of tuning the same entry again
// (docs/runtime.md "Choosing a config").
//
// `<entry>.lock`, next to the entry, locked with flock. The file is opened without following a
// symbolic link and used only when it is a regular file with one link, owned by this user: one
// that another user put there (a shared cache directory) is refused, never written, never waited
// on. The holder writes "pid N uid U host H" into it, so that a process that waits too long can say
// who holds it. The wait is bounded (TRITONPACK_TUNE_LOCK_WAIT_MS, default 60 s): a holder that
// hangs, or a lock taken by something else, costs the others an untuned choice (the packed table's
// or config 0, still a correct launch), never a hang.
#pragma once

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>

#include "tritonpack/core/env.hpp"
#include "tritonpack/core/os_error.hpp"
#include "tritonpack/version.hpp"

TRITONPACK_BEGIN_NAMESPACE
namespace autotune {

constexpr double default_lock_wait_ms = 60000;

// TRITONPACK_TUNE_LOCK_WAIT_MS: how long a process waits for another's tuning of one entry.
inline double lock_wait_ms() {
  const std::string v = env::get(env::tune_lock_wait);
  if (v.empty()) return default_lock_wait_ms;
  char* end = nullptr;
  const double ms = std::strtod(v.c_str(), &end);
  if (*end != '\0' || !(ms >= 0) || ms > 1e9) {
    env::warn_unrecognised(env::tune_lock_wait, v, "a number of milliseconds, 0 to 1e9",
                           "using 60000");
    return default_lock_wait_ms;
  }
  return ms;
}

namespace detail {

// "pid 4242 uid 1000 host node17": what a holder writes into its lock file.
inline std::string holder_text() {
  char host[256] = {};
  if (::gethostname(host, sizeof host - 1) != 0) host[0] = '\0';
  return "pid " + std::to_string(::getpid()) + " uid " + std::to_string(::geteuid()) + " host " +
         (host[0] ? host : "?");
}

// An exclusive flock on a tuning entry's lock file, for the lock's lifetime.
class entry_lock {
 public:
  enum class state {
    held,         // this process holds the lock: tune
    unavailable,  // no lock to be had (cannot create the file; flock unsupported): tune unlocked
    refused,      // the file is not ours to use (a symbolic link, another user's): do not tune
    timed_out,    // another process held it for all of `wait_ms`: do not tune
  };

  // Takes the lock on `path`, waiting at most `wait_ms`. why() says why not, for the log.
  entry_lock(const std::string& path, double wait_ms) : path_(path) { take(wait_ms); }
  ~entry_lock() {
    if (fd_ >= 0) ::close(fd_);  // releases the lock
  }
  entry_lock(const entry_lock&) = delete;
  entry_lock& operator=(const entry_lock&) = delete;

  state status() const noexcept { return state_; }
  // "the tuning lock P is held by pid 4242 uid 1000 host n17 for more than 60000 ms
  // (TRITONPACK_TUNE_LOCK_WAIT_MS)", "the tuning lock P cannot be used: it is a symbolic link; …";
  // "" when held.
  const std::string& why() const noexcept { return why_; }

 private:
  void take(double wait_ms) {
    fd_ = ::open(path_.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC,
                 0600);
    if (fd_ < 0) {
      if (errno == ELOOP) return refuse("it is a symbolic link");
      return give_up(state::unavailable, "cannot open it: " + os_error::reason(errno));
    }
    struct stat st;
    if (::fstat(fd_, &st) != 0)
      return give_up(state::unavailable, "cannot stat it: " + os_error::reason(errno));
    if (!S_ISREG(st.st_mode)) return refuse("it is not a regular file");
    if (st.st_uid != ::geteuid())
      return refuse("it is owned by uid " + std::to_string(st.st_uid) + ", not by this user (uid " +
                    std::to_string(::geteuid()) + ")");
    if (st.st_nlink != 1) return refuse("it has " + std::to_string(st.st_nlink) + " hard links");
    using clock = std::chrono::steady_clock;
    const clock::time_point deadline =
        clock::now() + std::chrono::duration_cast<clock::duration>(
                           std::chrono::duration<double, std::milli>(wait_ms));
    auto pause = std::chrono::milliseconds(1);
    for (;;) {
      if (::flock(fd_, LOCK_EX | LOCK_NB) == 0) break;
      if (errno == EINTR) continue;
      if (errno != EWOULDBLOCK)
        return give_up(state::unavailable, "flock fails: " + os_error::reason(errno));
      const clock::time_point now = clock::now();
      if (now >= deadline) {
        const std::string holder = read_holder();
        char ms[32];
        std::snprintf(ms, sizeof ms, "%.0f", wait_ms);
        return give_up(state::timed_out,
                       "held by " + (holder.empty() ? std::string("another process") : holder) +
                           " for more than " + ms + " ms (" + env::tune_lock_wait + ")");
      }
      std::this_thread::sleep_for(std::min<clock::duration>(pause, deadline - now));
      pause = std::min(pause * 2, std::chrono::milliseconds(50));
    }
    state_ = state::held;
    const std::string me = holder_text() + "\n";
    if (::ftruncate(fd_, 0) == 0) {
      const ssize_t n = ::pwrite(fd_, me.data(), me.size(), 0);
      (void)n;  // the text only helps a waiter's message
    }
  }

  void give_up(state s, const std::string& reason) {
    state_ = s;
    why_ = "the tuning lock " + path_ + (s == state::timed_out ? " is " : " cannot be used: ") +
           reason;
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }
  void refuse(const std::string& reason) {
    give_up(state::refused,
            reason + "; remove it, or set TRITONPACK_CACHE_DIR to a directory of your own");
  }
  // The holder's "pid N uid U host H" line, or "" when it wrote none.
  std::string read_holder() const {
    char buf[256] = {};
    const ssize_t n = ::pread(fd_, buf, sizeof buf - 1, 0);
    std::string s(buf, n > 0 ? static_cast<std::size_t>(n) : 0);
    const std::size_t nl = s.find('\n');
    if (nl != std::string::npos) s.resize(nl);
    if (s.compare(0, 4, "pid ") != 0) return "";
    for (char& c : s)
      if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';  // a message, not a terminal
    return s;
  }

  std::string path_;
  int fd_ = -1;
  state state_ = state::unavailable;
  std::string why_;
};

}  // namespace detail
}  // namespace autotune
TRITONPACK_END_NAMESPACE
