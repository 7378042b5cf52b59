// The packer's file I/O (file_io.hpp). C stdio rather than iostreams: a failed fopen, fread or
// fwrite sets errno, so the message can say why; a failed ifstream says only that it failed (or,
// on a directory, "basic_filebuf::underflow error reading the file").
#include "tritonpack/pack/file_io.hpp"

#include <fmt/format.h>
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

std::vector<std::uint8_t> read_file(const fs::path& path, const std::string& expected) {
  if (is_a_directory(path))
    throw error(errc::io_error,
                fmt::format("{} is a directory; expected {}", path.string(), expected));
  file_ptr in(std::fopen(path.c_str(), "rb"));
  if (!in) fail(fmt::format("cannot open {}", path.string()), errno);
  std::vector<std::uint8_t> bytes;
  std::uint8_t buf[1 << 16];
  while (std::size_t n = std::fread(buf, 1, sizeof buf, in.get()))
    bytes.insert(bytes.end(), buf, buf + n);
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
