// The AMD IR path (hip/ir_jit.hpp, hip/comgr.hpp): against Debian's real comgr 2.4 (ROCm 5.2.3, LLVM
// 15) — its version, its ISA list, a success on IR its LLVM reads, and the one-line failure on
// Triton 3.6's LLVM 22 IR — and, for the success path no real comgr here reaches, against the
// test-double comgr (fake_comgr/) with the test-double HIP checking the launch.
//
// Each case runs in a child process: comgr is loaded once per process (as the driver is), and the
// cases need different ones; the real comgr's LLVM also keeps never-freed state that is not this
// test's to judge (LeakSanitizer).
#include <doctest/doctest.h>

#include <unistd.h>

#include <fstream>
#include <iterator>

#include "hip_test_util.hpp"
#include "tritonpack/hip/ir_jit.hpp"

using namespace tritonpack;
using tphip::hip_setup;
using tphip::in_child;
using tptest::contains;

namespace runtime_hip_ir_jit_tests {  // this file's own names (the test binary is a unity build)
namespace {

constexpr const char* debian_comgr = "/usr/lib/x86_64-linux-gnu/libamd_comgr.so.2";

std::vector<std::uint8_t> read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw std::runtime_error("cannot read " + path);
  return std::vector<std::uint8_t>(std::istreambuf_iterator<char>(f), {});
}

bool have_debian_comgr() {
  if (access(debian_comgr, R_OK) == 0) return true;
  FAIL_CHECK("libamd-comgr2 is not installed: run scripts/setup.sh (it installs the test packages)");
  return false;
}

// The error a fixture launch on `devices` (fake HIP) raises, as "code|message", or "launched".
std::string launch_outcome(const char* devices) {
  tptest::setup("none");
  hip_setup s(devices);
  const auto& bytes = tptest::fixture_container();
  library lib(bytes.data(), bytes.size());
  try {
    tphip::vector_add_arrays a;
    a.launch(lib, 16, 1.0f);
  } catch (const error& e) {
    return std::string(errc_name(e.code())) + "|" + e.what();
  }
  // The double's counts start at zero with each configuration (hip_setup).
  return "launched " + std::to_string(tphip::fake_hip::get().launch_count()) + ", refused " +
         std::to_string(tphip::fake_hip::get().rejected_launch_count());
}

}  // namespace

TEST_CASE("Debian's comgr 2.4: version, ISA list, and a code object from IR its LLVM 15 reads") {
  if (!have_debian_comgr()) return;
  const std::string got = in_child([] {
    tptest::env_guard lib("TRITONPACK_COMGR_LIBRARY", debian_comgr);
    std::string why;
    auto c = comgr::library::load(why);
    if (!c) return "no comgr: " + why;
    const auto ir = read_file(TP_COMGR_SIMPLE_LL);
    const auto code = c->compile(ir, "gfx90a:sramecc+:xnack-", why);
    // An AMDGPU ELF: magic, e_machine 224 (EM_AMDGPU), OS/ABI 64 (AMDGPU HSA).
    const bool elf = code.size() > 20 && code[0] == 0x7f && code[1] == 'E' && code[7] == 64 && code[18] == 224 && code[19] == 0;
    return c->describe() + "|" + (c->knows_processor("gfx90a") ? "gfx90a" : "-") + "|" +
           (c->knows_processor("gfx942") ? "gfx942" : "-") + "|" + c->newest_isa() + "|" + (elf ? "elf" : "not elf: " + why);
  });
  CHECK(got == std::string("comgr 2.4 (") + debian_comgr + ")|gfx90a|-|gfx1036|elf");
}

TEST_CASE("Debian's comgr 2.4 on Triton 3.6's LLVM 22 IR: one clear line, the parser's first error") {
  if (!have_debian_comgr()) return;
  const std::string got = in_child([] {
    tptest::env_guard lib("TRITONPACK_COMGR_LIBRARY", debian_comgr);
    std::string why;
    auto c = comgr::library::load(why);
    if (!c) return "no comgr: " + why;
    const auto ir = read_file(std::string(TP_ARTIFACTS_DIR) + "/vector_add/v0/hip_gfx90a.llir");
    const auto code = c->compile(ir, "gfx90a", why);
    return (code.empty() ? std::string("failed|") : std::string("compiled|")) + why;
  });
  CAPTURE(got);
  CHECK(got.rfind("failed|comgr 2.4 (", 0) == 0);
  CHECK(contains(got, "): code generation from the LLVM IR failed: ERROR (1): kernel.ll:7:71: error: expected ')' at end of "
                      "argument list"));
  CHECK(got.find('\n') == std::string::npos);  // one line
}

