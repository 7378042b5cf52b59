#include "tritonpack/pack/container_finder.hpp"

#include <algorithm>
#include <cstring>
#include <string_view>

#include "tritonpack/container/format.hpp"
#include "tritonpack/container/reader.hpp"
#include "tritonpack/core/error.hpp"
#include "tritonpack/pack/header_writer.hpp"

namespace tritonpack::pack {
namespace {

void scan(const std::vector<std::uint8_t>& bytes, search_result& r) {
  const std::uint8_t* const begin = bytes.data();
  const std::uint8_t* const end = begin + bytes.size();
  const std::uint8_t* p = begin;
  while (true) {
    p = std::search(p, end, format::magic, format::magic + format::magic_size);
    if (p == end) break;
    const std::uint64_t off = static_cast<std::uint64_t>(p - begin);
    std::uint64_t total = 0;
    if (!container::probe(p, static_cast<std::size_t>(end - p), total)) {
      r.rejected.push_back("offset " + std::to_string(off) + ": magic without a complete header");
      ++p;
      continue;
    }
    if (total > static_cast<std::uint64_t>(end - p)) {
      // Truncated (or not a container): let the reader say which field disagrees.
      std::string why = "header says " + std::to_string(total) + " bytes, only " +
                        std::to_string(end - p) + " follow";
      try {
        (void)container::parse(p, static_cast<std::size_t>(end - p));
      } catch (const error& e) {
        why = e.message();
      }
      r.rejected.push_back("offset " + std::to_string(off) + ": " + why);
      ++p;
      continue;
    }
    try {
      // The tables checksum makes a stray copy of the magic fail here. The frames are not
      // decoded: a container whose image bytes are damaged is still found, and reported as
      // damaged by whoever decodes them (inspect, extract).
      (void)container::parse(p, static_cast<std::size_t>(total));
      r.containers.push_back({off, std::vector<std::uint8_t>(p, p + total)});
      p += total;  // a valid container: skip past it
    } catch (const error& e) {
      r.rejected.push_back("offset " + std::to_string(off) + ": " + e.message());
      ++p;
    }
  }
}

}  // namespace

search_result find_containers(const std::vector<std::uint8_t>& file_bytes) {
  search_result r;
  const std::string_view text(reinterpret_cast<const char*>(file_bytes.data()), file_bytes.size());
  const std::size_t decl = text.find("container_data[] =");
  if (decl != std::string_view::npos) {
    // A generated header: the literal runs from the declaration to the terminating ';'.
    r.source = "generated header";
    std::size_t p = decl + 18;
    std::size_t stop = p;
    bool in_str = false;
    for (; stop < text.size(); ++stop) {
      const char c = text[stop];
      if (in_str) {
        if (c == '\\') ++stop;
        else if (c == '"') in_str = false;
      } else if (c == '"') {
        in_str = true;
      } else if (c == ';') {
        break;
      }
    }
    std::vector<std::uint8_t> decoded;
    try {
      decoded = decode_string_literals(text.substr(p, stop - p));
    } catch (const error& e) {
      r.rejected.push_back(std::string("the header's container literal: ") + e.message());
      return r;
    }
    scan(decoded, r);
    return r;
  }
  r.source = file_bytes.size() >= format::magic_size &&
                     std::memcmp(file_bytes.data(), format::magic, format::magic_size) == 0
                 ? "container file"
                 : "binary";
  scan(file_bytes, r);
  return r;
}

}  // namespace tritonpack::pack
