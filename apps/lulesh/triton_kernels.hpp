// triton_kernels.hpp — the step's launch layer for the Triton kernels
// (kernels.py), through the typed functions tritonpack generates from
// kernels.toml (lulesh_kernels.hpp). lagrange_step (time_step.hpp) calls these
// in the reference's order; apps/lulesh/bench has a CUDA C++ twin with the same
// interface.
#pragma once

// The generated header: lulesh_kernels.hpp (namespace lulesh_kernels), or,
// where a program builds its own copy of the library under another name
// (apps/lulesh/bench: sm_90 only), a header that includes that copy and makes
// `lulesh_kernels` an alias of its namespace.
#ifdef LULESH_KERNELS_HEADER
#include LULESH_KERNELS_HEADER
#else
#include <lulesh_kernels.hpp>
#endif

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <tritonpack/tritonpack.hpp>

#include "device_state.hpp"
#include "problem.hpp"
#include "regions.hpp"
#include "time_control.hpp"
#include "time_step.hpp"

namespace lulesh {

// A constexpr the library was compiled with (kernels.toml), e.g. the tile size
// of a kernel whose output the host sizes: read from the container, so
// kernels.toml stays the one place it is set.
inline std::int64_t compiled_constexpr(std::string_view kernel, std::string_view name) {
  const tritonpack::kernel_info &info = lulesh_kernels::library().get(kernel).info();
  for (const auto &variant : info.variants)
    for (const auto &[key, value] : variant.config.constexprs)
      if (key == name) return std::stoll(value);
  throw std::logic_error("lulesh_kernels: kernel " + std::string(kernel) + " has no constexpr " + std::string(name) +
                         " (kernels.toml and triton_kernels.hpp disagree)");
}

// Why no kernel can run on a node whose driver reports no GPU, in the run time's own words (the
// driver that failed to load and why, the devices present, the images carried): a launch is asked
// for and fails before anything reaches a device. Call it only where device_count() is 0.
inline std::string why_no_gpu(std::string fallback) {
  try {
    lulesh_kernels::update_volume(nullptr, nullptr, nullptr, 1, 0.0);  // never launched: there is no device
  } catch (const tritonpack::error &e) {
    return e.what();
  }
  return fallback;
}

template <class T>
std::int32_t count_of(const tritonpack::device_array<T> &a) {
  return static_cast<std::int32_t>(a.size());
}

// The generated function each launch calls: the library's own by default; the
// *_fma twins with
// --fp-fusion; a benchmark may point one at another compiled configuration of
// the same kernel (same arguments: apps/lulesh/bench's tuning library).
struct triton_functions {
  decltype(&lulesh_kernels::volume_force) volume_force = &lulesh_kernels::volume_force;
  decltype(&lulesh_kernels::gather_node_forces) gather_node_forces = &lulesh_kernels::gather_node_forces;
  decltype(&lulesh_kernels::acceleration) acceleration = &lulesh_kernels::acceleration;
  decltype(&lulesh_kernels::acceleration_bc) acceleration_bc = &lulesh_kernels::acceleration_bc;
  decltype(&lulesh_kernels::position_velocity) position_velocity = &lulesh_kernels::position_velocity;
  decltype(&lulesh_kernels::advance_nodes) advance_nodes = &lulesh_kernels::advance_nodes;
  decltype(&lulesh_kernels::kinematics_q_gradient) kinematics_q_gradient = &lulesh_kernels::kinematics_q_gradient;
  decltype(&lulesh_kernels::monotonic_q) monotonic_q = &lulesh_kernels::monotonic_q;
  decltype(&lulesh_kernels::material_eos) material_eos = &lulesh_kernels::material_eos;
  decltype(&lulesh_kernels::monotonic_q_material_eos) monotonic_q_material_eos =
      &lulesh_kernels::monotonic_q_material_eos;
  decltype(&lulesh_kernels::update_volume) update_volume = &lulesh_kernels::update_volume;
  decltype(&lulesh_kernels::time_constraints) time_constraints = &lulesh_kernels::time_constraints;
  decltype(&lulesh_kernels::reduce_time_constraints) reduce_time_constraints = &lulesh_kernels::reduce_time_constraints;
  decltype(&lulesh_kernels::advance_time) advance_time = &lulesh_kernels::advance_time;
};

struct triton_kernels {
  bool fp_fusion = false;                 // the *_fma twins of the three heavy kernels
  tritonpack::stream_t stream = nullptr;  // nullptr: the legacy default stream
  std::int32_t num_partials = 0;          // tile minima time_constraints writes
  triton_functions fn;
  // advance_nodes instead of gather_node_forces, acceleration, acceleration_bc and position_velocity
  // (--fused-nodes; device_state::use_fused_nodes first). One domain only: lagrange_step refuses it
  // with a halo, whose node-force exchange would fall between the fused loops.
  bool fused_nodes = false;
  // monotonic_q_material_eos instead of monotonic_q and material_eos (--fused-q-eos).
  bool fused_q_eos = false;

