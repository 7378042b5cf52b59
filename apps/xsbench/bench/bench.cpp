// xsbench_bench — apps/xsbench's Triton lookups (fused, split, sorted; the fused kernel also at
// other tile sizes) and the CUDA C++ twin (cuda_lookups.cu: baseline, sorted) side by side in one
// run, per problem size, grid and lookup count: lookups/s from device time (CUDA events around
// each variant's launches, the sorted variants' host round trip for the 12 counts included), the
// median of --reps runs after one warm-up. Every run's results are checked: the checksum against
// the reference's where it publishes one, and every lookup against the CUDA baseline's.
// Then the evidence for the loss: useful lanes and loop trip counts per tile, counted on the host
// from the sampled materials, and the CUDA kernels' registers.
//
//   xsbench_bench [--sizes small,large] [--grids unionized,hash] [--lookups 1000000,4000000,17000000]
//                 [--reps 3] [--csv FILE] [--analysis FILE] [--only impl/variant/config,...]
#include <cuda_runtime_api.h>
#include <xsbench_experiments.hpp>

#include <algorithm>
#include <cstdio>
#include <exception>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "cuda_lookups.hpp"
#include "device_problem.hpp"
#include "problem.hpp"
#include "cpu_lookup.hpp"
#include "tile_occupancy.hpp"
#include "triton_lookups.hpp"

using namespace xsbench;

namespace {

void cuda_check(cudaError_t r, const char *what) {
  if (r != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(r));
}

std::vector<std::string> split_list(const std::string &s) {
  std::vector<std::string> out;
  std::stringstream in(s);
  for (std::string item; std::getline(in, item, ',');)
    if (!item.empty()) out.push_back(item);
  return out;
}

struct settings {
  std::vector<std::string> sizes = {"small", "large"};
  std::vector<std::string> grids = {"unionized", "hash"};
  std::vector<std::int64_t> lookups = {1000000, 4000000, 17000000};
  int reps = 3;
  std::string csv = "xsbench_bench.csv", analysis = "xsbench_tiles.csv";
  std::vector<std::string> only;  // --only impl/variant/config,...: just these (e.g. under ncu)
};

settings parse(int argc, char **argv) {
  settings s;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (i + 1 >= argc) throw std::invalid_argument("option " + a + " needs a value");
    const std::string v = argv[++i];
    if (a == "--sizes") s.sizes = split_list(v);
    else if (a == "--grids") s.grids = split_list(v);
    else if (a == "--lookups") {
      s.lookups.clear();
      for (const auto &n : split_list(v)) s.lookups.push_back(std::stoll(n));
    } else if (a == "--reps") s.reps = std::stoi(v);
    else if (a == "--csv") s.csv = v;
    else if (a == "--analysis") s.analysis = v;
    else if (a == "--only") s.only = split_list(v);
    else throw std::invalid_argument("unknown option " + a + " (--sizes --grids --lookups --reps --csv --analysis --only)");
  }
  if (s.reps < 1) throw std::invalid_argument("--reps must be at least 1");
  return s;
}

struct timing {
  double median_ms, p10_ms, p90_ms;
};

