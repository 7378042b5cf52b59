// cuda_kernels.hpp — the step's launch layer for the CUDA C++ twin (cuda_kernels.cu): the same
// interface as apps/lulesh/triton_kernels.hpp, so lagrange_step drives either back end with
// the same host code. Variants: FP contraction (fp_fusion: the -fmad=true build of the twin) and
// the time-constraint reduction (legacy shared-memory tree, or CUB).
#pragma once

#include <tritonpack/tritonpack.hpp>

#include <cstddef>
#include <cstdint>
#include <memory>

#include "device_state.hpp"
#include "problem.hpp"
#include "regions.hpp"
#include "twin_state.hpp"

namespace lulesh_cuda {

inline twin_constants to_twin(const lulesh::constants& c) {
  return {c.e_cut, c.p_cut, c.q_cut, c.v_cut, c.u_cut, c.hgcoef, c.qstop, c.monoq_max_slope, c.monoq_limiter_mult,
          c.qlc_monoq, c.qqc_monoq, c.qqc, c.eosvmax, c.eosvmin, c.pmin, c.emin, c.dvovmax, c.refdens};
}

inline twin_state to_twin(lulesh::device_state& d) {
  auto i32 = [](const tritonpack::device_array<std::int32_t>& a) { return static_cast<std::int32_t>(a.size()); };
  twin_state s{};
  s.num_elem = d.num_elem;
  s.num_node = d.num_node;
  s.corner_stride = d.corner_stride;
  s.x = d.x.data(); s.y = d.y.data(); s.z = d.z.data();
  s.xd = d.xd.data(); s.yd = d.yd.data(); s.zd = d.zd.data();
  s.xdd = d.xdd.data(); s.ydd = d.ydd.data(); s.zdd = d.zdd.data();
  s.fx = d.fx.data(); s.fy = d.fy.data(); s.fz = d.fz.data();
  s.nodal_mass = d.nodal_mass.data();
  s.e = d.e.data(); s.p = d.p.data(); s.q = d.q.data(); s.ql = d.ql.data(); s.qq = d.qq.data();
  s.v = d.v.data(); s.delv = d.delv.data(); s.volo = d.volo.data(); s.vnew = d.vnew.data(); s.vdov = d.vdov.data();
  s.arealg = d.arealg.data(); s.ss = d.ss.data(); s.elem_mass = d.elem_mass.data();
  s.delv_xi = d.delv_xi.data(); s.delv_eta = d.delv_eta.data(); s.delv_zeta = d.delv_zeta.data();
  s.delx_xi = d.delx_xi.data(); s.delx_eta = d.delx_eta.data(); s.delx_zeta = d.delx_zeta.data();
  s.fx_corner = d.fx_corner.data(); s.fy_corner = d.fy_corner.data(); s.fz_corner = d.fz_corner.data();
  s.nodelist = d.nodelist.data(); s.node_elem_start = d.node_elem_start.data(); s.node_elem_corner = d.node_elem_corner.data();
  s.lxim = d.lxim.data(); s.lxip = d.lxip.data(); s.letam = d.letam.data(); s.letap = d.letap.data();
  s.lzetam = d.lzetam.data(); s.lzetap = d.lzetap.data(); s.elem_bc = d.elem_bc.data();
  s.symm_x = d.symm_x.data(); s.symm_y = d.symm_y.data(); s.symm_z = d.symm_z.data();
  s.num_symm_x = i32(d.symm_x); s.num_symm_y = i32(d.symm_y); s.num_symm_z = i32(d.symm_z);
  s.region_elems = d.region_elems.data();
  s.num_region_elems = i32(d.region_elems);
  s.eos_elems = d.eos.elements.data();
  s.eos_reps = d.eos.repetitions.data();
  s.num_eos_slots = i32(d.eos.elements);
  s.partial_courant = d.partial_courant.data(); s.partial_hydro = d.partial_hydro.data(); s.status = d.status.data();
  s.num_partials = static_cast<std::int32_t>(d.partial_courant.size());
  return s;
}

class cuda_kernels {
 public:
  bool fp_fusion = false;
  tritonpack::stream_t stream = nullptr;

