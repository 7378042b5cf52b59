// tritonpack/pack/file_io.hpp — the packer's file reads and writes, with messages that say what
// was wrong and what to do: a directory where a file was expected, the reason (errno) for every
// failed open, create, write or rename, and writes that never leave a half-written file under the
// real name (a build that sees the header sees all of it).
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace tritonpack::pack {

// The whole of `path`, a regular file (a FIFO, device or socket is refused, never read or waited
// on) of at most `max_size` bytes. `expected` names what it should be ("a manifest file
// (manifest.json)"), for the messages. Throws error(io_error) naming the path and the reason.
std::vector<std::uint8_t> read_file(const std::filesystem::path& path,
                                    const std::string& expected = "a file",
                                    std::uint64_t max_size = ~std::uint64_t{0});

// Writes `path` through a new temporary file of a random name next to it (never a file or link
// already there) and a rename. On failure throws error(io_error) with the reason and `remedy`
// (what the user can do, e.g. "choose another output directory (-o)"), and leaves neither the
// temporary nor a partial file behind.
void write_file_atomically(const std::filesystem::path& path, const void* data, std::size_t size,
                           const std::string& remedy);

// mkdir -p `dir`; throws error(io_error) with the reason and `remedy` when it cannot, in
// particular when a file stands where a directory should be.
void create_directories(const std::filesystem::path& dir, const std::string& remedy);

}  // namespace tritonpack::pack
