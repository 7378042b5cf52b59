// code_object.hpp — reads an AMDGPU code object (hsaco) the way the HIP runtime's loader does,
// for the test-double libamdhip64: the ELF header (EM_AMDGPU, OSABI AMDGPU_HSA, the code-object
// ABI version, e_flags = the gfx target (MACH) and the xnack / sramecc feature settings), the
// NT_AMDGPU_METADATA note (msgpack `amdhsa.kernels`) and the kernel-descriptor symbols in .dynsym.
// Facts: docs/hip-abi.md §4. Every offset and count read from the file is checked against the
// buffer; damage is reported as "corrupt code object: <what>", never read past the end.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "msgpack_reader.hpp"

namespace tpfakehip {

// xnack / sramecc in e_flags (code-object v4+; LLVM BinaryFormat/ELF.h EF_AMDGPU_FEATURE_*_V4).
enum class feature { unsupported, any, off, on };

inline const char* feature_text(feature f) {
  switch (f) {
    case feature::unsupported: return "unsupported";
    case feature::any: return "any";
    case feature::off: return "off";
    case feature::on: return "on";
  }
  return "?";
}

// e_flags & 0xff -> gfx name (LLVM BinaryFormat/ELF.h EF_AMDGPU_MACH_AMDGCN_*; 0x3f and 0x4c are
// measured on the fixtures, the rest copied from LLVM 14 (<= 0x42) and LLVM 19 (0x40..0x4f)).
inline std::string gfx_of_mach(unsigned mach) {
  struct row {
    unsigned mach;
    const char* name;
  };
  static const row table[] = {
      {0x2c, "gfx900"},  {0x2d, "gfx902"},  {0x2e, "gfx904"},  {0x2f, "gfx906"},  {0x30, "gfx908"},
      {0x31, "gfx909"},  {0x32, "gfx90c"},  {0x33, "gfx1010"}, {0x34, "gfx1011"}, {0x35, "gfx1012"},
      {0x36, "gfx1030"}, {0x37, "gfx1031"}, {0x38, "gfx1032"}, {0x39, "gfx1033"}, {0x3d, "gfx1035"},
      {0x3e, "gfx1034"}, {0x3f, "gfx90a"},  {0x40, "gfx940"},  {0x41, "gfx1100"}, {0x42, "gfx1013"},
      {0x43, "gfx1150"}, {0x44, "gfx1103"}, {0x45, "gfx1036"}, {0x46, "gfx1101"}, {0x47, "gfx1102"},
      {0x48, "gfx1200"}, {0x4a, "gfx1151"}, {0x4b, "gfx941"},  {0x4c, "gfx942"},  {0x4e, "gfx1201"},
      {0x4f, "gfx950"},  {0x49, "gfx1250"},
      {0xeb, "gfx1250-strict"}};  // measured on Triton 3.9's code objects (e_flags 0x449, 0x4eb)
  for (const auto& r : table)
    if (r.mach == mach) return r.name;
  return {};
}

struct kernel_arg {
  std::uint64_t offset = 0, size = 0;
  std::string value_kind;     // by_value, global_buffer, hidden_block_count_x, ...
  std::string address_space;  // "global" for pointers, empty when absent
  bool hidden() const { return value_kind.compare(0, 7, "hidden_") == 0; }
  bool pointer() const { return value_kind == "global_buffer" || value_kind == "dynamic_shared_pointer"; }
};

struct kernel_meta {
  std::string name, symbol;
  std::vector<kernel_arg> args;  // in metadata order: explicit ones first, then hidden ones
  std::uint64_t kernarg_segment_size = 0, kernarg_segment_align = 0;
  std::uint64_t group_segment_fixed_size = 0, private_segment_fixed_size = 0;
  std::uint64_t wavefront_size = 0, max_flat_workgroup_size = 0;
  std::uint64_t sgpr_count = 0, vgpr_count = 0;

