// fake_elf.hpp — minimal cubin-shaped ELF files: written by the tests (synthetic cubins for arches
// no fixture covers) and by the fake driver (the "JIT output" of cuLinkComplete), and read by the
// fake driver for every cubin it loads, real ones included.
//
// What is modelled is what a driver reads: e_machine EM_CUDA (190); the SM in e_flags (ABI
// version 7: bits 0..7 with "a" = 0x800; ABI 8: bits 8..15 with "a" = 0x8 or `.nv.compat`
// attribute 9); kernels as STT_FUNC symbols; per kernel `.nv.info.<name>` with EIATTR_KPARAM_INFO
// (0x17: u32 index, u16 ordinal, u16 offset, u32 flags with the size in bits 18..31) and
// EIATTR_REQNTID (0x10); static shared memory as the size of the SHT_NOBITS section
// `.nv.shared.<name>` (what ptxas writes for `.shared` variables). Layouts were read off real ptxas 12.8 / 13.0 cubins in tests/data.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace tpfake {

struct elf_kernel {
  std::string name;
  std::vector<unsigned> param_sizes;
  unsigned reqntid = 0;  // 0: none
  unsigned static_shared = 0;  // bytes of `.shared` variables: the section .nv.shared.<name>
};

struct elf_info {
  bool ok = false;
  std::string why;
  unsigned machine = 0;
  unsigned abi_version = 0;
  unsigned sm = 0;
  bool arch_specific = false;
  std::vector<elf_kernel> kernels;
};

namespace detail {
inline void put16(std::vector<std::uint8_t>& b, std::size_t at, std::uint16_t v) { std::memcpy(b.data() + at, &v, 2); }
inline void put32(std::vector<std::uint8_t>& b, std::size_t at, std::uint32_t v) { std::memcpy(b.data() + at, &v, 4); }
inline void put64(std::vector<std::uint8_t>& b, std::size_t at, std::uint64_t v) { std::memcpy(b.data() + at, &v, 8); }
inline std::uint16_t get16(const std::uint8_t* p) { std::uint16_t v; std::memcpy(&v, p, 2); return v; }
inline std::uint32_t get32(const std::uint8_t* p) { std::uint32_t v; std::memcpy(&v, p, 4); return v; }
inline std::uint64_t get64(const std::uint8_t* p) { std::uint64_t v; std::memcpy(&v, p, 8); return v; }
}  // namespace detail

