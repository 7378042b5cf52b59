// tritonpack/runtime/jit_cache.hpp — the on-disk cache of JIT-compiled IR (PTX → cubin), per user.
//
// Key: image checksum (XXH64 of the IR bytes) + device arch + driver version, so a driver upgrade
// or another GPU never reuses a stale binary. One file per key, named after the key:
//   <dir>/v4-<checksum hex>-<arch>-<driver>.bin
//   = "TPJIT003" | u64 XXH64(file name) | u64 source size | u64 payload size
//     | u64 XXH64(source bytes, then payload) | source bytes | payload (the compiled code)
// XXH64 is not collision-resistant: another IR with the same XXH64 (and so the same file name)
// can be made in milliseconds. The entry therefore holds the exact source it was compiled from,
// and a read compares it byte for byte with the source being loaded: a collision, or an entry
// forged under another image's name, is a miss (compiled again), never another program's code.
// The source is what the caller says determines the IR: the IR itself, or (CUDA since v4 of the
// name) the IR's decode identity in its container, container::decode_identity — the stored bytes
// of its frame and its place in it, of which the decoded IR is a function — so that a warm load
// compares bytes it already has instead of decoding the IR. (v3 entries held the PTX: read by
// this version they would always miss, so the name changed with the meaning.)
// The file name in the header ties the content to its key: a file copied or renamed under another
// key's name is refused rather than loaded as another kernel.
// Writes go to a unique temporary file in the same directory and are renamed into place: rename
// is atomic on POSIX, so a reader sees the old file, the new file, or none — never a partial one —
// and any number of processes may compile the same key at once (the last rename wins; both wrote
// identical bytes).
// A read refuses (and the caller compiles again, rewriting the entry) a file that is not intact
// (truncated, bytes appended, bad magic, other key, checksum mismatch, other source bytes), and a
// file another user could have put there: not a regular file (a symbolic link), owned by another
// user, writable by group or others, or in a directory that others may write to without the
// sticky bit (they could rename their file over ours). The checks use fstat on the opened
// descriptors, not the path, so the file checked is the file read; the sizes in the header must
// add up to the file's size, checked before anything past the header is read, so a huge file
// costs one fstat. Under TRITONPACK_LOG=1 each refusal is logged with the file and the reason.
// Nothing is written to a directory whose entries a read would refuse. Temporaries have random
// names (core/temp_file.hpp); those of writers killed mid-write are swept once old.
//
// Directory: $TRITONPACK_CACHE_DIR, else $XDG_CACHE_HOME/tritonpack, else $HOME/.cache/tritonpack;
// a leading "~" or "~/" (a quoted value the shell did not expand) is $HOME. TRITONPACK_CACHE=0
// disables it. Failure to read or write the cache never fails a launch: the cache is an
// optimisation, and the IR is compiled again. A cache that cannot be written (not a directory,
// read-only, full, others may replace its files) is said once per process on stderr, with why and
// what to do; TRITONPACK_LOG=1 logs every failure.
// A secure-execution process reads none of these variables (core/env.hpp): its cache is
// <the effective user's home>/.cache/tritonpack, the home from the user database.
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
#include <new>
#include <optional>
#include <string>
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

constexpr char magic[8] = {'T', 'P', 'J', 'I', 'T', '0', '0', '3'};
constexpr std::size_t header_size = 40;
// The most compiled code an entry may hold: no more than an image of a container may be
// (format::max_frame_raw_size). A header declaring more is refused before anything is read.
constexpr std::uint64_t max_payload_size = std::uint64_t{1} << 32;

// The bytes an entry was compiled from (the IR image), compared exactly on every read. Empty for
// entries whose key is all they depend on (the tuning results of tune/autotune.hpp).
struct source_bytes {
  const std::uint8_t* data = nullptr;
  std::size_t size = 0;
  source_bytes() = default;
  source_bytes(const std::uint8_t* d, std::size_t n) : data(d), size(n) {}
  source_bytes(const std::vector<std::uint8_t>& v) : data(v.data()), size(v.size()) {}
};

// Once per process, whatever TRITONPACK_LOG says: the cache cannot be written, why, and what to
// do. Every rank of every run would otherwise recompile in silence.
inline void warn_once(const std::string& why) {
  static std::atomic<bool> warned{false};
  if (warned.exchange(true)) return;
  std::fprintf(stderr, "tritonpack: warning: JIT cache not written: %s\n", why.c_str());
}

