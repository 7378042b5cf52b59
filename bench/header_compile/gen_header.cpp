// Writes a generated header (the real `tritonpack pack` header writer) around a container of a
// chosen size, or the same bytes as a `{0x..,}` initializer list, for the compile-cost benchmark.
//
// usage: gen_header MEGABYTES BYTES_PER_LINE OUT.hpp [--hex-list]
// The container holds one kernel whose image is random (incompressible) bytes, so the container
// is as large as asked; the compile cost depends on the bytes, not on what they mean.
#include <fmt/format.h>

#include <cstdlib>
#include <fstream>
#include <iostream>
#include <random>
#include <string>

#include "tritonpack/pack/container_writer.hpp"
#include "tritonpack/pack/header_writer.hpp"

int main(int argc, char** argv) {
  if (argc < 4) {
    std::cerr << "usage: gen_header MEGABYTES BYTES_PER_LINE OUT.hpp [--hex-list]\n";
    return 2;
  }
  const double mb = std::atof(argv[1]);
  const std::size_t per_line = static_cast<std::size_t>(std::atol(argv[2]));
  const bool hex = argc > 4 && std::string(argv[4]) == "--hex-list";
  const std::size_t target = static_cast<std::size_t>(mb * 1024 * 1024);

  tritonpack::container_info info;
  info.name = "bench";
  info.triton_version = "3.6.0";
  tritonpack::kernel_info k;
  k.name = "k";
  k.args = {{"x", "*fp32", false}, {"n", "i32", false}};
  k.grid = {"cdiv(n, BLOCK)", "1", "1"};
  tritonpack::variant_info v;
  v.specs = {{tritonpack::spec_kind::divisible_16, ""}, {tritonpack::spec_kind::none, ""}};
  v.config.constexprs = {{"BLOCK", "1024"}};
  tritonpack::image_info im;
  im.arch = "sm_90a";
  im.launch.entry = "k";
  info.images = {im};
  v.images = {0};
  k.variants = {v};
  info.kernels = {k};
  std::vector<std::uint8_t> bytes(target > 2048 ? target - 2048 : target);  // tables take ~1 KB
  std::mt19937_64 rng(1);
  for (std::size_t i = 0; i < bytes.size(); i += 8) {
    const std::uint64_t r = rng();
    for (std::size_t j = 0; j < 8 && i + j < bytes.size(); ++j) bytes[i + j] = static_cast<std::uint8_t>(r >> (8 * j));
  }
  tritonpack::pack::write_options wo;
  wo.level = 1;  // random bytes do not compress; the writer stores the frame as is
  const auto blob = tritonpack::pack::write_container(info, {bytes}, wo);

  std::ofstream out(argv[3], std::ios::binary | std::ios::trunc);
  if (hex) {
    // The slow encoding the issue compares against.
    out << "#pragma once\n#include <cstddef>\nnamespace bench { namespace detail {\n"
        << "inline constexpr unsigned char container_data[] = {\n";
    std::string line;
    for (std::size_t i = 0; i < blob.size(); ++i) {
      line += fmt::format("0x{:02x},", blob[i]);
      if (line.size() > 95) {
        out << line << "\n";
        line.clear();
      }
    }
    out << line << "\n};\ninline constexpr std::size_t container_size = " << blob.size() << ";\n}}\n";
  } else {
    tritonpack::pack::header_options ho;
    ho.namespace_name = "bench";
    ho.bytes_per_line = per_line;
    out << tritonpack::pack::write_header(info, blob, ho);
  }
  std::cout << blob.size() << "\n";
  return out ? 0 : 1;
}