  std::vector<const kernel_arg*> explicit_args() const {
    std::vector<const kernel_arg*> out;
    for (const auto& a : args)
      if (!a.hidden()) out.push_back(&a);
    return out;
  }
  // Where the explicit arguments end: what a caller's kernarg buffer must cover.
  std::uint64_t explicit_end() const {
    std::uint64_t end = 0;
    for (const auto& a : args)
      if (!a.hidden() && a.offset + a.size > end) end = a.offset + a.size;
    return end;
  }
};

struct code_object {
  unsigned abi_version = 0;  // EI_ABIVERSION: 2 = COV4, 3 = COV5, 4 = COV6
  unsigned e_flags = 0;
  unsigned mach = 0;
  std::string gfx;  // from the MACH
  feature xnack = feature::unsupported, sramecc = feature::unsupported;
  std::string target;  // amdhsa.target
  std::vector<kernel_meta> kernels;
  std::vector<std::string> symbols;  // .dynsym names

  // "gfx942 (e_flags 0x54c: xnack any, sramecc any)"
  std::string describe() const {
    char flags[16];
    std::snprintf(flags, sizeof flags, "0x%x", e_flags);
    return (gfx.empty() ? "an unknown gfx (MACH " + std::to_string(mach) + ")" : gfx) + " (e_flags " + flags +
           ": xnack " + feature_text(xnack) + ", sramecc " + feature_text(sramecc) + ")";
  }
  const kernel_meta* find(const std::string& name) const {
    for (const auto& k : kernels)
      if (k.name == name) return &k;
    return nullptr;
  }
};

namespace detail {

inline std::uint16_t rd16(const std::uint8_t* p) { std::uint16_t v; std::memcpy(&v, p, 2); return v; }
inline std::uint32_t rd32(const std::uint8_t* p) { std::uint32_t v; std::memcpy(&v, p, 4); return v; }
inline std::uint64_t rd64(const std::uint8_t* p) { std::uint64_t v; std::memcpy(&v, p, 8); return v; }

// [off, off + len) lies within a buffer of `size` bytes (overflow-safe).
inline bool within(std::uint64_t off, std::uint64_t len, std::size_t size) { return off <= size && len <= size - off; }

inline bool need_uint(const mp_value& m, const char* key, std::uint64_t& out, std::string& why, const std::string& where) {
  const mp_value* v = m.get(key);
  if (!v || !v->as_uint(out)) {
    why = where + ": " + key + (v ? " is not a non-negative integer" : " is missing");
    return false;
  }
  return true;
}
inline bool opt_uint(const mp_value& m, const char* key, std::uint64_t& out, std::string& why, const std::string& where) {
  if (!m.get(key)) return true;
  return need_uint(m, key, out, why, where);
}
inline bool need_str(const mp_value& m, const char* key, std::string& out, std::string& why, const std::string& where) {
  const mp_value* v = m.get(key);
  if (!v || v->k != mp_value::kind::str) {
    why = where + ": " + key + (v ? " is not a string" : " is missing");
    return false;
  }
  out = v->s;
  return true;
}

inline bool known_value_kind(const std::string& k) {
  static const char* const kinds[] = {
      "by_value", "global_buffer", "dynamic_shared_pointer", "sampler", "image", "pipe", "queue",
      "hidden_global_offset_x", "hidden_global_offset_y", "hidden_global_offset_z", "hidden_none",
      "hidden_printf_buffer", "hidden_hostcall_buffer", "hidden_default_queue", "hidden_completion_action",
      "hidden_multigrid_sync_arg", "hidden_block_count_x", "hidden_block_count_y", "hidden_block_count_z",
      "hidden_group_size_x", "hidden_group_size_y", "hidden_group_size_z", "hidden_remainder_x",
      "hidden_remainder_y", "hidden_remainder_z", "hidden_grid_dims", "hidden_heap_v1",
      "hidden_dynamic_lds_size", "hidden_private_base", "hidden_shared_base", "hidden_queue_ptr"};
  for (const char* n : kinds)
    if (k == n) return true;
  return false;
}

// One entry of amdhsa.kernels, checked for what a loader relies on: names, sizes, and arguments
// that lie inside the kernarg segment without overlapping.
inline bool read_kernel(const mp_value& m, kernel_meta& k, std::size_t index, std::string& why) {
  std::string where = "amdhsa.kernels[" + std::to_string(index) + "]";
  if (m.k != mp_value::kind::map) {
    why = where + " is not a map";
    return false;
  }
  if (!need_str(m, ".name", k.name, why, where)) return false;
  where += " (" + k.name + ")";
  if (!need_str(m, ".symbol", k.symbol, why, where) ||
      !need_uint(m, ".kernarg_segment_size", k.kernarg_segment_size, why, where) ||
      !need_uint(m, ".kernarg_segment_align", k.kernarg_segment_align, why, where) ||
      !need_uint(m, ".group_segment_fixed_size", k.group_segment_fixed_size, why, where) ||
      !need_uint(m, ".private_segment_fixed_size", k.private_segment_fixed_size, why, where) ||
      !need_uint(m, ".wavefront_size", k.wavefront_size, why, where) ||
      !need_uint(m, ".max_flat_workgroup_size", k.max_flat_workgroup_size, why, where) ||
      !opt_uint(m, ".sgpr_count", k.sgpr_count, why, where) || !opt_uint(m, ".vgpr_count", k.vgpr_count, why, where))
    return false;
  if (k.wavefront_size != 32 && k.wavefront_size != 64) {
    why = where + ": .wavefront_size " + std::to_string(k.wavefront_size) + " is neither 32 nor 64";
    return false;
  }
  if (k.max_flat_workgroup_size == 0 || k.max_flat_workgroup_size > 1024) {
    why = where + ": .max_flat_workgroup_size " + std::to_string(k.max_flat_workgroup_size) + " is outside 1..1024";
    return false;
  }
  const std::uint64_t al = k.kernarg_segment_align;
  if (al == 0 || al > 256 || (al & (al - 1)) != 0) {
    why = where + ": .kernarg_segment_align " + std::to_string(al) + " is not a power of two <= 256";
    return false;
  }
  if (k.kernarg_segment_size > (1u << 20)) {
    why = where + ": .kernarg_segment_size " + std::to_string(k.kernarg_segment_size) + " is over 1 MiB";
    return false;
  }
  const mp_value* args = m.get(".args");
  if (args && args->k != mp_value::kind::array) {
    why = where + ": .args is not an array";
    return false;
  }
  std::uint64_t prev_end = 0;
  for (std::size_t i = 0; args && i < args->items.size(); ++i) {
    const mp_value& a = args->items[i];
    const std::string aw = where + " .args[" + std::to_string(i) + "]";
    if (a.k != mp_value::kind::map) {
      why = aw + " is not a map";
      return false;
    }
    kernel_arg ka;
    if (!need_uint(a, ".offset", ka.offset, why, aw) || !need_uint(a, ".size", ka.size, why, aw) ||
        !need_str(a, ".value_kind", ka.value_kind, why, aw))
      return false;
    if (a.get(".address_space") && !need_str(a, ".address_space", ka.address_space, why, aw)) return false;
    if (!known_value_kind(ka.value_kind)) {
      why = aw + ": unknown .value_kind \"" + ka.value_kind + "\"";
      return false;
    }
    if (ka.size == 0 || !within(ka.offset, ka.size, static_cast<std::size_t>(k.kernarg_segment_size))) {
      why = aw + ": offset " + std::to_string(ka.offset) + " size " + std::to_string(ka.size) +
            " does not lie inside the " + std::to_string(k.kernarg_segment_size) + "-byte kernarg segment";
      return false;
    }
    if (ka.offset < prev_end) {
      why = aw + ": offset " + std::to_string(ka.offset) + " overlaps the previous argument (ending at " +
            std::to_string(prev_end) + ")";
      return false;
    }
    if (!k.args.empty() && ka.hidden() == false && k.args.back().hidden()) {
      why = aw + ": an explicit argument after a hidden one";
      return false;
    }
    prev_end = ka.offset + ka.size;
    k.args.push_back(ka);
  }
  return true;
}

inline bool read_metadata(const std::uint8_t* desc, std::size_t size, code_object& co, std::string& why) {
  mp_value doc;
  if (!mp_parse(desc, size, doc, why)) {
    why = "NT_AMDGPU_METADATA: " + why;
    return false;
  }
  if (doc.k != mp_value::kind::map) {
    why = "NT_AMDGPU_METADATA is not a msgpack map";
    return false;
  }
  if (const mp_value* t = doc.get("amdhsa.target")) {
    if (t->k != mp_value::kind::str) {
      why = "amdhsa.target is not a string";
      return false;
    }
    co.target = t->s;
  }
  const mp_value* ks = doc.get("amdhsa.kernels");
  if (!ks || ks->k != mp_value::kind::array) {
    why = ks ? "amdhsa.kernels is not an array" : "the metadata has no amdhsa.kernels";
    return false;
  }
  for (std::size_t i = 0; i < ks->items.size(); ++i) {
    kernel_meta k;
    if (!read_kernel(ks->items[i], k, i, why)) return false;
    if (co.find(k.name)) {
      why = "two kernels named " + k.name;
      return false;
    }
    co.kernels.push_back(std::move(k));
  }
  return true;
}

}  // namespace detail

// Parses an hsaco of `size` bytes. False with `why` ("corrupt code object: ...") on damage.
inline bool read_code_object(const std::uint8_t* b, std::size_t size, code_object& co, std::string& why) {
  using namespace detail;
  auto bad = [&why](const std::string& w) {
    why = "corrupt code object: " + w;
    return false;
  };
  if (!b || size < 64 || std::memcmp(b, "\x7f" "ELF", 4) != 0) return bad("no ELF header (magic \\x7fELF)");
  if (b[4] != 2 || b[5] != 1) return bad("not a little-endian ELF64 file");
  if (rd16(b + 18) != 224) return bad("e_machine " + std::to_string(rd16(b + 18)) + " is not EM_AMDGPU (224)");
  if (b[7] != 64) return bad("EI_OSABI " + std::to_string(b[7]) + " is not ELFOSABI_AMDGPU_HSA (64)");
  co.abi_version = b[8];
  if (co.abi_version < 2 || co.abi_version > 4)
    return bad("EI_ABIVERSION " + std::to_string(co.abi_version) + " is not a code-object version 4, 5 or 6");
  co.e_flags = rd32(b + 48);
  co.mach = co.e_flags & 0xff;
  co.gfx = gfx_of_mach(co.mach);
  static const feature by_bits[] = {feature::unsupported, feature::any, feature::off, feature::on};
  co.xnack = by_bits[(co.e_flags >> 8) & 3];
  co.sramecc = by_bits[(co.e_flags >> 10) & 3];

  const std::uint64_t shoff = rd64(b + 40);
  const unsigned shentsize = rd16(b + 58), shnum = rd16(b + 60);
  if (shentsize != 64 || shnum == 0 || !within(shoff, std::uint64_t{64} * shnum, size))
    return bad("the section header table (offset " + std::to_string(shoff) + ", " + std::to_string(shnum) +
               " entries) lies outside the file's " + std::to_string(size) + " bytes");
  bool have_metadata = false;
  for (unsigned i = 0; i < shnum; ++i) {
    const std::uint8_t* h = b + shoff + 64ull * i;
    const std::uint32_t type = rd32(h + 4);
    const std::uint64_t off = rd64(h + 24), len = rd64(h + 32);
    if (type != 7 && type != 11) continue;  // SHT_NOTE, SHT_DYNSYM
    if (!within(off, len, size)) return bad("section " + std::to_string(i) + " lies outside the file");
    if (type == 11) {
      const std::uint32_t link = rd32(h + 40);
      if (link >= shnum) return bad(".dynsym's string table index is out of range");
      const std::uint8_t* sh = b + shoff + 64ull * link;
      const std::uint64_t soff = rd64(sh + 24), slen = rd64(sh + 32);
      if (!within(soff, slen, size)) return bad(".dynstr lies outside the file");
      for (std::uint64_t s = 0; s + 24 <= len; s += 24) {
        const std::uint32_t name = rd32(b + off + s);
        if (name == 0) continue;
        if (name >= slen) return bad(".dynsym names a string outside .dynstr");
        const char* str = reinterpret_cast<const char*>(b + soff + name);
        const void* nul = std::memchr(str, 0, static_cast<std::size_t>(slen - name));
        if (!nul) return bad("an unterminated name in .dynstr");
        co.symbols.emplace_back(str, static_cast<const char*>(nul) - str);
      }
      continue;
    }
    // Notes: namesz, descsz, type, name (padded to 4), desc (padded to 4).
    std::uint64_t at = off;
    const std::uint64_t end = off + len;
    while (at < end) {
      if (end - at < 12) return bad("a truncated note header");
      const std::uint64_t namesz = rd32(b + at), descsz = rd32(b + at + 4), ntype = rd32(b + at + 8);
      const std::uint64_t name_at = at + 12, desc_at = name_at + ((namesz + 3) & ~std::uint64_t{3});
      const std::uint64_t next = desc_at + ((descsz + 3) & ~std::uint64_t{3});
      if (next > end || desc_at + descsz > end) return bad("a note runs past its section");
      if (ntype == 32 && namesz == 7 && std::memcmp(b + name_at, "AMDGPU", 7) == 0) {
        if (have_metadata) return bad("two NT_AMDGPU_METADATA notes");
        if (!read_metadata(b + desc_at, static_cast<std::size_t>(descsz), co, why)) return bad(why);
        have_metadata = true;
      }
      at = next;
    }
  }
  if (!have_metadata) return bad("no NT_AMDGPU_METADATA note (code-object v3+ metadata)");
  if (!co.target.empty() && !co.gfx.empty()) {
    // "amdgcn-amd-amdhsa--gfx942" or "...--gfx90a:xnack-" (Triton 3.9's codegen: the processor's
    // triple, "amdgpu12.50s-amd-amdhsa-unknown-gfx1250-strict"): arch-vendor-os-environment-
    // processor[:features]; the processor must agree with e_flags.
    std::size_t at = 0;
    for (int dashes = 0; dashes < 4 && at != std::string::npos; ++dashes) {
      at = co.target.find('-', at);
      if (at != std::string::npos) ++at;
    }
    const std::string proc = at == std::string::npos ? std::string() : co.target.substr(at, co.target.find(':', at) - at);
    if (proc != co.gfx)
      return bad("amdhsa.target \"" + co.target + "\" disagrees with e_flags (" + co.gfx + ")");
  }
  for (const auto& k : co.kernels) {
    bool found = false;
    for (const auto& s : co.symbols) found = found || s == k.symbol;
    if (!found) return bad("kernel " + k.name + ": its descriptor symbol " + k.symbol + " is not in .dynsym");
  }
  return true;
}

// How far an hsaco passed without a size (hipModuleLoadData) extends, read from its headers the
// way the runtime does (amd::Elf / CodeObject::ElfSize): the furthest of the section table and
// every section's bytes. 0 if the headers are unusable; at most `cap`.
inline std::size_t elf_extent(const std::uint8_t* b, std::size_t cap) {
  using namespace detail;
  if (std::memcmp(b, "\x7f" "ELF", 4) != 0 || b[4] != 2) return 0;
  const std::uint64_t shoff = rd64(b + 40);
  const unsigned shentsize = rd16(b + 58), shnum = rd16(b + 60);
  if (shentsize != 64 || shoff > cap || std::uint64_t{64} * shnum > cap - shoff) return 0;
  std::uint64_t n = shoff + std::uint64_t{64} * shnum;
  for (unsigned i = 0; i < shnum; ++i) {
    const std::uint8_t* h = b + shoff + 64ull * i;
    if (rd32(h + 4) == 8) continue;  // SHT_NOBITS
    const std::uint64_t off = rd64(h + 24), len = rd64(h + 32);
    if (off > cap || len > cap - off) return 0;
    if (off + len > n) n = off + len;
  }
  return static_cast<std::size_t>(n);
}

}  // namespace tpfakehip