// A cache directory as the environment gives it: a leading "~" or "~/" (quoted, so the shell did
// not expand it) is $HOME; "~user" is not expanded and is refused (nullopt, one warning), rather
// than creating a folder named "~".
inline std::optional<std::string> expand_home(const char* variable, const std::string& d) {
  if (d.empty() || d[0] != '~') return d;
  const std::string home = env::get("HOME");
  if ((d.size() == 1 || d[1] == '/') && !home.empty()) return home + d.substr(1);
  warn_once(std::string(variable) + "=\"" + d + "\" starts with ~, which " +
            (home.empty() ? "cannot be expanded: HOME is not set"
                          : "names another user's home (not expanded)") +
            "; give an absolute path, or TRITONPACK_CACHE=0 to not cache");
  return std::nullopt;
}

// The cache directory, or nullopt when disabled or no location can be derived.
inline std::optional<std::string> directory() {
  if (!env::flag(env::cache, true)) return std::nullopt;
  std::string d = env::get(env::cache_dir);
  if (!d.empty()) return expand_home(env::cache_dir, d);
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
  if (!x.empty()) {
    auto e = expand_home("XDG_CACHE_HOME", x);
    if (!e) return std::nullopt;
    return *e + "/tritonpack";
  }
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
  return std::string("v4-") + hex + "-" + a + "-" + std::to_string(driver_version) + ".bin";
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

// Reads exactly `n` bytes into `out`; false with errno set (0: the file ended first).
inline bool read_exact(int fd, std::uint8_t* out, std::size_t n) {
  while (n) {
    const ssize_t r = ::read(fd, out, n);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) {
      if (r == 0) errno = 0;
      return false;
    }
    out += r;
    n -= static_cast<std::size_t>(r);
  }
  return true;
}

// Why the opened directory `dfd` (`dir`) cannot hold entries, or "".
inline std::string untrusted_directory_fd(int dfd, const std::string& dir) {
  struct stat st;
  if (::fstat(dfd, &st) != 0) return "cannot stat its directory: " + os_error::reason(errno);
  return untrusted_directory(dir, st);
}

inline std::string parent_of(const std::string& path) {
  const std::size_t slash = path.rfind('/');
  return slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
}
}  // namespace detail

// The payload stored under `path` for `source`, or nullopt. `why` is "" when the file is absent,
// otherwise why it was refused (for the log): unreadable, untrusted, not intact, or compiled from
// other source bytes.
inline std::optional<std::vector<std::uint8_t>> inspect(const std::string& path, std::string& why,
                                                        source_bytes source = {}) {
  why.clear();
  const std::string dir = detail::parent_of(path);
  const std::size_t slash = path.rfind('/');
  const std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
  detail::fd_guard dfd{::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC)};
  if (dfd.fd < 0) {
    if (errno != ENOENT) why = "cannot open its directory: " + os_error::reason(errno);
    return std::nullopt;
  }
  why = detail::untrusted_directory_fd(dfd.fd, dir);
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
  struct stat st;
  if (::fstat(fd.fd, &st) != 0) {
    why = "cannot stat: " + os_error::reason(errno);
    return std::nullopt;
  }
  why = detail::untrusted_file(st);
  if (!why.empty()) return std::nullopt;
  const std::uint64_t file_size = static_cast<std::uint64_t>(st.st_size);
  std::uint8_t header[header_size];
  if (file_size < header_size || !detail::read_exact(fd.fd, header, header_size)) {
    why = file_size < header_size || errno == 0
              ? "truncated: " + std::to_string(file_size) + " bytes, shorter than the " +
                    std::to_string(header_size) + "-byte header"
              : "cannot read: " + os_error::reason(errno);
    return std::nullopt;
  }
  if (std::memcmp(header, magic, 8) != 0) {
    why = "not a tritonpack JIT cache file of this version (no TPJIT003 magic)";
    return std::nullopt;
  }
  if (byte_io::load_u64(header + 8) != key_of(path)) {
    why = "holds the entry of another key (copied or renamed)";
    return std::nullopt;
  }
  const std::uint64_t source_size = byte_io::load_u64(header + 16);
  const std::uint64_t size = byte_io::load_u64(header + 24);
  const std::uint64_t sum = byte_io::load_u64(header + 32);
  if (source_size != source.size) {
    why = "compiled from other source bytes (" + std::to_string(source_size) +
          " bytes, this image has " + std::to_string(source.size) + ")";
    return std::nullopt;
  }
  if (size > max_payload_size) {
    why = "declares " + std::to_string(size) + " payload bytes, more than an entry may hold (" +
          std::to_string(max_payload_size) + ")";
    return std::nullopt;
  }
  // Both sizes are bounded, so the sum cannot wrap; checked against the file before reading on.
  if (file_size - header_size != source_size + size) {
    why = "truncated or padded: the header says " + std::to_string(source_size) + " source and " +
          std::to_string(size) + " payload bytes, the file has " +
          std::to_string(file_size - header_size) + " after the header";
    return std::nullopt;
  }
  std::vector<std::uint8_t> stored_source, payload;
  try {
    stored_source.resize(static_cast<std::size_t>(source_size));
    payload.resize(static_cast<std::size_t>(size));
  } catch (const std::bad_alloc&) {
    why = "cannot allocate " + std::to_string(source_size + size) + " bytes to read it";
    return std::nullopt;
  }
  std::uint8_t past_end;
  if (!detail::read_exact(fd.fd, stored_source.data(), stored_source.size()) ||
      !detail::read_exact(fd.fd, payload.data(), payload.size())) {
    why = errno == 0 ? "truncated while being read" : "cannot read: " + os_error::reason(errno);
    return std::nullopt;
  }
  if (detail::read_exact(fd.fd, &past_end, 1)) {  // grew since fstat
    why = "padded: bytes follow the payload the header declares";
    return std::nullopt;
  }
  xxh64_stream hash;
  hash.update(stored_source.data(), stored_source.size());
  hash.update(payload.data(), payload.size());
  if (hash.digest() != sum) {
    why = "damaged: the entry's XXH64 does not match the header's";
    return std::nullopt;
  }
  if (source.size != 0 && std::memcmp(stored_source.data(), source.data, source.size) != 0) {
    why =
        "compiled from other source bytes with the same XXH64 and size (a collision, or an entry "
        "forged under this image's name)";
    return std::nullopt;
  }
  return payload;
}

