// Decode time of each image of a container on the CPU (what a first launch pays before the driver
// sees the bytes): container::decode_image, warm (the thread's zstd context exists), the median of
// `rounds` decodes. bench/size/RESULTS.md compares a container with PTX held as lines of its
// cubins' text (format v4's default) and one packed with --ptx-as-is.
//
// Build (header-only reader, libzstd):
//   g++ -O2 -std=c++17 -Iinclude bench/size/decode_time.cpp -lzstd -o /tmp/decode_time
// Run: /tmp/decode_time FILE.tpk [rounds]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <vector>

#include "tritonpack/container/reader.hpp"

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: decode_time FILE.tpk [rounds]\n");
    return 2;
  }
  const int rounds = argc > 2 ? std::atoi(argv[2]) : 51;
  std::ifstream in(argv[1], std::ios::binary);
  const std::vector<std::uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto c = tritonpack::container::parse(bytes.data(), bytes.size());
  std::printf("image  kind   arch      raw bytes  frame  decode us (median of %d)\n", rounds);
  for (std::uint32_t i = 0; i < c.info().images.size(); ++i) {
    const auto& im = c.info().images[i];
    std::vector<double> us;
    for (int r = 0; r < rounds; ++r) {
      const auto t0 = std::chrono::steady_clock::now();
      const std::vector<std::uint8_t> out = c.decode_image(i);
      const auto t1 = std::chrono::steady_clock::now();
      if (out.size() != im.raw_size) return 1;
      us.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
    }
    std::nth_element(us.begin(), us.begin() + us.size() / 2, us.end());
    std::printf("%5u  %-5s  %-8s %10llu  %5u  %8.1f\n", i, tritonpack::image_kind_name(im.kind), im.arch.c_str(),
                static_cast<unsigned long long>(im.raw_size), c.frame_of(i), us[us.size() / 2]);
  }
  return 0;
}
