// Triton 3.6's AMD launch ABI as arithmetic, without a GPU or a runtime: block size, kernarg
// layout against docs/hip-abi.md's examples, the gfx name's verification against the
// attributes, and every code object in tests/data against its own .amdhsa.kernels note (read with
// llvm-readelf, independently of the test-double HIP runtime's reader).
#include <doctest/doctest.h>

#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <sstream>

#include <tritonpack/hip/launch_abi.hpp>

#include "test_util.hpp"

using namespace tritonpack;

TEST_CASE("Triton's wavefront size by gfx major: 64 on CDNA/GCN, 32 on RDNA (hip-abi.md §1.3)") {
  CHECK(hip::triton_wavefront_size(*parse_amd_arch("gfx90a")) == 64);
  CHECK(hip::triton_wavefront_size(*parse_amd_arch("gfx942:sramecc+:xnack-")) == 64);
  CHECK(hip::triton_wavefront_size(*parse_amd_arch("gfx950")) == 64);
  CHECK(hip::triton_wavefront_size(*parse_amd_arch("gfx908")) == 64);
  CHECK(hip::triton_wavefront_size(*parse_amd_arch("gfx1030")) == 32);
  CHECK(hip::triton_wavefront_size(*parse_amd_arch("gfx1100")) == 32);
  CHECK(hip::triton_wavefront_size(*parse_amd_arch("gfx1201")) == 32);
}

TEST_CASE("HIP block = num_warps x wavefront size, refused when the metadata's warp_size disagrees with the target") {
  launch_info li;
  li.warp_size = 64;
  li.num_warps = 4;
  std::string why;
  CHECK(hip::block_size(li, *parse_amd_arch("gfx942"), why) == 256);
  li.num_warps = 8;
  CHECK(hip::block_size(li, *parse_amd_arch("gfx90a"), why) == 512);
  li.warp_size = 32;
  CHECK(hip::block_size(li, *parse_amd_arch("gfx1100"), why) == 256);
  CHECK(hip::block_size(li, *parse_amd_arch("gfx942"), why) == 0);
  CHECK(why == "its metadata says warp_size 32 but Triton compiles gfx942 with wavefront size 64");
}

TEST_CASE("HIP kernarg layout: natural alignment, the fact sheet's axpy, mixed_scalars and matmul_f16") {
  // axpy: *fp32 x3, fp32 alpha, i32 n, 2 scratch pointers -> 48 bytes (hip-abi.md §4.2).
  auto axpy = hip::layout_kernargs({8, 8, 8, 4, 4, 8, 8});
  CHECK(axpy.offsets == std::vector<std::uint32_t>{0, 8, 16, 24, 28, 32, 40});
  CHECK(axpy.size == 48);
  // mixed_scalars: *fp64, i64, fp16, bf16, fp64, i1, i32, scratch x2 -> 56 bytes, padding after bf16 and i1.
  auto mixed = hip::layout_kernargs({8, 8, 2, 2, 8, 1, 4, 8, 8});
  CHECK(mixed.offsets == std::vector<std::uint32_t>{0, 8, 16, 18, 24, 32, 36, 40, 48});
  CHECK(mixed.size == 56);
  // matmul_f16: 3 pointers, 9 i32 at 24..60, scratch at 64 and 72 -> 80 bytes.
  std::vector<std::uint32_t> mm = {8, 8, 8};
  mm.insert(mm.end(), 9, 4);
  mm.insert(mm.end(), {8, 8});
  auto matmul = hip::layout_kernargs(mm);
  CHECK(matmul.offsets[3] == 24);
  CHECK(matmul.offsets[11] == 56);
  CHECK(matmul.offsets[12] == 64);
  CHECK(matmul.offsets[13] == 72);
  CHECK(matmul.size == 80);
}

TEST_CASE("gfx name from a device-properties struct: used only when the attributes confirm it") {
  char field[256] = "gfx942:sramecc+:xnack-";
  auto a = hip::verified_gfx_name(field, sizeof field, 9, 4);
  REQUIRE(a);
  CHECK(a->str() == "gfx942:sramecc+:xnack-");
  CHECK(hip::verified_gfx_name(field, sizeof field, 9, 0) == std::nullopt);   // another minor: wrong layout
  CHECK(hip::verified_gfx_name(field, sizeof field, 11, 4) == std::nullopt);  // another major
  std::strcpy(field, "gfx90a:sramecc-:xnack+");
  CHECK(hip::verified_gfx_name(field, sizeof field, 9, 0)->processor == "gfx90a");
  std::strcpy(field, "gfx1100");
  CHECK(hip::verified_gfx_name(field, sizeof field, 11, 0));
  std::memset(field, 'Z', sizeof field);  // no NUL within the field
  CHECK(hip::verified_gfx_name(field, sizeof field, 9, 4) == std::nullopt);
  std::strcpy(field, "AMD Instinct MI300X");  // the marketing name is not a gfx name
  CHECK(hip::verified_gfx_name(field, sizeof field, 9, 4) == std::nullopt);
}