// The payload stored under `path` for `source`, or nullopt if absent or refused; a refusal is
// logged with the file and the reason (the caller then compiles again and rewrites the entry).
inline std::optional<std::vector<std::uint8_t>> read(const std::string& path,
                                                     source_bytes source = {}) {
  std::string why;
  auto payload = inspect(path, why, source);
  if (!why.empty()) log::line("JIT cache entry " + path + " refused: " + why + "; compiling again");
  return payload;
}

// Atomically stores `payload`, compiled from `source`, under `path` (directory created if
// needed). Returns "" on success, otherwise why not (for the log). Writes nothing into a
// directory whose entries inspect() would refuse.
inline std::string write(const std::string& dir, const std::string& path,
                         const std::vector<std::uint8_t>& payload, source_bytes source = {}) {
  if (!make_dirs(dir)) return write_failure("create the directory", dir, errno);
  {
    const std::string parent = detail::parent_of(path);
    detail::fd_guard dfd{::open(parent.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC)};
    if (dfd.fd < 0) return write_failure("open the directory", parent, errno);
    const std::string untrusted = detail::untrusted_directory_fd(dfd.fd, parent);
    if (!untrusted.empty()) return "nothing is written there: " + untrusted;
  }
  std::string tmp;
  int fd = temp_file::create(path, 0600, tmp);
  if (fd < 0) return write_failure("create", tmp, errno);
  std::uint8_t header[header_size];
  std::memcpy(header, magic, 8);
  xxh64_stream hash;
  hash.update(source.data, source.size);
  hash.update(payload.data(), payload.size());
  byte_io::store_u64(header + 8, key_of(path));
  byte_io::store_u64(header + 16, source.size);
  byte_io::store_u64(header + 24, payload.size());
  byte_io::store_u64(header + 32, hash.digest());
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
  bool ok = write_all(header, header_size) && write_all(source.data, source.size) &&
            write_all(payload.data(), payload.size());
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

// The compiled code of one IR image (`source`), the same way for every backend: under key `file`
// (see file_name()) from the cache when an intact, trusted entry compiled from exactly `source`
// is there and `usable(entry)` accepts it ("" = accepted, else why not), otherwise from
// `compile()`, stored for next time. Counts the hit or the compile (core/load_stats.hpp); `how`
// says which, for the log, `compiler` naming what compiled ("the CUDA driver's linker", "comgr 2.4
// (/opt/rocm/lib/libamd_comgr.so.2)"). The cache is an optimisation: a failed read or write never
// fails the load; it is logged, and a failed write is also said once per process (warn_once).
template <class Compile, class Usable>
std::vector<std::uint8_t> get_or_compile(const std::string& file, source_bytes source,
                                         const std::string& compiler, Compile&& compile,
                                         Usable&& usable, std::string& how) {
  const auto dir = directory();
  const std::string path = dir ? *dir + "/" + file : std::string();
  if (dir) {
    if (auto hit = read(path, source)) {
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
  const std::string why = write(*dir, path, code, source);
  if (!why.empty()) {
    log::line("JIT cache not written: " + why);
    warn_once(why);
  }
  how = "JIT-compiled by " + compiler + ", " + (why.empty() ? "cached as " + path : "not cached");
  return code;
}

}  // namespace jit_cache
TRITONPACK_END_NAMESPACE