TEST_CASE("AMD IR through the run time: each reason it cannot be compiled, in one line after the selection report") {
  if (!have_debian_comgr()) return;
  tptest::env_guard force("TRITONPACK_FORCE_IR", "1");
  SUBCASE("Debian's comgr, gfx90a: its LLVM cannot read the IR") {
    const std::string got = in_child([] {
      tptest::env_guard lib("TRITONPACK_COMGR_LIBRARY", debian_comgr);
      return launch_outcome("gfx90a:sramecc+:xnack-");
    });
    CAPTURE(got);
    CHECK(got.rfind("no_image|", 0) == 0);
    CHECK(contains(got, "refused: [")); // the selection report comes first
    CHECK(contains(got, "\n  llir gfx90a cannot be JIT-compiled here: comgr 2.4 (" + std::string(debian_comgr) +
                            "): code generation from the LLVM IR failed: ERROR (1): kernel.ll:7:71: error: expected ')' at end "
                            "of argument list (this comgr's LLVM is older than the LLVM 22 Triton 3.6 wrote the IR with; use "
                            "the code objects)"));
  }
  SUBCASE("Debian's comgr, gfx942: the ISA is unknown to it") {
    const std::string got = in_child([] {
      tptest::env_guard lib("TRITONPACK_COMGR_LIBRARY", debian_comgr);
      return launch_outcome("gfx942:sramecc+:xnack-");
    });
    CAPTURE(got);
    CHECK(got.rfind("no_image|", 0) == 0);
    CHECK(contains(got, "\n  llir gfx942 cannot be JIT-compiled here: comgr 2.4 (" + std::string(debian_comgr) +
                            ") does not know gfx942 (its newest ISA is gfx1036): it is older than this GPU"));
  }
  SUBCASE("no comgr at all") {
    const std::string got = in_child([] {
      tptest::env_guard lib("TRITONPACK_COMGR_LIBRARY", "/nonexistent/libamd_comgr.so");
      return launch_outcome("gfx942:sramecc+:xnack-");
    });
    CAPTURE(got);
    CHECK(got.rfind("no_image|", 0) == 0);
    CHECK(contains(got, "\n  llir gfx942 cannot be JIT-compiled here: no AMD comgr library (/nonexistent/libamd_comgr.so: "));
    CHECK(contains(got, "; TRITONPACK_COMGR_LIBRARY names this path"));
  }
  SUBCASE("no IR for this processor: the selection report alone, no JIT line") {
    const std::string got = in_child([] {
      tptest::env_guard lib("TRITONPACK_COMGR_LIBRARY", debian_comgr);
      return launch_outcome("gfx1100");
    });
    CAPTURE(got);
    CHECK(got.rfind("no_image|", 0) == 0);
    CHECK(!contains(got, "cannot be JIT-compiled"));
  }
}

TEST_CASE("AMD IR through the run time with a comgr that reads it (the double): compiled, cached, launched and checked") {
  const std::string dir = tptest::make_temp_dir("tp-amdjit");
  const std::string got = in_child([&] {
    tptest::env_guard lib("TRITONPACK_COMGR_LIBRARY", TP_FAKE_COMGR_PATH);
    tptest::env_guard art("TP_FAKE_COMGR_ARTIFACTS", TP_ARTIFACTS_DIR);
    tptest::env_guard cache("TRITONPACK_CACHE_DIR", dir.c_str());
    tptest::env_guard force("TRITONPACK_FORCE_IMAGE", "llir:gfx942");
    void* h = dlopen(TP_FAKE_COMGR_PATH, RTLD_NOW | RTLD_LOCAL);
    if (!h) return std::string("cannot open the fake comgr");
    auto compiles = reinterpret_cast<std::size_t (*)()>(dlsym(h, "tpfakecomgr_compile_count"));
    std::string out;
    // The second library loads from the disk cache; the third runs on a GPU of the same gfx with
    // xnack on, whose code object the cache must not hand back (its key is the device's full
    // target, features included, not the IR's gfx name).
    for (const char* device : {"gfx942:sramecc+:xnack-", "gfx942:sramecc+:xnack-", "gfx942:sramecc+:xnack+"}) {
      const auto before = image_loads();
      const std::string r = launch_outcome(device);
      const auto after = image_loads();
      out += r + "; compiled " + std::to_string(after.jit_compiled - before.jit_compiled) + ", cache " +
             std::to_string(after.jit_cache_hits - before.jit_cache_hits) + ", binaries " +
             std::to_string(after.binaries - before.binaries) + ", comgr " + std::to_string(compiles()) + "\n";
    }
    return out;
  });
  CHECK(got ==
        "launched 1, refused 0; compiled 1, cache 0, binaries 0, comgr 1\n"
        "launched 1, refused 0; compiled 0, cache 1, binaries 0, comgr 1\n"
        "launched 1, refused 0; compiled 1, cache 0, binaries 0, comgr 2\n");
  std::system(("rm -rf '" + dir + "'").c_str());
}