  // The number of tile minima time_constraints writes for num_elem elements, at
  // the library's tile size (kernels.toml) or at `tile`.
  static std::int64_t partials_for(std::int32_t num_elem, std::int64_t tile = 0) {
    if (tile <= 0) tile = compiled_constexpr("time_constraints", "BLOCK");
    return (num_elem + tile - 1) / tile;
  }

  static triton_kernels make(std::int32_t num_elem, bool fp_fusion, tritonpack::stream_t stream = nullptr) {
    triton_kernels k{fp_fusion, stream, static_cast<std::int32_t>(partials_for(num_elem)), {}};
    if (fp_fusion) {
      k.fn.volume_force = &lulesh_kernels::volume_force_fma;
      k.fn.kinematics_q_gradient = &lulesh_kernels::kinematics_q_gradient_fma;
      k.fn.material_eos = &lulesh_kernels::material_eos_fma;
      k.fn.monotonic_q_material_eos = &lulesh_kernels::monotonic_q_material_eos_fma;
    }
    return k;
  }

  void volume_force(device_state &d, const constants &c) const {
    fn.volume_force(d.x.data(), d.y.data(), d.z.data(), d.xd.data(), d.yd.data(), d.zd.data(), d.p.data(), d.q.data(),
                    d.v.data(), d.volo.data(), d.ss.data(), d.elem_mass.data(), d.nodelist.data(), d.fx_corner.data(),
                    d.fy_corner.data(), d.fz_corner.data(), d.status.data(), d.num_elem, d.corner_stride, c.hgcoef,
                    stream);
  }
  void gather_node_forces(device_state &d) const {
    fn.gather_node_forces(d.fx_corner.data(), d.fy_corner.data(), d.fz_corner.data(), d.node_elem_start.data(),
                          d.node_elem_corner.data(), d.fx.data(), d.fy.data(), d.fz.data(), d.status.data(), d.num_node,
                          stream);
  }
  void acceleration(device_state &d) const {
    fn.acceleration(d.fx.data(), d.fy.data(), d.fz.data(), d.nodal_mass.data(), d.xdd.data(), d.ydd.data(),
                    d.zdd.data(), d.status.data(), d.num_node, stream);
  }
  // Only the symmetry planes this domain has (all three in one domain; under MPI only a domain at
  // the global cube's x = 0, y = 0, z = 0 sides, as the reference's symmXempty() checks).
  void acceleration_bc(device_state &d) const {
    if (d.symm_x.size() > 0)
      fn.acceleration_bc(d.xdd.data(), d.symm_x.data(), d.status.data(), count_of(d.symm_x), stream);
    if (d.symm_y.size() > 0)
      fn.acceleration_bc(d.ydd.data(), d.symm_y.data(), d.status.data(), count_of(d.symm_y), stream);
    if (d.symm_z.size() > 0)
      fn.acceleration_bc(d.zdd.data(), d.symm_z.data(), d.status.data(), count_of(d.symm_z), stream);
  }
  void position_velocity(device_state &d, const constants &c, double dt) const {
    fn.position_velocity(d.x.data(), d.y.data(), d.z.data(), d.xd.data(), d.yd.data(), d.zd.data(), d.xdd.data(),
                         d.ydd.data(), d.zdd.data(), d.status.data(), d.num_node, dt, c.u_cut, stream);
  }
  // The four node kernels above in one launch (kernels.py's advance_nodes): the same x, y, z, xd,
  // yd, zd bit for bit; f* and *dd are neither written nor read.
  void advance_nodes(device_state &d, const constants &c, double dt) const {
    if (d.node_symm.size() != static_cast<std::size_t>(d.num_node))
      throw std::logic_error("triton_kernels::advance_nodes: device_state::use_fused_nodes was not called");
    fn.advance_nodes(d.fx_corner.data(), d.fy_corner.data(), d.fz_corner.data(), d.node_elem_start.data(),
                     d.node_elem_corner.data(), d.nodal_mass.data(), d.node_symm.data(), d.x.data(), d.y.data(),
                     d.z.data(), d.xd.data(), d.yd.data(), d.zd.data(), d.status.data(), d.num_node, dt, c.u_cut,
                     stream);
  }
  void kinematics_q_gradient(device_state &d, double dt) const {
    fn.kinematics_q_gradient(d.x.data(), d.y.data(), d.z.data(), d.xd.data(), d.yd.data(), d.zd.data(), d.volo.data(),
                             d.v.data(), d.nodelist.data(), d.vnew.data(), d.delv.data(), d.arealg.data(),
                             d.vdov.data(), d.delv_xi.data(), d.delv_eta.data(), d.delv_zeta.data(), d.delx_xi.data(),
                             d.delx_eta.data(), d.delx_zeta.data(), d.status.data(), d.num_elem, d.corner_stride, dt,
                             stream);
  }
  void monotonic_q(device_state &d, const constants &c) const {
    fn.monotonic_q(d.region_elems.data(), count_of(d.region_elems), d.elem_bc.data(), d.lxim.data(), d.lxip.data(),
                   d.letam.data(), d.letap.data(), d.lzetam.data(), d.lzetap.data(), d.delv_xi.data(),
                   d.delv_eta.data(), d.delv_zeta.data(), d.delx_xi.data(), d.delx_eta.data(), d.delx_zeta.data(),
                   d.vdov.data(), d.volo.data(), d.vnew.data(), d.elem_mass.data(), d.q.data(), d.ql.data(),
                   d.qq.data(), d.status.data(), c.monoq_limiter_mult, c.monoq_max_slope, c.qlc_monoq, c.qqc_monoq,
                   c.qstop, stream);
  }
  void material_eos(device_state &d, const constants &c) const {
    fn.material_eos(d.eos.elements.data(), d.eos.repetitions.data(), count_of(d.eos.elements), d.e.data(),
                    d.p.data(), d.q.data(), d.ql.data(), d.qq.data(), d.delv.data(), d.vnew.data(), d.v.data(),
                    d.ss.data(), d.status.data(), c.e_cut, c.p_cut, c.q_cut, c.eosvmin, c.eosvmax, c.pmin, c.emin,
                    c.refdens, stream);
  }
  // monotonic_q and material_eos in one launch over the EOS slots (kernels.py's
  // monotonic_q_material_eos): the same e, p, q, ss bit for bit; ql and qq are neither written nor read.
  void monotonic_q_material_eos(device_state &d, const constants &c) const {
    fn.monotonic_q_material_eos(d.eos.elements.data(), d.eos.repetitions.data(), count_of(d.eos.elements),
                                d.elem_bc.data(), d.lxim.data(), d.lxip.data(), d.letam.data(), d.letap.data(),
                                d.lzetam.data(), d.lzetap.data(), d.delv_xi.data(), d.delv_eta.data(),
                                d.delv_zeta.data(), d.delx_xi.data(), d.delx_eta.data(), d.delx_zeta.data(),
                                d.vdov.data(), d.volo.data(), d.elem_mass.data(), d.e.data(), d.p.data(), d.q.data(),
                                d.delv.data(), d.vnew.data(), d.v.data(), d.ss.data(), d.status.data(),
                                c.monoq_limiter_mult, c.monoq_max_slope, c.qlc_monoq, c.qqc_monoq, c.qstop, c.e_cut,
                                c.p_cut, c.q_cut, c.eosvmin, c.eosvmax, c.pmin, c.emin, c.refdens, stream);
  }
  void update_volume(device_state &d, const constants &c) const {
    fn.update_volume(d.vnew.data(), d.v.data(), d.status.data(), d.num_elem, c.v_cut, stream);
  }
  void time_constraints(device_state &d, const constants &c) const {
    fn.time_constraints(d.ss.data(), d.vdov.data(), d.arealg.data(), d.num_elem, 64.0 * c.qqc * c.qqc, c.dvovmax,
                        d.partial_courant.data(), d.partial_hydro.data(), d.status.data(), stream);
  }
  void reduce_time_constraints(device_state &d) const {
    fn.reduce_time_constraints(d.partial_courant.data(), d.partial_hydro.data(), num_partials, d.status.data(), stream);
  }
  // The device-resident step's TimeIncrement (kernels.py's advance_time) with t's constants.
  void advance_time(device_state &d, const time_control &t, std::int32_t max_cycles,
                    std::int32_t history_length) const {
    fn.advance_time(d.status.data(), t.stoptime, max_cycles, t.dtfixed, t.deltatimemultlb, t.deltatimemultub, t.dtmax,
                    history_length, stream);
  }
};

// The example's step: Triton kernels, host-clock timer.
using gpu_step = lagrange_step<triton_kernels>;

}  // namespace lulesh
