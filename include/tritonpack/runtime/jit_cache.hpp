// tritonpack/runtime/jit_cache.hpp — the on-disk cache of JIT-compiled IR (PTX → cubin), per user.
//
// Key: image checksum (XXH64 of the IR bytes) + device arch + driver version, so a driver upgrade
// or another GPU never reuses a stale binary. One file per key, named after the key:
//   <dir>/v2-<checksum hex>-<arch>-<driver>.bin
//   = "TPJIT002" | u64 XXH64(file name) | u64 payload size | u64 XXH64(payload) | payload (the
//   cubin)
// The file name in the header ties the content to its key: a file copied or renamed under another
// key's name is refused rather than loaded as another kernel.
// Writes go to a unique temporary file in the same directory and are renamed into place: rename
// is atomic on POSIX, so a reader sees the old file, the new file, or none — never a partial one —
// and any number of processes may compile the same key at once (the last rename wins; both wrote
// identical bytes).
// A read refuses (and the caller compiles again, rewriting the entry) a file that is not intact
// (truncated, bad magic, other key, checksum mismatch), and a file another user could have put
// there: not a regular file (a symbolic link), owned by another user, writable by group or others,
// or in a directory that others may write to without the sticky bit (they could rename their file
// over ours). The checks use fstat on the opened descriptors, not the path, so the file checked is
// the file read. Under TRITONPACK_LOG=1 each refusal is logged with the file and the reason.
// Temporaries have random names (core/temp_file.hpp); those of writers killed mid-write are swept
// once old.
//
// Directory: $TRITONPACK_CACHE_DIR, else $XDG_CACHE_HOME/tritonpack, else $HOME/.cache/tritonpack.
// TRITONPACK_CACHE=0 disables it. Failure to read or write the cache never fails a launch: the
// cache is an optimisation, and the IR is compiled again; TRITONPACK_LOG=1 says why it failed
// and what to do. A secure-execution process reads none of these variables (core/env.hpp): its
// cache is <the effective user's home>/.cache/tritonpack, the home from the user database.
#pragma once

#include <fcntl.h>
#include <pwd.h>
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

#include "tritonpack/container/byte_io.hpp"
#include "tritonpack/container/checksum.hpp"
#include "tritonpack/core/env.hpp"
#include "tritonpack/core/load_stats.hpp"
#include "tritonpack/core/log.hpp"
#include "tritonpack/core/os_error.hpp"
#include "tritonpack/core/temp_file.hpp"
#include "tritonpack/version.hpp"

TRITONPACK_BEGIN_NAMESPACE
namespace jit_cache {

constexpr char magic[8] = {'T', 'P', 'J', 'I', 'T', '0', '0', '2'};
constexpr std::size_t header_size = 32;

// The cache directory, or nullopt when disabled or no location can be derived.
inline std::optional<std::string> directory() {
  if (!env::flag(env::cache, true)) return std::nullopt;
  std::string d = env::get(env::cache_dir);
  if (!d.empty()) return d;
  if (env::secure_execution()) {
    // HOME and XDG_CACHE_HOME are the caller's; the cache belongs to the effective user.
    struct passwd pw, *found = nullptr;
    std::vector<char> buf(16384);
    if (::getpwuid_r(::geteuid(), &pw, buf.data(), buf.size(), &found) != 0 || !found ||
        !pw.pw_dir || pw.pw_dir[0] != '/')
      return std::nullopt;
    return std::string(pw.pw_dir) + "/.cache/tritonpack";
  }
  std::string x = env::get("XDG_CACHE_HOME");
  if (!x.empty()) return x + "/tritonpack";
  std::string h = env::get("HOME");
  if (!h.empty()) return h + "/.cache/tritonpack";
  return std::nullopt;
}

// File name of a key; arch characters other than [A-Za-z0-9_] (AMD's ':' and '+') become '_'.
inline std::string file_name(std::uint64_t checksum, const std::string& arch,
                             std::uint32_t driver_version) {
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(checksum));
  std::string a = arch;
  for (char& c : a)
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_'))
      c = '_';
  return std::string("v2-") + hex + "-" + a + "-" + std::to_string(driver_version) + ".bin";
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
         "; set TRITONPACK_CACHE_DIR to a directory you may write to, or TRITONPACK_CACHE=0 to not "
         "cache";
}