TEST_CASE("the double comgr refuses IR written for another processor, as a real one would fail to make it run") {
  const std::string got = in_child([] {
    tptest::env_guard lib("TRITONPACK_COMGR_LIBRARY", TP_FAKE_COMGR_PATH);
    tptest::env_guard art("TP_FAKE_COMGR_ARTIFACTS", TP_ARTIFACTS_DIR);
    tptest::env_guard cache("TRITONPACK_CACHE", "0");
    std::string why;
    auto c = comgr::library::load(why);
    if (!c) return "no comgr: " + why;
    // matmul_f16 variant 2's IR differs between gfx90a and gfx942 (vector_add's is byte-identical:
    // Triton's IR names no target CPU).
    const auto ir = read_file(std::string(TP_ARTIFACTS_DIR) + "/matmul_f16/v2/hip_gfx90a.llir");
    const auto code = c->compile(ir, "gfx942", why);
    return code.empty() ? why : std::string("compiled");
  });
  CHECK(got == std::string("comgr 3.0 (") + TP_FAKE_COMGR_PATH +
                   "): code generation from the LLVM IR failed: ERROR (1): kernel.ll:1:1: error: fake comgr: this IR was "
                   "written for gfx90a, not gfx942");
}

TEST_CASE("AMD IR of Triton 3.8 and later through the run time: a JIT-compiled kernel gets its global scratch too") {
  const std::string got = in_child([] {
    tptest::env_guard lib("TRITONPACK_COMGR_LIBRARY", TP_FAKE_COMGR_PATH);
    tptest::env_guard art("TP_FAKE_COMGR_ARTIFACTS", TP_ARTIFACTS_DIR);
    tptest::env_guard cache("TRITONPACK_CACHE", "0");
    tptest::env_guard force("TRITONPACK_FORCE_IMAGE", "llir:gfx942");
    tptest::setup("none");
    hip_setup s;
    // vector_add's gfx942 IR relabelled: built by Triton 3.8.0, 512 bytes of global scratch per program.
    auto m = pack::load_manifest(std::string(TP_ARTIFACTS_DIR) + "/manifest.json");
    for (image_info& im : m.info.images)
      if (im.kind == image_kind::llir && im.arch == "gfx942") {
        im.launch.triton_version = "3.8.0";
        im.launch.global_scratch_size = 512;
        im.launch.global_scratch_align = 64;
      }
    const auto bytes = pack::write_container(m.info, m.image_bytes);
    library l(bytes.data(), bytes.size());
    tphip::vector_add_arrays a;
    l.get("vector_add").launch(nullptr, {7, 1, 1}, static_cast<const float*>(a.x.data()), static_cast<const float*>(a.y.data()),
                               a.out.data(), 16, 1.0f);
    auto& h = tphip::fake_hip::get();
    void* p = tphip::global_scratch_of(h.last_launch());
    const std::size_t room = h.allocation_bytes_from(p);
    return std::string(image_loads().jit_compiled == 1 ? "jit" : "not jit") + ", scratch " + (p ? "set" : "null") +
           (room >= 7 * 512 && room < 8 * 512 ? ", 7 programs" : ", " + std::to_string(room) + " bytes") +
           (reinterpret_cast<std::uintptr_t>(p) % 64 == 0 ? ", aligned" : ", misaligned");
  });
  CHECK(got == "jit, scratch set, 7 programs, aligned");
}

}  // namespace runtime_hip_ir_jit_tests
