// ELF / PTX / LLVM IR inspection for `tritonpack pack`.
//
// ELF header facts used here (LLVM llvm/include/llvm/BinaryFormat/ELF.h, checked against cubins
// from ptxas 12.8, ptxas-blackwell 12.9 and ptxas 13.0, and code objects from Triton 3.6):
// - CUDA, EI_ABIVERSION 7 (ptxas <= 12.x): SM in e_flags bits 0..7, arch-specific "a" is bit 11
//   (EF_CUDA_ACCELERATORS_V1 0x800), virtual SM in bits 16..23.
// - CUDA, EI_ABIVERSION 8 (ptxas-blackwell 12.9 and every ptxas 13): SM in bits 8..15. ptxas 12.9
//   marks "a" with bit 3 (0x8); ptxas 13.0 leaves bit 3 clear and records it in the
//   `.nv.compat` section instead (attribute 9, a byte value: 1 for sm_90a/sm_100a/sm_120a, 0 for
//   sm_90/sm_100/sm_100f). "f" (family) builds are indistinguishable from plain ones.
// - AMDGPU (code object v4+, EI_ABIVERSION >= 2): EF_AMDGPU_MACH in bits 0..7, xnack in bits 8..9
//   and sramecc in bits 10..11, each 0 unsupported / 1 any / 2 off / 3 on.
#include "tritonpack/pack/artifact_check.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstring>

#include "tritonpack/byte_io.hpp"
#include "tritonpack/error.hpp"

