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

// Candidates that fail validation cost up to their claimed size each (the tables checksum reads
// their tables), and a crafted file can claim the rest of the file at every offset: the scan
// would be quadratic. The bytes spent on candidates that turn out invalid are therefore bounded
// by a multiple of the file's size; past it, further candidates are counted, not validated.
constexpr std::uint64_t invalid_budget_factor = 4;
constexpr std::uint64_t invalid_budget_floor = std::uint64_t{64} << 20;
// Reasons kept for the error message; the others are counted.
constexpr std::size_t rejected_kept = 16;

void scan(const std::vector<std::uint8_t>& bytes, search_result& r) {
  const std::uint8_t* const begin = bytes.data();
  const std::uint8_t* const end = begin + bytes.size();
  const std::uint8_t* p = begin;
  std::uint64_t budget = invalid_budget_floor + invalid_budget_factor * bytes.size();
  std::size_t rejected = 0, unchecked = 0;
  auto reject = [&](std::uint64_t off, const std::string& why) {
    if (++rejected <= rejected_kept)
      r.rejected.push_back("offset " + std::to_string(off) + ": " + why);
  };
  while (true) {
    p = std::search(p, end, format::magic, format::magic + format::magic_size);
    if (p == end) break;
    const std::uint64_t off = static_cast<std::uint64_t>(p - begin);
    std::uint64_t total = 0;
    if (!container::probe(p, static_cast<std::size_t>(end - p), total)) {
      reject(off, "magic without a complete header");
      ++p;
      continue;
    }
    const std::uint64_t available = static_cast<std::uint64_t>(end - p);
    const std::uint64_t cost = total < available ? total : available;
    if (cost > budget) {
      ++unchecked;
      ++p;
      continue;
    }
    if (total > available) {
      // Truncated (or not a container): let the reader say which field disagrees.
      std::string why = "header says " + std::to_string(total) + " bytes, only " +
                        std::to_string(available) + " follow";
      try {
        (void)container::parse(p, static_cast<std::size_t>(available));
      } catch (const error& e) {
        why = e.message();
      }
      budget -= cost;
      reject(off, why);
      ++p;
      continue;
    }
    try {
      // The tables checksum makes a stray copy of the magic fail here. The frames are not
      // decoded: a container whose image bytes are damaged is still found, and reported as
      // damaged by whoever decodes them (inspect, extract). Every record is read, as the run time
      // reads each kernel's on its first use, so one that breaks a rule is refused here.
      (void)container::parse(p, static_cast<std::size_t>(total)).info();
      r.containers.push_back({off, std::vector<std::uint8_t>(p, p + total)});
      p += total;  // a valid container: skip past it
    } catch (const error& e) {
      budget -= cost;
      reject(off, e.message());
      ++p;
    }
  }
  if (rejected > rejected_kept)
    r.rejected.push_back(std::to_string(rejected - rejected_kept) + " more invalid candidates");
  if (unchecked)
    r.rejected.push_back(std::to_string(unchecked) +
                         " candidates not validated: invalid candidates before them already "
                         "claimed " +
                         std::to_string(invalid_budget_factor) +
                         " times the file's size (a crafted file?)");
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
  if (r.source == "binary") {
    // Which copy is the program's: one in a loaded section, not in debug information.
    std::vector<std::uint64_t> offsets;
    for (const found_container& c : r.containers) offsets.push_back(c.offset);
    std::vector<elf_location> where = locate_in_elf(file_bytes, offsets);
    for (std::size_t i = 0; i < where.size(); ++i) r.containers[i].location = std::move(where[i]);
  }
  return r;
}

}  // namespace tritonpack::pack
