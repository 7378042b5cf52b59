// XSBench (ANL's Monte Carlo neutron transport proxy: macroscopic cross-section lookups), event
// mode, with the lookups as Triton kernels (kernels.py) packed by tritonpack.
//
//   xsbench [-s small|large] [-G unionized|hash] [-l lookups] [-g gridpoints] [-h bins]
//           [--variant fused|split|sorted|all] [--verify-cpu] [--repeat n] [--require-gpu] [--dump dir]
//
// The host builds the reference's cross-section data (problem.hpp), the GPU runs the lookups, and
// the program prints the reference's "Verification checksum: N (Valid)" where the reference
// publishes one (17M lookups, unionized grid, small or large); --verify-cpu compares every lookup
// with the CPU's (cpu_lookup.hpp). The exit status is 1 on any mismatch. Without a GPU it says why
// and exits 0 (1 with --require-gpu).
#include <tritonpack/tritonpack.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "cpu_lookup.hpp"
#include "device_problem.hpp"
#include "options.hpp"
#include "problem.hpp"
#include "problem_dump.hpp"
#include "triton_lookups.hpp"

namespace tp = tritonpack;
using namespace xsbench;

namespace {

double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

int explain_no_gpu(const tp::error &e, const options &o) {
  std::string why = e.what();
  tp::errc code = e.code();
  try {
    xsbench_kernels::sample_lookups(nullptr, nullptr, nullptr, 1, 0);  // never launched: the run time explains
  } catch (const tp::error &launch_error) {
    why = launch_error.what();
    code = launch_error.code();
  }
  std::printf("Cannot run on a GPU here: %s\n[tritonpack::errc::%s]\n", why.c_str(), tp::errc_name(code));
  std::printf("The program carries its kernels for sm_80, sm_90, sm_100 (cubins and PTX) and gfx90a, gfx942;\n"
              "run it on a node with one of those GPUs (it needs only the GPU driver).\n");
  return o.require_gpu ? 1 : 0;
}

// The reference's verdict line for the checksum, or ours where it publishes none.
bool report_checksum(std::uint64_t checksum, std::uint64_t published, const char *label) {
  if (published)
    std::printf("%s Verification checksum: %llu (%s)\n", label, static_cast<unsigned long long>(checksum),
                checksum == published ? "Valid" : "WARNING - INVALID CHECKSUM!");
  else
    std::printf("%s Verification checksum: %llu (the reference publishes none for these settings)\n", label,
                static_cast<unsigned long long>(checksum));
  return !published || checksum == published;
}

// Compares the GPU's per-lookup results with the CPU's; prints the first differences.
bool matches_cpu(const std::vector<std::int32_t> &gpu, const std::vector<std::uint8_t> &cpu, const char *label) {
  std::int64_t differ = 0;
  for (std::size_t i = 0; i < gpu.size(); ++i)
    if (gpu[i] != cpu[i] && ++differ <= 5)
      std::printf("  %s lookup %zu: GPU %d, CPU %d\n", label, i, gpu[i], int(cpu[i]));
  std::printf("%s vs CPU: %lld of %zu lookups differ\n", label, static_cast<long long>(differ), gpu.size());
  return differ == 0;
}

int run(const options &o) {
  const problem_size size = size_of(o);
  std::printf("XSBench event mode: %s problem (%lld nuclides x %lld points), %s grid, %lld lookups\n", size.name.c_str(),
              static_cast<long long>(size.n_isotopes), static_cast<long long>(size.n_gridpoints), grid_name(o.grid),
              static_cast<long long>(o.lookups));
  auto t0 = std::chrono::steady_clock::now();
  const problem p = make_problem(size, o.grid);
  std::printf("Host set-up: %.2f s\n", seconds_since(t0));

  std::vector<std::uint8_t> cpu;
  if (o.verify_cpu || !o.dump_dir.empty()) {
    t0 = std::chrono::steady_clock::now();
    cpu = cpu_lookups(p, o.lookups);
    std::printf("CPU lookups: %.2f s, checksum %llu\n", seconds_since(t0),
                static_cast<unsigned long long>(checksum_of(cpu)));
  }
  if (!o.dump_dir.empty()) {
    write_problem_dump(o.dump_dir, p, o.lookups, cpu);
    std::printf("Problem and CPU results written to %s\n", o.dump_dir.c_str());
    return 0;
  }

  try {
    if (tp::device_count() < 1) throw tp::error(tp::errc::no_device, "the GPU driver reports no device");
  } catch (const tp::error &e) {
    if (e.code() != tp::errc::no_driver && e.code() != tp::errc::no_device) throw;
    return explain_no_gpu(e, o);
  }
  std::printf("GPU: %s\n", tp::device_name().c_str());
  const device_problem d(p);
  lookup_buffers b(o.lookups);
  const std::uint64_t published = published_checksum(size, o.lookups, o.grid);

  bool ok = true;
  for (variant v : o.variants) {
    std::vector<double> times;
    for (int r = 0; r < o.repeat; ++r) {
      b.verification.fill_bytes(0xFF);  // -1: a lookup the kernels miss shows
      tp::synchronize();
      t0 = std::chrono::steady_clock::now();
      run_variant(v, d, b);
      tp::synchronize();
      times.push_back(seconds_since(t0));
    }
    std::sort(times.begin(), times.end());
    const double median = times[times.size() / 2];
    const std::vector<std::int32_t> values = b.verification.to_host();
    std::printf("%-6s Runtime: %.4f s  Lookups/s: %.4g\n", variant_name(v), median, double(o.lookups) / median);
    ok = report_checksum(checksum_of(values), published, variant_name(v)) && ok;
    if (!cpu.empty()) ok = matches_cpu(values, cpu, variant_name(v)) && ok;
  }
  return ok ? 0 : 1;
}

}  // namespace

int main(int argc, char **argv) {
  std::setvbuf(stdout, nullptr, _IOLBF, 0);  // progress shows as it happens, also through a pipe
  options o;
  try {
    o = parse_options(argc, argv);
  } catch (const usage_error &e) {
    std::fprintf(stderr, "xsbench: %s\n\n%s", e.what(), usage_text());
    return 2;
  }
  if (o.help) {
    std::printf("%s", usage_text());
    return 0;
  }
  try {
    return run(o);
  } catch (const tp::error &e) {
    std::fprintf(stderr, "xsbench: %s [tritonpack::errc::%s]\n", e.what(), tp::errc_name(e.code()));
    return 1;
  } catch (const std::exception &e) {
    std::fprintf(stderr, "xsbench: %s\n", e.what());
    return 1;
  }
}
