// device_state.hpp — the problem's arrays in GPU memory (tritonpack's memory API: device_array
// allocates through the run time's dlopen'ed driver, no GPU toolkit needed), uploaded from the
// host set-up.
#pragma once

#include <tritonpack/tritonpack.hpp>

#include <cstdint>
#include <utility>
#include <vector>

#include "mesh.hpp"
#include "problem.hpp"
#include "regions.hpp"
#include "status_layout.hpp"

namespace lulesh {

template <class T>
tritonpack::device_array<T> device_zeros(std::size_t count) {
  tritonpack::device_array<T> a(count);
  a.fill_bytes(0);
  return a;
}

// make_eos_order's slots on the device: element ids (-1: padding) and their EOS repetitions.
struct device_eos_order {
  tritonpack::device_array<std::int32_t> elements, repetitions;
  explicit device_eos_order(const eos_order& host) : elements(host.elements), repetitions(host.repetitions) {}
};

struct device_state {
  std::int32_t num_elem;
  std::int32_t num_node;
  std::int32_t corner_stride;

  // Node fields: coordinates, velocities, accelerations, forces, mass.
  tritonpack::device_array<double> x, y, z, xd, yd, zd, xdd, ydd, zdd, fx, fy, fz, nodal_mass;
  // Element fields: energy, pressure, viscosity (total, linear, quadratic), relative volume and its
  // change, reference volume, new relative volume, strain rate, characteristic length, sound
  // speed, mass.
  tritonpack::device_array<double> e, p, q, ql, qq, v, delv, volo, vnew, vdov, arealg, ss, elem_mass;
  // Monotonic Q gradients (per step).
  tritonpack::device_array<double> delv_xi, delv_eta, delv_zeta, delx_xi, delx_eta, delx_zeta;
  // Per-corner forces, corner-major (8 * corner_stride).
  tritonpack::device_array<double> fx_corner, fy_corner, fz_corner;
  // Connectivity and boundary conditions.
  tritonpack::device_array<std::int32_t> nodelist, node_elem_start, node_elem_corner;
  tritonpack::device_array<std::int32_t> lxim, lxip, letam, letap, lzetam, lzetap, elem_bc;
  tritonpack::device_array<std::int32_t> symm_x, symm_y, symm_z;
  // The same planes per node (node_symmetry_bits), for advance_nodes: empty unless
  // use_fused_nodes() was called (lulesh --fused-nodes).
  tritonpack::device_array<std::int32_t> node_symm;
  tritonpack::device_array<std::int32_t> region_elems;  // all regions' lists, region after region
  device_eos_order eos;  // material_eos's slots: all regions in one launch
  // Time constraint minima per tile, and the step's status.
  tritonpack::device_array<double> partial_courant, partial_hydro, status;