namespace tritonpack::pack {
namespace {

[[noreturn]] void bad(const std::string& msg) { throw error(errc::bad_argument, msg); }

struct mach_name {
  std::uint8_t mach;
  const char* name;
};
// EF_AMDGPU_MACH_AMDGCN_* (LLVM ELF.h AMDGPU_MACH_LIST).
constexpr mach_name amdgpu_machs[] = {
    {0x20, "gfx600"},  {0x21, "gfx601"},  {0x22, "gfx700"},  {0x23, "gfx701"},  {0x24, "gfx702"},
    {0x25, "gfx703"},  {0x26, "gfx704"},  {0x28, "gfx801"},  {0x29, "gfx802"},  {0x2a, "gfx803"},
    {0x2b, "gfx810"},  {0x2c, "gfx900"},  {0x2d, "gfx902"},  {0x2e, "gfx904"},  {0x2f, "gfx906"},
    {0x30, "gfx908"},  {0x31, "gfx909"},  {0x32, "gfx90c"},  {0x33, "gfx1010"}, {0x34, "gfx1011"},
    {0x35, "gfx1012"}, {0x36, "gfx1030"}, {0x37, "gfx1031"}, {0x38, "gfx1032"}, {0x39, "gfx1033"},
    {0x3a, "gfx602"},  {0x3b, "gfx705"},  {0x3c, "gfx805"},  {0x3d, "gfx1035"}, {0x3e, "gfx1034"},
    {0x3f, "gfx90a"},  {0x40, "gfx940"},  {0x41, "gfx1100"}, {0x42, "gfx1013"}, {0x43, "gfx1150"},
    {0x44, "gfx1103"}, {0x45, "gfx1036"}, {0x46, "gfx1101"}, {0x47, "gfx1102"}, {0x48, "gfx1200"},
    {0x49, "gfx1250"}, {0x4a, "gfx1151"}, {0x4b, "gfx941"},  {0x4c, "gfx942"},  {0x4e, "gfx1201"},
    {0x4f, "gfx950"},  {0x50, "gfx1310"}, {0x51, "gfx9-generic"}, {0x52, "gfx10-1-generic"},
    {0x53, "gfx10-3-generic"}, {0x54, "gfx11-generic"}, {0x55, "gfx1152"}, {0x58, "gfx1153"},
    {0x59, "gfx12-generic"}, {0x5a, "gfx1251"}, {0x5b, "gfx12-5-generic"}, {0x5c, "gfx1172"},
    {0x5d, "gfx1170"}, {0x5e, "gfx1171"}, {0x5f, "gfx9-4-generic"},
};

const char* feature_state(unsigned s) {
  switch (s) {
    case 0: return "unsupported";
    case 1: return "any";
    case 2: return "off";
    default: return "on";
  }
}

struct section {
  std::string name;
  std::uint32_t type = 0;
  std::uint64_t offset = 0, size = 0, entsize = 0;
  std::uint32_t link = 0;
};

// Section headers with bounds checked; names resolved through .shstrtab.
std::vector<section> read_sections(const std::vector<std::uint8_t>& b) {
  using byte_io::load_u16;
  using byte_io::load_u32;
  using byte_io::load_u64;
  const std::uint64_t shoff = load_u64(b.data() + 0x28);
  const std::uint16_t shentsize = load_u16(b.data() + 0x3a), shnum = load_u16(b.data() + 0x3c),
                      shstrndx = load_u16(b.data() + 0x3e);
  std::vector<section> out;
  if (shnum == 0) return out;
  if (shentsize < 64 || !byte_io::range_within(shoff, std::uint64_t{shentsize} * shnum, b.size()))
    bad(fmt::format("ELF section headers (offset {}, {} × {} bytes) run past the file's {} bytes", shoff, shnum,
                    shentsize, b.size()));
  std::vector<std::uint32_t> name_off(shnum);
  for (unsigned i = 0; i < shnum; ++i) {
    const std::uint8_t* h = b.data() + shoff + std::uint64_t{i} * shentsize;
    section s;
    name_off[i] = load_u32(h);
    s.type = load_u32(h + 4);
    s.offset = load_u64(h + 24);
    s.size = load_u64(h + 32);
    s.link = load_u32(h + 40);
    s.entsize = load_u64(h + 56);
    if (s.type != 8 /* SHT_NOBITS */ && !byte_io::range_within(s.offset, s.size, b.size()))
      bad(fmt::format("ELF section {} (offset {}, {} bytes) runs past the file's {} bytes", i, s.offset, s.size, b.size()));
    out.push_back(s);
  }
  if (shstrndx < shnum) {
    const section& strs = out[shstrndx];
    for (unsigned i = 0; i < shnum; ++i) {
      if (name_off[i] >= strs.size) continue;
      const char* p = reinterpret_cast<const char*>(b.data() + strs.offset + name_off[i]);
      out[i].name.assign(p, strnlen(p, strs.size - name_off[i]));
    }
  }
  return out;
}

std::vector<std::string> read_symbols(const std::vector<std::uint8_t>& b, const std::vector<section>& secs) {
  std::vector<std::string> names;
  for (const section& s : secs) {
    if (s.type != 2 /* SHT_SYMTAB */ || s.link >= secs.size() || s.entsize < 24) continue;
    const section& strs = secs[s.link];
    for (std::uint64_t off = 0; off + 24 <= s.size; off += s.entsize) {
      const std::uint8_t* sym = b.data() + s.offset + off;
      const std::uint32_t name = byte_io::load_u32(sym);
      const unsigned type = sym[4] & 0xf;  // STT_OBJECT 1, STT_FUNC 2
      if ((type != 1 && type != 2) || name >= strs.size) continue;
      const char* p = reinterpret_cast<const char*>(b.data() + strs.offset + name);
      names.emplace_back(p, strnlen(p, strs.size - name));
    }
  }
  return names;
}

// `.nv.compat` attribute 9 (arch-specific) of a ptxas 13 cubin: entries are {u8 format, u8
// attribute, value} with format 1 no value (+2 pad), 2 byte (+1 pad), 3 half-word, 4 u16 size +
// bytes — the EIATTR encoding `.nv.info` uses too.
std::optional<unsigned> nv_compat_arch_specific(const std::vector<std::uint8_t>& b, const section& s) {
  std::uint64_t p = 0;
  while (p + 4 <= s.size) {
    const std::uint8_t* e = b.data() + s.offset + p;
    const unsigned fmt = e[0], attr = e[1];
    if (fmt == 4) {
      const std::uint16_t n = byte_io::load_u16(e + 2);
      p += 4 + n;
      continue;
    }
    if (fmt == 2 && attr == 9) return e[2];
    if (fmt < 1 || fmt > 4) return std::nullopt;  // unknown encoding: do not guess
    p += 4;
  }
  return std::nullopt;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

}  // namespace

std::string elf_target::arch() const {
  if (machine == em_cuda) return fmt::format("sm_{}{}", sm, arch_specific ? "a" : "");
  std::string s = processor.empty() ? fmt::format("gfx?(mach 0x{:02x})", flags & 0xff) : processor;
  // LLVM target-id order: sramecc before xnack; "any" and "unsupported" are not written.
  if (sramecc >= 2) s += sramecc == 3 ? ":sramecc+" : ":sramecc-";
  if (xnack >= 2) s += xnack == 3 ? ":xnack+" : ":xnack-";
  return s;
}

elf_target read_elf_target(const std::vector<std::uint8_t>& b) {
  if (b.size() < 64 || std::memcmp(b.data(), "\x7f" "ELF", 4) != 0) bad("not an ELF file (no \\x7fELF magic)");
  if (b[4] != 2) bad(fmt::format("ELF class {} is not ELFCLASS64", b[4]));
  if (b[5] != 1) bad("ELF is not little-endian");
  elf_target t;
  t.machine = byte_io::load_u16(b.data() + 18);
  t.abi_version = b[8];
  t.flags = byte_io::load_u32(b.data() + 48);
  const std::vector<section> secs = read_sections(b);
  t.symbols = read_symbols(b, secs);
  if (t.machine == em_cuda) {
    if (t.abi_version >= 8) {
      t.sm = (t.flags >> 8) & 0xff;
      t.arch_specific = (t.flags & 0x8) != 0;
      for (const section& s : secs)
        if (s.name == ".nv.compat")
          if (auto a = nv_compat_arch_specific(b, s)) t.arch_specific = t.arch_specific || *a != 0;
    } else {
      t.sm = t.flags & 0xff;
      t.arch_specific = (t.flags & 0x800) != 0;
    }
  } else if (t.machine == em_amdgpu) {
    const std::uint8_t mach = t.flags & 0xff;
    for (const mach_name& m : amdgpu_machs)
      if (m.mach == mach) t.processor = m.name;
    if (t.abi_version >= 2) {  // code object v4+: 4-state features
      t.xnack = (t.flags >> 8) & 3;
      t.sramecc = (t.flags >> 10) & 3;
    }
  } else {
    bad(fmt::format("ELF e_machine is {}, expected {} (EM_CUDA) or {} (EM_AMDGPU)", t.machine, em_cuda, em_amdgpu));
  }
  return t;
}

std::string elf_label_mismatch(const elf_target& t, std::string_view label) {
  if (t.machine == em_cuda) {
    if (label.substr(0, 3) != "sm_") return fmt::format("it is a CUDA cubin ({}) but the label is \"{}\"", t.arch(), label);
    std::string_view rest = label.substr(3);
    char suffix = 0;
    if (!rest.empty() && (rest.back() == 'a' || rest.back() == 'f')) {
      suffix = rest.back();
      rest.remove_suffix(1);
    }
    unsigned sm = 0;
    for (char c : rest) {
      if (!std::isdigit(static_cast<unsigned char>(c)) || sm > 10000) return fmt::format("label \"{}\" is not sm_<number>[a|f]", label);
      sm = sm * 10 + static_cast<unsigned>(c - '0');
    }
    if (rest.empty()) return fmt::format("label \"{}\" is not sm_<number>[a|f]", label);
    if (sm != t.sm) return fmt::format("its ELF header says sm_{} (e_flags 0x{:08x}), the label says {}", t.sm, t.flags, label);
    if ((suffix == 'a') != t.arch_specific)
      return fmt::format("its ELF header says {} (e_flags 0x{:08x}), the label says {}", t.arch(), t.flags, label);
    return {};
  }
  // AMD: the processor must match; a feature the label names must be what the file was built
  // with ("any" satisfies either setting); a feature the file pins must be in the label, or the
  // run time would offer it to a GPU in the other mode.
  const std::size_t colon = label.find(':');
  const std::string_view proc = label.substr(0, colon);
  if (t.processor.empty())
    return fmt::format("its EF_AMDGPU_MACH is 0x{:02x}, not a processor this packer knows; the label says {}", t.flags & 0xff, label);
  if (proc != t.processor)
    return fmt::format("its ELF header says {} (e_flags 0x{:08x}), the label says {}", t.arch(), t.flags, label);
  int want_xnack = -1, want_sramecc = -1;  // -1 not named, 0 off, 1 on
  std::string_view feats = colon == std::string_view::npos ? std::string_view{} : label.substr(colon + 1);
  while (!feats.empty()) {
    const std::size_t c = feats.find(':');
    std::string_view f = feats.substr(0, c);
    feats = c == std::string_view::npos ? std::string_view{} : feats.substr(c + 1);
    if (f.size() < 2 || (f.back() != '+' && f.back() != '-')) return fmt::format("label \"{}\": feature \"{}\" is not name+ or name-", label, f);
    const int on = f.back() == '+';
    f.remove_suffix(1);
    if (f == "xnack") want_xnack = on;
    else if (f == "sramecc") want_sramecc = on;
    else return fmt::format("label \"{}\": unknown feature \"{}\" (xnack, sramecc)", label, f);
  }
  auto check = [&](const char* name, unsigned have, int want) -> std::string {
    if (want >= 0) {
      if (have == 0) return fmt::format("the label asks for {}{} but the code object's target does not support {}", name, want ? '+' : '-', name);
      if (have >= 2 && static_cast<int>(have == 3) != want)
        return fmt::format("its ELF header says {} {} (e_flags 0x{:08x}), the label says {}", name, feature_state(have), t.flags, label);
    } else if (have >= 2) {
      return fmt::format("its ELF header says {} {} (e_flags 0x{:08x}), the label \"{}\" does not say {}{}", name,
                         feature_state(have), t.flags, label, name, have == 3 ? '+' : '-');
    }
    return {};
  };
  if (auto m = check("xnack", t.xnack, want_xnack); !m.empty()) return m;
  return check("sramecc", t.sramecc, want_sramecc);
}

ptx_module read_ptx(std::string_view text) {
  ptx_module m;
  bool have_version = false;
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t eol = text.find('\n', pos);
    if (eol == std::string_view::npos) eol = text.size();
    std::string_view line = trim(text.substr(pos, eol - pos));
    pos = eol + 1;
    if (line.substr(0, 2) == "//") continue;
    if (!have_version && line.substr(0, 9) == ".version ") {
      std::string_view v = trim(line.substr(9));
      const std::size_t dot = v.find('.');
      if (dot == std::string_view::npos || dot == 0 || dot + 1 >= v.size()) bad(fmt::format("PTX: malformed .version \"{}\"", v));
      unsigned maj = 0, min = 0;
      for (char c : v.substr(0, dot)) {
        if (!std::isdigit(static_cast<unsigned char>(c))) bad(fmt::format("PTX: malformed .version \"{}\"", v));
        maj = maj * 10 + static_cast<unsigned>(c - '0');
      }
      for (char c : v.substr(dot + 1)) {
        if (!std::isdigit(static_cast<unsigned char>(c))) break;
        min = min * 10 + static_cast<unsigned>(c - '0');
      }
      if (maj > 99 || min > 9) bad(fmt::format("PTX: .version \"{}\" out of range", v));
      m.version_major = maj;
      m.version_minor = min;
      have_version = true;
    } else if (m.target.empty() && line.substr(0, 8) == ".target ") {
      std::string_view t = trim(line.substr(8));
      const std::size_t end = t.find_first_of(", \t");
      m.target = std::string(t.substr(0, end));
    } else {
      // `.visible .entry name(` or `.entry name(`: count the `.param` declarations up to `)`.
      const std::size_t e = line.find(".entry ");
      if (e != std::string_view::npos && (e == 0 || line.substr(0, e).find("//") == std::string_view::npos)) {
        std::string_view rest = trim(line.substr(e + 7));
        const std::size_t paren = rest.find('(');
        ptx_module::entry en;
        en.name = std::string(trim(rest.substr(0, paren)));
        // Parameters follow until the closing ')'; scan from the entry line.
        const std::size_t scan = static_cast<std::size_t>(line.data() - text.data()) + e;
        const std::size_t close = text.find(')', scan);
        std::string_view params = text.substr(scan, close == std::string_view::npos ? std::string_view::npos : close - scan);
        for (std::size_t q = params.find(".param"); q != std::string_view::npos; q = params.find(".param", q + 6)) ++en.params;
        m.entries.push_back(en);
      }
    }
  }
  if (!have_version) bad("PTX: no .version directive");
  if (m.target.empty()) bad("PTX: no .target directive");
  return m;
}

llir_module read_llir(std::string_view text) {
  llir_module m;
  const std::string_view tkey = "target triple = \"";
  if (auto p = text.find(tkey); p != std::string_view::npos) {
    const std::size_t b = p + tkey.size(), e = text.find('"', b);
    if (e != std::string_view::npos) m.triple = std::string(text.substr(b, e - b));
  }
  for (std::size_t p = text.find("define "); p != std::string_view::npos; p = text.find("define ", p + 7)) {
    const std::size_t eol = text.find('\n', p);
    std::string_view line = text.substr(p, eol == std::string_view::npos ? std::string_view::npos : eol - p);
    if (line.find("amdgpu_kernel") == std::string_view::npos) continue;
    const std::size_t at = line.find('@');
    if (at == std::string_view::npos) continue;
    std::size_t end = at + 1;
    while (end < line.size() && line[end] != '(') ++end;
    std::string name(line.substr(at + 1, end - at - 1));
    if (name.size() >= 2 && name.front() == '"' && name.back() == '"') name = name.substr(1, name.size() - 2);
    m.kernels.push_back(name);
  }
  return m;
}

}  // namespace tritonpack::pack