// The XXH64 of a path's last component: the key an entry's header must name.
inline std::uint64_t key_of(const std::string& path) {
  const std::size_t slash = path.rfind('/');
  const std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
  return xxh64(name.data(), name.size());
}

namespace detail {
inline std::string octal_mode(mode_t m) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "%04o", static_cast<unsigned>(m & 07777));
  return buf;
}

// Closes a descriptor on every return path.
struct fd_guard {
  int fd;
  ~fd_guard() {
    if (fd >= 0) ::close(fd);
  }
};

// Why the directory holding the entries cannot be trusted, or "" when it can.
inline std::string untrusted_directory(const std::string& dir, const struct stat& st) {
  if ((st.st_mode & S_IWOTH) && !(st.st_mode & S_ISVTX))
    return "its directory " + dir + " is writable by others without the sticky bit (mode " +
           octal_mode(st.st_mode) + "), so another user could replace the file; chmod o-w or +t " +
           dir + ", or set TRITONPACK_CACHE_DIR";
  return "";
}

// Why the opened file cannot be trusted, or "" when it can.
inline std::string untrusted_file(const struct stat& st) {
  if (!S_ISREG(st.st_mode)) return "not a regular file";
  if (st.st_uid != ::geteuid())
    return "owned by uid " + std::to_string(st.st_uid) + ", not by this user (uid " +
           std::to_string(::geteuid()) + ")";
  if (st.st_mode & (S_IWGRP | S_IWOTH))
    return "writable by " + std::string(st.st_mode & S_IWOTH ? "others" : "its group") + " (mode " +
           octal_mode(st.st_mode) + ")";
  return "";
}
}  // namespace detail

// The payload stored under `path`, or nullopt. `why` is "" when the file is absent, otherwise why
// it was refused (for the log): unreadable, untrusted, or not intact.
inline std::optional<std::vector<std::uint8_t>> inspect(const std::string& path, std::string& why) {
  why.clear();
  const std::size_t slash = path.rfind('/');
  const std::string dir = slash == std::string::npos ? "."
                          : slash == 0               ? "/"
                                                     : path.substr(0, slash);
  const std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
  detail::fd_guard dfd{::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC)};
  if (dfd.fd < 0) {
    if (errno != ENOENT) why = "cannot open its directory: " + os_error::reason(errno);
    return std::nullopt;
  }
  struct stat st;
  if (::fstat(dfd.fd, &st) != 0) {
    why = "cannot stat its directory: " + os_error::reason(errno);
    return std::nullopt;
  }
  why = detail::untrusted_directory(dir, st);
  if (!why.empty()) return std::nullopt;
  // O_NOFOLLOW: a symbolic link is refused (ELOOP) rather than followed to a file someone else
  // chose.
  detail::fd_guard fd{
      ::openat(dfd.fd, name.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)};
  if (fd.fd < 0) {
    if (errno == ELOOP) why = "a symbolic link";
    else if (errno != ENOENT) why = "cannot open: " + os_error::reason(errno);
    return std::nullopt;
  }
  if (::fstat(fd.fd, &st) != 0) {
    why = "cannot stat: " + os_error::reason(errno);
    return std::nullopt;
  }
  why = detail::untrusted_file(st);
  if (!why.empty()) return std::nullopt;
  std::vector<std::uint8_t> bytes;
  bytes.reserve(static_cast<std::size_t>(st.st_size));
  std::uint8_t buf[65536];
  for (;;) {
    ssize_t n = ::read(fd.fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      why = "cannot read: " + os_error::reason(errno);
      return std::nullopt;
    }
    if (n == 0) break;
    bytes.insert(bytes.end(), buf, buf + n);
  }
  if (bytes.size() < header_size) {
    why = "truncated: " + std::to_string(bytes.size()) + " bytes, shorter than the " +
          std::to_string(header_size) + "-byte header";
    return std::nullopt;
  }
  if (std::memcmp(bytes.data(), magic, 8) != 0) {
    why = "not a tritonpack JIT cache file of this version (no TPJIT002 magic)";
    return std::nullopt;
  }
  if (byte_io::load_u64(bytes.data() + 8) != key_of(path)) {
    why = "holds the entry of another key (copied or renamed)";
    return std::nullopt;
  }
  const std::uint64_t size = byte_io::load_u64(bytes.data() + 16);
  const std::uint64_t sum = byte_io::load_u64(bytes.data() + 24);
  if (size != bytes.size() - header_size) {
    why = "truncated or padded: the header says " + std::to_string(size) +
          " payload bytes, the file has " + std::to_string(bytes.size() - header_size);
    return std::nullopt;
  }
  if (xxh64(bytes.data() + header_size, size) != sum) {
    why = "damaged: the payload's XXH64 does not match the header's";
    return std::nullopt;
  }
  return std::vector<std::uint8_t>(bytes.begin() + header_size, bytes.end());
}

