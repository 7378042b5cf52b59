// `tritonpack inspect` on a binary says which container copy the program uses: the one in a loaded
// section (with its symbol), not one a compiler wrote into debug information. The ELF files here
// are built byte by byte (both classes, both byte orders, an object in an archive), so the rule is
// pinned whatever the compiler at hand does; ctest generated_header_debug_info_once checks a real
// -g build.
#include <doctest/doctest.h>

#include <cstdio>
#include <cstring>
#include <nlohmann/json.hpp>

#include "test_util.hpp"
#include "tritonpack/pack/container_finder.hpp"
#include "tritonpack/pack/elf_location.hpp"

namespace cli_elf_location_tests {

using tp_test::run_cli;
using tp_test::fs::path;
using tritonpack::pack::find_containers;
using tritonpack::pack::locate_in_elf;

// A minimal ELF file: a null section, .data (loaded, at address 0x404000 unless an object file),
// .debug_info (not loaded), .symtab with one symbol covering `data_symbol_at` in .data, .strtab,
// .shstrtab. Each section's bytes are given; the section table comes last.
struct elf_spec {
  bool is64 = true;
  bool big_endian = false;
  bool object_file = false;  // ET_REL: symbol values are offsets in their section
  std::vector<std::uint8_t> data, debug_info;
  std::string symbol = "_ZN8fixtures6detail14container_dataE";
  std::uint64_t data_symbol_at = 0, data_symbol_size = 0;
};

class elf_writer {
 public:
  explicit elf_writer(const elf_spec& s) : s_(s) {}
  void put(std::vector<std::uint8_t>& b, std::uint64_t at, std::uint64_t v, unsigned width) const {
    if (b.size() < at + width) b.resize(at + width);
    for (unsigned i = 0; i < width; ++i) {
      const unsigned shift = 8 * (s_.big_endian ? width - 1 - i : i);
      b[at + i] = static_cast<std::uint8_t>(v >> shift);
    }
  }
  std::vector<std::uint8_t> write() const {
    const unsigned word = s_.is64 ? 8 : 4;
    const std::uint64_t data_addr = s_.object_file ? 0 : 0x404000;
    std::vector<std::uint8_t> f(s_.is64 ? 64 : 52, 0);
    std::memcpy(f.data(),
                "\x7f"
                "ELF",
                4);
    f[4] = s_.is64 ? 2 : 1;
    f[5] = s_.big_endian ? 2 : 1;
    f[6] = 1;
    put(f, 16, s_.object_file ? 1 : 2, 2);
    auto append = [&](const std::vector<std::uint8_t>& bytes) {
      const std::uint64_t at = f.size();
      f.insert(f.end(), bytes.begin(), bytes.end());
      return at;
    };
    const std::uint64_t data_off = append(s_.data);
    const std::uint64_t debug_off = append(s_.debug_info);
    std::vector<std::uint8_t> strtab{0};
    strtab.insert(strtab.end(), s_.symbol.begin(), s_.symbol.end());
    strtab.push_back(0);
    const std::string shnames =
        std::string("\0.data\0.debug_info\0.symtab\0.strtab\0.shstrtab\0", 45);
    // Symbol 0 is the null symbol; symbol 1 covers the container in .data (section 1).
    const unsigned symsize = s_.is64 ? 24 : 16;
    std::vector<std::uint8_t> symtab(2 * symsize, 0);
    const std::uint64_t value = data_addr + s_.data_symbol_at;
    put(symtab, symsize, 1, 4);
    if (s_.is64) {
      symtab[symsize + 4] = 0x11;  // global object
      put(symtab, symsize + 6, 1, 2);
      put(symtab, symsize + 8, value, 8);
      put(symtab, symsize + 16, s_.data_symbol_size, 8);
    } else {
      put(symtab, symsize + 4, value, 4);
      put(symtab, symsize + 8, s_.data_symbol_size, 4);
      symtab[symsize + 12] = 0x11;
      put(symtab, symsize + 14, 1, 2);
    }
    const std::uint64_t symtab_off = append(symtab);
    const std::uint64_t strtab_off = append(strtab);
    const std::uint64_t shstr_off =
        append(std::vector<std::uint8_t>(shnames.begin(), shnames.end()));
    const std::uint64_t shoff = f.size();
    struct sh {
      std::uint32_t name, type;
      std::uint64_t flags, addr, off, size;
      std::uint32_t link;
      std::uint64_t entsize;
    };
    const sh table[] = {
        {0, 0, 0, 0, 0, 0, 0, 0},
        {1, 1, 0x3, data_addr, data_off, s_.data.size(), 0, 0},
        {7, 1, 0, 0, debug_off, s_.debug_info.size(), 0, 0},
        {19, 2, 0, 0, symtab_off, symtab.size(), 4, symsize},
        {27, 3, 0, 0, strtab_off, strtab.size(), 0, 0},
        {35, 3, 0, 0, shstr_off, shnames.size(), 0, 0},
    };
    const unsigned entsize = s_.is64 ? 64 : 40;
    for (const sh& h : table) {
      const std::uint64_t at = f.size();
      f.resize(at + entsize, 0);
      put(f, at, h.name, 4);
      put(f, at + 4, h.type, 4);
      put(f, at + 8, h.flags, word);
      put(f, at + 8 + word, h.addr, word);
      put(f, at + 8 + 2 * word, h.off, word);
      put(f, at + 8 + 3 * word, h.size, word);
      put(f, at + 8 + 4 * word, h.link, 4);
      put(f, at + 16 + 5 * word, h.entsize, word);
    }
    put(f, s_.is64 ? 0x28 : 0x20, shoff, word);
    put(f, s_.is64 ? 0x3a : 0x2e, entsize, 2);
    put(f, s_.is64 ? 0x3c : 0x30, 6, 2);
    put(f, s_.is64 ? 0x3e : 0x32, 5, 2);
    return f;
  }

