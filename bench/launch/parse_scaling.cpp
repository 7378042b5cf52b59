// What opening a library and building the kernel of its first launch cost against the number of
// kernels the library holds: a program of a hundred "cold" kernels should pay for one of them on
// its first launch, not for all. CPU only (no driver): the part of a first launch before the
// image is chosen, decoded and loaded (bench/launch/first_launch.cpp times all of it on a GPU).
//
//   parse_scaling write N FILE   writes a container of N kernels to FILE: each like the tests'
//                                vector_add (5 args, grid expressions, 2 variants, a cubin for
//                                sm_80 and for sm_90a and a PTX per variant), 256-byte images
//   parse_scaling time FILE      in this fresh process: reads FILE, then times container::parse
//                                (what a generated header's library() does first) and kernel(0)
//                                (the model of the kernel a first launch selects from), each with
//                                the minor page faults it took; prints one JSON object
//
// bench/launch/parse_scaling.py runs it in fresh processes and prints the table
// (bench/launch/RESULTS.md, "Opening a library of many kernels"). -DPARSE_SCALING_TIME_ONLY builds
// the time mode alone, from the run time's headers only: how an older tree's reader is timed on
// the same files (the table's "before").
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <sys/resource.h>

#include "tritonpack/container/reader.hpp"
#ifndef PARSE_SCALING_TIME_ONLY
#include "tritonpack/pack/container_writer.hpp"
#endif

namespace {

using namespace tritonpack;

long minor_faults() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_minflt;
}

#ifndef PARSE_SCALING_TIME_ONLY
// Deterministic bytes that zstd compresses a little (parse never reads them).
std::vector<std::uint8_t> image_bytes(std::size_t n, std::uint32_t seed) {
  std::vector<std::uint8_t> v(n);
  std::uint32_t x = seed * 2654435761u + 1;
  for (auto& b : v) {
    x = x * 1664525u + 1013904223u;
    b = static_cast<std::uint8_t>((x >> 24) % 16);
  }
  return v;
}

int write(long n, const char* path) {
  container_info c;
  c.name = "scaling";
  c.triton_version = "3.6.0";
  std::vector<std::vector<std::uint8_t>> bytes;
  for (long k = 0; k < n; ++k) {
    kernel_info ki;
    ki.name = "vector_add_" + std::to_string(k);
    ki.source = "kernels.py:vector_add";
    ki.args = {{"x", "*fp32", true}, {"y", "*fp32", true}, {"out", "*fp32", false},
               {"n", "i32", false}, {"alpha", "fp32", false}};
    ki.grid = {"cdiv(n, BLOCK)", "1", "1"};
    for (int v = 0; v < 2; ++v) {
      variant_info var;
      const spec_kind d = v == 0 ? spec_kind::divisible_16 : spec_kind::none;
      var.specs = {{d, ""}, {d, ""}, {d, ""}, {d, ""}, {spec_kind::none, ""}};
      var.config.num_warps = 4;
      var.config.num_stages = 3;
      var.config.constexprs = {{"BLOCK", "1024"}};
      const struct {
        image_kind kind;
        const char* arch;
        std::uint32_t ptx;
      } images[] = {{image_kind::cubin, "sm_80", 0}, {image_kind::cubin, "sm_90a", 0},
                    {image_kind::ptx, "sm_80", 87}};
      for (const auto& i : images) {
        image_info im;
        im.backend = backend_kind::cuda;
        im.kind = i.kind;
        im.arch = i.arch;
        im.ptx_version = i.ptx;
        im.launch.entry = ki.name;
        im.launch.num_warps = 4;
        im.launch.warp_size = 32;
        im.launch.num_ctas = 1;
        im.launch.triton_version = "3.6.0";
        c.images.push_back(im);
        var.images.push_back(static_cast<std::uint32_t>(c.images.size() - 1));
        bytes.push_back(image_bytes(256, static_cast<std::uint32_t>(bytes.size())));
      }
      ki.variants.push_back(var);
    }
    c.kernels.push_back(ki);
  }
  pack::write_options o;
  o.level = 3;  // the frames are never decoded here
  const std::vector<std::uint8_t> out = pack::write_container(c, bytes, o);
  std::ofstream f(path, std::ios::binary);
  f.write(reinterpret_cast<const char*>(out.data()), static_cast<std::streamsize>(out.size()));
  return f ? 0 : 1;
}
#endif

int time(const char* path) {
  std::ifstream f(path, std::ios::binary);
  const std::vector<std::uint8_t> b((std::istreambuf_iterator<char>(f)), {});
  if (b.empty()) {
    std::fprintf(stderr, "parse_scaling: cannot read %s\n", path);
    return 1;
  }
  using clk = std::chrono::steady_clock;
  long faults = minor_faults();
  auto t = clk::now();
  const container c = container::parse(b.data(), b.size());
  const double parse_us = std::chrono::duration<double, std::micro>(clk::now() - t).count();
  const long parse_faults = minor_faults() - faults;
  faults = minor_faults();
  t = clk::now();
  const kernel_info& k = c.kernel(0);
  const double kernel_us = std::chrono::duration<double, std::micro>(clk::now() - t).count();
  const long kernel_faults = minor_faults() - faults;
  if (k.variants.size() != 2) return 1;
  std::printf("{\"kernels\": %zu, \"images\": %zu, \"bytes\": %zu, \"parse_us\": %.1f, "
              "\"parse_faults\": %ld, \"kernel_us\": %.1f, \"kernel_faults\": %ld}\n",
              c.kernel_count(), c.partial_info().images.size(), b.size(), parse_us, parse_faults,
              kernel_us, kernel_faults);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  try {
#ifndef PARSE_SCALING_TIME_ONLY
    if (mode == "write" && argc == 4) return write(std::atol(argv[2]), argv[3]);
#endif
    if (mode == "time" && argc == 3) return time(argv[2]);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "parse_scaling: %s\n", e.what());
    return 1;
  }
  std::fprintf(stderr, "usage: parse_scaling write N FILE | parse_scaling time FILE\n");
  return 2;
}
