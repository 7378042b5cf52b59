// The tritonpack MPI example: Triton kernels in an MPI program, many ranks per GPU node.
//
// Each rank
//   1. picks its GPU by node-local rank (MPI_Comm_split_type(MPI_COMM_TYPE_SHARED); device =
//      local rank % device count, with tritonpack::set_device),
//   2. allocates its field through the run time's memory API (tritonpack/runtime/memory.hpp: no CUDA
//      toolkit needed to build or run),
//   3. advances it some explicit time steps with mpi_kernels::time_step and reduces it with
//      mpi_kernels::sum_squares (kernels.py, packed into mpi_kernels.hpp at build time), on
//      rank-specific random data, and checks both against the same computation on the CPU,
//   4. reduces the checksum (sum of u^2 over every rank) with MPI_Reduce.
// Rank 0 prints a short table: start-up time to the first completed kernel (median / max), how the
// ranks got their kernels' images (cubin / JIT-compiled PTX / JIT cache hit, from
// tritonpack::image_loads()), the ranks and images per device, the total compile count and the
// verified checksum, then one `summary:` line for scripts (examples/mpi/run_modes.sh,
// scripts/gpu-mpi.sh, scripts/multi-gpu-check.sh).
//
// With TRITONPACK_FORCE_IR=1 every rank JIT-compiles the PTX or reads the result from the JIT
// cache that the ranks of a node share (docs/runtime.md, "JIT cache"): the first rank needing an
// image compiles it, ranks starting before its entry is written compile it too, and no rank ever
// reads a partial entry.
//
//   mpirun -np 8 mpi_example [--n N] [--steps S] [--per-rank] [--no-verify]
//     --n N        elements per rank (default 1048576)
//     --steps S    time steps (default 10)
//     --per-rank   also print one row per rank
//     --no-verify  do not compare with the CPU: for test-double drivers, which run no kernels
// Exit status: 0 when every rank ran and verified, 1 otherwise (on every rank), 2 for bad options.
// MPI's C API only: skip the deprecated C++ bindings that some mpi.h pull in (and their warnings).
#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>
#include <mpi_kernels.hpp>

#include <tritonpack/core/load_stats.hpp>
#include <tritonpack/tritonpack.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <random>
#include <string>
#include <vector>

namespace tp = tritonpack;

namespace {

struct options {
  std::int32_t n = 1 << 20;
  int steps = 10;
  bool per_rank = false;
  bool verify = true;
};

// What each rank sends to rank 0 (MPI_Gather as bytes: every rank runs this same binary).
struct rank_report {
  int rank = 0, local_rank = 0, device = -1, ok = 0;
  double startup_ms = 0;  // from the common start (a barrier after MPI_Init) to the first completed kernel
  std::uint64_t binaries = 0, jit_compiled = 0, jit_cache_hits = 0;
  char device_name[64] = {};
  char error[384] = {};  // why this rank failed, "" when it did not
};

constexpr float dt = 0.01f;

bool parse(int argc, char** argv, options& o, std::string& why) {
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto number = [&](long lo, long hi, long& out) {
      if (i + 1 >= argc) return why = a + " needs a value", false;
      char* end = nullptr;
      out = std::strtol(argv[++i], &end, 10);
      if (*argv[i] == '\0' || *end != '\0' || out < lo || out > hi)
        return why = a + " " + argv[i] + ": expected an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]",
               false;
      return true;
    };
    long v = 0;
    if (a == "--n") {
      if (!number(1, 1L << 30, v)) return false;
      o.n = static_cast<std::int32_t>(v);
    } else if (a == "--steps") {
      if (!number(1, 100000, v)) return false;
      o.steps = static_cast<int>(v);
    } else if (a == "--per-rank") {
      o.per_rank = true;
    } else if (a == "--no-verify") {
      o.verify = false;
    } else {
      why = "unknown option " + a + " (accepted: --n N, --steps S, --per-rank, --no-verify)";
      return false;
    }
  }
  return true;
}

void copy_text(char* dst, std::size_t size, const std::string& text) {
  std::snprintf(dst, size, "%s", text.c_str());
}

// Rank-specific data: the field u and its rate f (made before the clock starts).
void make_data(const options& o, int rank, std::vector<float>& u, std::vector<float>& f) {
  std::mt19937 rng(1234u + 7919u * static_cast<unsigned>(rank));
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  u.resize(static_cast<std::size_t>(o.n));
  f.resize(u.size());
  for (auto& x : u) x = dist(rng);
  for (auto& x : f) x = dist(rng);
}

