// Artifact checks: what cubins, code objects, PTX and LLVM IR say about their target, and `pack`
// refusing every kind of mislabelled artifact with a message naming the file, what it says and
// what the manifest says.
#include <doctest/doctest.h>

#include <functional>

#include "test_util.hpp"
#include "tritonpack/container/byte_io.hpp"
#include "tritonpack/core/error.hpp"
#include "tritonpack/pack/artifact_check.hpp"
#include "tritonpack/pack/manifest.hpp"

using namespace tritonpack;
using namespace tritonpack::pack;
using tp_test::fs::path;

namespace cli_artifacts_tests {  // this file's own names (the test binary is a unity build)
namespace {

const path artifacts = TP_ARTIFACTS;
const path data_dir = path(TP_ARTIFACTS).parent_path().parent_path() / "cli" / "data";

elf_target elf(const path& p) { return read_elf_target(tp_test::slurp(p)); }

std::string load_error(const path& manifest, const load_options& o = {}) {
  try {
    (void)load_manifest(manifest, o);
  } catch (const error& e) {
    return e.what();
  }
  return {};
}

// Copies the fixtures, lets `edit` change the manifest JSON, and returns the load error.
template <class F>
std::string mislabel(const std::string& name, F edit) {
  const path dir = tp_test::copy_artifacts(name);
  nlohmann::json m = tp_test::load_json(dir / "manifest.json");
  edit(m, dir);
  tp_test::spit(dir / "manifest.json", m.dump(2));
  return load_error(dir / "manifest.json");
}

nlohmann::json& find_image(nlohmann::json& m, const std::string& file) {
  for (auto& k : m["kernels"])
    for (auto& v : k["variants"])
      for (auto& im : v["images"])
        if (im["file"] == file) return im;
  FAIL("fixture image " << file << " not in the manifest");
  throw;
}

}  // namespace

TEST_CASE("cubin targets from ptxas 12.8 (ELF ABI 7) and ptxas-blackwell 12.9 (ABI 8)") {
  CHECK(elf(artifacts / "vector_add/v0/cuda_sm_80.cubin").arch() == "sm_80");
  CHECK(elf(artifacts / "vector_add/v0/cuda_sm_90a.cubin").arch() == "sm_90a");
  CHECK(elf(artifacts / "vector_add/v0/cuda_sm_100a.cubin").arch() == "sm_100a");
  CHECK(elf(artifacts / "vector_add/v0/cuda_sm_100a.cubin").abi_version == 8);
  CHECK(elf(artifacts / "vector_add/v0/cuda_sm_80.cubin").machine == em_cuda);
}

TEST_CASE("cubin targets from ptxas 13.0: `a` recorded in .nv.compat") {
  CHECK(elf(data_dir / "ptxas13_sm_90.cubin").arch() == "sm_90");
  CHECK(elf(data_dir / "ptxas13_sm_90a.cubin").arch() == "sm_90a");
  CHECK(elf(data_dir / "ptxas13_sm_100.cubin").arch() == "sm_100");
  CHECK(elf(data_dir / "ptxas13_sm_100a.cubin").arch() == "sm_100a");
  CHECK(elf(data_dir / "ptxas13_sm_120a.cubin").arch() == "sm_120a");
  // A family build is indistinguishable from a plain one: an sm_100f label accepts sm_100.
  CHECK(elf_label_mismatch(elf(data_dir / "ptxas13_sm_100.cubin"), "sm_100f").empty());
  CHECK(!elf_label_mismatch(elf(data_dir / "ptxas13_sm_100a.cubin"), "sm_100").empty());
  CHECK(!elf_label_mismatch(elf(data_dir / "ptxas13_sm_90.cubin"), "sm_90a").empty());
}

TEST_CASE("code object targets and xnack / sramecc features") {
  const elf_target a = elf(artifacts / "vector_add/v0/hip_gfx90a.hsaco");
  CHECK(a.machine == em_amdgpu);
  CHECK(a.processor == "gfx90a");
  CHECK(a.xnack == 1);    // any
  CHECK(a.sramecc == 1);  // any
  CHECK(a.arch() == "gfx90a");
  CHECK(elf(artifacts / "vector_add/v0/hip_gfx942.hsaco").arch() == "gfx942");
  // "any" satisfies a label that pins a feature either way.
  CHECK(elf_label_mismatch(a, "gfx90a").empty());
  CHECK(elf_label_mismatch(a, "gfx90a:xnack-").empty());
  CHECK(elf_label_mismatch(a, "gfx90a:sramecc+:xnack+").empty());
  CHECK(elf_label_mismatch(a, "gfx942").find("gfx942") != std::string::npos);

  // A code object built with xnack on: its label must say so.
  auto bytes = tp_test::slurp(artifacts / "vector_add/v0/hip_gfx90a.hsaco");
  const std::uint32_t flags = byte_io::load_u32(bytes.data() + 48);
  byte_io::store_u32(bytes.data() + 48, (flags & ~0x300u) | 0x300u);
  const elf_target on = read_elf_target(bytes);
  CHECK(on.arch() == "gfx90a:xnack+");
  CHECK(elf_label_mismatch(on, "gfx90a:xnack+").empty());
  CHECK(elf_label_mismatch(on, "gfx90a:xnack-").find("xnack on") != std::string::npos);
  CHECK(elf_label_mismatch(on, "gfx90a").find("does not say xnack+") != std::string::npos);
  CHECK(elf_label_mismatch(on, "gfx90a:bogus+").find("unknown feature") != std::string::npos);
  // sramecc (bits 10..11) the same way, told apart from xnack (bits 8..9, left "any" here).
  byte_io::store_u32(bytes.data() + 48, (flags & ~0xC00u) | 0xC00u);
  const elf_target ecc = read_elf_target(bytes);
  CHECK(ecc.arch() == "gfx90a:sramecc+");
  CHECK(elf_label_mismatch(ecc, "gfx90a:sramecc+").empty());
  CHECK(elf_label_mismatch(ecc, "gfx90a:sramecc+:xnack-").empty());
  CHECK(elf_label_mismatch(ecc, "gfx90a:sramecc-").find("sramecc on") != std::string::npos);
  CHECK(elf_label_mismatch(ecc, "gfx90a").find("does not say sramecc+") != std::string::npos);
  byte_io::store_u32(bytes.data() + 48, (flags & ~0xC00u) | 0x800u);
  CHECK(read_elf_target(bytes).arch() == "gfx90a:sramecc-");
  CHECK(elf_label_mismatch(read_elf_target(bytes), "gfx90a:sramecc+").find("sramecc off") != std::string::npos);
  // A target that does not support a feature cannot be labelled with it.
  byte_io::store_u32(bytes.data() + 48, flags & ~0xF00u);
  CHECK(elf_label_mismatch(read_elf_target(bytes), "gfx90a:xnack-").find("does not support xnack") != std::string::npos);
}

TEST_CASE("non-GPU and malformed ELF files are refused with a reason") {
  CHECK_THROWS_WITH_AS(read_elf_target({1, 2, 3}), doctest::Contains("not an ELF"), error);
  auto bytes = tp_test::slurp(artifacts / "vector_add/v0/cuda_sm_80.cubin");
  auto x86 = bytes;
  byte_io::store_u16(x86.data() + 18, 62);
  CHECK_THROWS_WITH_AS(read_elf_target(x86), doctest::Contains("e_machine is 62"), error);
  auto cut = bytes;
  cut.resize(200);  // the program and section headers now point past the end
  CHECK_THROWS_WITH_AS(read_elf_target(cut), doctest::Contains("past the end of the file (200 bytes)"), error);
  auto elf32 = bytes;
  elf32[4] = 1;
  CHECK_THROWS_WITH_AS(read_elf_target(elf32), doctest::Contains("ELFCLASS64"), error);
}

TEST_CASE("PTX directives and entries") {
  const auto text = tp_test::slurp(artifacts / "vector_add/v0/cuda_sm_90a.ptx");
  const ptx_module p = read_ptx(std::string_view(reinterpret_cast<const char*>(text.data()), text.size()));
  CHECK(p.version_major == 8);
  CHECK(p.version_minor == 7);
  CHECK(p.target == "sm_90a");
  REQUIRE(p.entries.size() == 1);
  CHECK(p.entries[0].name == "vector_add");
  CHECK(p.entries[0].params == 7);  // x, y, out, n, alpha + 2 scratch pointers
  CHECK_THROWS_WITH_AS(read_ptx(".target sm_80\n"), doctest::Contains(".version"), error);
  CHECK_THROWS_WITH_AS(read_ptx(".version 8.7\n"), doctest::Contains(".target"), error);
  CHECK(read_ptx("//\n.version 7.8\n.target sm_86, debug\n.visible .entry k()\n{\n\tret;\n}\n").target == "sm_86");
}

namespace {
std::string text_of(const std::vector<std::uint8_t>& b) { return std::string(b.begin(), b.end()); }

// The message read_x throws for `bytes`, or "" when it accepts them.
template <class F>
std::string refusal(F read) {
  try {
    read();
  } catch (const error& e) {
    return e.what();
  }
  return {};
}
}  // namespace

TEST_CASE("a cubin or code object cut short is refused, saying what runs past the end and by how much") {
  // The cubin's program headers are at its end (ptxas), the code object's at its start and its
  // section headers at its end (lld): every cut lands in something the check sees.
  for (const path& p : {artifacts / "vector_add/v0/cuda_sm_90a.cubin", artifacts / "vector_add/v0/hip_gfx942.hsaco",
                        artifacts / "matmul_f16/v0/cuda_sm_100a.cubin", data_dir / "ptxas13_sm_90a.cubin"}) {
    const auto whole = tp_test::slurp(p);
    REQUIRE_NOTHROW(read_elf_target(whole));
    for (const std::size_t keep : {whole.size() - 1, whole.size() - 30, whole.size() - 60, whole.size() * 9 / 10, whole.size() * 2 / 3,
                                   whole.size() / 2, whole.size() / 5, std::size_t{64}}) {
      CAPTURE(p.filename().string());
      CAPTURE(keep);
      auto cut = whole;
      cut.resize(keep);
      const std::string m = refusal([&] { (void)read_elf_target(cut); });
      CHECK_MESSAGE(m.find("past the end of the file (" + std::to_string(keep) + " bytes)") != std::string::npos, m);
      CHECK_MESSAGE(m.find("the file is truncated or corrupt; recompile the kernel") != std::string::npos, m);
    }
  }
  // The case reported: ptxas's cubin with its program headers cut (they start at 6784, 5 × 56).
  auto cubin = tp_test::slurp(artifacts / "vector_add/v0/cuda_sm_90a.cubin");
  cubin.resize(6800);
  CHECK(refusal([&] { (void)read_elf_target(cubin); })
            .find("ELF program header table (5 entries of 56 bytes) at offset 6784 (280 bytes) ends 264 bytes past the end of the file "
                  "(6800 bytes)") != std::string::npos);
}

TEST_CASE("corrupt ELF structure is refused: headers, sections, segments, the section-name table, symbol tables") {
  using byte_io::store_u16;
  using byte_io::store_u32;
  using byte_io::store_u64;
  const auto good = tp_test::slurp(artifacts / "vector_add/v0/cuda_sm_90a.cubin");
  const std::uint64_t shoff = byte_io::load_u64(good.data() + 0x28), phoff = byte_io::load_u64(good.data() + 32);
  auto sh = [&](unsigned i) { return static_cast<std::size_t>(shoff + 64 * i); };  // section header i
  struct edit {
    const char* expect;
    std::function<void(std::vector<std::uint8_t>&)> apply;
  } edits[] = {
      {"ELF EI_VERSION is 2", [](auto& b) { b[6] = 2; }},
      {"ELF e_ehsize is 52", [](auto& b) { store_u16(b.data() + 52, 52); }},
      {"ELF e_phentsize is 32", [](auto& b) { store_u16(b.data() + 54, 32); }},
      {"ELF e_shentsize is 40", [](auto& b) { store_u16(b.data() + 58, 40); }},
      {"ELF e_shstrndx is 99, the file has 17 sections", [](auto& b) { store_u16(b.data() + 62, 99); }},
      {"ELF e_shstrndx names section 3", [](auto& b) { store_u16(b.data() + 62, 3); }},
      {"ELF section 14 (type 0x1) at offset 7000 (896 bytes) ends 832 bytes past the end of the file (7064 bytes)",
       [&](auto& b) { store_u64(b.data() + sh(14) + 24, 7000); }},
      {"ELF segment 2 (type 0x1) at offset 4224 (100000 bytes)", [&](auto& b) { store_u64(b.data() + phoff + 2 * 56 + 32, 100000); }},
      {"ELF section 5's name is at offset 60000, past the end of the section-name table",
       [&](auto& b) { store_u32(b.data() + sh(5), 60000); }},
      {"ELF section 3 (.symtab): its string table (sh_link 4) is not a string table section",
       [&](auto& b) { store_u32(b.data() + sh(3) + 40, 4); }},
      {"ELF section 3 (.symtab): symbol entries of 16 bytes", [&](auto& b) { store_u64(b.data() + sh(3) + 56, 16); }},
      {"ELF section 3 (.symtab) is 263 bytes, not a whole number of 24-byte symbols", [&](auto& b) { store_u64(b.data() + sh(3) + 32, 263); }},
      {"ELF section 3 (.symtab): symbol 2's name is at offset 9999, past the end of its string table ELF section 2 (.strtab)",
       [&](auto& b) { store_u32(b.data() + byte_io::load_u64(b.data() + sh(3) + 24) + 2 * 24, 9999); }},
  };
  for (const edit& e : edits) {
    CAPTURE(e.expect);
    auto b = good;
    e.apply(b);
    const std::string m = refusal([&] { (void)read_elf_target(b); });
    CHECK_MESSAGE(m.find(e.expect) != std::string::npos, m);
    CHECK_MESSAGE(m.find("truncated or corrupt") != std::string::npos, m);
  }
}

TEST_CASE("a PTX cut short, with a body left open or with text after its last brace is refused") {
  const std::string ptx = text_of(tp_test::slurp(artifacts / "vector_add/v0/cuda_sm_90a.ptx"));
  auto read = [](const std::string& t) { return refusal([&] { (void)read_ptx(t); }); };
  REQUIRE(read(ptx).empty());
  // Every cut is refused, unless it falls where a module could end (right after a top-level '}').
  int refused = 0;
  for (std::size_t keep = 300; keep < ptx.size(); keep += 37) {
    CAPTURE(keep);
    const std::string cut = ptx.substr(0, keep);
    const std::string m = read(cut);
    const std::size_t last = cut.find_last_not_of(" \t\n");
    if (m.empty()) {
      CHECK(cut[last] == '}');
      continue;
    }
    ++refused;
    CHECK_MESSAGE(m.find("the file is truncated or corrupt; recompile the kernel") != std::string::npos, m);
  }
  CHECK(refused > 100);
  CHECK(read(ptx.substr(0, ptx.size() / 2)).find("PTX ends (line 89) inside the body of .entry vector_add opened at line 21") !=
        std::string::npos);
  CHECK(read(ptx.substr(0, 200)).find("PTX ends (line 10) before any .entry body") != std::string::npos);
  // The entry's closing brace missing: the body runs to the end of the file.
  std::string unclosed = ptx;
  unclosed.erase(unclosed.find("\n}\n") + 1, 2);
  CHECK(read(unclosed).find("inside the body of .entry vector_add opened at line 21: its '{' is not closed") != std::string::npos);
  CHECK(read(ptx + "}\n").find("PTX: the '}' at line 185 closes no block") != std::string::npos);
  CHECK(read(ptx + "garbage\x01\x02\n").find("PTX has \"garbage\x01\x02\" at line 185, after the last closing '}' (line 184)") !=
        std::string::npos);
  // Cut after the entry's body, in the middle of the debug sections' first directive: what follows
  // the body (the `.file` directive) is named.
  const std::string mid = ptx.substr(0, ptx.find(".section") + 8);
  CHECK(read(mid).find("PTX has \".file\t1 \"/work/main/tests/data/kernels.py\"\" at line 112, after the last closing '}' (line 111)") !=
        std::string::npos);
  // device_print's shape: a vprintf prototype and brace-initialised globals before the entry.
  const std::string globals = ".version 8.7\n.target sm_90\n.extern .func  (.param .b32 func_retval0) vprintf\n(\n.param .b64 a\n)\n;\n"
                              ".global .align 1 .b8 s[2] = {1, 2};\n";
  CHECK(read(globals + ".visible .entry k()\n{\n\tret;\n}\n").empty());
  CHECK(read(globals).find("PTX ends (line 9) before any .entry body") != std::string::npos);
  CHECK(read(globals.substr(0, globals.size() - 6)).find("PTX ends (line 8) inside a block opened at line 8") != std::string::npos);
  // Comments and strings are not structure.
  CHECK(read(ptx + "// }\n/* { */\n").empty());
  CHECK(read(".version 8.7\n.target sm_90\n.file 1 \"a{b.py\"\n.visible .entry k()\n{\n\tret;\n}\n").empty());
  CHECK(read(".version 8.7\n.target sm_90\n.func (.param .b32 r) f(\n.param .b32 a\n)\n{\n\tret;\n").find("the body of .func f") !=
        std::string::npos);
}

TEST_CASE("LLVM IR cut mid-line or inside a function body is refused") {
  const std::string ir = text_of(tp_test::slurp(artifacts / "vector_add/v0/hip_gfx942.llir"));
  auto read = [](const std::string& t) { return refusal([&] { (void)read_llir(t); }); };
  REQUIRE(read(ir).empty());
  const std::string mid_line = ir.substr(0, ir.size() / 2);
  CHECK(read(mid_line).find("LLVM IR ends in the middle of line") != std::string::npos);
  const std::string in_body = ir.substr(0, ir.find("\n}\n") + 1);  // every line up to the define's closing '}'
  CHECK(read(in_body).find("LLVM IR ends (line 32) inside the body of @vector_add (define at line 7): its '{' is not closed") !=
        std::string::npos);
  CHECK(read(in_body).find("truncated or corrupt") != std::string::npos);
  CHECK(read("").find("LLVM IR is empty") != std::string::npos);
}

TEST_CASE("pack refuses a truncated artifact naming the file") {
  struct cut_file {
    const char* file;
    std::size_t keep;
    const char* expect;
  } cuts[] = {{"vector_add/v0/cuda_sm_90a.cubin", 6800, "ELF program header table"},
              {"vector_add/v0/hip_gfx942.hsaco", 5000, "ELF section header table"},
              {"vector_add/v0/cuda_sm_80.ptx", 2500, "PTX ends"},
              {"vector_add/v0/hip_gfx90a.llir", 2000, "LLVM IR ends in the middle of line"}};
  int n = 0;
  for (const cut_file& c : cuts) {
    CAPTURE(c.file);
    const std::string e = mislabel("cut" + std::to_string(++n), [&](nlohmann::json&, const path& dir) {
      auto b = tp_test::slurp(dir / c.file);
      REQUIRE(b.size() > c.keep);
      b.resize(c.keep);
      tp_test::spit(dir / c.file, b);
    });
    CHECK_MESSAGE(e.find(std::string(c.file) + " (kernels[0].variants[0].images[") != std::string::npos, e);
    CHECK_MESSAGE(e.find(c.expect) != std::string::npos, e);
    CHECK_MESSAGE(e.find("the file is truncated or corrupt; recompile the kernel to regenerate it") != std::string::npos, e);
  }
}

TEST_CASE("LLVM IR triple and kernels") {
  const auto text = tp_test::slurp(artifacts / "vector_add/v0/hip_gfx942.llir");
  const llir_module l = read_llir(std::string_view(reinterpret_cast<const char*>(text.data()), text.size()));
  CHECK(l.triple == "amdgcn-amd-amdhsa");
  REQUIRE(!l.kernels.empty());
  CHECK(l.kernels[0] == "vector_add");
}

TEST_CASE("the fixture manifest loads; every image is checked and ordered binaries first") {
  const loaded_manifest m = load_manifest(artifacts / "manifest.json");
  CHECK(m.info.name == "fixtures");
  CHECK(m.info.kernels.size() == 3);
  CHECK(m.info.images.size() == m.image_bytes.size());
  CHECK(m.info.images.size() == 70);
  for (std::size_t i = 0; i < m.info.images.size(); ++i) {
    CAPTURE(m.image_files[i]);
    CHECK(m.image_bytes[i] == tp_test::slurp(artifacts / m.image_files[i]));
    if (m.info.images[i].kind == image_kind::ptx) CHECK(m.info.images[i].ptx_version >= 87);
  }
  // Within a kernel: cuda binaries, cuda IR, hip binaries, hip IR.
  const auto& first = m.info.images;
  CHECK(first[0].kind == image_kind::cubin);
  const variant_info& v0 = m.info.kernels[0].variants[0];
  CHECK(is_binary(m.info.images[v0.images.front()].kind));
  CHECK(!is_binary(m.info.images[v0.images.back()].kind));
  // Launch facts from the metadata JSON.
  CHECK(m.info.images[0].launch.entry == "vector_add");
  CHECK(m.info.images[0].launch.num_warps == 4);
  CHECK(m.info.images[0].launch.warp_size == 32);
}

TEST_CASE("--mode narrows to binaries or IR and never widens") {
  load_options bin;
  bin.mode_given = true;
  bin.mode = pack_mode::binary;
  const loaded_manifest b = load_manifest(artifacts / "manifest.json", bin);
  CHECK(!b.info.images.empty());
  for (const image_info& im : b.info.images) CHECK(is_binary(im.kind));
  load_options ir = bin;
  ir.mode = pack_mode::ir;
  const loaded_manifest i = load_manifest(artifacts / "manifest.json", ir);
  CHECK(!i.info.images.empty());
  for (const image_info& im : i.info.images) CHECK(!is_binary(im.kind));
  CHECK(b.info.images.size() + i.info.images.size() == 70);

  const std::string err = mislabel("widen", [](nlohmann::json& m, const path&) { m["mode"] = "binary"; });
  CHECK(err.empty());
  const path dir = path(TP_WORK) / "widen";
  load_options both;
  both.mode_given = true;
  both.mode = pack_mode::both;
  CHECK(load_error(dir / "manifest.json", both).find("would widen") != std::string::npos);
}

TEST_CASE("mislabelled artifacts are refused naming the file, what it says and what the manifest says") {
  SUBCASE("cubin sm_80 labelled sm_90a") {
    const std::string e = mislabel("m1", [](nlohmann::json& m, const path&) { find_image(m, "vector_add/v0/cuda_sm_80.cubin")["arch"] = "sm_90a"; });
    CHECK(e.find("vector_add/v0/cuda_sm_80.cubin") != std::string::npos);
    CHECK(e.find("sm_80") != std::string::npos);
    CHECK(e.find("sm_90a") != std::string::npos);
  }
  SUBCASE("arch-specific cubin labelled without the a") {
    const std::string e = mislabel("m2", [](nlohmann::json& m, const path&) { find_image(m, "vector_add/v0/cuda_sm_90a.cubin")["arch"] = "sm_90"; });
    CHECK(e.find("says sm_90a") != std::string::npos);
    CHECK(e.find("label says sm_90") != std::string::npos);
  }
  SUBCASE("code object gfx90a labelled gfx942") {
    const std::string e = mislabel("m3", [](nlohmann::json& m, const path&) { find_image(m, "vector_add/v0/hip_gfx90a.hsaco")["arch"] = "gfx942"; });
    CHECK(e.find("hip_gfx90a.hsaco") != std::string::npos);
    CHECK(e.find("gfx90a") != std::string::npos);
    CHECK(e.find("gfx942") != std::string::npos);
  }
  SUBCASE("a cubin declared as a HIP code object") {
    const std::string e = mislabel("m4", [](nlohmann::json&, const path& dir) {
      tp_test::fs::copy_file(dir / "vector_add/v0/cuda_sm_80.cubin", dir / "vector_add/v0/hip_gfx942.hsaco",
                             tp_test::fs::copy_options::overwrite_existing);
    });
    CHECK(e.find("hip_gfx942.hsaco") != std::string::npos);
    CHECK(e.find("e_machine is 190 (EM_CUDA)") != std::string::npos);
    CHECK(e.find("224 (hsaco)") != std::string::npos);
  }
  SUBCASE("PTX with another .target") {
    const std::string e = mislabel("m5", [](nlohmann::json& m, const path&) { find_image(m, "vector_add/v0/cuda_sm_80.ptx")["arch"] = "sm_86"; });
    CHECK(e.find(".target is sm_80") != std::string::npos);
    CHECK(e.find("arch is sm_86") != std::string::npos);
  }
  SUBCASE("PTX with another .version") {
    const std::string e = mislabel("m6", [](nlohmann::json& m, const path&) { find_image(m, "vector_add/v0/cuda_sm_80.ptx")["ptx_version"] = "8.6"; });
    CHECK(e.find(".version is 8.7") != std::string::npos);
    CHECK(e.find("8.6") != std::string::npos);
  }
  SUBCASE("metadata naming a kernel the binary does not have") {
    const std::string e = mislabel("m7", [](nlohmann::json&, const path& dir) {
      nlohmann::json md = tp_test::load_json(dir / "vector_add/v0/cuda_sm_80.json");
      md["name"] = "not_there";
      tp_test::spit(dir / "vector_add/v0/cuda_sm_80.json", md.dump());
    });
    CHECK(e.find("no symbol not_there") != std::string::npos);
  }
  SUBCASE("a file that is not ELF at all") {
    const std::string e = mislabel("m8", [](nlohmann::json&, const path& dir) { tp_test::spit(dir / "vector_add/v0/cuda_sm_90a.cubin", std::string("hello")); });
    CHECK(e.find("cuda_sm_90a.cubin") != std::string::npos);
    CHECK(e.find("not an ELF") != std::string::npos);
  }
  SUBCASE("kernel_params that disagree with the specs") {
    const std::string e = mislabel("m9", [](nlohmann::json& m, const path&) { m["kernels"][0]["variants"][0]["kernel_params"] = {"x", "y"}; });
    CHECK(e.find("kernels[0].variants[0].kernel_params") != std::string::npos);
  }
  SUBCASE("an xnack-on code object labelled without xnack") {
    const std::string e = mislabel("m10", [](nlohmann::json&, const path& dir) {
      auto b = tp_test::slurp(dir / "vector_add/v0/hip_gfx90a.hsaco");
      byte_io::store_u32(b.data() + 48, (byte_io::load_u32(b.data() + 48) & ~0x300u) | 0x300u);
      tp_test::spit(dir / "vector_add/v0/hip_gfx90a.hsaco", b);
    });
    CHECK(e.find("xnack on") != std::string::npos);
  }
  SUBCASE("an sramecc-on code object labelled sramecc-") {
    const std::string e = mislabel("m10e", [](nlohmann::json& m, const path& dir) {
      auto b = tp_test::slurp(dir / "vector_add/v0/hip_gfx90a.hsaco");
      byte_io::store_u32(b.data() + 48, (byte_io::load_u32(b.data() + 48) & ~0xC00u) | 0xC00u);
      tp_test::spit(dir / "vector_add/v0/hip_gfx90a.hsaco", b);
      find_image(m, "vector_add/v0/hip_gfx90a.hsaco")["arch"] = "gfx90a:sramecc-";
    });
    CHECK(e.find("sramecc on") != std::string::npos);
  }
  SUBCASE("PTX whose parameter count differs from the args") {
    const std::string e = mislabel("m11", [](nlohmann::json& m, const path&) {
      auto& k = m["kernels"][0];
      k["args"].push_back({{"name", "extra"}, {"type", "i32"}});
      for (auto& v : k["variants"]) {
        v["specs"].push_back({{"kind", "none"}});
        v["kernel_params"].push_back("extra");
      }
    });
    CHECK(e.find("takes 7 parameters") != std::string::npos);
  }
}

TEST_CASE("manifest shape errors name the JSON path") {
  CHECK(mislabel("s1", [](nlohmann::json& m, const path&) { m["schema"] = "other"; }).find("schema is \"other\"") != std::string::npos);
  CHECK(mislabel("s2", [](nlohmann::json& m, const path&) { m["version"] = 2; }).find("version 2 is not supported") != std::string::npos);
  CHECK(mislabel("s3", [](nlohmann::json& m, const path&) { m["kernels"][0]["variants"][1]["images"][0].erase("arch"); })
            .find("kernels[0].variants[1].images[0].arch") != std::string::npos);
  CHECK(mislabel("s4", [](nlohmann::json& m, const path&) { m["kernels"][1]["args"][0]["type"] = 5; })
            .find("kernels[1].args[0].type must be a string") != std::string::npos);
  CHECK(mislabel("s5", [](nlohmann::json& m, const path&) { m["kernels"][0]["variants"][0]["specs"][0]["kind"] = "div8"; })
            .find("kernels[0].variants[0].specs[0].kind") != std::string::npos);
  CHECK(mislabel("s6", [](nlohmann::json& m, const path&) { m["kernels"][0]["variants"][0]["images"][0]["file"] = "missing.cubin"; })
            .find("missing.cubin") != std::string::npos);
  const path dir = tp_test::copy_artifacts("s7");
  tp_test::spit(dir / "manifest.json", std::string("{ not json"));
  CHECK(load_error(dir / "manifest.json").find("not valid JSON") != std::string::npos);
}

}  // namespace cli_artifacts_tests
