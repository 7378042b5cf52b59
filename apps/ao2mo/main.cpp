// ao2mo — the four-index AO->MO integral transformation of quantum chemistry,
//
//   (pq|rs) = sum_{mu nu lam sig} C[mu,p] C[nu,q] C[lam,r] C[sig,s] (mu nu|lam sig),
//
// with Triton kernels packed by tritonpack (kernels.py): unfused (four quarter steps, each a
// contraction over one AO index, T1..T3 in memory; as batched GEMMs, and in the cyclic layout:
// four identical GEMMs with both operands read along the contracted index) and fused (two launches, each two quarter steps
// with the N x N intermediate on chip; N a multiple of 16), in FP32 (ieee), TF32 and FP64. Random integrals with
// 8-fold symmetry and random MO coefficients; each result is checked against the FP64 CPU
// reference (N <= --check-max) and fused against unfused. Outputs are poisoned (NaN) first.
// --mp2 adds the MP2 correlation energy (mp2.hpp) from the same integrals in FP32 and TF32:
// unfused (four occupied/virtual quarter steps write (ia|jb), an energy kernel reads it) and fused
// (the last step and the energy in one kernel: (ia|jb) is never written), each against the FP64
// CPU energy (N <= --check-max) or fused against unfused.
//
//   ao2mo [-n 24,64] [--precision fp32,tf32,fp64] [--reps 5] [--check-max 64] [--mp2] [--require-gpu]
//
// Exit 0: every check passed (or no GPU and no --require-gpu); 1: a check failed; 2: bad options.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <tritonpack/tritonpack.hpp>
#include <vector>

#include "ao2mo.hpp"
#include "mp2.hpp"
#include "triton_ao2mo.hpp"
#include "triton_mp2.hpp"

namespace {

struct options {
  std::vector<std::int64_t> sizes{24, 64};
  std::vector<ao2mo::precision> precisions{ao2mo::precision::fp32, ao2mo::precision::tf32, ao2mo::precision::fp64};
  int reps = 5;
  std::int64_t check_max = 64;
  bool require_gpu = false;
  bool mp2 = false;
};

[[noreturn]] void usage(const std::string& problem) {
  std::fprintf(stderr, "ao2mo: %s\nusage: ao2mo [-n 24,64] [--precision fp32,tf32,fp64] [--reps 5] [--check-max 64] [--mp2] [--require-gpu]\n",
               problem.c_str());
  std::exit(2);
}

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (start <= s.size()) {
    const std::size_t comma = std::min(s.find(',', start), s.size());
    parts.push_back(s.substr(start, comma - start));
    start = comma + 1;
  }
  return parts;
}

std::int64_t parse_int(const std::string& text, const char* what, std::int64_t lo, std::int64_t hi) {
  char* end = nullptr;
  const long long v = std::strtoll(text.c_str(), &end, 10);
  if (text.empty() || *end || v < lo || v > hi)
    usage(std::string(what) + " '" + text + "' is not an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
  return v;
}

options parse(int argc, char** argv) {
  options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) usage(a + " needs a value");
      return argv[++i];
    };
    if (a == "-n") {
      o.sizes.clear();
      for (const auto& s : split(value())) o.sizes.push_back(parse_int(s, "-n", 1, 212));  // N^4 < 2^31
    } else if (a == "--precision") {
      o.precisions.clear();
      for (const auto& s : split(value())) {
        if (s == "fp32") o.precisions.push_back(ao2mo::precision::fp32);
        else if (s == "tf32") o.precisions.push_back(ao2mo::precision::tf32);
        else if (s == "fp64") o.precisions.push_back(ao2mo::precision::fp64);
        else usage("--precision '" + s + "': the precisions are fp32, tf32 and fp64");
      }
    } else if (a == "--reps") {
      o.reps = static_cast<int>(parse_int(value(), "--reps", 1, 10000));
    } else if (a == "--check-max") {
      o.check_max = parse_int(value(), "--check-max", 0, 212);
    } else if (a == "--mp2") {
      o.mp2 = true;
    } else if (a == "--require-gpu") {
      o.require_gpu = true;
    } else {
      usage("unknown option '" + a + "'");
    }
  }
  return o;
}

