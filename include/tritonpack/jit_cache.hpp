// tritonpack/jit_cache.hpp — the on-disk cache of JIT-compiled IR (PTX → cubin), per user.
//
// Key: image checksum (XXH64 of the IR bytes) + device arch + driver version, so a driver upgrade
// or another GPU never reuses a stale binary. One file per key:
//   <dir>/v1-<checksum hex>-<arch>-<driver>.bin
//   = "TPJIT001" | u64 payload size | u64 XXH64(payload) | payload (the cubin)
// Writes go to a unique temporary file in the same directory and are renamed into place: rename
// is atomic on POSIX, so a reader sees the old file, the new file, or none — never a partial one —
// and any number of processes may compile the same key at once (the last rename wins; both wrote
// identical bytes). A file whose header or checksum does not verify is ignored and rewritten.
//
// Directory: $TRITONPACK_CACHE_DIR, else $XDG_CACHE_HOME/tritonpack, else $HOME/.cache/tritonpack.
// TRITONPACK_CACHE=0 disables it. Failure to read or write the cache never fails a launch: the
// cache is an optimisation, and the IR is compiled again; TRITONPACK_LOG=1 says why it failed
// and what to do.
#pragma once

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "tritonpack/byte_io.hpp"
#include "tritonpack/checksum.hpp"
#include "tritonpack/env.hpp"
#include "tritonpack/os_error.hpp"

namespace tritonpack {
namespace jit_cache {

constexpr char magic[8] = {'T', 'P', 'J', 'I', 'T', '0', '0', '1'};
constexpr std::size_t header_size = 24;

// The cache directory, or nullopt when disabled or no location can be derived.
inline std::optional<std::string> directory() {
  if (!env::flag(env::cache, true)) return std::nullopt;
  std::string d = env::get(env::cache_dir);
  if (!d.empty()) return d;
  std::string x = env::get("XDG_CACHE_HOME");
  if (!x.empty()) return x + "/tritonpack";
  std::string h = env::get("HOME");
  if (!h.empty()) return h + "/.cache/tritonpack";
  return std::nullopt;
}

// File name of a key; arch characters other than [A-Za-z0-9_] (AMD's ':' and '+') become '_'.
inline std::string file_name(std::uint64_t checksum, const std::string& arch, std::uint32_t driver_version) {
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(checksum));
  std::string a = arch;
  for (char& c : a)
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_')) c = '_';
  return std::string("v1-") + hex + "-" + a + "-" + std::to_string(driver_version) + ".bin";
}

// mkdir -p with 0700 (the cache holds per-user compiled code). True when the directory exists;
// otherwise errno says why (ENOTDIR when a file stands where a directory should be).
inline bool make_dirs(const std::string& dir) {
  std::string cur;
  std::size_t pos = 0;
  while (pos != std::string::npos) {
    pos = dir.find('/', pos + 1);
    cur = dir.substr(0, pos);
    if (cur.empty()) continue;
    if (::mkdir(cur.c_str(), 0700) != 0 && errno != EEXIST) return false;
  }
  struct stat st;
  if (::stat(dir.c_str(), &st) != 0) return false;
  if (!S_ISDIR(st.st_mode)) errno = ENOTDIR;
  return S_ISDIR(st.st_mode);
}

// Why a cache write failed (errno), and what the user can do about it.
inline std::string write_failure(const std::string& what, const std::string& path, int err) {
  return "cannot " + what + " " + path + ": " + os_error::reason(err) +
         "; set TRITONPACK_CACHE_DIR to a directory you may write to, or TRITONPACK_CACHE=0 to not cache";
}

// The payload stored under `path`, or nullopt if absent or not intact.
inline std::optional<std::vector<std::uint8_t>> read(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  std::vector<std::uint8_t> bytes;
  std::uint8_t buf[65536];
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      ::close(fd);
      return std::nullopt;
    }
    if (n == 0) break;
    bytes.insert(bytes.end(), buf, buf + n);
  }
  ::close(fd);
  if (bytes.size() < header_size || std::memcmp(bytes.data(), magic, 8) != 0) return std::nullopt;
  const std::uint64_t size = byte_io::load_u64(bytes.data() + 8);
  const std::uint64_t sum = byte_io::load_u64(bytes.data() + 16);
  if (size != bytes.size() - header_size) return std::nullopt;
  if (xxh64(bytes.data() + header_size, size) != sum) return std::nullopt;
  return std::vector<std::uint8_t>(bytes.begin() + header_size, bytes.end());
}

// Atomically stores `payload` under `path` (directory created if needed). Returns "" on success,
// otherwise why not (for the log).
inline std::string write(const std::string& dir, const std::string& path, const std::vector<std::uint8_t>& payload) {
  if (!make_dirs(dir)) return write_failure("create the directory", dir, errno);
  static std::atomic<unsigned> counter{0};
  const std::string tmp = path + ".tmp." + std::to_string(::getpid()) + "." +
                          std::to_string(std::hash<std::thread::id>()(std::this_thread::get_id())) + "." +
                          std::to_string(counter.fetch_add(1));
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) return write_failure("create", tmp, errno);
  std::uint8_t header[header_size];
  std::memcpy(header, magic, 8);
  const std::uint64_t size = payload.size(), sum = xxh64(payload.data(), payload.size());
  std::memcpy(header + 8, &size, 8);  // little-endian hosts only (x86-64, aarch64), as the container
  std::memcpy(header + 16, &sum, 8);
  auto write_all = [fd](const std::uint8_t* p, std::size_t n) {
    while (n) {
      ssize_t w = ::write(fd, p, n);
      if (w < 0 && errno == EINTR) continue;
      if (w == 0) errno = ENOSPC;  // no progress and no error: the device took nothing
      if (w <= 0) return false;
      p += w;
      n -= static_cast<std::size_t>(w);
    }
    return true;
  };
  bool ok = write_all(header, header_size) && write_all(payload.data(), payload.size());
  // fsync so a crash after rename cannot leave a renamed file with unwritten blocks.
  ok = ok && ::fsync(fd) == 0;
  int err = ok ? 0 : errno;
  if (::close(fd) != 0 && ok) {
    ok = false;
    err = errno;
  }
  std::string why;
  if (!ok) why = write_failure("write", tmp, err);
  else if (::rename(tmp.c_str(), path.c_str()) != 0) why = write_failure("rename " + tmp + " to", path, errno);
  if (!why.empty()) ::unlink(tmp.c_str());
  return why;
}

}  // namespace jit_cache
}  // namespace tritonpack
