// problem_dump.hpp — `xsbench --dump DIR`: the problem's arrays as raw little-endian files plus
// meta.txt (the kernels' scalar arguments), and the CPU's verification value of every lookup, so
// interpret_check.py can run kernels.py in Triton's interpreter on the same data and compare.
#pragma once

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "problem.hpp"

namespace xsbench {

template <class T>
void write_raw(const std::filesystem::path &path, const T *data, std::size_t count) {
  std::ofstream f(path, std::ios::binary);
  f.write(reinterpret_cast<const char *>(data), static_cast<std::streamsize>(count * sizeof(T)));
  if (!f) throw std::runtime_error("xsbench: cannot write " + path.string());
}

inline void write_problem_dump(const std::string &dir, const problem &p, std::int64_t lookups,
                               const std::vector<std::uint8_t> &cpu) {
  const std::filesystem::path d(dir);
  std::filesystem::create_directories(d);
  const material_table &m = p.materials;
  const auto thresholds = material_thresholds();
  write_raw(d / "nuclide_grid.f64", p.nuclide_grid.data(), p.nuclide_grid.size());
  write_raw(d / "unionized_energy.f64", p.unionized_energy.data(), p.unionized_energy.size());
  write_raw(d / "index_grid.i32", p.index_grid.data(), p.index_grid.size());
  write_raw(d / "num_nucs.i32", m.num_nucs.data(), m.num_nucs.size());
  write_raw(d / "mats.i32", m.mats.data(), m.mats.size());
  write_raw(d / "concs.f64", m.concs.data(), m.concs.size());
  write_raw(d / "thresholds.f64", thresholds.data(), thresholds.size());
  write_raw(d / "cpu_verification.u8", cpu.data(), cpu.size());
  std::ofstream meta(d / "meta.txt");
  meta << "grid " << (p.grid == grid_type::unionized ? 0 : 1) << "\nlookups " << lookups << "\nskip_bits "
       << skip_bits_for(lookups) << "\nn_isotopes " << p.size.n_isotopes << "\nn_gridpoints " << p.size.n_gridpoints
       << "\nsearch_steps " << bisection_steps(p.points()) << "\nhash_bins " << p.size.hash_bins << "\nhash_steps "
       << hash_search_steps(p) << "\nmax_num_nucs " << m.max_num_nucs << "\n";
  if (!meta) throw std::runtime_error("xsbench: cannot write " + (d / "meta.txt").string());
}

}  // namespace xsbench