// Median wall time (ms) of `reps` runs of `work`, each ended by a device synchronisation.
double median_ms(int reps, const std::function<void()>& work) {
  std::vector<double> ms;
  for (int r = 0; r < reps; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    work();
    tritonpack::synchronize();
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

// Agreement limits (max error / max |value|): FP32 products as the goal says; TF32 inputs carry
// 10-bit mantissas (about 5e-4 relative per product, four products deep); FP64 to rounding.
double tolerance(ao2mo::precision p) {
  return p == ao2mo::precision::fp32 ? 1e-5 : p == ao2mo::precision::tf32 ? 5e-3 : 1e-12;
}

template <class T>
bool run(const options& o, std::int64_t n, ao2mo::precision p) {
  const std::size_t count = ao2mo::pow4(n);
  const auto eri = ao2mo::random_integrals<T>(n, 1000 + static_cast<std::uint64_t>(n));
  const auto coef = ao2mo::random_coefficients<T>(n, 2000 + static_cast<std::uint64_t>(n));
  // TF32 runs take the inputs rounded to TF32 (inputs_for); the reference below keeps them exact.
  const auto coef_in = ao2mo::inputs_for(p, coef);
  tritonpack::device_array<T> d_eri(ao2mo::inputs_for(p, eri)), d_coef(coef_in), d_coef_t(ao2mo::transposed(coef_in, n)), t_a(count), t_b(count), mo_unfused(count), mo_cyclic(count), mo_fused(count);
  for (auto* a : {&t_a, &t_b, &mo_unfused, &mo_cyclic, &mo_fused}) a->fill_bytes(0xFF);  // NaN: an element never written shows

  const auto fused_kernels = ao2mo::library_half_kernels<T>(p);
  const bool fused_ok = fused_kernels.cover(n);
  const double unfused = median_ms(o.reps, [&] {
    ao2mo::transform_unfused(p, n, d_eri.data(), d_coef.data(), d_coef_t.data(), t_a.data(), t_b.data(), mo_unfused.data());
  });
  const double cyclic = median_ms(o.reps, [&] {
    ao2mo::transform_unfused_cyclic(p, n, d_eri.data(), d_coef_t.data(), t_a.data(), t_b.data(), mo_cyclic.data());
  });
  const double fused = fused_ok ? median_ms(o.reps, [&] {
    ao2mo::transform_fused(p, n, d_eri.data(), d_coef_t.data(), t_a.data(), mo_fused.data());
  }) : 0.0;
  const auto got_unfused = mo_unfused.to_host();
  const double gflop = ao2mo::transform_flops(n) * 1e-9;

  bool ok = true;
  std::string verdict;
  if (n <= o.check_max) {
    const auto want = ao2mo::reference_transform(n, eri, coef);
    const double e_unfused = ao2mo::max_relative_error(got_unfused, want);
    const double e_cyclic = ao2mo::max_relative_error(mo_cyclic.to_host(), want);
    const double e_fused = fused_ok ? ao2mo::max_relative_error(mo_fused.to_host(), want) : 0.0;
    ok = e_unfused <= tolerance(p) && e_cyclic <= tolerance(p) && e_fused <= tolerance(p);
    char buf[160];
    if (fused_ok)
      std::snprintf(buf, sizeof buf, "vs FP64 CPU: unfused %.1e, cyclic %.1e, fused %.1e (limit %.0e)", e_unfused, e_cyclic, e_fused, tolerance(p));
    else
      std::snprintf(buf, sizeof buf, "vs FP64 CPU: unfused %.1e, cyclic %.1e (limit %.0e)", e_unfused, e_cyclic, tolerance(p));
    verdict = buf;
  } else {
    const double e_cyclic = ao2mo::max_relative_error(mo_cyclic.to_host(), got_unfused);
    const double e_fused = fused_ok ? ao2mo::max_relative_error(mo_fused.to_host(), got_unfused) : 0.0;
    ok = e_cyclic <= 2 * tolerance(p) && e_fused <= 2 * tolerance(p);
    char buf[128];
    if (fused_ok)
      std::snprintf(buf, sizeof buf, "vs unfused: cyclic %.1e, fused %.1e (limit %.0e)", e_cyclic, e_fused, 2 * tolerance(p));
    else
      std::snprintf(buf, sizeof buf, "vs unfused: cyclic %.1e (limit %.0e)", e_cyclic, 2 * tolerance(p));
    verdict = buf;
  }
  std::printf("N=%4lld %-4s  unfused %9.3f ms %8.1f GFLOP/s  cyclic %9.3f ms %8.1f GFLOP/s", static_cast<long long>(n), ao2mo::name_of(p),
              unfused, gflop / unfused * 1e3, cyclic, gflop / cyclic * 1e3);
  if (fused_ok)
    std::printf("  fused %9.3f ms %8.1f GFLOP/s (%.2fx)", fused, gflop / fused * 1e3, unfused / fused);
  else
    std::printf("  fused: not run (needs N a multiple of 16, at most %lld)", static_cast<long long>(fused_kernels.max_n()));
  std::printf("  %s  %s\n", verdict.c_str(), ok ? "ok" : "FAILED");
  std::fflush(stdout);  // each line as it is measured, also into a pipe that a time limit may cut
  return ok;
}

// The MP2 energy at N in the FP32 precisions of o.precisions: unfused and fused (where the fused
// kernel covers N), each checked as run() checks the transformation.
bool run_mp2(const options& o, std::int64_t n) {
  const auto eri = ao2mo::random_integrals<float>(n, 1000 + static_cast<std::uint64_t>(n));
  const auto coef = ao2mo::random_coefficients<float>(n, 2000 + static_cast<std::uint64_t>(n));
  const ao2mo::mp2_problem prob = ao2mo::make_mp2_problem(n, ao2mo::default_occupied(n), coef, 3000 + static_cast<std::uint64_t>(n));
  const bool check = n <= o.check_max;
  const double want = check ? ao2mo::mp2_reference(eri, coef, prob) : 0.0;
  const double gflop = ao2mo::mp2_flops(n, prob.o) * 1e-9;
  bool ok = true;
  for (ao2mo::precision p : o.precisions) {
    if (p == ao2mo::precision::fp64) continue;  // the MP2 kernels are FP32 (ieee or tf32 products)
    tritonpack::device_array<float> d_eri(ao2mo::inputs_for(p, eri));  // TF32: rounded inputs; `want` keeps them exact
    ao2mo::mp2_device d(ao2mo::inputs_for(p, prob));
    const auto fused_kernel = ao2mo::library_mp2_fused(p);
    const bool fused_ok = fused_kernel.cover(n, prob.o);
    d.poison();
    const double unfused_ms = median_ms(o.reps, [&] { ao2mo::mp2_unfused(p, d, d_eri.data()); });
    const double e_unfused = d.energy_on_host();
    d.poison();
    const double fused_ms = fused_ok ? median_ms(o.reps, [&] { ao2mo::mp2_fused(p, d, d_eri.data()); }) : 0.0;
    const double e_fused = fused_ok ? d.energy_on_host() : 0.0;
    const double limit = tolerance(p) * (check ? 1 : 2);
    const ao2mo::mp2_verdict verdict = ao2mo::mp2_check(check ? &want : nullptr, e_unfused, fused_ok ? &e_fused : nullptr, limit);
    ok = ok && verdict.pass;
    std::printf("N=%4lld o=%3lld %-4s MP2 E2 = %.10e  unfused %9.3f ms %8.1f GFLOP/s", static_cast<long long>(n),
                static_cast<long long>(prob.o), ao2mo::name_of(p), e_unfused, unfused_ms, gflop / unfused_ms * 1e3);
    if (fused_ok)
      std::printf("  fused %9.3f ms (%.2fx)", fused_ms, unfused_ms / fused_ms);
    else
      std::printf("  fused: not run (needs N, o multiples of 16, v <= %lld)", static_cast<long long>(fused_kernel.max_v));
    std::printf("  %s  %s\n", verdict.text.c_str(), verdict.status.c_str());
    std::fflush(stdout);
  }
  return ok;
}

}  // namespace

int main(int argc, char** argv) {
  const options o = parse(argc, argv);
  if (tritonpack::device_count() == 0) {
    std::printf("ao2mo: no GPU here (the run time found no driver or no device)%s\n",
                o.require_gpu ? "; --require-gpu: failing" : "; nothing to run, exiting 0");
    return o.require_gpu ? 1 : 0;
  }
  std::printf("ao2mo on %s (%s): (pq|rs) = C C C C (mu nu|lam sig), %d reps, median wall time\n",
              tritonpack::device_name().c_str(), tritonpack::device_arch().c_str(), o.reps);
  bool ok = true;
  for (std::int64_t n : o.sizes)
    for (ao2mo::precision p : o.precisions)
      ok = (p == ao2mo::precision::fp64 ? run<double>(o, n, p) : run<float>(o, n, p)) && ok;
  if (o.mp2)
    for (std::int64_t n : o.sizes) ok = run_mp2(o, n) && ok;
  std::printf("ao2mo: %s\n", ok ? "all checks passed" : "a check FAILED");
  return ok ? 0 : 1;
}
