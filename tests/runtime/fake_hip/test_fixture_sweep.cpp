// Every kernel and variant in tests/data launched the way Triton 3.6's AMD launcher launches it,
// built from the manifest and the image's metadata JSON alone (hip-abi.md §1): the variant's
// kernel_params with their storage sizes (§1.1), then the two NULL scratch pointers; block =
// num_warps x warp_size; dynamic LDS = "shared". Both argument forms must pass the double's
// metadata checks, and the extra buffer packed at natural alignment (the layout rule of §4.2) must
// be byte for byte what the kernelParams form put in kernarg memory. This is where the fact sheet's
// ABI meets the code objects' own metadata, for each fixture hsaco.
#include <doctest/doctest.h>

#include <cstring>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

#include "fake_hip/test_util.hpp"

using namespace tphiptest;
using json = nlohmann::json;

namespace {

// Storage size of a Triton type in the launcher (§1.1): pointers 8, then by width.
std::size_t storage_size(const std::string& t) {
  if (t[0] == '*') return 8;
  static const std::map<std::string, std::size_t> sizes = {
      {"i1", 1},  {"u1", 1},  {"i8", 1},   {"u8", 1},   {"i16", 2},  {"u16", 2},  {"fp16", 2}, {"bf16", 2},
      {"i32", 4}, {"u32", 4}, {"fp32", 4}, {"f32", 4},  {"i64", 8},  {"u64", 8},  {"fp64", 8}};
  auto it = sizes.find(t);
  if (it == sizes.end()) FAIL("type not in the launcher's table: " << t);
  return it->second;
}

json read_json(const std::string& path) {
  std::ifstream f(path);
  REQUIRE_MESSAGE(f.good(), "cannot read " << path);
  return json::parse(f);
}

}  // namespace

TEST_CASE("fake HIP: every fixture hsaco accepts Triton 3.6's launch built from the manifest alone") {
  hip& h = fake();
  const json manifest = read_json(std::string(TP_ARTIFACTS_DIR) + "/manifest.json");
  std::size_t checked = 0;
  for (const auto& kernel : manifest.at("kernels")) {
    std::map<std::string, std::string> type_of;
    for (const auto& a : kernel.at("args")) type_of[a.at("name")] = a.at("type");
    for (const auto& variant : kernel.at("variants")) {
      for (const auto& image : variant.at("images")) {
        if (image.at("backend") != "hip" || image.at("kind") != "hsaco") continue;
        const std::string arch = image.at("arch");
        const json meta = read_json(std::string(TP_ARTIFACTS_DIR) + "/" + image.at("metadata").get<std::string>());
        INFO(image.at("file").get<std::string>());
        h.tpfakehip_configure((arch + ":sramecc+:xnack-").c_str(), 0, "", "");
        const auto hsaco = artifact(image.at("file"));
        hipModule_t m = nullptr;
        hipFunction_t fn = nullptr;
        REQUIRE(h.hipModuleLoadData(&m, hsaco.data()) == 0);
        REQUIRE(h.hipModuleGetFunction(&fn, m, meta.at("name").get<std::string>().c_str()) == 0);

        // Argument storage, one 8-byte slot per parameter (values by type), and the packed buffer.
        std::vector<std::uint64_t> storage;
        std::vector<std::size_t> sizes;
        for (const auto& name : variant.at("kernel_params")) {
          const std::string t = type_of.at(name.get<std::string>());
          std::uint64_t v = 3 + storage.size();
          if (t[0] == '*') {
            void* p = nullptr;
            REQUIRE(h.hipMalloc(&p, 256) == 0);
            v = reinterpret_cast<std::uintptr_t>(p);
          }
          storage.push_back(v);
          sizes.push_back(storage_size(t));
        }
        storage.push_back(0);  // global scratch: NULL on AMD
        storage.push_back(0);  // profile scratch: NULL without proton
        sizes.push_back(8);
        sizes.push_back(8);
        std::vector<void*> params;
        std::vector<std::uint8_t> packed;
        for (std::size_t i = 0; i < storage.size(); ++i) {
          params.push_back(&storage[i]);
          while (packed.size() % sizes[i]) packed.push_back(0);  // natural alignment
          const auto* bytes = reinterpret_cast<const std::uint8_t*>(&storage[i]);
          packed.insert(packed.end(), bytes, bytes + sizes[i]);  // little-endian: the low bytes
        }
        const unsigned block = meta.at("num_warps").get<unsigned>() * meta.at("warp_size").get<unsigned>();
        const unsigned shared = meta.at("shared");
        CHECK(h.hipModuleLaunchKernel(fn, 2, 1, 1, block, 1, 1, shared, nullptr, params.data(), nullptr) == 0);
        CHECK(h.last_error() == "");
        std::size_t size = packed.size();
        void* extra[] = {reinterpret_cast<void*>(1), packed.data(), reinterpret_cast<void*>(2), &size,
                         reinterpret_cast<void*>(3)};
        CHECK(h.hipModuleLaunchKernel(fn, 2, 1, 1, block, 1, 1, shared, nullptr, nullptr, extra) == 0);
        CHECK(h.last_error() == "");
        REQUIRE(h.tpfakehip_launch_count() == 2);
        tpfakehip_launch_record by_params{}, by_extra{};
        h.tpfakehip_get_launch(0, &by_params);
        h.tpfakehip_get_launch(1, &by_extra);
        CHECK(by_params.num_args == storage.size());
        CHECK(by_params.kernarg_size == packed.size());
        CHECK(std::memcmp(by_params.kernarg, packed.data(), packed.size()) == 0);
        CHECK(std::memcmp(by_extra.kernarg, packed.data(), packed.size()) == 0);
        // One warp more than compiled for is what a wrong num_warps would do: refused.
        CHECK(h.hipModuleLaunchKernel(fn, 2, 1, 1, block + 64, 1, 1, shared, nullptr, params.data(), nullptr) == 719);
        ++checked;
      }
    }
  }
  CHECK(checked == 14);  // 7 variants x gfx90a, gfx942
}