// The rank's whole GPU part; advances u on the CPU too, for the check. Throws tritonpack::error
// (or std::exception) on failure; the caller turns that into the report, so that every rank still
// reaches the collective calls.
void run_rank(const options& o, int local_rank, double start, std::vector<float>& u, const std::vector<float>& f,
              rank_report& r, double& checksum, double& checksum_cpu) {
  // Device local_rank % GPUs of the node; no GPU: the run time's diagnosis (which driver was tried,
  // why no GPU), never a division by zero.
  r.device = tp::set_device_for_local_rank(local_rank);
  copy_text(r.device_name, sizeof r.device_name, tp::device_name(r.device) + " (" + tp::device_arch(r.device) + ")");

  const std::size_t n = u.size();
  tp::device_array<float> du(u), df(f), dnext(n);
  const std::size_t blocks = (n + 1023) / 1024;
  tp::device_array<float> dpartial(blocks);

  for (int s = 0; s < o.steps; ++s) {
    mpi_kernels::time_step(du.data(), df.data(), dnext.data(), o.n, dt);
    if (s == 0) {
      tp::synchronize();  // the first kernel has completed: the rank is up
      r.startup_ms = (MPI_Wtime() - start) * 1000.0;
    }
    std::swap(du, dnext);
  }
  mpi_kernels::sum_squares(du.data(), dpartial.data(), o.n);
  std::vector<float> got(n), partial(blocks);
  du.download(got.data(), n);
  dpartial.download(partial.data(), blocks);

  checksum = 0;
  for (float p : partial) checksum += p;

  // The same on the CPU, in the same float arithmetic (the GPU may fuse the multiply-add: the
  // tolerance covers it).
  for (int s = 0; s < o.steps; ++s)
    for (std::size_t i = 0; i < n; ++i) u[i] = u[i] + dt * f[i];
  checksum_cpu = 0;
  for (float x : u) checksum_cpu += double(x) * double(x);
  if (!o.verify) return;
  std::size_t bad = 0, first_bad = 0;
  for (std::size_t i = 0; i < n; ++i)
    if (!(std::fabs(got[i] - u[i]) <= 1e-5f * (1.0f + std::fabs(u[i]))) && bad++ == 0) first_bad = i;
  if (bad)
    throw std::runtime_error("time_step: " + std::to_string(bad) + " of " + std::to_string(n) + " elements differ from the CPU (first u[" +
                             std::to_string(first_bad) + "] = " + std::to_string(got[first_bad]) + ", expected " +
                             std::to_string(u[first_bad]) + ")");
  if (!(std::fabs(checksum - checksum_cpu) <= 1e-5 * std::fabs(checksum_cpu)))
    throw std::runtime_error("sum_squares: " + std::to_string(checksum) + ", the CPU says " + std::to_string(checksum_cpu));
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

// Rank 0: the table and the summary line. Returns whether the run succeeded.
bool report(const options& o, const std::vector<rank_report>& all, int nodes, double checksum, double checksum_cpu) {
  const int size = static_cast<int>(all.size());
  std::vector<double> startup;
  std::uint64_t binaries = 0, compiled = 0, hits = 0;
  int failed = 0, compiling_ranks = 0;
  for (const auto& r : all) {
    if (r.ok) startup.push_back(r.startup_ms);
    else ++failed;
    binaries += r.binaries;
    compiled += r.jit_compiled;
    hits += r.jit_cache_hits;
    compiling_ranks += r.jit_compiled > 0;
  }
  const bool checksum_ok = !o.verify || std::fabs(checksum - checksum_cpu) <= 1e-5 * std::fabs(checksum_cpu);
  const bool ok = failed == 0 && checksum_ok;
  const double med = median(startup), max = startup.empty() ? 0 : *std::max_element(startup.begin(), startup.end());
  // Per device ordinal (node-local: on several nodes, device 0 counts every node's device 0): the
  // ranks on it and the images they loaded, however each came (cubin, compiled, cache hit).
  int devices = 0;
  for (const auto& r : all) devices = std::max(devices, r.device + 1);
  std::vector<int> ranks_on(static_cast<std::size_t>(devices), 0);
  std::vector<std::uint64_t> images_on(ranks_on.size(), 0);
  for (const auto& r : all)
    if (r.device >= 0) {
      ++ranks_on[static_cast<std::size_t>(r.device)];
      images_on[static_cast<std::size_t>(r.device)] += r.binaries + r.jit_compiled + r.jit_cache_hits;
    }
  std::string per_device, ranks_list, images_list;
  for (int d = 0; d < devices; ++d) {
    const std::string rk = std::to_string(ranks_on[static_cast<std::size_t>(d)]);
    const std::string im = std::to_string(images_on[static_cast<std::size_t>(d)]);
    per_device += (d ? "; device " : "device ") + std::to_string(d) + ": " + rk + " ranks, " + im + " images";
    ranks_list += (d ? "," : "") + rk;
    images_list += (d ? "," : "") + im;
  }

  std::printf("tritonpack MPI example: %d ranks on %d node(s), %d elements per rank, %d time steps\n", size, nodes, o.n, o.steps);
  std::printf("  GPU of rank 0       %s\n", all[0].device_name[0] ? all[0].device_name : "none");
  std::printf("  start-up            median %.1f ms, max %.1f ms (to the first completed kernel)\n", med, max);
  std::printf("  images              %llu cubin, %llu JIT-compiled PTX (by %d of %d ranks), %llu JIT cache hits\n",
              static_cast<unsigned long long>(binaries), static_cast<unsigned long long>(compiled), compiling_ranks, size,
              static_cast<unsigned long long>(hits));
  std::printf("  per device          %s\n", per_device.empty() ? "none" : per_device.c_str());
  if (o.verify)
    std::printf("  checksum            sum of u^2 = %.6e (CPU %.6e): %s\n", checksum, checksum_cpu, checksum_ok ? "OK" : "WRONG");
  else
    std::printf("  checksum            sum of u^2 = %.6e: not verified (--no-verify)\n", checksum);
  if (o.per_rank || failed) {
    std::printf("\n  %4s %5s %6s %10s %6s %6s %6s  %s\n", "rank", "local", "device", "start-up", "cubin", "JIT", "cached", "result");
    for (const auto& r : all) {
      if (!o.per_rank && r.ok) continue;
      std::printf("  %4d %5d %6d %7.1f ms %6llu %6llu %6llu  %s\n", r.rank, r.local_rank, r.device, r.startup_ms,
                  static_cast<unsigned long long>(r.binaries), static_cast<unsigned long long>(r.jit_compiled),
                  static_cast<unsigned long long>(r.jit_cache_hits), r.ok ? "ok" : r.error);
    }
  }
  std::printf("summary: ranks=%d failed=%d cubins=%llu compiles=%llu cache_hits=%llu startup_median_ms=%.1f "
              "startup_max_ms=%.1f checksum=%s devices=%d ranks_per_device=%s images_per_device=%s\n",
              size, failed, static_cast<unsigned long long>(binaries), static_cast<unsigned long long>(compiled),
              static_cast<unsigned long long>(hits), med, max, !o.verify ? "unverified" : checksum_ok ? "OK" : "WRONG",
              devices, ranks_list.empty() ? "-" : ranks_list.c_str(), images_list.empty() ? "-" : images_list.c_str());
  std::fflush(stdout);
  return ok;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);

  options o;
  std::string why;
  if (!parse(argc, argv, o, why)) {
    if (rank == 0) std::fprintf(stderr, "mpi_example: %s\n", why.c_str());
    MPI_Finalize();
    return 2;
  }

  // The ranks sharing this node (and its GPUs): the node-local rank picks the device.
  MPI_Comm node;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
  int local_rank = 0;
  MPI_Comm_rank(node, &local_rank);
  int node_leader = local_rank == 0, nodes = 0;
  MPI_Allreduce(&node_leader, &nodes, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);

  std::vector<float> u, f;
  make_data(o, rank, u, f);
  MPI_Barrier(MPI_COMM_WORLD);  // a common start for the start-up times
  const double start = MPI_Wtime();
  rank_report r;
  r.rank = rank;
  r.local_rank = local_rank;
  double checksum = 0, checksum_cpu = 0;
  const tp::image_load_counts before = tp::image_loads();
  try {
    run_rank(o, local_rank, start, u, f, r, checksum, checksum_cpu);
    r.ok = 1;
  } catch (const std::exception& e) {  // tritonpack::error included: its message says what to do
    copy_text(r.error, sizeof r.error, e.what());
    std::fprintf(stderr, "mpi_example: rank %d: %s\n", rank, e.what());
  }
  // How this rank got its images (also when it failed afterwards: its compiles still happened).
  const tp::image_load_counts after = tp::image_loads();
  r.binaries = after.binaries - before.binaries;
  r.jit_compiled = after.jit_compiled - before.jit_compiled;
  r.jit_cache_hits = after.jit_cache_hits - before.jit_cache_hits;

  // Every rank reaches these, failed or not: nobody waits forever for a rank that gave up.
  double sums[2] = {checksum, checksum_cpu}, totals[2] = {0, 0};
  MPI_Reduce(sums, totals, 2, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  std::vector<rank_report> all(rank == 0 ? size : 0);
  MPI_Gather(&r, sizeof r, MPI_BYTE, all.data(), sizeof r, MPI_BYTE, 0, MPI_COMM_WORLD);
  int ok = rank == 0 ? report(o, all, nodes, totals[0], totals[1]) : 0;
  MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);

  MPI_Comm_free(&node);
  MPI_Finalize();
  return ok ? 0 : 1;
}