 private:
  const elf_spec& s_;
};

// The fixtures' container twice: in .data behind 64 bytes of other data (its symbol covering it)
// and in .debug_info behind 10 bytes, as GCC's -g used to copy a const array's value.
elf_spec two_copies(const std::vector<std::uint8_t>& tpk) {
  elf_spec s;
  s.data.assign(64, 0x11);
  s.data.insert(s.data.end(), tpk.begin(), tpk.end());
  s.data_symbol_at = 64;
  s.data_symbol_size = tpk.size();
  s.debug_info.assign(10, 0x22);
  s.debug_info.insert(s.debug_info.end(), tpk.begin(), tpk.end());
  return s;
}

const std::vector<std::uint8_t>& fixtures_tpk() {
  static const std::vector<std::uint8_t> b = tp_test::slurp(TP_FIXTURES_TPK);
  return b;
}

TEST_CASE(
    "a binary's containers: the loaded copy with its symbol, the debug-information copy never "
    "loaded") {
  for (const bool is64 : {true, false})
    for (const bool big : {false, true})
      for (const bool object : {false, true}) {
        CAPTURE(is64);
        CAPTURE(big);
        CAPTURE(object);
        elf_spec spec = two_copies(fixtures_tpk());
        spec.is64 = is64;
        spec.big_endian = big;
        spec.object_file = object;
        const auto found = find_containers(elf_writer(spec).write());
        REQUIRE(found.containers.size() == 2);
        const auto& live = found.containers[0].location;
        CHECK(live.section == ".data");
        CHECK(live.loaded);
        CHECK(live.symbol == "fixtures::detail::container_data");
        const auto& dwarf = found.containers[1].location;
        CHECK(dwarf.section == ".debug_info");
        CHECK_FALSE(dwarf.loaded);
        CHECK(dwarf.symbol.empty());
      }
}

TEST_CASE("inspect names the copy a binary uses and the one in its debug information") {
  const path file = path(TP_WORK) / "two_copies.elf";
  tp_test::spit(file, elf_writer(two_copies(fixtures_tpk())).write());
  const auto r = run_cli("inspect --quick \"" + file.string() + "\"");
  CHECK(r.code == 0);
  CHECK(r.out.find("  in .data (fixtures::detail::container_data): loaded with the program: the "
                   "copy it uses\n") != std::string::npos);
  CHECK(r.out.find("  in .debug_info: debug information only, never loaded") != std::string::npos);
  const auto j = run_cli("inspect --quick --json \"" + file.string() + "\"");
  REQUIRE(j.code == 0);
  const auto doc = nlohmann::json::parse(j.out);
  CHECK(doc["containers"][0]["section"] == ".data");
  CHECK(doc["containers"][0]["loaded"] == true);
  CHECK(doc["containers"][0]["symbol"] == "fixtures::detail::container_data");
  CHECK(doc["containers"][1]["section"] == ".debug_info");
  CHECK(doc["containers"][1]["loaded"] == false);
  CHECK(doc["containers"][1]["symbol"].is_null());
}

TEST_CASE("an object inside an ar archive is located, naming the member") {
  elf_spec spec = two_copies(fixtures_tpk());
  spec.object_file = true;
  const std::vector<std::uint8_t> obj = elf_writer(spec).write();
  std::string ar = "!<arch>\n";
  auto member = [&](const std::string& name, const std::vector<std::uint8_t>& bytes) {
    char h[61];
    std::snprintf(h, sizeof h, "%-16s%-12s%-6s%-6s%-8s%-10zu`\n", name.c_str(), "0", "0", "0",
                  "644", bytes.size());
    ar.append(h, 60);
    ar.append(bytes.begin(), bytes.end());
    if (bytes.size() % 2) ar.push_back('\n');
  };
  member("other.o/", std::vector<std::uint8_t>(33, 0x5a));  // odd size: padded to even
  member("kernels.o/", obj);
  const auto found = find_containers(std::vector<std::uint8_t>(ar.begin(), ar.end()));
  REQUIRE(found.containers.size() == 2);
  CHECK(found.containers[0].location.member == "kernels.o");
  CHECK(found.containers[0].location.section == ".data");
  CHECK(found.containers[0].location.symbol == "fixtures::detail::container_data");
  CHECK(found.containers[1].location.section == ".debug_info");
}

TEST_CASE("a damaged ELF section table leaves the containers found but unlocated, never a crash") {
  const std::vector<std::uint8_t> good = elf_writer(two_copies(fixtures_tpk())).write();
  // Section table offset, entry size, count and string index, each set to hostile values.
  struct damage {
    const char* what;
    std::uint64_t at;
    unsigned width;
    std::uint64_t value;
  };
  for (const damage& d :
       {damage{"table past the end", 0x28, 8, ~std::uint64_t{0} - 10},
        damage{"entry size too small", 0x3a, 2, 8}, damage{"65535 sections", 0x3c, 2, 0xfffe},
        damage{"string table index out of range", 0x3e, 2, 40}}) {
    CAPTURE(d.what);
    std::vector<std::uint8_t> bad = good;
    for (unsigned i = 0; i < d.width; ++i)
      bad[d.at + i] = static_cast<std::uint8_t>(d.value >> (8 * i));
    const auto found = find_containers(bad);
    REQUIRE(found.containers.size() == 2);
    CHECK(found.containers[0].location.section.empty());
    CHECK(found.containers[1].location.section.empty());
  }
  // A symbol table whose entry size would step past the end (or wrap): no symbol, no hang.
  std::vector<std::uint8_t> bad = good;
  const std::uint64_t shoff = [&] {
    std::uint64_t v = 0;
    for (int i = 7; i >= 0; --i) v = (v << 8) | bad[0x28 + i];
    return v;
  }();
  const std::uint64_t symtab_entsize_at = shoff + 3 * 64 + 56;
  for (int i = 0; i < 8; ++i) bad[symtab_entsize_at + i] = 0xff;
  const auto found = find_containers(bad);
  REQUIRE(found.containers.size() == 2);
  CHECK(found.containers[0].location.section == ".data");
  CHECK(found.containers[0].location.symbol.empty());
  // Not ELF at all: nothing located.
  CHECK(locate_in_elf(std::vector<std::uint8_t>(100, 0), {10})[0].section.empty());
}

}  // namespace cli_elf_location_tests
