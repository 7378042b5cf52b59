// The packer's file I/O (file_io.hpp). C stdio rather than iostreams: a failed fopen, fread or
// fwrite sets errno, so the message can say why; a failed ifstream says only that it failed (or,
// on a directory, "basic_filebuf::underflow error reading the file").
#include "tritonpack/pack/file_io.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <memory>

#include "tritonpack/core/error.hpp"
#include "tritonpack/core/os_error.hpp"
#include "tritonpack/core/temp_file.hpp"

namespace fs = std::filesystem;

namespace tritonpack::pack {
namespace {

struct file_closer {
  void operator()(std::FILE* f) const { std::fclose(f); }
};
using file_ptr = std::unique_ptr<std::FILE, file_closer>;

[[noreturn]] void fail(const std::string& what, int err, const std::string& remedy = {}) {
  throw error(errc::io_error, fmt::format("{}: {}{}", what, os_error::reason(err),
                                          remedy.empty() ? "" : "; " + remedy));
}

bool is_a_directory(const fs::path& p) {
  std::error_code ec;
  return fs::is_directory(p, ec);
}

}  // namespace

std::vector<std::uint8_t> read_file(const fs::path& path, const std::string& expected,
                                    std::uint64_t max_size) {
  if (is_a_directory(path))
    throw error(errc::io_error,
                fmt::format("{} is a directory; expected {}", path.string(), expected));
  // O_NONBLOCK: a FIFO named here must not block the open; it is refused below.
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) fail(fmt::format("cannot open {}", path.string()), errno);
  file_ptr in(::fdopen(fd, "rb"));
  if (!in) {
    const int err = errno;
    ::close(fd);
    fail(fmt::format("cannot open {}", path.string()), err);
  }
  // The file checked is the file read: fstat of the opened descriptor, not of the path.
  struct stat st;
  if (::fstat(fd, &st) != 0) fail(fmt::format("cannot stat {}", path.string()), errno);
  if (!S_ISREG(st.st_mode))
    throw error(errc::io_error,
                fmt::format("{} is not a regular file (a {}); expected {}", path.string(),
                            S_ISFIFO(st.st_mode)   ? "FIFO"
                            : S_ISCHR(st.st_mode)  ? "character device"
                            : S_ISBLK(st.st_mode)  ? "block device"
                            : S_ISSOCK(st.st_mode) ? "socket"
                                                   : "special file",
                            expected));
  if (static_cast<std::uint64_t>(st.st_size) > max_size)
    throw error(errc::io_error,
                fmt::format("{} is {} bytes, more than the {} bytes {} may be", path.string(),
                            static_cast<std::uint64_t>(st.st_size), max_size, expected));
  std::vector<std::uint8_t> bytes;
  bytes.reserve(static_cast<std::size_t>(st.st_size));
  std::uint8_t buf[1 << 16];
  while (std::size_t n = std::fread(buf, 1, sizeof buf, in.get())) {
    if (bytes.size() + n > max_size)  // grew while being read
      throw error(errc::io_error, fmt::format("{} grew past {} bytes while being read; expected {}",
                                              path.string(), max_size, expected));
    bytes.insert(bytes.end(), buf, buf + n);
  }
  if (std::ferror(in.get())) fail(fmt::format("cannot read {}", path.string()), errno);
  return bytes;
}

void write_file_atomically(const fs::path& path, const void* data, std::size_t size,
                           const std::string& remedy) {
  if (is_a_directory(path))
    throw error(
        errc::io_error,
        fmt::format("{} is a directory; expected a file to write (remove the directory, or {})",
                    path.string(), remedy));
  // A new file of a random name (core/temp_file.hpp): a fixed `path`.tmp would follow a symbolic
  // link another user planted there.
  std::string tmp;
  const int fd = temp_file::create(path.string(), 0666, tmp);
  if (fd < 0)
    fail(fmt::format("cannot create a temporary file next to {} ({})", path.string(), tmp), errno,
         remedy);
  const auto* p = static_cast<const std::uint8_t*>(data);
  std::size_t left = size;
  int err = 0;
  while (left) {
    const ssize_t n = ::write(fd, p, left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      err = n < 0 ? errno : ENOSPC;  // no progress and no error: the device took nothing
      break;
    }
    p += n;
    left -= static_cast<std::size_t>(n);
  }
  if (::close(fd) != 0 && !err) err = errno;
  if (err) {
    std::remove(tmp.c_str());
    fail(fmt::format("cannot write {}", tmp), err, remedy);
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    err = errno;
    std::remove(tmp.c_str());
    fail(fmt::format("cannot rename {} to {}", tmp, path.string()), err, remedy);
  }
}

void create_directories(const fs::path& dir, const std::string& remedy) {
  std::error_code ec;
  if (fs::exists(dir, ec) && !fs::is_directory(dir, ec))
    throw error(errc::io_error,
                fmt::format("{} is a file; expected a directory (remove the file, or {})",
                            dir.string(), remedy));
  fs::create_directories(dir, ec);
  if (ec) fail(fmt::format("cannot create the directory {}", dir.string()), ec.value(), remedy);
}

}  // namespace tritonpack::pack
