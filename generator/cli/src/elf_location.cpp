#include "tritonpack/pack/elf_location.hpp"

#include <cxxabi.h>

#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>
#include <string_view>

namespace tritonpack::pack {
namespace elf_location_detail {

constexpr std::uint32_t sht_symtab = 2, sht_nobits = 8, sht_dynsym = 11;
constexpr std::uint64_t shf_alloc = 0x2;
constexpr std::uint16_t et_rel = 1;
constexpr std::uint16_t shn_undef = 0, shn_loreserve = 0xff00, shn_xindex = 0xffff;
// Sections beyond this many are not looked at (real files have tens; a crafted count costs
// nothing but this bound).
constexpr std::uint64_t max_sections = 1u << 16;

// Reads fixed-size little- or big-endian fields of one ELF image, bounds-checked: a read outside
// the image gives nullopt.
class elf_bytes {
 public:
  elf_bytes(const std::uint8_t* p, std::uint64_t size, bool big_endian)
      : p_(p), size_(size), big_(big_endian) {}
  std::uint64_t size() const { return size_; }
  std::optional<std::uint64_t> get(std::uint64_t off, unsigned width) const {
    if (off > size_ || width > size_ - off) return std::nullopt;
    std::uint64_t v = 0;
    for (unsigned i = 0; i < width; ++i) {
      const unsigned byte = big_ ? i : width - 1 - i;
      v = (v << 8) | p_[off + byte];
    }
    return v;
  }
  // The NUL-terminated string at `off` of the string table [table, table + table_size).
  std::string str(std::uint64_t table, std::uint64_t table_size, std::uint64_t off) const {
    if (table > size_ || table_size > size_ - table || off >= table_size) return {};
    const char* s = reinterpret_cast<const char*>(p_ + table + off);
    return std::string(s, strnlen(s, static_cast<std::size_t>(table_size - off)));
  }

