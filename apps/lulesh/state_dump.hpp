// state_dump.hpp — writes the GPU state before and after one cycle (--dump-cycle K), so that the
// same step can be replayed on the CPU in Triton's interpreter and compared field by field
// (interpret_check.py --replay DIR): when the GPU run leaves the reference, this says which
// kernel's outputs differ, and by how much.
//
//   DIR/meta.txt              s, cycle, dt (%.17g)
//   DIR/before/<field>.f64    each field of device_state::fields(), raw little-endian doubles
//   DIR/after/<field>.f64
#pragma once

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "device_state.hpp"

namespace lulesh {

inline void write_fields(const device_state& d, const std::filesystem::path& dir) {
  std::filesystem::create_directories(dir);
  for (const auto& [name, field] : d.fields()) {
    const std::vector<double> host = field->to_host();
    const std::filesystem::path path = dir / (std::string(name) + ".f64");
    std::ofstream out(path, std::ios::binary);
    out.write(reinterpret_cast<const char*>(host.data()), static_cast<std::streamsize>(host.size() * sizeof(double)));
    if (!out) throw std::runtime_error("cannot write " + path.string());
  }
}

inline void write_dump_meta(const std::filesystem::path& dir, std::int32_t nx, std::int32_t cycle, double dt) {
  std::filesystem::create_directories(dir);
  std::ofstream meta(dir / "meta.txt");
  char line[160];
  std::snprintf(line, sizeof line, "s %d\ncycle %d\ndt %.17g\n", nx, cycle, dt);
  meta << line;
  if (!meta) throw std::runtime_error("cannot write " + (dir / "meta.txt").string());
}

}  // namespace lulesh
