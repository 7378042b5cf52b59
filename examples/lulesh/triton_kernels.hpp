// triton_kernels.hpp — the step's launch layer for the Triton kernels (kernels.py), through the
// typed functions tritonpack generates from kernels.toml (lulesh_kernels.hpp). lagrange_step
// (time_step.hpp) calls these in the reference's order; bench/lulesh has a CUDA C++ twin with the
// same interface.
#pragma once

// The generated header: lulesh_kernels.hpp (namespace lulesh_kernels), or, where a program builds
// its own copy of the library under another name (bench/lulesh: sm_90 only), a header that
// includes that copy and makes `lulesh_kernels` an alias of its namespace.
#ifdef LULESH_KERNELS_HEADER
#include LULESH_KERNELS_HEADER
#else
#include <lulesh_kernels.hpp>
#endif

#include <tritonpack/tritonpack.hpp>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

#include "device_state.hpp"
#include "problem.hpp"
#include "regions.hpp"
#include "time_step.hpp"

namespace lulesh {

// A constexpr the library was compiled with (kernels.toml), e.g. the tile size of a kernel whose
// output the host sizes: read from the container, so kernels.toml stays the one place it is set.
inline std::int64_t compiled_constexpr(std::string_view kernel, std::string_view name) {
  const tritonpack::kernel_info& info = lulesh_kernels::library().get(kernel).info();
  for (const auto& variant : info.variants)
    for (const auto& [key, value] : variant.config.constexprs)
      if (key == name) return std::stoll(value);
  throw std::logic_error("lulesh_kernels: kernel " + std::string(kernel) + " has no constexpr " + std::string(name) +
                         " (kernels.toml and triton_kernels.hpp disagree)");
}

template <class T>
std::int32_t count_of(const tritonpack::device_array<T>& a) {
  return static_cast<std::int32_t>(a.size());
}

struct triton_kernels {
  bool fp_fusion = false;                // the *_fma twins of the three heavy kernels
  tritonpack::stream_t stream = nullptr;  // nullptr: the legacy default stream
  std::int32_t num_partials = 0;          // partials_for(num_elem)

  static triton_kernels make(std::int32_t num_elem, bool fp_fusion, tritonpack::stream_t stream = nullptr) {
    return {fp_fusion, stream, static_cast<std::int32_t>(partials_for(num_elem))};
  }

  // The number of tile minima time_constraints writes for num_elem elements.
  static std::int64_t partials_for(std::int32_t num_elem) {
    const std::int64_t tile = compiled_constexpr("time_constraints", "BLOCK");
    return (num_elem + tile - 1) / tile;
  }