 private:
  const std::uint8_t* p_;
  std::uint64_t size_;
  bool big_;
};

struct section {
  std::uint32_t name = 0, type = 0, link = 0;
  std::uint64_t flags = 0, addr = 0, offset = 0, size = 0, entsize = 0;
};

std::string demangle(const std::string& name) {
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> d(
      abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status), std::free);
  return status == 0 && d ? std::string(d.get()) : name;
}

// Locates `offsets` (relative to the image) in one ELF image; leaves a location untouched when
// the image is not ELF or its tables do not add up.
void locate_in_image(const std::uint8_t* p, std::uint64_t size,
                     const std::vector<std::uint64_t>& offsets, std::vector<elf_location*>& out) {
  if (size < 52 || std::memcmp(p,
                               "\x7f"
                               "ELF",
                               4) != 0)
    return;
  const bool is64 = p[4] == 2;
  if ((p[4] != 1 && p[4] != 2) || (p[5] != 1 && p[5] != 2)) return;
  const elf_bytes e(p, size, p[5] == 2);
  const unsigned word = is64 ? 8 : 4;
  const auto type = e.get(16, 2);
  const auto shoff = e.get(is64 ? 0x28 : 0x20, word);
  const auto shentsize = e.get(is64 ? 0x3a : 0x2e, 2);
  auto shnum = e.get(is64 ? 0x3c : 0x30, 2);
  auto shstrndx = e.get(is64 ? 0x3e : 0x32, 2);
  const std::uint64_t want_entsize = is64 ? 64 : 40;
  if (!type || !shoff || !shentsize || !shnum || !shstrndx || *shoff == 0 ||
      *shentsize < want_entsize)
    return;
  auto read_section = [&](std::uint64_t i) -> std::optional<section> {
    const std::uint64_t at = *shoff + i * *shentsize;
    if (i >= max_sections || at < *shoff) return std::nullopt;
    section s;
    const auto name = e.get(at, 4), ty = e.get(at + 4, 4);
    const auto flags = e.get(at + 8, word), addr = e.get(at + 8 + word, word);
    const auto offset = e.get(at + 8 + 2 * word, word), sz = e.get(at + 8 + 3 * word, word);
    const auto link = e.get(at + 8 + 4 * word, 4);
    const auto entsize = e.get(at + 16 + 5 * word, word);
    if (!name || !ty || !flags || !addr || !offset || !sz || !link || !entsize) return std::nullopt;
    s.name = static_cast<std::uint32_t>(*name);
    s.type = static_cast<std::uint32_t>(*ty);
    s.flags = *flags;
    s.addr = *addr;
    s.offset = *offset;
    s.size = *sz;
    s.link = static_cast<std::uint32_t>(*link);
    s.entsize = *entsize;
    return s;
  };
  // More than 0xff00 sections: the real count and string-table index live in section 0.
  if (*shnum == 0 || *shstrndx == shn_xindex) {
    const auto s0 = read_section(0);
    if (!s0) return;
    if (*shnum == 0) shnum = s0->size;
    if (*shstrndx == shn_xindex) shstrndx = s0->link;
  }
  if (*shnum > max_sections || *shstrndx >= *shnum) return;
  std::vector<section> sections;
  sections.reserve(static_cast<std::size_t>(*shnum));
  for (std::uint64_t i = 0; i < *shnum; ++i) {
    const auto s = read_section(i);
    if (!s) return;
    sections.push_back(*s);
  }
  const section& names = sections[static_cast<std::size_t>(*shstrndx)];

  for (std::size_t k = 0; k < offsets.size(); ++k) {
    const std::uint64_t off = offsets[k];
    for (std::size_t i = 0; i < sections.size(); ++i) {
      const section& s = sections[i];
      if (s.type == sht_nobits || off < s.offset || off - s.offset >= s.size) continue;
      elf_location& loc = *out[k];
      loc.section = e.str(names.offset, names.size, s.name);
      if (loc.section.empty()) loc.section = "section " + std::to_string(i);
      loc.loaded = (s.flags & shf_alloc) != 0;
      // The symbol covering it: in an object file symbol values are offsets in their section,
      // elsewhere addresses (the section's address plus the offset within it).
      const std::uint64_t in_section = off - s.offset;
      const std::uint64_t value = *type == et_rel ? in_section : s.addr + in_section;
      for (const section& t : sections) {
        if ((t.type != sht_symtab && t.type != sht_dynsym) || t.link >= sections.size()) continue;
        const section& strtab = sections[t.link];
        const std::uint64_t ent = is64 ? 24 : 16;
        if (t.entsize < ent || t.entsize > 4096 || t.offset > e.size() ||
            t.size > e.size() - t.offset)
          continue;
        for (std::uint64_t at = t.offset; at + ent <= t.offset + t.size; at += t.entsize) {
          const auto shndx = e.get(at + (is64 ? 6 : 14), 2);
          const auto sv = e.get(at + (is64 ? 8 : 4), word);
          const auto ss = e.get(at + (is64 ? 16 : 8), word);
          const auto sn = e.get(at, 4);
          if (!shndx || !sv || !ss || !sn || *shndx == shn_undef || *shndx >= shn_loreserve ||
              *shndx != i || *ss == 0 || value < *sv || value - *sv >= *ss)
            continue;
          loc.symbol = demangle(e.str(strtab.offset, strtab.size, *sn));
          if (!loc.symbol.empty()) break;
        }
        if (!loc.symbol.empty()) break;
      }
      break;
    }
  }
}

// An `ar` archive: each member an object file, located on its own.
bool locate_in_archive(const std::vector<std::uint8_t>& file,
                       const std::vector<std::uint64_t>& offsets, std::vector<elf_location>& out) {
  constexpr std::string_view magic = "!<arch>\n";
  if (file.size() < magic.size() || std::memcmp(file.data(), magic.data(), magic.size()) != 0)
    return false;
  std::string_view long_names;
  std::uint64_t at = magic.size();
  while (at + 60 <= file.size()) {
    const char* h = reinterpret_cast<const char*>(file.data() + at);
    if (h[58] != '`' || h[59] != '\n') break;
    std::uint64_t size = 0;
    for (int i = 48; i < 58 && h[i] >= '0' && h[i] <= '9'; ++i) size = size * 10 + (h[i] - '0');
    const std::uint64_t data = at + 60;
    if (size > file.size() - data) break;
    std::string name(h, 16);
    name.erase(name.find_last_not_of(' ') + 1);
    if (name == "//") {
      long_names = std::string_view(reinterpret_cast<const char*>(file.data() + data), size);
    } else if (name != "/" && name != "/SYM64/") {
      if (name.size() > 1 && name[0] == '/' && name[1] >= '0' && name[1] <= '9') {
        const std::uint64_t ref = std::strtoull(name.c_str() + 1, nullptr, 10);
        if (ref < long_names.size()) {
          const std::string_view rest = long_names.substr(ref);
          name = std::string(rest.substr(0, rest.find('\n')));
        }
      }
      if (!name.empty() && name.back() == '/') name.pop_back();
      std::vector<std::uint64_t> inside;
      std::vector<elf_location*> slots;
      for (std::size_t k = 0; k < offsets.size(); ++k)
        if (offsets[k] >= data && offsets[k] - data < size) {
          inside.push_back(offsets[k] - data);
          out[k].member = name;
          slots.push_back(&out[k]);
        }
      if (!inside.empty()) locate_in_image(file.data() + data, size, inside, slots);
    }
    at = data + size + (size & 1);
  }
  return true;
}

}  // namespace elf_location_detail

std::vector<elf_location> locate_in_elf(const std::vector<std::uint8_t>& file,
                                        const std::vector<std::uint64_t>& offsets) {
  std::vector<elf_location> out(offsets.size());
  if (elf_location_detail::locate_in_archive(file, offsets, out)) return out;
  std::vector<elf_location*> slots;
  for (elf_location& l : out) slots.push_back(&l);
  elf_location_detail::locate_in_image(file.data(), file.size(), offsets, slots);
  return out;
}

}  // namespace tritonpack::pack