// Writes a cubin-shaped ELF for `sm` (e.g. 90), with the "a" flag and ABI version given.
inline std::vector<std::uint8_t> make_cubin(unsigned sm, bool arch_specific, const std::vector<elf_kernel>& kernels,
                                            unsigned abi_version = 7) {
  using namespace detail;
  struct sec {
    std::string name;
    std::uint32_t type;
    std::vector<std::uint8_t> data;
    std::uint32_t link = 0, info = 0;
    std::uint64_t entsize = 0;
    std::uint64_t nobits_size = 0;  // SHT_NOBITS: the size, with no bytes in the file
  };
  std::vector<sec> secs;
  secs.push_back({"", 0, {}});
  secs.push_back({".shstrtab", 3, {}});
  secs.push_back({".strtab", 3, {0}});
  secs.push_back({".symtab", 2, std::vector<std::uint8_t>(24, 0), 2, 0, 24});
  std::vector<std::size_t> text_index;
  for (const auto& k : kernels) {
    text_index.push_back(secs.size());
    secs.push_back({".text." + k.name, 1, std::vector<std::uint8_t>(16, 0)});
  }
  for (std::size_t i = 0; i < kernels.size(); ++i) {
    const auto& k = kernels[i];
    sec s{".nv.info." + k.name, 0x70000000u, {}, 3, static_cast<std::uint32_t>(text_index[i])};
    unsigned offset = 0;
    std::vector<unsigned> offsets;
    for (unsigned size : k.param_sizes) {
      const unsigned align = size >= 128 ? 64 : (size >= 8 ? 8 : size);
      offset = (offset + align - 1) / align * align;
      offsets.push_back(offset);
      offset += size;
    }
    for (std::size_t p = k.param_sizes.size(); p-- > 0;) {  // real cubins list the last first
      std::vector<std::uint8_t> e(16, 0);
      e[0] = 4;
      e[1] = 0x17;
      put16(e, 2, 12);
      put32(e, 4, 0);
      put16(e, 8, static_cast<std::uint16_t>(p));
      put16(e, 10, static_cast<std::uint16_t>(offsets[p]));
      put32(e, 12, (k.param_sizes[p] << 18) | 0x1f000u);
      s.data.insert(s.data.end(), e.begin(), e.end());
    }
    if (k.reqntid) {
      std::vector<std::uint8_t> e(16, 0);
      e[0] = 4;
      e[1] = 0x10;
      put16(e, 2, 12);
      put32(e, 4, k.reqntid);
      put32(e, 8, 1);
      put32(e, 12, 1);
      s.data.insert(s.data.end(), e.begin(), e.end());
    }
    secs.push_back(s);
    if (k.static_shared) {
      sec shared{".nv.shared." + k.name, 8, {}};
      shared.nobits_size = k.static_shared;
      secs.push_back(shared);
    }
  }
  // Symbols and names.
  for (std::size_t i = 0; i < kernels.size(); ++i) {
    auto& strtab = secs[2].data;
    const std::uint32_t name_off = static_cast<std::uint32_t>(strtab.size());
    strtab.insert(strtab.end(), kernels[i].name.begin(), kernels[i].name.end());
    strtab.push_back(0);
    std::vector<std::uint8_t> sym(24, 0);
    put32(sym, 0, name_off);
    sym[4] = 0x12;  // STB_GLOBAL, STT_FUNC
    put16(sym, 6, static_cast<std::uint16_t>(text_index[i]));
    secs[3].data.insert(secs[3].data.end(), sym.begin(), sym.end());
  }
  secs[3].info = 1;
  std::vector<std::uint32_t> name_offs;
  auto& shstr = secs[1].data;
  shstr.push_back(0);
  for (auto& s : secs) {
    if (s.name.empty()) {
      name_offs.push_back(0);
      continue;
    }
    name_offs.push_back(static_cast<std::uint32_t>(shstr.size()));
    shstr.insert(shstr.end(), s.name.begin(), s.name.end());
    shstr.push_back(0);
  }
  // Layout: header, section data, section headers.
  std::vector<std::uint8_t> b(64, 0);
  std::vector<std::uint64_t> offs;
  for (auto& s : secs) {
    while (b.size() % 8) b.push_back(0);
    offs.push_back(b.size());
    b.insert(b.end(), s.data.begin(), s.data.end());
  }
  while (b.size() % 8) b.push_back(0);
  const std::uint64_t shoff = b.size();
  b.resize(b.size() + 64 * secs.size(), 0);
  for (std::size_t i = 0; i < secs.size(); ++i) {
    const std::size_t h = shoff + 64 * i;
    put32(b, h, name_offs[i]);
    put32(b, h + 4, secs[i].type);
    put64(b, h + 24, secs[i].type ? offs[i] : 0);
    put64(b, h + 32, secs[i].type == 8 ? secs[i].nobits_size : secs[i].data.size());
    put32(b, h + 40, secs[i].link);
    put32(b, h + 44, secs[i].info);
    put64(b, h + 56, secs[i].entsize);
  }
  const std::uint8_t ident[16] = {0x7f, 'E', 'L', 'F', 2, 1, 1, static_cast<std::uint8_t>(abi_version >= 8 ? 0x41 : 0x33),
                                  static_cast<std::uint8_t>(abi_version)};
  std::memcpy(b.data(), ident, 16);
  put16(b, 16, 2);    // ET_EXEC
  put16(b, 18, 190);  // EM_CUDA
  put32(b, 20, 1);
  std::uint32_t flags;
  if (abi_version >= 8)
    flags = (sm << 8) | (arch_specific ? 0x8u : 0u) | 0x2u;
  else
    flags = sm | (sm << 16) | 0x500u | (arch_specific ? 0x800u : 0u);
  put32(b, 48, flags);
  put64(b, 0x28, shoff);
  put16(b, 0x34, 64);  // e_ehsize
  put16(b, 0x3a, 64);  // e_shentsize
  put16(b, 0x3c, static_cast<std::uint16_t>(secs.size()));
  put16(b, 0x3e, 1);   // e_shstrndx
  return b;
}

