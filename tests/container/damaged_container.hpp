// Helpers for the tests that damage a container's bytes and expect the reader to refuse it
// (test_corruption.cpp, test_ptx_lines.cpp): where a section starts, a tables checksum made valid
// again after a field was changed, and the message of the refusal.
#pragma once

#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "tritonpack/container/byte_io.hpp"
#include "tritonpack/container/checksum.hpp"
#include "tritonpack/container/format.hpp"
#include "tritonpack/container/reader.hpp"

namespace tp_test {

inline std::uint64_t section_offset(const std::vector<std::uint8_t>& b, std::uint32_t s) {
  namespace F = tritonpack::format;
  return tritonpack::byte_io::load_u64(b.data() + F::header::sections + s * F::header::section_entry_size);
}

inline std::uint64_t section_size(const std::vector<std::uint8_t>& b, std::uint32_t s) {
  namespace F = tritonpack::format;
  return tritonpack::byte_io::load_u64(b.data() + F::header::sections + s * F::header::section_entry_size + 8);
}

// Recomputes the tables checksum so that the structural check of the damaged field is what fires
// (the checksum would refuse any change first).
inline void fix_checksum(std::vector<std::uint8_t>& b) {
  namespace F = tritonpack::format;
  const std::uint64_t covered = section_offset(b, F::sec_data);
  tritonpack::byte_io::store_u64(b.data() + F::header::tables_checksum, 0);
  tritonpack::byte_io::store_u64(b.data() + F::header::tables_checksum,
                                 tritonpack::xxh64(b.data(), static_cast<std::size_t>(covered)));
}

// Parses `b`; returns the error message (and checks it is a damaged-container error), or "" if it
// parsed. Parsing checks the tables' structure; what each record says is checked when its kernel
// is built (build_error).
inline std::string parse_error(const std::vector<std::uint8_t>& b) {
  try {
    (void)tritonpack::container::parse(b.data(), b.size());
  } catch (const tritonpack::error& e) {
    CHECK(e.code() == tritonpack::errc::bad_container);
    return e.what();
  }
  return {};
}

// Parses `b`, which must parse, and builds its whole model (info(), as `tritonpack inspect` does);
// returns the error message of the build (checked to be a damaged-container error), or "" if every
// record was accepted.
inline std::string build_error(const std::vector<std::uint8_t>& b) {
  const std::string at_parse = parse_error(b);
  REQUIRE_MESSAGE(at_parse.empty(), "refused at parse: " << at_parse);
  const tritonpack::container c = tritonpack::container::parse(b.data(), b.size());
  try {
    (void)c.info();
  } catch (const tritonpack::error& e) {
    CHECK(e.code() == tritonpack::errc::bad_container);
    return e.what();
  }
  return {};
}

}  // namespace tp_test