namespace runtime_hip_abi_tests {  // this file's own names (the test binary is a unity build)
namespace {
// The .amdhsa.kernels facts of one code object, read with llvm-readelf --notes (LLVM prints the
// msgpack note as YAML; the base image has llvm-14).
struct hsaco_kernel {
  std::vector<std::uint32_t> offsets, sizes;
  std::vector<std::string> kinds;
  long kernarg_size = -1, wavefront = -1, max_workgroup = -1;
  std::string name;
};

const char* readelf_tool() {
  for (const char* t : {"/usr/bin/llvm-readelf-14", "/usr/bin/llvm-readelf-19", "/usr/bin/llvm-readelf"})
    if (access(t, X_OK) == 0) return t;
  return nullptr;
}

hsaco_kernel read_hsaco_metadata(const std::vector<std::uint8_t>& image) {
  const std::string dir = tptest::make_temp_dir("tp-hsaco");
  const std::string path = dir + "/k.hsaco";
  std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(image.data()), static_cast<std::streamsize>(image.size()));
  const std::string cmd = std::string(readelf_tool()) + " --notes " + path;
  FILE* p = popen(cmd.c_str(), "r");
  REQUIRE(p);
  std::string yaml;
  char buf[4096];
  while (std::size_t n = std::fread(buf, 1, sizeof buf, p)) yaml.append(buf, n);
  pclose(p);
  tptest::remove_tree(dir);
  hsaco_kernel k;
  std::istringstream in(yaml);
  std::string line;
  auto value = [](const std::string& l) { return l.substr(l.find(':') + 1); };
  while (std::getline(in, line)) {
    const auto key = line.find_first_not_of(" -");
    if (key == std::string::npos) continue;
    const std::string t = line.substr(key);
    if (t.rfind(".offset:", 0) == 0) k.offsets.push_back(static_cast<std::uint32_t>(std::stoul(value(t))));
    else if (t.rfind(".size:", 0) == 0) k.sizes.push_back(static_cast<std::uint32_t>(std::stoul(value(t))));
    else if (t.rfind(".value_kind:", 0) == 0) k.kinds.push_back(value(t).substr(value(t).find_first_not_of(' ')));
    else if (t.rfind(".kernarg_segment_size:", 0) == 0) k.kernarg_size = std::stol(value(t));
    else if (t.rfind(".wavefront_size:", 0) == 0) k.wavefront = std::stol(value(t));
    else if (t.rfind(".max_flat_workgroup_size:", 0) == 0) k.max_workgroup = std::stol(value(t));
    else if (t.rfind(".name:", 0) == 0) k.name = value(t).substr(value(t).find_first_not_of(' '));
  }
  return k;
}
}  // namespace

TEST_CASE("HIP: every code object in tests/data takes exactly the kernargs the run time passes (its .amdhsa.kernels note)") {
  if (!readelf_tool()) {
    FAIL_CHECK("no llvm-readelf (package llvm-14) to read the code objects' metadata notes");
    return;
  }
  const auto& bytes = tptest::fixture_container();
  const container c = container::parse(bytes.data(), bytes.size());
  const container_info& info = c.info();
  int checked = 0;
  for (std::size_t ki = 0; ki < info.kernels.size(); ++ki) {
    const kernel_info& k = c.kernel(ki);
    for (const variant_info& v : k.variants)
      for (std::uint32_t idx : v.images) {
        const image_info& im = info.images[idx];
        if (im.backend != backend_kind::hip || im.kind != image_kind::hsaco) continue;
        CAPTURE(k.name);
        CAPTURE(im.arch);
        const hsaco_kernel meta = read_hsaco_metadata(c.decode_image(idx));
        const param_plan plan = build_param_plan(k, v, im.launch);
        const hip::kernarg_layout layout = hip::layout_kernargs(plan.param_sizes);
        CHECK(meta.name == im.launch.entry);
        REQUIRE(meta.sizes.size() == meta.offsets.size());
        REQUIRE(meta.kinds.size() == meta.offsets.size());
        // Explicit arguments only: hidden_* ones are the runtime's to fill (hip-abi.md §4.2).
        std::vector<std::uint32_t> offsets, sizes;
        for (std::size_t i = 0; i < meta.kinds.size(); ++i)
          if (meta.kinds[i].rfind("hidden_", 0) != 0) offsets.push_back(meta.offsets[i]), sizes.push_back(meta.sizes[i]);
        CHECK(sizes == plan.param_sizes);
        CHECK(offsets == layout.offsets);
        REQUIRE(meta.kinds.size() >= 2);
        CHECK(meta.kinds[sizes.size() - 1] == "global_buffer");  // profile scratch
        CHECK(meta.kinds[sizes.size() - 2] == "global_buffer");  // global scratch
        CHECK(meta.kernarg_size >= static_cast<long>(layout.size));
        if (sizes.size() == meta.kinds.size()) CHECK(meta.kernarg_size == static_cast<long>(layout.size));
        std::string why;
        const std::uint32_t block = hip::block_size(im.launch, *parse_amd_arch(im.arch), why);
        CHECK(meta.wavefront == static_cast<long>(im.launch.warp_size));
        CHECK(meta.max_workgroup >= static_cast<long>(block));
        ++checked;
      }
  }
  CHECK(checked >= 12);
}

}  // namespace runtime_hip_abi_tests