// Reads what a driver needs from a cubin. `ok` false with `why` for malformed input.
inline elf_info read_cubin(const std::uint8_t* b, std::size_t n) {
  using namespace detail;
  elf_info out;
  if (n < 64 || std::memcmp(b, "\x7f" "ELF", 4) != 0) {
    out.why = "not an ELF file";
    return out;
  }
  if (b[4] != 2 || b[5] != 1) {
    out.why = "not ELF64 little-endian";
    return out;
  }
  out.machine = get16(b + 18);
  out.abi_version = b[8];
  const std::uint32_t flags = get32(b + 48);
  if (out.abi_version >= 8) {
    out.sm = (flags >> 8) & 0xff;
    out.arch_specific = (flags & 0x8) != 0;
  } else {
    out.sm = flags & 0xff;
    out.arch_specific = (flags & 0x800) != 0;
  }
  const std::uint64_t shoff = get64(b + 0x28);
  const unsigned shentsize = get16(b + 0x3a), shnum = get16(b + 0x3c), shstrndx = get16(b + 0x3e);
  if (shentsize < 64 || shoff > n || std::uint64_t{shentsize} * shnum > n - shoff || shstrndx >= shnum) {
    out.why = "section headers out of bounds";
    return out;
  }
  struct sh {
    std::uint32_t name, type, link, info;
    std::uint64_t off, size, entsize;
  };
  std::vector<sh> secs(shnum);
  for (unsigned i = 0; i < shnum; ++i) {
    const std::uint8_t* h = b + shoff + std::uint64_t{i} * shentsize;
    secs[i] = {get32(h), get32(h + 4), get32(h + 40), get32(h + 44), get64(h + 24), get64(h + 32), get64(h + 56)};
    if (secs[i].type != 8 && (secs[i].off > n || secs[i].size > n - secs[i].off)) {
      out.why = "section out of bounds";
      return out;
    }
  }
  auto sec_name = [&](unsigned i) -> std::string {
    const sh& s = secs[shstrndx];
    if (secs[i].name >= s.size) return {};
    const char* p = reinterpret_cast<const char*>(b + s.off + secs[i].name);
    return std::string(p, strnlen(p, s.size - secs[i].name));
  };
  for (unsigned i = 0; i < shnum; ++i) {
    if (sec_name(i) == ".nv.compat") {  // ptxas 13 records "a" here (attribute 9)
      std::uint64_t p = 0;
      while (p + 4 <= secs[i].size) {
        const std::uint8_t* e = b + secs[i].off + p;
        if (e[0] == 4) {
          p += 4 + get16(e + 2);
          continue;
        }
        if (e[1] == 9 && e[0] == 2 && e[2]) out.arch_specific = true;
        p += 4;
      }
    }
  }
  for (unsigned i = 0; i < shnum; ++i) {
    if (secs[i].type != 2 || secs[i].entsize < 24 || secs[i].link >= shnum) continue;
    const sh& strs = secs[secs[i].link];
    for (std::uint64_t off = 0; off + 24 <= secs[i].size; off += secs[i].entsize) {
      const std::uint8_t* sym = b + secs[i].off + off;
      if ((sym[4] & 0xf) != 2) continue;  // STT_FUNC
      const std::uint32_t nm = get32(sym);
      if (nm >= strs.size) continue;
      const char* p = reinterpret_cast<const char*>(b + strs.off + nm);
      elf_kernel k;
      k.name.assign(p, strnlen(p, strs.size - nm));
      out.kernels.push_back(k);
    }
  }
  for (auto& k : out.kernels) {
    for (unsigned i = 0; i < shnum; ++i) {
      if (secs[i].type == 8 && sec_name(i) == ".nv.shared." + k.name) k.static_shared = static_cast<unsigned>(secs[i].size);
      if (sec_name(i) != ".nv.info." + k.name) continue;
      std::vector<std::pair<unsigned, unsigned>> params;  // ordinal, size
      std::uint64_t p = 0;
      while (p + 4 <= secs[i].size) {
        const std::uint8_t* e = b + secs[i].off + p;
        if (e[0] == 4) {
          const unsigned len = get16(e + 2);
          if (p + 4 + len > secs[i].size) break;
          if (e[1] == 0x17 && len >= 12) params.emplace_back(get16(e + 8), get32(e + 12) >> 18);
          if (e[1] == 0x10 && len >= 4) k.reqntid = get32(e + 4);
          p += 4 + len;
        } else {
          p += 4;
        }
      }
      unsigned count = 0;
      for (auto& pr : params) count = pr.first + 1 > count ? pr.first + 1 : count;
      k.param_sizes.assign(count, 0);
      for (auto& pr : params) k.param_sizes[pr.first] = pr.second;
    }
  }
  out.ok = true;
  return out;
}

}  // namespace tpfake