// The payload stored under `path`, or nullopt if absent or refused; a refusal is logged with the
// file and the reason (the caller then compiles again and rewrites the entry).
inline std::optional<std::vector<std::uint8_t>> read(const std::string& path) {
  std::string why;
  auto payload = inspect(path, why);
  if (!why.empty()) log::line("JIT cache entry " + path + " refused: " + why + "; compiling again");
  return payload;
}

// Atomically stores `payload` under `path` (directory created if needed). Returns "" on success,
// otherwise why not (for the log).
inline std::string write(const std::string& dir, const std::string& path,
                         const std::vector<std::uint8_t>& payload) {
  if (!make_dirs(dir)) return write_failure("create the directory", dir, errno);
  std::string tmp;
  int fd = temp_file::create(path, 0600, tmp);
  if (fd < 0) return write_failure("create", tmp, errno);
  std::uint8_t header[header_size];
  std::memcpy(header, magic, 8);
  const std::uint64_t size = payload.size(), sum = xxh64(payload.data(), payload.size());
  byte_io::store_u64(header + 8, key_of(path));
  byte_io::store_u64(header + 16, size);
  byte_io::store_u64(header + 24, sum);
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
  else if (::rename(tmp.c_str(), path.c_str()) != 0)
    why = write_failure("rename " + tmp + " to", path, errno);
  if (!why.empty()) ::unlink(tmp.c_str());
  else temp_file::sweep_stale(dir);  // what writers killed mid-write left here
  return why;
}

// The compiled code of one IR image, the same way for every backend: under key `file` (see
// file_name()) from the cache when an intact, trusted entry is there and `usable(entry)` accepts it
// ("" = accepted, else why not), otherwise from `compile()`, stored for next time. Counts the hit
// or the compile (core/load_stats.hpp); `how` says which, for the log, `compiler` naming what
// compiled ("the CUDA driver's linker", "comgr 2.4 (/opt/rocm/lib/libamd_comgr.so.2)"). The cache
// is an optimisation: a failed read or write never fails the load, it is logged.
template <class Compile, class Usable>
std::vector<std::uint8_t> get_or_compile(const std::string& file, const std::string& compiler,
                                         Compile&& compile, Usable&& usable, std::string& how) {
  const auto dir = directory();
  const std::string path = dir ? *dir + "/" + file : std::string();
  if (dir) {
    if (auto hit = read(path)) {
      const std::string unusable = usable(*hit);
      if (unusable.empty()) {
        tritonpack::detail::count_load(&tritonpack::detail::image_load_counters::jit_cache_hits);
        how = "JIT cache hit " + path;
        return std::move(*hit);
      }
      log::line("JIT cache entry " + path + " did not load (" + unusable + "); compiling again");
    }
  }
  std::vector<std::uint8_t> code = compile();
  tritonpack::detail::count_load(&tritonpack::detail::image_load_counters::jit_compiled);
  if (!dir) {
    how = "JIT-compiled by " + compiler + " (TRITONPACK_CACHE=0 or no cache directory: not cached)";
    return code;
  }
  const std::string why = write(*dir, path, code);
  if (!why.empty()) log::line("JIT cache not written: " + why);
  how = "JIT-compiled by " + compiler + ", " + (why.empty() ? "cached as " + path : "not cached");
  return code;
}

}  // namespace jit_cache
TRITONPACK_END_NAMESPACE