  void volume_force(device_state& d, const constants& c) const {
    (fp_fusion ? lulesh_kernels::volume_force_fma : lulesh_kernels::volume_force)(
        d.x.data(), d.y.data(), d.z.data(), d.xd.data(), d.yd.data(), d.zd.data(), d.p.data(), d.q.data(), d.v.data(),
        d.volo.data(), d.ss.data(), d.elem_mass.data(), d.nodelist.data(), d.fx_corner.data(), d.fy_corner.data(),
        d.fz_corner.data(), d.status.data(), d.num_elem, d.corner_stride, c.hgcoef, stream);
  }
  void gather_node_forces(device_state& d) const {
    lulesh_kernels::gather_node_forces(d.fx_corner.data(), d.fy_corner.data(), d.fz_corner.data(),
                                       d.node_elem_start.data(), d.node_elem_corner.data(), d.fx.data(), d.fy.data(),
                                       d.fz.data(), d.num_node, stream);
  }
  void acceleration(device_state& d) const {
    lulesh_kernels::acceleration(d.fx.data(), d.fy.data(), d.fz.data(), d.nodal_mass.data(), d.xdd.data(),
                                 d.ydd.data(), d.zdd.data(), d.num_node, stream);
  }
  void acceleration_bc(device_state& d) const {
    lulesh_kernels::acceleration_bc(d.xdd.data(), d.symm_x.data(), count_of(d.symm_x), stream);
    lulesh_kernels::acceleration_bc(d.ydd.data(), d.symm_y.data(), count_of(d.symm_y), stream);
    lulesh_kernels::acceleration_bc(d.zdd.data(), d.symm_z.data(), count_of(d.symm_z), stream);
  }
  void position_velocity(device_state& d, const constants& c, double dt) const {
    lulesh_kernels::position_velocity(d.x.data(), d.y.data(), d.z.data(), d.xd.data(), d.yd.data(), d.zd.data(),
                                      d.xdd.data(), d.ydd.data(), d.zdd.data(), d.num_node, dt, c.u_cut, stream);
  }
  void kinematics_q_gradient(device_state& d, double dt) const {
    (fp_fusion ? lulesh_kernels::kinematics_q_gradient_fma : lulesh_kernels::kinematics_q_gradient)(
        d.x.data(), d.y.data(), d.z.data(), d.xd.data(), d.yd.data(), d.zd.data(), d.volo.data(), d.v.data(),
        d.nodelist.data(), d.vnew.data(), d.delv.data(), d.arealg.data(), d.vdov.data(), d.delv_xi.data(),
        d.delv_eta.data(), d.delv_zeta.data(), d.delx_xi.data(), d.delx_eta.data(), d.delx_zeta.data(),
        d.status.data(), d.num_elem, d.corner_stride, dt, stream);
  }
  void monotonic_q(device_state& d, const constants& c) const {
    lulesh_kernels::monotonic_q(d.region_elems.data(), count_of(d.region_elems), d.elem_bc.data(), d.lxim.data(),
                                d.lxip.data(), d.letam.data(), d.letap.data(), d.lzetam.data(), d.lzetap.data(),
                                d.delv_xi.data(), d.delv_eta.data(), d.delv_zeta.data(), d.delx_xi.data(),
                                d.delx_eta.data(), d.delx_zeta.data(), d.vdov.data(), d.volo.data(), d.vnew.data(),
                                d.elem_mass.data(), d.q.data(), d.ql.data(), d.qq.data(), d.status.data(),
                                c.monoq_limiter_mult, c.monoq_max_slope, c.qlc_monoq, c.qqc_monoq, c.qstop, stream);
  }
  void material_eos(device_state& d, const constants& c, const region_sets& regions, int r) const {
    (fp_fusion ? lulesh_kernels::material_eos_fma : lulesh_kernels::material_eos)(
        d.region_elems.data(), regions.start[r], regions.size(r), regions.repetitions[r], d.e.data(), d.p.data(),
        d.q.data(), d.ql.data(), d.qq.data(), d.delv.data(), d.vnew.data(), d.v.data(), d.ss.data(), d.status.data(),
        c.e_cut, c.p_cut, c.q_cut, c.eosvmin, c.eosvmax, c.pmin, c.emin, c.refdens, stream);
  }
  void update_volume(device_state& d, const constants& c) const {
    lulesh_kernels::update_volume(d.vnew.data(), d.v.data(), d.num_elem, c.v_cut, stream);
  }
  void time_constraints(device_state& d, const constants& c) const {
    lulesh_kernels::time_constraints(d.ss.data(), d.vdov.data(), d.arealg.data(), d.num_elem, 64.0 * c.qqc * c.qqc,
                                     c.dvovmax, d.partial_courant.data(), d.partial_hydro.data(), stream);
  }
  void reduce_time_constraints(device_state& d) const {
    lulesh_kernels::reduce_time_constraints(d.partial_courant.data(), d.partial_hydro.data(),
                                            num_partials, d.status.data(), stream);
  }
};

// The example's step: Triton kernels, host-clock timer.
using gpu_step = lagrange_step<triton_kernels>;

}  // namespace lulesh
