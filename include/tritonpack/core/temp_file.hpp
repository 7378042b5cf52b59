// tritonpack/core/temp_file.hpp — files written whole under a temporary name and then renamed into
// place: the JIT cache's entries, persisted tuning results, the packer's outputs.
//
// A temporary is named after its target plus ".tmp." and 16 random hex digits, and is created
// with O_CREAT | O_EXCL | O_NOFOLLOW: never an existing file, never through a symbolic link. A
// fixed name such as "<out>.tmp" opened with fopen("wb") follows a link another user planted
// there and overwrites the file it points to (a victim's ~/.profile, with a cubin).
//
// A process killed between create and rename leaves its temporary behind; sweep_stale() removes
// such files from a cache directory once they are old, so they never pile up.
#pragma once

#include <dirent.h>
#include <fcntl.h>
#include <sys/random.h>  // getentropy: the kernel's random source without <random>'s compile cost
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <set>
#include <string>

#include "tritonpack/version.hpp"

TRITONPACK_BEGIN_NAMESPACE
namespace temp_file {

// What every temporary's name holds between its target's name and the random part.
constexpr const char* infix = ".tmp.";

// How old a temporary must be before sweep_stale() takes it for one a dead process left: far
// longer than any write takes.
constexpr std::chrono::seconds stale_after{3600};

// 16 hex digits no other process or thread can guess: getentropy (the kernel's random source),
// mixed with the time, the pid and a counter where it has none. Not std::random_device: <random>
// is the heaviest standard header a header-only translation unit would parse (bench/compile_cost).
inline std::string random_hex() {
  static std::atomic<std::uint64_t> counter{0};
  std::uint64_t x =
      static_cast<std::uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count()) ^
      (static_cast<std::uint64_t>(::getpid()) << 40) ^
      (counter.fetch_add(1) * 0x9e3779b97f4a7c15ull);
  std::uint64_t entropy = 0;
  if (::getentropy(&entropy, sizeof entropy) == 0) x ^= entropy;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;  // splitmix64's finaliser: every bit counts
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  x ^= x >> 31;
  static const char digits[] = "0123456789abcdef";
  std::string s(16, '0');
  for (int i = 15; i >= 0; --i, x >>= 4) s[static_cast<std::size_t>(i)] = digits[x & 15];
  return s;
}

// Creates `path`, which must not exist, for writing with `mode` (less the umask): a name that is
// taken, by a file or a symbolic link, fails with EEXIST and is never opened. -1 with errno when
// it cannot.
inline int open_new(const std::string& path, mode_t mode) {
  return ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
}

// Creates a new temporary file for `target` in its directory, with `mode` (less the umask).
// Returns its descriptor and sets `path`; -1 with errno set (and `path` the last name tried).
inline int create(const std::string& target, mode_t mode, std::string& path) {
  for (int attempt = 0; attempt < 8; ++attempt) {
    path = target + infix + random_hex();
    const int fd = open_new(path, mode);
    if (fd >= 0 || errno != EEXIST) return fd;
  }
  return -1;
}

// Whether a directory entry's name is a temporary's (this one's, or an older run time's
// "<entry>.tmp.<pid>.<thread>.<n>").
inline bool is_temporary(const std::string& name) { return name.find(infix) != std::string::npos; }

// Removes the temporaries in `dir` that this user owns and that are older than `age`: what
// processes that died mid-write left. Once per directory and process (a cache write calls it);
// errors are ignored, as the files only cost space.
inline void sweep_stale(const std::string& dir, std::chrono::seconds age = stale_after) {
  static std::mutex mutex;
  static std::set<std::string> swept;
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (!swept.insert(dir).second) return;
  }
  DIR* d = ::opendir(dir.c_str());
  if (!d) return;
  const int dfd = ::dirfd(d);
  const auto now = std::chrono::system_clock::now();
  while (const struct dirent* e = ::readdir(d)) {
    if (!is_temporary(e->d_name)) continue;
    struct stat st;
    if (::fstatat(dfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0) continue;
    if (!S_ISREG(st.st_mode) || st.st_uid != ::geteuid()) continue;
    if (now - std::chrono::system_clock::from_time_t(st.st_mtime) < age) continue;
    ::unlinkat(dfd, e->d_name, 0);
  }
  ::closedir(d);
}

}  // namespace temp_file
TRITONPACK_END_NAMESPACE
