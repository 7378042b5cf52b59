// tritonpack/pack/elf_location.hpp — where in an ELF file (executable, shared library, object, or
// an `ar` archive of objects) a byte offset lies: its section, whether that section is loaded with
// the program, and the symbol that covers it. `tritonpack inspect` uses it to say which of the
// containers found in a binary is the one the program uses: a copy inside debug information (a
// compiler writing the value of a const array into DWARF) is never loaded.
//
// The file is untrusted: every field is bounds-checked, and anything that does not add up leaves
// the offset unlocated (an empty section name) rather than failing the report.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace tritonpack::pack {

struct elf_location {
  std::string member;   // the archive member holding it; empty outside an archive
  std::string section;  // ".data", ".debug_info", …; empty when the offset could not be located
  bool loaded = false;  // the section occupies memory at run time (SHF_ALLOC)
  std::string symbol;   // the symbol whose bytes contain the offset, demangled; may be empty
};

// One location per offset, in order. Files that are not ELF or an archive give empty locations.
std::vector<elf_location> locate_in_elf(const std::vector<std::uint8_t>& file,
                                        const std::vector<std::uint64_t>& offsets);

}  // namespace tritonpack::pack