  // The number of tile minima the legacy tree writes for num_elem elements.
  static std::int64_t partials_for(std::int32_t num_elem, const twin_blocks& b = {}) {
    return (num_elem + b.reduce - 1) / b.reduce;
  }

  // d's partial arrays must hold partials_for(d.num_elem, blocks) values.
  cuda_kernels(lulesh::device_state& d, const lulesh::constants& c, reduction r, bool fma, tritonpack::stream_t s,
               twin_blocks blocks = {})
      : fp_fusion(fma), stream(s), reduction_(r), blocks_(blocks), s_(to_twin(d)), c_(to_twin(c)) {
    if (reduction_ == reduction::cub) {
      std::size_t bytes = 0;
      (fma ? fma::time_constraints_cub : nofma::time_constraints_cub)(s_, c_, nullptr, bytes, stream);
      cub_temp_ = std::shared_ptr<void>(tritonpack::device_malloc(bytes), [](void* p) { tritonpack::device_free(p); });
      cub_temp_bytes_ = bytes;
    }
  }

  void volume_force(lulesh::device_state&, const lulesh::constants&) const { pick(nofma::volume_force, fma::volume_force)(s_, c_, blocks_, stream); }
  void gather_node_forces(lulesh::device_state&) const { pick(nofma::gather_node_forces, fma::gather_node_forces)(s_, blocks_, stream); }
  void acceleration(lulesh::device_state&) const { pick(nofma::acceleration, fma::acceleration)(s_, blocks_, stream); }
  void acceleration_bc(lulesh::device_state&) const { pick(nofma::acceleration_bc, fma::acceleration_bc)(s_, blocks_, stream); }
  void position_velocity(lulesh::device_state&, const lulesh::constants&, double dt) const {
    pick(nofma::position_velocity, fma::position_velocity)(s_, c_, blocks_, dt, stream);
  }
  void kinematics_q_gradient(lulesh::device_state&, double dt) const {
    pick(nofma::kinematics_q_gradient, fma::kinematics_q_gradient)(s_, blocks_, dt, stream);
  }
  void monotonic_q(lulesh::device_state&, const lulesh::constants&) const { pick(nofma::monotonic_q, fma::monotonic_q)(s_, c_, blocks_, stream); }
  void material_eos(lulesh::device_state&, const lulesh::constants&) const { pick(nofma::material_eos, fma::material_eos)(s_, c_, blocks_, stream); }
  void update_volume(lulesh::device_state&, const lulesh::constants&) const { pick(nofma::update_volume, fma::update_volume)(s_, c_, blocks_, stream); }
  // Legacy tree: tile minima here, their minimum in reduce_time_constraints. CUB: the whole
  // reduction here (DeviceReduce's own launches), nothing in reduce_time_constraints.
  void time_constraints(lulesh::device_state&, const lulesh::constants&) const {
    if (reduction_ == reduction::cub) {
      std::size_t bytes = cub_temp_bytes_;
      pick(nofma::time_constraints_cub, fma::time_constraints_cub)(s_, c_, cub_temp_.get(), bytes, stream);
    } else {
      pick(nofma::time_constraints_tree, fma::time_constraints_tree)(s_, c_, blocks_, stream);
    }
  }
  void reduce_time_constraints(lulesh::device_state&) const {
    if (reduction_ == reduction::legacy_tree)
      pick(nofma::reduce_time_constraints_tree, fma::reduce_time_constraints_tree)(s_, blocks_, stream);
  }

 private:
  template <class F>
  F* pick(F* plain, F* contracted) const { return fp_fusion ? contracted : plain; }

  reduction reduction_;
  twin_blocks blocks_;
  twin_state s_;
  twin_constants c_;
  std::shared_ptr<void> cub_temp_;
  std::size_t cub_temp_bytes_ = 0;
};

}  // namespace lulesh_cuda
