// The packer's file I/O (file_io.hpp). C stdio rather than iostreams: a failed fopen, fread or
// fwrite sets errno, so the message can say why; a failed ifstream says only that it failed (or,
// on a directory, "basic_filebuf::underflow error reading the file").
#include "tritonpack/pack/file_io.hpp"

#include <fmt/format.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <memory>

#include "tritonpack/core/error.hpp"
#include "tritonpack/core/os_error.hpp"

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
  const fs::path tmp = path.string() + ".tmp";
  file_ptr out(std::fopen(tmp.c_str(), "wb"));
  if (!out) fail(fmt::format("cannot create {}", tmp.string()), errno, remedy);
  const bool written = std::fwrite(data, 1, size, out.get()) == size;
  int err = errno;
  const bool closed = std::fclose(out.release()) == 0;
  if (written && !closed) err = errno;
  if (!written || !closed) {
    std::remove(tmp.c_str());
    fail(fmt::format("cannot write {}", tmp.string()), err, remedy);
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    err = errno;
    std::remove(tmp.c_str());
    fail(fmt::format("cannot rename {} to {}", tmp.string(), path.string()), err, remedy);
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
