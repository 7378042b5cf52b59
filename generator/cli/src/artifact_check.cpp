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

#include "tritonpack/container/byte_io.hpp"
#include "tritonpack/core/error.hpp"

namespace tritonpack::pack {
namespace {

[[noreturn]] void bad(const std::string& msg) { throw error(errc::bad_argument, msg); }

struct mach_name {
  std::uint8_t mach;
  const char* name;
};
// EF_AMDGPU_MACH_AMDGCN_* (LLVM ELF.h AMDGPU_MACH_LIST).
constexpr mach_name amdgpu_machs[] = {
    {0x20, "gfx600"},          {0x21, "gfx601"},          {0x22, "gfx700"},
    {0x23, "gfx701"},          {0x24, "gfx702"},          {0x25, "gfx703"},
    {0x26, "gfx704"},          {0x28, "gfx801"},          {0x29, "gfx802"},
    {0x2a, "gfx803"},          {0x2b, "gfx810"},          {0x2c, "gfx900"},
    {0x2d, "gfx902"},          {0x2e, "gfx904"},          {0x2f, "gfx906"},
    {0x30, "gfx908"},          {0x31, "gfx909"},          {0x32, "gfx90c"},
    {0x33, "gfx1010"},         {0x34, "gfx1011"},         {0x35, "gfx1012"},
    {0x36, "gfx1030"},         {0x37, "gfx1031"},         {0x38, "gfx1032"},
    {0x39, "gfx1033"},         {0x3a, "gfx602"},          {0x3b, "gfx705"},
    {0x3c, "gfx805"},          {0x3d, "gfx1035"},         {0x3e, "gfx1034"},
    {0x3f, "gfx90a"},          {0x40, "gfx940"},          {0x41, "gfx1100"},
    {0x42, "gfx1013"},         {0x43, "gfx1150"},         {0x44, "gfx1103"},
    {0x45, "gfx1036"},         {0x46, "gfx1101"},         {0x47, "gfx1102"},
    {0x48, "gfx1200"},         {0x49, "gfx1250"},         {0x4a, "gfx1151"},
    {0x4b, "gfx941"},          {0x4c, "gfx942"},          {0x4e, "gfx1201"},
    {0x4f, "gfx950"},          {0x50, "gfx1310"},         {0x51, "gfx9-generic"},
    {0x52, "gfx10-1-generic"}, {0x53, "gfx10-3-generic"}, {0x54, "gfx11-generic"},
    {0x55, "gfx1152"},         {0x58, "gfx1153"},         {0x59, "gfx12-generic"},
    {0x5a, "gfx1251"},         {0x5b, "gfx12-5-generic"}, {0x5c, "gfx1172"},
    {0x5d, "gfx1170"},         {0x5e, "gfx1171"},         {0x5f, "gfx9-4-generic"},
    {0xeb, "gfx1250-strict"},  // Triton 3.9's AMD codegen (its own LLVM): e_flags 0x4eb measured
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

// ELF64 (System V gABI) sizes and section types used here.
constexpr std::uint64_t ehdr_size = 64, phdr_size = 56, shdr_size = 64, sym_size = 24;
constexpr std::uint32_t sht_symtab = 2, sht_strtab = 3, sht_nobits = 8, sht_dynsym = 11;

// A structural error: the file cannot be what a compiler wrote. Cut short by an interrupted copy
// or build, or damaged: either way only a fresh compile gives a file worth shipping.
[[noreturn]] void corrupt(const std::string& what) {
  bad(what + ": the file is truncated or corrupt; recompile the kernel to regenerate it");
}

// `what` (`size` bytes at `offset`) must lie within the file's `file_size` bytes; the message says
// by how much it does not (no arithmetic here can wrap).
void within_file(const std::string& what, std::uint64_t offset, std::uint64_t size,
                 std::uint64_t file_size) {
  if (byte_io::range_within(offset, size, file_size)) return;
  if (offset > file_size)
    corrupt(fmt::format("{} starts at byte {}, {} bytes past the end of the file ({} bytes)", what,
                        offset, offset - file_size, file_size));
  corrupt(
      fmt::format("{} at offset {} ({} bytes) ends {} bytes past the end of the file ({} bytes)",
                  what, offset, size, size - (file_size - offset), file_size));
}

std::string section_label(const std::vector<section>& secs, std::size_t i) {
  return secs[i].name.empty() ? fmt::format("ELF section {}", i)
                              : fmt::format("ELF section {} ({})", i, secs[i].name);
}

// Checks an ELF64 file's structure — header fields for the class, the program and section header
// tables, every segment's and section's bytes (but SHT_NOBITS), the section-name table, every
// symbol table with its string table — and returns the sections with their names. Everything the
// target and symbol readers below touch is then within the file.
std::vector<section> read_sections(const std::vector<std::uint8_t>& b) {
  using byte_io::load_u16;
  using byte_io::load_u32;
  using byte_io::load_u64;
  const std::uint64_t n = b.size();
  // (e_version is not checked: ptxas before ABI 8 writes its own version there, 128.)
  if (b[6] != 1) corrupt(fmt::format("ELF EI_VERSION is {}, expected 1 (EV_CURRENT)", b[6]));
  if (load_u16(b.data() + 52) != ehdr_size)
    corrupt(fmt::format("ELF e_ehsize is {}, an ELF64 header is {} bytes", load_u16(b.data() + 52),
                        ehdr_size));

  const std::uint64_t phoff = load_u64(b.data() + 32);
  const std::uint16_t phentsize = load_u16(b.data() + 54), phnum = load_u16(b.data() + 56);
  if (phnum != 0) {
    if (phentsize != phdr_size)
      corrupt(fmt::format("ELF e_phentsize is {}, an ELF64 program header is {} bytes", phentsize,
                          phdr_size));
    within_file(fmt::format("ELF program header table ({} entries of {} bytes)", phnum, phdr_size),
                phoff, phnum * phdr_size, n);
    for (unsigned i = 0; i < phnum; ++i) {
      const std::uint8_t* h = b.data() + phoff + i * phdr_size;
      const std::uint32_t type = load_u32(h);
      if (type != 0 /* PT_NULL */)
        within_file(fmt::format("ELF segment {} (type 0x{:x})", i, type), load_u64(h + 8),
                    load_u64(h + 32), n);
    }
  }

  const std::uint64_t shoff = load_u64(b.data() + 0x28);
  const std::uint16_t shentsize = load_u16(b.data() + 0x3a), shnum = load_u16(b.data() + 0x3c),
                      shstrndx = load_u16(b.data() + 0x3e);
  std::vector<section> out;
  if (shnum == 0) {
    if (shoff != 0)
      corrupt(
          fmt::format("ELF e_shnum is 0 but e_shoff is {} (extended section numbering, which GPU "
                      "compilers do not write)",
                      shoff));
    return out;
  }
  if (shentsize != shdr_size)
    corrupt(fmt::format("ELF e_shentsize is {}, an ELF64 section header is {} bytes", shentsize,
                        shdr_size));
  within_file(fmt::format("ELF section header table ({} entries of {} bytes)", shnum, shdr_size),
              shoff, shnum * shdr_size, n);
  std::vector<std::uint32_t> name_off(shnum);
  for (unsigned i = 0; i < shnum; ++i) {
    const std::uint8_t* h = b.data() + shoff + i * shdr_size;
    section s;
    name_off[i] = load_u32(h);
    s.type = load_u32(h + 4);
    s.offset = load_u64(h + 24);
    s.size = load_u64(h + 32);
    s.link = load_u32(h + 40);
    s.entsize = load_u64(h + 56);
    if (s.type != sht_nobits)
      within_file(fmt::format("ELF section {} (type 0x{:x})", i, s.type), s.offset, s.size, n);
    out.push_back(s);
  }
  if (shstrndx >= shnum)
    corrupt(fmt::format("ELF e_shstrndx is {}, the file has {} sections", shstrndx, shnum));
  const section& names = out[shstrndx];
  if (names.type != sht_strtab)
    corrupt(
        fmt::format("ELF e_shstrndx names section {}, of type {}, not a string table (SHT_STRTAB)",
                    shstrndx, names.type));
  for (unsigned i = 0; i < shnum; ++i) {
    if (name_off[i] >= names.size) {
      if (name_off[i] == 0) continue;  // an empty section-name table: no names
      corrupt(
          fmt::format("ELF section {}'s name is at offset {}, past the end of the section-name "
                      "table ({} bytes)",
                      i, name_off[i], names.size));
    }
    const char* p = reinterpret_cast<const char*>(b.data() + names.offset + name_off[i]);
    out[i].name.assign(p, strnlen(p, names.size - name_off[i]));
  }

  for (unsigned i = 0; i < shnum; ++i) {
    const section& s = out[i];
    if (s.type != sht_symtab && s.type != sht_dynsym) continue;
    if (s.entsize != sym_size)
      corrupt(fmt::format("{}: symbol entries of {} bytes, ELF64 symbols are {}",
                          section_label(out, i), s.entsize, sym_size));
    if (s.size % sym_size != 0)
      corrupt(fmt::format("{} is {} bytes, not a whole number of {}-byte symbols",
                          section_label(out, i), s.size, sym_size));
    if (s.link >= shnum || out[s.link].type != sht_strtab)
      corrupt(fmt::format("{}: its string table (sh_link {}) is not a string table section",
                          section_label(out, i), s.link));
    const section& strs = out[s.link];
    for (std::uint64_t off = 0; off < s.size; off += sym_size) {
      const std::uint32_t name = load_u32(b.data() + s.offset + off);
      if (name >= strs.size && !(name == 0 && strs.size == 0))
        corrupt(fmt::format(
            "{}: symbol {}'s name is at offset {}, past the end of its string table {} ({} bytes)",
            section_label(out, i), off / sym_size, name, section_label(out, s.link), strs.size));
    }
  }
  return out;
}

// FUNC and OBJECT symbol names of the symbol tables (read_sections has checked their bounds).
std::vector<std::string> read_symbols(const std::vector<std::uint8_t>& b,
                                      const std::vector<section>& secs) {
  std::vector<std::string> names;
  for (const section& s : secs) {
    if (s.type != sht_symtab) continue;
    const section& strs = secs[s.link];
    for (std::uint64_t off = 0; off < s.size; off += sym_size) {
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
std::optional<unsigned> nv_compat_arch_specific(const std::vector<std::uint8_t>& b,
                                                const section& s) {
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

// A PTX module must be complete text: every brace-delimited block (an .entry or .func body, a
// .section of debug data) closed, no '}' closing nothing, and after the last top-level '}' only
// whitespace and comments (or the ';' ending an initializer: `.global .b8 s[2] = {1, 2};`). A file
// cut short ends inside a block, or after the last complete one in the middle of a directive.
// Comments and strings are skipped (a `.file` path may hold braces).
void check_ptx_complete(std::string_view text) {
  struct open_block {
    std::size_t line;
    std::string what;  // "the body of .entry vector_add", "section .debug_info"
  };
  std::vector<open_block> open;
  std::string last_label;  // what the next top-level block is: "the body of .entry vector_add"
  std::size_t line = 1, last_close_line = 0;
  bool closed_any = false;
  std::size_t after = std::string_view::npos,
              after_line = 0;  // the first text after the last top-level '}'
  bool want_name = false, just_closed = false;
  std::size_t entry_bodies = 0;
  auto ident_end = [&](std::size_t i) {
    while (i < text.size() && (std::isalnum(static_cast<unsigned char>(text[i])) ||
                               text[i] == '_' || text[i] == '.' || text[i] == '$'))
      ++i;
    return i;
  };
  for (std::size_t i = 0; i < text.size();) {
    const char c = text[i];
    if (c == '\n') {
      ++line;
      ++i;
      continue;
    }
    if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
      continue;
    }
    if (c == '/' && i + 1 < text.size() && text[i + 1] == '/') {
      i = text.find('\n', i);
      if (i == std::string_view::npos) i = text.size();
      continue;
    }
    if (c == '/' && i + 1 < text.size() && text[i + 1] == '*') {
      const std::size_t end = text.find("*/", i + 2);
      if (end == std::string_view::npos)
        corrupt(fmt::format("PTX: the /* comment opened at line {} is not closed", line));
      line += static_cast<std::size_t>(std::count(text.begin() + static_cast<std::ptrdiff_t>(i),
                                                  text.begin() + static_cast<std::ptrdiff_t>(end),
                                                  '\n'));
      i = end + 2;
      continue;
    }
    if (open.empty() &&
        c == ';') {  // the end of a top-level statement, e.g. `.global .b8 s[2] = {1, 2};`
      last_label.clear();
      want_name = false;
      if (just_closed) {
        just_closed = false;
        ++i;
        continue;
      }
    }
    just_closed = false;
    if (closed_any && open.empty() && after == std::string_view::npos) after = i, after_line = line;
    if (c == '"') {  // PTX strings do not span lines
      std::size_t j = i + 1;
      while (j < text.size() && text[j] != '"' && text[j] != '\n') j += text[j] == '\\' ? 2 : 1;
      if (j >= text.size() || text[j] != '"')
        corrupt(fmt::format("PTX: the string at line {} is not closed", line));
      i = j + 1;
      continue;
    }
    if (c == '{') {
      open.push_back({line, open.empty() ? last_label : std::string()});
      ++i;
      continue;
    }
    if (c == '}') {
      if (open.empty()) corrupt(fmt::format("PTX: the '}}' at line {} closes no block", line));
      if (open.size() == 1 && open.back().what.rfind("the body of .entry ", 0) == 0) ++entry_bodies;
      open.pop_back();
      ++i;
      if (open.empty())
        closed_any = just_closed = true, last_close_line = line, after = std::string_view::npos;
      continue;
    }
    if (open.empty() && want_name &&
        c == '(') {  // `.func (.param .b32 retval) name(`: the name follows
      const std::size_t close = std::min(text.find(')', i), text.size());
      line += static_cast<std::size_t>(std::count(text.begin() + static_cast<std::ptrdiff_t>(i),
                                                  text.begin() + static_cast<std::ptrdiff_t>(close),
                                                  '\n'));
      i = close + 1;
      continue;
    }
    if (open.empty() && (c == '.' || std::isalpha(static_cast<unsigned char>(c)) || c == '_')) {
      const std::size_t end = ident_end(i + 1);
      const std::string_view word = text.substr(i, end - i);
      if (want_name) {
        last_label += std::string(word);
        want_name = false;
      } else if (word == ".entry" || word == ".func" || word == ".section") {
        last_label = word == ".section" ? "section " : "the body of " + std::string(word) + " ";
        want_name = true;
      }
      i = end;
      continue;
    }
    ++i;
  }
  if (!open.empty()) {
    const open_block& outer = open.front();
    corrupt(fmt::format("PTX ends (line {}) inside {} opened at line {}: its '{{' is not closed",
                        line, outer.what.empty() ? std::string("a block") : outer.what,
                        outer.line));
  }
  if (entry_bodies == 0) corrupt(fmt::format("PTX ends (line {}) before any .entry body", line));
  if (after != std::string_view::npos) {
    const std::size_t eol = text.find('\n', after);
    const std::string_view what = trim(text.substr(
        after,
        std::min<std::size_t>((eol == std::string_view::npos ? text.size() : eol) - after, 60)));
    corrupt(fmt::format("PTX has \"{}\" at line {}, after the last closing '}}' (line {})", what,
                        after_line, last_close_line));
  }
}

// LLVM IR as Triton writes it: complete lines, and every `define` body closed by a line holding
// only '}' before the next `define` or the end. Enough to refuse a file cut short; the IR itself
// is left to the compiler that JITs it.
void check_llir_complete(std::string_view text) {
  if (text.empty()) corrupt("LLVM IR is empty");
  if (text.back() != '\n') {
    const std::size_t lines =
        static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n')) + 1;
    corrupt(fmt::format("LLVM IR ends in the middle of line {} (no final newline)", lines));
  }
  std::size_t line = 0, define_line = 0;
  std::string open_define;
  for (std::size_t pos = 0; pos < text.size();) {
    const std::size_t eol = text.find('\n', pos);
    const std::string_view l = text.substr(pos, eol - pos);
    ++line;
    pos = eol + 1;
    if (l.substr(0, 7) == "define ") {
      if (!open_define.empty())
        corrupt(
            fmt::format("LLVM IR: the body of {} (define at line {}) is not closed by '}}' before "
                        "the define at line {}",
                        open_define, define_line, line));
      const std::size_t at = l.find('@');
      open_define = at == std::string_view::npos ? std::string("a function")
                                                 : std::string(l.substr(at, l.find('(', at) - at));
      define_line = line;
      if (l.back() != '{') open_define.clear();  // a body-less form; nothing to close
    } else if (l == "}") {
      open_define.clear();
    }
  }
  if (!open_define.empty())
    corrupt(fmt::format(
        "LLVM IR ends (line {}) inside the body of {} (define at line {}): its '{{' is not closed",
        line, open_define, define_line));
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
  if (b.size() < 64 || std::memcmp(b.data(),
                                   "\x7f"
                                   "ELF",
                                   4) != 0)
    bad("not an ELF file (no \\x7fELF magic)");
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
    bad(fmt::format("ELF e_machine is {}, expected {} (EM_CUDA) or {} (EM_AMDGPU)", t.machine,
                    em_cuda, em_amdgpu));
  }
  return t;
}

std::string elf_label_mismatch(const elf_target& t, std::string_view label) {
  if (t.machine == em_cuda) {
    if (label.substr(0, 3) != "sm_")
      return fmt::format("it is a CUDA cubin ({}) but the label is \"{}\"", t.arch(), label);
    std::string_view rest = label.substr(3);
    char suffix = 0;
    if (!rest.empty() && (rest.back() == 'a' || rest.back() == 'f')) {
      suffix = rest.back();
      rest.remove_suffix(1);
    }
    unsigned sm = 0;
    for (char c : rest) {
      if (!std::isdigit(static_cast<unsigned char>(c)) || sm > 10000)
        return fmt::format("label \"{}\" is not sm_<number>[a|f]", label);
      sm = sm * 10 + static_cast<unsigned>(c - '0');
    }
    if (rest.empty()) return fmt::format("label \"{}\" is not sm_<number>[a|f]", label);
    if (sm != t.sm)
      return fmt::format("its ELF header says sm_{} (e_flags 0x{:08x}), the label says {}", t.sm,
                         t.flags, label);
    if ((suffix == 'a') != t.arch_specific)
      return fmt::format("its ELF header says {} (e_flags 0x{:08x}), the label says {}", t.arch(),
                         t.flags, label);
    return {};
  }
  // AMD: the processor must match; a feature the label names must be what the file was built
  // with ("any" satisfies either setting); a feature the file pins must be in the label, or the
  // run time would offer it to a GPU in the other mode.
  const std::size_t colon = label.find(':');
  const std::string_view proc = label.substr(0, colon);
  if (t.processor.empty())
    return fmt::format(
        "its EF_AMDGPU_MACH is 0x{:02x}, not a processor this packer knows; the label says {}",
        t.flags & 0xff, label);
  if (proc != t.processor)
    return fmt::format("its ELF header says {} (e_flags 0x{:08x}), the label says {}", t.arch(),
                       t.flags, label);
  int want_xnack = -1, want_sramecc = -1;  // -1 not named, 0 off, 1 on
  std::string_view feats =
      colon == std::string_view::npos ? std::string_view{} : label.substr(colon + 1);
  while (!feats.empty()) {
    const std::size_t c = feats.find(':');
    std::string_view f = feats.substr(0, c);
    feats = c == std::string_view::npos ? std::string_view{} : feats.substr(c + 1);
    if (f.size() < 2 || (f.back() != '+' && f.back() != '-'))
      return fmt::format("label \"{}\": feature \"{}\" is not name+ or name-", label, f);
    const int on = f.back() == '+';
    f.remove_suffix(1);
    if (f == "xnack") want_xnack = on;
    else if (f == "sramecc") want_sramecc = on;
    else return fmt::format("label \"{}\": unknown feature \"{}\" (xnack, sramecc)", label, f);
  }
  auto check = [&](const char* name, unsigned have, int want) -> std::string {
    if (want >= 0) {
      if (have == 0)
        return fmt::format(
            "the label asks for {}{} but the code object's target does not support {}", name,
            want ? '+' : '-', name);
      if (have >= 2 && static_cast<int>(have == 3) != want)
        return fmt::format("its ELF header says {} {} (e_flags 0x{:08x}), the label says {}", name,
                           feature_state(have), t.flags, label);
    } else if (have >= 2) {
      return fmt::format(
          "its ELF header says {} {} (e_flags 0x{:08x}), the label \"{}\" does not say {}{}", name,
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
      if (dot == std::string_view::npos || dot == 0 || dot + 1 >= v.size())
        bad(fmt::format("PTX: malformed .version \"{}\"", v));
      unsigned maj = 0, min = 0;
      for (char c : v.substr(0, dot)) {
        if (!std::isdigit(static_cast<unsigned char>(c)))
          bad(fmt::format("PTX: malformed .version \"{}\"", v));
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
      if (e != std::string_view::npos &&
          (e == 0 || line.substr(0, e).find("//") == std::string_view::npos)) {
        std::string_view rest = trim(line.substr(e + 7));
        const std::size_t paren = rest.find('(');
        ptx_module::entry en;
        en.name = std::string(trim(rest.substr(0, paren)));
        // Parameters follow until the closing ')'; scan from the entry line.
        const std::size_t scan = static_cast<std::size_t>(line.data() - text.data()) + e;
        const std::size_t close = text.find(')', scan);
        std::string_view params = text.substr(
            scan, close == std::string_view::npos ? std::string_view::npos : close - scan);
        for (std::size_t q = params.find(".param"); q != std::string_view::npos;
             q = params.find(".param", q + 6))
          ++en.params;
        m.entries.push_back(en);
      }
    }
  }
  if (!have_version) bad("PTX: no .version directive");
  if (m.target.empty()) bad("PTX: no .target directive");
  check_ptx_complete(text);
  return m;
}

llir_module read_llir(std::string_view text) {
  check_llir_complete(text);
  llir_module m;
  const std::string_view tkey = "target triple = \"";
  if (auto p = text.find(tkey); p != std::string_view::npos) {
    const std::size_t b = p + tkey.size(), e = text.find('"', b);
    if (e != std::string_view::npos) m.triple = std::string(text.substr(b, e - b));
  }
  for (std::size_t p = text.find("define "); p != std::string_view::npos;
       p = text.find("define ", p + 7)) {
    const std::size_t eol = text.find('\n', p);
    std::string_view line =
        text.substr(p, eol == std::string_view::npos ? std::string_view::npos : eol - p);
    if (line.find("amdgpu_kernel") == std::string_view::npos) continue;
    const std::size_t at = line.find('@');
    if (at == std::string_view::npos) continue;
    std::size_t end = at + 1;
    while (end < line.size() && line[end] != '(') ++end;
    std::string name(line.substr(at + 1, end - at - 1));
    if (name.size() >= 2 && name.front() == '"' && name.back() == '"')
      name = name.substr(1, name.size() - 2);
    m.kernels.push_back(name);
  }
  return m;
}

}  // namespace tritonpack::pack