  // history_length: cycles of (time, dt) the device-resident step keeps for the host (0: none).
  device_state(const mesh& m, const initial_state& init, const region_sets& regions, std::size_t num_partials,
               std::size_t history_length = 0)
      : num_elem(m.num_elem),
        num_node(m.num_node),
        corner_stride(m.corner_stride),
        x(m.x), y(m.y), z(m.z),
        xd(device_zeros<double>(nodes())), yd(device_zeros<double>(nodes())), zd(device_zeros<double>(nodes())),
        xdd(device_zeros<double>(nodes())), ydd(device_zeros<double>(nodes())), zdd(device_zeros<double>(nodes())),
        fx(device_zeros<double>(nodes())), fy(device_zeros<double>(nodes())), fz(device_zeros<double>(nodes())),
        nodal_mass(init.nodal_mass),
        e(init.e),
        p(device_zeros<double>(elems())), q(device_zeros<double>(elems())),
        ql(device_zeros<double>(elems())), qq(device_zeros<double>(elems())),
        v(std::vector<double>(elems(), 1.0)),  // relative volume starts at 1, not 0
        delv(device_zeros<double>(elems())),
        volo(init.volo),
        vnew(device_zeros<double>(elems())), vdov(device_zeros<double>(elems())),
        arealg(device_zeros<double>(elems())), ss(device_zeros<double>(elems())),
        elem_mass(init.elem_mass),
        // The velocity gradients also hold the ghost elements' (a domain's COMM faces, MPI).
        delv_xi(device_zeros<double>(elems_and_ghosts(m))), delv_eta(device_zeros<double>(elems_and_ghosts(m))),
        delv_zeta(device_zeros<double>(elems_and_ghosts(m))), delx_xi(device_zeros<double>(elems())),
        delx_eta(device_zeros<double>(elems())), delx_zeta(device_zeros<double>(elems())),
        fx_corner(device_zeros<double>(corners())), fy_corner(device_zeros<double>(corners())),
        fz_corner(device_zeros<double>(corners())),
        nodelist(m.nodelist), node_elem_start(m.node_elem_start), node_elem_corner(m.node_elem_corner),
        lxim(m.lxim), lxip(m.lxip), letam(m.letam), letap(m.letap), lzetam(m.lzetam), lzetap(m.lzetap),
        elem_bc(m.elem_bc),
        symm_x(m.symm_x), symm_y(m.symm_y), symm_z(m.symm_z),
        region_elems(regions.elements),
        eos(make_eos_order(regions)),
        partial_courant(device_zeros<double>(num_partials)),
        partial_hydro(device_zeros<double>(num_partials)),
        status(device_zeros<double>(status_history + 2 * history_length)) {}

  // Uploads what advance_nodes needs beyond the unfused node kernels' arrays.
  void use_fused_nodes(const mesh& m) { node_symm = tritonpack::device_array<std::int32_t>(node_symmetry_bits(m)); }

  static std::size_t elems_and_ghosts(const mesh& m) { return static_cast<std::size_t>(m.num_elem + m.num_ghost); }
  std::size_t nodes() const { return static_cast<std::size_t>(num_node); }
  std::size_t elems() const { return static_cast<std::size_t>(num_elem); }
  std::size_t corners() const { return 8 * static_cast<std::size_t>(corner_stride); }

  // The floating-point fields by name (kernels.py's argument names): what a step reads and writes.
  using named_field = std::pair<const char*, const tritonpack::device_array<double>*>;
  std::vector<named_field> fields() const {
    return {{"x", &x}, {"y", &y}, {"z", &z}, {"xd", &xd}, {"yd", &yd}, {"zd", &zd}, {"xdd", &xdd}, {"ydd", &ydd},
            {"zdd", &zdd}, {"fx", &fx}, {"fy", &fy}, {"fz", &fz}, {"nodal_mass", &nodal_mass}, {"e", &e}, {"p", &p},
            {"q", &q}, {"ql", &ql}, {"qq", &qq}, {"v", &v}, {"delv", &delv}, {"volo", &volo}, {"vnew", &vnew},
            {"vdov", &vdov}, {"arealg", &arealg}, {"ss", &ss}, {"elem_mass", &elem_mass}, {"delv_xi", &delv_xi},
            {"delv_eta", &delv_eta}, {"delv_zeta", &delv_zeta}, {"delx_xi", &delx_xi}, {"delx_eta", &delx_eta},
            {"delx_zeta", &delx_zeta}, {"fx_corner", &fx_corner}, {"fy_corner", &fy_corner}, {"fz_corner", &fz_corner},
            {"partial_courant", &partial_courant}, {"partial_hydro", &partial_hydro}, {"status", &status}};
  }

  std::size_t bytes() const {
    std::size_t total = 0;
    for (const auto& [name, a] : fields()) total += a->bytes();
    for (const auto* a : {&nodelist, &node_elem_start, &node_elem_corner, &lxim, &lxip, &letam, &letap, &lzetam, &lzetap,
                          &elem_bc, &symm_x, &symm_y, &symm_z, &node_symm, &region_elems, &eos.elements, &eos.repetitions})
      total += a->bytes();
    return total;
  }
};

}  // namespace lulesh
