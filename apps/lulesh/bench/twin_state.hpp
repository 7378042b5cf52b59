// twin_state.hpp — the device arrays of lulesh::device_state as plain pointers, for the CUDA C++
// twin (cuda_kernels.cu is compiled by nvcc and sees no tritonpack header). Same layout as the
// Triton kernels: structure of arrays, corner-major nodelist and corner forces.
#pragma once

#include <cstddef>
#include <cstdint>

namespace lulesh_cuda {

struct twin_state {
  std::int32_t num_elem, num_node, corner_stride;
  double *x, *y, *z, *xd, *yd, *zd, *xdd, *ydd, *zdd, *fx, *fy, *fz, *nodal_mass;
  double *e, *p, *q, *ql, *qq, *v, *delv, *volo, *vnew, *vdov, *arealg, *ss, *elem_mass;
  double *delv_xi, *delv_eta, *delv_zeta, *delx_xi, *delx_eta, *delx_zeta;
  double *fx_corner, *fy_corner, *fz_corner;
  const std::int32_t *nodelist, *node_elem_start, *node_elem_corner;
  const std::int32_t *lxim, *lxip, *letam, *letap, *lzetam, *lzetap, *elem_bc;
  const std::int32_t *symm_x, *symm_y, *symm_z;
  std::int32_t num_symm_x, num_symm_y, num_symm_z;
  const std::int32_t* region_elems;
  std::int32_t num_region_elems;
  const std::int32_t *eos_elems, *eos_reps;  // material_eos's slots (regions.hpp, make_eos_order)
  std::int32_t num_eos_slots;
  double *partial_courant, *partial_hydro, *status;
  std::int32_t num_partials;
};

// The reference's constants the kernels take (problem.hpp's lulesh::constants, by value).
struct twin_constants {
  double e_cut, p_cut, q_cut, v_cut, u_cut, hgcoef, qstop, monoq_max_slope, monoq_limiter_mult, qlc_monoq, qqc_monoq,
      qqc, eosvmax, eosvmin, pmin, emin, dvovmax, refdens;
};

// How the two time-constraint reductions are done: a per-block shared-memory tree into tile
// minima, then one block over those (the legacy CUDA port's way; two launches like the Triton
// kernels), or CUB's DeviceReduce over a transform of the elements (its own launches).
enum class reduction { legacy_tree, cub };

// Threads per block of the per-element / per-node kernels and of the legacy reduction.
struct twin_blocks {
  int element = 128;
  int node = 256;
  int reduce = 1024;  // elements per tile minimum = threads per block of time_constraints
};

// One set of launchers per floating-point variant: nofma (-fmad=false, the verified build) and
// fma (-fmad=true), from the same source compiled twice.
#define LULESH_CUDA_LAUNCHERS(NS)                                                                                    \
  namespace NS {                                                                                                     \
  void volume_force(const twin_state&, const twin_constants&, const twin_blocks&, void* stream);                     \
  void gather_node_forces(const twin_state&, const twin_blocks&, void* stream);                                      \
  void acceleration(const twin_state&, const twin_blocks&, void* stream);                                            \
  void acceleration_bc(const twin_state&, const twin_blocks&, void* stream);                                         \
  void position_velocity(const twin_state&, const twin_constants&, const twin_blocks&, double dt, void* stream);      \
  void kinematics_q_gradient(const twin_state&, const twin_blocks&, double dt, void* stream);                        \
  void monotonic_q(const twin_state&, const twin_constants&, const twin_blocks&, void* stream);                      \
  void material_eos(const twin_state&, const twin_constants&, const twin_blocks&, void* stream);                      \
  void update_volume(const twin_state&, const twin_constants&, const twin_blocks&, void* stream);                    \
  void time_constraints_tree(const twin_state&, const twin_constants&, const twin_blocks&, void* stream);            \
  void reduce_time_constraints_tree(const twin_state&, const twin_blocks&, void* stream);                            \
  /* CUB: both minima in one DeviceReduce into status[0..1]; temp == nullptr asks for temp_bytes. */                 \
  void time_constraints_cub(const twin_state&, const twin_constants&, void* temp, std::size_t& temp_bytes,           \
                            void* stream);                                                                           \
  }


LULESH_CUDA_LAUNCHERS(nofma)
LULESH_CUDA_LAUNCHERS(fma)
}  // namespace lulesh_cuda