// Device time of `run` (all its launches on `stream`), one warm-up then `reps` timed runs.
timing time_runs(cudaStream_t stream, int reps, const std::function<void()> &run) {
  cudaEvent_t start, stop;
  cuda_check(cudaEventCreate(&start), "cudaEventCreate");
  cuda_check(cudaEventCreate(&stop), "cudaEventCreate");
  run();
  cuda_check(cudaStreamSynchronize(stream), "warm-up");
  std::vector<double> ms;
  for (int r = 0; r < reps; ++r) {
    cuda_check(cudaEventRecord(start, stream), "cudaEventRecord");
    run();
    cuda_check(cudaEventRecord(stop, stream), "cudaEventRecord");
    cuda_check(cudaEventSynchronize(stop), "cudaEventSynchronize");
    float t = 0;
    cuda_check(cudaEventElapsedTime(&t, start, stop), "cudaEventElapsedTime");
    ms.push_back(t);
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  std::sort(ms.begin(), ms.end());
  auto at = [&](double q) { return ms[static_cast<std::size_t>(q * double(ms.size() - 1) + 0.5)]; };
  return {at(0.5), at(0.1), at(0.9)};
}

xsbench_cuda::problem_view view_of(const device_problem &d) {
  const lookup_parameters &p = d.params;
  return {d.nuclide_grid.data(), d.unionized_energy.data(), d.concs.data(), d.thresholds.data(), d.index_grid.data(),
          d.num_nucs_d.data(), d.mats.data(), p.n_isotopes, p.n_gridpoints, p.search_steps, p.hash_bins, p.hash_steps,
          p.max_num_nucs, d.grid == grid_type::hash};
}

xsbench_cuda::buffers_view view_of(lookup_buffers &b) {
  return {b.lookups, b.energies.data(), b.sorted_energies.data(), b.materials.data(), b.sorted_lookups.data(),
          b.verification.data(), b.counts.data(), b.cursor.data()};
}

struct candidate {
  std::string impl, variant, config;
  std::function<void()> run;
};

int run(const settings &s) {
  cuda_check(cudaFree(nullptr), "CUDA initialisation");
  cudaDeviceProp prop{};
  cuda_check(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");
  std::printf("GPU: %s, %d SMs, L2 %d MB\n", prop.name, prop.multiProcessorCount, prop.l2CacheSize >> 20);
  const auto base_res = xsbench_cuda::baseline_resources();
  const auto mat_res = xsbench_cuda::material_kernel_resources();
  std::printf("CUDA registers/thread: baseline %d (local %d B), material kernel %d (local %d B)\n", base_res.registers,
              base_res.local_bytes, mat_res.registers, mat_res.local_bytes);
  cudaStream_t stream;
  cuda_check(cudaStreamCreate(&stream), "cudaStreamCreate");
  const auto tp_stream = reinterpret_cast<tritonpack::stream_t>(stream);

  std::ofstream csv(s.csv), tiles(s.analysis);
  csv << "size,grid,lookups,impl,variant,config,median_ms,p10_ms,p90_ms,lookups_per_s,checksum,published,mismatches\n";
  tiles << "size,lookups,tile,mean_trips,max_trips,useful_lane_fraction,sorted_useful_lane_fraction\n";
  bool ok = true;
  bool analysed_small = false, analysed_large = false;

  for (const std::string &size_name : s.sizes)
    for (const std::string &grid_name_s : s.grids) {
      const problem_size size = size_named(size_name);
      const grid_type g = grid_name_s == "hash" ? grid_type::hash : grid_type::unionized;
      std::printf("\n== %s problem, %s grid: building...\n", size_name.c_str(), grid_name_s.c_str());
      std::fflush(stdout);
      device_problem d(make_problem(size, g));
      for (std::int64_t n : s.lookups) {
        lookup_buffers b(n);
        const auto pv = view_of(d);
        const auto bv = view_of(b);
        const bool u = g == grid_type::unionized;
        const fused_function fused_packed =
            u ? &xsbench_experiments::lookup_fused_unionized_packed : &xsbench_experiments::lookup_fused_hash_packed;
        const material_function material_packed =
            u ? &xsbench_experiments::lookup_material_unionized_packed : &xsbench_experiments::lookup_material_hash_packed;
        std::vector<candidate> runs = {
            {"cuda", "fused", "256 threads", [&] { xsbench_cuda::run_baseline(pv, bv, stream); }},
            {"cuda", "fused", "32 threads", [&] { xsbench_cuda::run_baseline(pv, bv, stream, 32); }},
            {"cuda", "fused", "256 threads-packed", [&] { xsbench_cuda::run_baseline(pv, bv, stream, 256, true); }},
            {"cuda", "sorted", "256 threads", [&] { xsbench_cuda::run_sorted(pv, bv, stream); }},
            {"cuda", "energy", "256 threads", [&] { xsbench_cuda::run_sorted(pv, bv, stream, energy_bins); }},
            {"cuda", "energy", "256 threads-packed", [&] { xsbench_cuda::run_sorted(pv, bv, stream, energy_bins, true); }},
            {"triton", "fused", "b256w8", [&] { run_fused(d, b, tp_stream); }},
            {"triton", "split", "b256w8", [&] { run_split(d, b, tp_stream); }},
            {"triton", "sorted", "b256w8", [&] { run_sorted(d, b, tp_stream); }},
            {"triton", "energy", "b256w8", [&] { run_sorted_by_energy(d, b, tp_stream); }},
            {"triton", "fused", "b256w8-packed", [&] { run_fused(d, b, tp_stream, fused_packed); }},
            {"triton", "sorted", "b256w8-packed", [&] { run_sorted(d, b, tp_stream, material_packed); }},
            {"triton", "energy", "b256w8-packed", [&] { run_sorted_by_energy(d, b, tp_stream, material_packed); }},
        };
        if (u) {
          const std::vector<std::pair<const char *, fused_function>> tiles_tried = {
              {"b32w1", &xsbench_experiments::lookup_fused_unionized_b32w1},
              {"b64w2", &xsbench_experiments::lookup_fused_unionized_b64w2},
              {"b128w4", &xsbench_experiments::lookup_fused_unionized_b128w4},
              {"b512w8", &xsbench_experiments::lookup_fused_unionized_b512w8},
              {"b1024w8", &xsbench_experiments::lookup_fused_unionized_b1024w8}};
          for (const auto &[config, fn] : tiles_tried)
            runs.push_back({"triton", "fused", config, [&d, &b, tp_stream, fn = fn] { run_fused(d, b, tp_stream, fn); }});
        }
        std::vector<std::int32_t> reference;  // the CUDA baseline's values
        const std::uint64_t published = published_checksum(size, n, g);
        if (!s.only.empty())
          runs.erase(std::remove_if(runs.begin(), runs.end(),
                                    [&](const candidate &c) {
                                      const std::string id = c.impl + "/" + c.variant + "/" + c.config;
                                      return std::find(s.only.begin(), s.only.end(), id) == s.only.end();
                                    }),
                     runs.end());
        for (const candidate &c : runs) {
          b.verification.fill_bytes(0xFF);
          const timing t = time_runs(stream, s.reps, c.run);
          const std::vector<std::int32_t> values = b.verification.to_host();
          if (reference.empty()) reference = values;
          std::int64_t mismatches = 0;
          for (std::size_t i = 0; i < values.size(); ++i) mismatches += values[i] != reference[i];
          const std::uint64_t sum = checksum_of(values);
          const bool good = mismatches == 0 && (!published || sum == published);
          ok = ok && good;
          const double rate = double(n) / (t.median_ms * 1e-3);
          std::printf("%-5s %-9s %9lld  %-6s %-7s %-11s %9.3f ms  %.3e lookups/s  checksum %llu%s%s\n", size_name.c_str(),
                      grid_name_s.c_str(), static_cast<long long>(n), c.impl.c_str(), c.variant.c_str(),
                      c.config.c_str(), t.median_ms, rate, static_cast<unsigned long long>(sum),
                      published ? (sum == published ? " (Valid)" : " (INVALID)") : "",
                      mismatches ? (" " + std::to_string(mismatches) + " lookups differ from CUDA").c_str() : "");
          std::fflush(stdout);
          csv << size_name << ',' << grid_name_s << ',' << n << ',' << c.impl << ',' << c.variant << ',' << c.config << ','
              << t.median_ms << ',' << t.p10_ms << ',' << t.p90_ms << ',' << rate << ',' << sum << ','
              << (published ? std::to_string(published) : "") << ',' << mismatches << std::endl;  // a cut-off run keeps its rows
        }
        // Useful lanes per tile, from the sampled materials (the split run left them in b.materials).
        bool &analysed = size_name == "small" ? analysed_small : analysed_large;
        if (!analysed && n == s.lookups.back()) {
          analysed = true;
          const std::vector<std::int32_t> mats = b.materials.to_host();
          std::printf("Tile occupancy (%s, %lld lookups): tile, mean and max nuclide-loop trips, useful lanes (fused | sorted)\n",
                      size_name.c_str(), static_cast<long long>(n));
          for (int tile : {32, 64, 128, 256, 512, 1024}) {
            const tile_stats f = fused_tile_stats(mats, d.num_nucs, tile);
            const tile_stats so = sorted_tile_stats(mats, d.num_nucs, tile);
            std::printf("  %5d  %7.1f %4d  %.3f | %.3f\n", tile, f.mean_trips, f.max_trips, f.useful_fraction,
                        so.useful_fraction);
            tiles << size_name << ',' << n << ',' << tile << ',' << f.mean_trips << ',' << f.max_trips << ','
                  << f.useful_fraction << ',' << so.useful_fraction << std::endl;
          }
        }
      }
    }
  cudaStreamDestroy(stream);
  std::printf("\n%s\n", ok ? "all runs verified" : "VERIFICATION FAILED for some runs (see above)");
  return ok ? 0 : 1;
}

}  // namespace

int main(int argc, char **argv) {
  try {
    return run(parse(argc, argv));
  } catch (const std::exception &e) {
    std::fprintf(stderr, "xsbench_bench: %s\n", e.what());
    return 1;
  }
}
