// triton_mp2.hpp — the MP2 energy on the GPU through the generated functions (kernels.toml):
// unfused (the four mp2_step GEMMs write (ia|jb), mp2_energy reads it) and fused (three GEMMs, then
// mp2_fused builds each pair's (ia|jb) block on chip and reduces it), each ended by sum_partials
// (a fixed-order FP64 sum of the per-pair partials: deterministic, no atomics). apps/ao2mo/bench times
// these same calls.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <tritonpack/tritonpack.hpp>

#include "mp2.hpp"
#include "triton_ao2mo.hpp"

namespace ao2mo {

// The problem as precision p's products take it: TF32 rounds C's blocks (inputs_for, triton_ao2mo.hpp).
inline mp2_problem inputs_for(precision p, mp2_problem prob) {
  prob.c_occ = inputs_for(p, std::move(prob.c_occ));
  prob.c_vir = inputs_for(p, std::move(prob.c_vir));
  return prob;
}

// The device buffers of one MP2 run: inputs (C^T blocks, C_vir, orbital energies) and the
// intermediates X1 (o N^3), X2 (o v N^2), X3 (o v o N), (ia|jb) (o^2 v^2; unfused only), the
// per-pair partials (o^2, FP64) and the energy.
struct mp2_device {
  std::int64_t n, o, v;
  tritonpack::device_array<float> c_occ_t, c_vir_t, c_vir, e_occ, e_vir, x1, x2, x3, ovov;
  tritonpack::device_array<double> partials, energy;

  explicit mp2_device(const mp2_problem& p)
      : n(p.n), o(p.o), v(p.v), c_occ_t(static_cast<std::size_t>(n * o)), c_vir_t(static_cast<std::size_t>(n * v)),
        c_vir(static_cast<std::size_t>(n * v)), e_occ(static_cast<std::size_t>(o)), e_vir(static_cast<std::size_t>(v)),
        x1(static_cast<std::size_t>(o * n * n * n)), x2(static_cast<std::size_t>(o * v * n * n)),
        x3(static_cast<std::size_t>(o * v * o * n)), ovov(static_cast<std::size_t>(o * v * o * v)),
        partials(static_cast<std::size_t>(o * o)), energy(1) {
    upload_inputs(p);
  }

  // Uploads p's inputs (C's blocks transposed as the kernels read them, C_vir, the orbital energies):
  // at construction, and again for another precision's view of the same problem (inputs_for).
  void upload_inputs(const mp2_problem& p) {
    if (p.n != n || p.o != o || p.v != v)
      throw std::invalid_argument("mp2_device::upload_inputs: the problem's N, o, v (" + std::to_string(p.n) + ", " + std::to_string(p.o) +
                                  ", " + std::to_string(p.v) + ") are not the buffers' (" + std::to_string(n) + ", " +
                                  std::to_string(o) + ", " + std::to_string(v) + ")");
    c_occ_t.upload(transposed(p.c_occ, p.n, p.o));
    c_vir_t.upload(transposed(p.c_vir, p.n, p.v));
    c_vir.upload(p.c_vir);
    e_occ.upload(p.e_occ);
    e_vir.upload(p.e_vir);
  }

  // NaN in every intermediate and result, so that an element or a pair never written shows.
  void poison() {
    for (auto* a : {&x1, &x2, &x3, &ovov}) a->fill_bytes(0xFF);
    partials.fill_bytes(0xFF);
    energy.fill_bytes(0xFF);
  }
  double energy_on_host() const { return energy.to_host().at(0); }
};

// Steps 1..last of the MP2 transformation, each `run(g, a, b, out)` (a batched GEMM).
template <class Run>
void mp2_steps_with(mp2_device& d, const float* eri, int last, Run run) {
  run(mp2_step(1, d.n, d.o), d.c_occ_t.data(), eri, d.x1.data());
  run(mp2_step(2, d.n, d.o), d.c_vir_t.data(), d.x1.data(), d.x2.data());
  run(mp2_step(3, d.n, d.o), d.c_occ_t.data(), d.x2.data(), d.x3.data());
  if (last >= 4) run(mp2_step(4, d.n, d.o), d.x3.data(), d.c_vir.data(), d.ovov.data());
}

// The energy from (ia|jb) in memory, and the fixed-order sum into d.energy.
inline void mp2_energy_from_ovov(mp2_device& d, tritonpack::stream_t stream) {
  ao2mo_kernels::mp2_energy(d.ovov.data(), d.e_occ.data(), d.e_vir.data(), d.partials.data(), i32(d.o), i32(d.v), stream);
  ao2mo_kernels::sum_partials(d.partials.data(), d.energy.data(), i32(d.o * d.o), stream);
}

// The unfused path with the example library's gemm in precision p (fp32 or tf32).
inline void mp2_unfused(precision p, mp2_device& d, const float* eri, tritonpack::stream_t stream = nullptr) {
  check_element_type<float>(p);
  mp2_steps_with(d, eri, 4, [&](const batched_gemm& g, const float* a, const float* b, float* out) { gemm(p, g, a, b, out, stream); });
  mp2_energy_from_ovov(d, stream);
}

// The fused kernel's function for precision p and the largest v it covers (its V_PAD).
struct mp2_fused_kernel {
  using fn = void (*)(const float*, const float*, const float*, const float*, double*, tritonpack::arg_i32, tritonpack::arg_i32, tritonpack::arg_i32,
                      tritonpack::stream_t);
  fn f = nullptr;
  std::int64_t max_v = 0;
  // Its signature's i32:16 (n, o, v multiples of 16) and v within the block it keeps on chip.
  bool cover(std::int64_t n, std::int64_t o) const { return f && n % 16 == 0 && o % 16 == 0 && n - o <= max_v; }
};

inline mp2_fused_kernel library_mp2_fused(precision p) {
  check_element_type<float>(p);
  return {p == precision::tf32 ? &ao2mo_kernels::mp2_fused_tf32 : &ao2mo_kernels::mp2_fused_fp32, 64};
}

// The fused path: steps 1-3 with `run`, then step 4 and the energy in one kernel (`kernel`), then the sum.
template <class Run>
void mp2_fused_with(const mp2_fused_kernel& kernel, mp2_device& d, const float* eri, tritonpack::stream_t stream, Run run) {
  if (!kernel.cover(d.n, d.o))
    throw std::invalid_argument("ao2mo: the fused MP2 kernel does not cover N = " + std::to_string(d.n) + ", o = " + std::to_string(d.o) +
                                " (it needs N and o multiples of 16 and v = N - o <= " + std::to_string(kernel.max_v) +
                                "; use the unfused path)");
  mp2_steps_with(d, eri, 3, run);
  kernel.f(d.x3.data(), d.c_vir.data(), d.e_occ.data(), d.e_vir.data(), d.partials.data(), i32(d.n), i32(d.o), i32(d.v), stream);
  ao2mo_kernels::sum_partials(d.partials.data(), d.energy.data(), i32(d.o * d.o), stream);
}

inline void mp2_fused(precision p, mp2_device& d, const float* eri, tritonpack::stream_t stream = nullptr) {
  mp2_fused_with(library_mp2_fused(p), d, eri, stream,
                 [&](const batched_gemm& g, const float* a, const float* b, float* out) { gemm(p, g, a, b, out, stream); });
}

}  // namespace ao2mo
