// tritonpack/pack/container_finder.hpp — finds containers inside other files: a .tpk is one, a
// generated header holds one as a string literal, an executable or shared library holds one (or
// several) as read-only data. Each candidate found by the magic is validated by the run-time
// reader; candidates that do not validate (the magic constant in a program's own code) are
// skipped, so only real containers are reported.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tritonpack/pack/elf_location.hpp"

namespace tritonpack::pack {

struct found_container {
  std::uint64_t offset = 0;  // in the searched bytes (the decoded literal for a header)
  std::vector<std::uint8_t> bytes;
  elf_location location;  // a binary's: its section, loaded or not, its symbol (empty elsewhere)
};

struct search_result {
  std::string source;  // "container file", "generated header", "binary"
  std::vector<found_container> containers;
  std::vector<std::string> rejected;  // why candidates with the magic did not validate
};

// Searches `file_bytes` (the whole file). A generated header is recognised by its
// `container_data[] =` declaration and decoded from its string literal first.
search_result find_containers(const std::vector<std::uint8_t>& file_bytes);

}  // namespace tritonpack::pack
