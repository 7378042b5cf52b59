// problem.hpp — the Sedov blast problem's constants and initial state (the reference's Domain
// constructor): element volumes and masses, nodal masses, the energy deposited in the element at
// the origin, and the first time step.
#pragma once

#include <cmath>
#include <cstdint>
#include <vector>

#include "mesh.hpp"

namespace lulesh {

// The reference's constants (lulesh-init.cc), hard-coded there as here.
struct constants {
  double e_cut = 1.0e-7;   // energy tolerance
  double p_cut = 1.0e-7;   // pressure tolerance
  double q_cut = 1.0e-7;   // q tolerance
  double v_cut = 1.0e-10;  // relative volume tolerance
  double u_cut = 1.0e-7;   // velocity tolerance
  double hgcoef = 3.0;     // hourglass control
  double qstop = 1.0e+12;  // excessive q indicator
  double monoq_max_slope = 1.0;
  double monoq_limiter_mult = 2.0;
  double qlc_monoq = 0.5;              // linear term coefficient for q
  double qqc_monoq = 2.0 / 3.0;        // quadratic term coefficient for q
  double qqc = 2.0;
  double eosvmax = 1.0e+9;
  double eosvmin = 1.0e-9;
  double pmin = 0.0;       // pressure floor
  double emin = -1.0e+15;  // energy floor
  double dvovmax = 0.1;    // maximum allowable volume change
  double refdens = 1.0;    // reference density
};

// Volume of a hexahedron from its corner coordinates: the host twin of hex_geometry.py's
// element_volume, same formula, same order of operations (used for the initial volumes; the
// target is compiled with -ffp-contract=off so the host rounds as the reference does).
inline double triple_product(double x1, double y1, double z1, double x2, double y2, double z2, double x3, double y3, double z3) {
  return x1 * (y2 * z3 - z2 * y3) + x2 * (z1 * y3 - y1 * z3) + x3 * (y1 * z2 - z1 * y2);
}

inline double element_volume(const double x[8], const double y[8], const double z[8]) {
  const double dx61 = x[6] - x[1], dy61 = y[6] - y[1], dz61 = z[6] - z[1];
  const double dx70 = x[7] - x[0], dy70 = y[7] - y[0], dz70 = z[7] - z[0];
  const double dx63 = x[6] - x[3], dy63 = y[6] - y[3], dz63 = z[6] - z[3];
  const double dx20 = x[2] - x[0], dy20 = y[2] - y[0], dz20 = z[2] - z[0];
  const double dx50 = x[5] - x[0], dy50 = y[5] - y[0], dz50 = z[5] - z[0];
  const double dx64 = x[6] - x[4], dy64 = y[6] - y[4], dz64 = z[6] - z[4];
  const double dx31 = x[3] - x[1], dy31 = y[3] - y[1], dz31 = z[3] - z[1];
  const double dx72 = x[7] - x[2], dy72 = y[7] - y[2], dz72 = z[7] - z[2];
  const double dx43 = x[4] - x[3], dy43 = y[4] - y[3], dz43 = z[4] - z[3];
  const double dx57 = x[5] - x[7], dy57 = y[5] - y[7], dz57 = z[5] - z[7];
  const double dx14 = x[1] - x[4], dy14 = y[1] - y[4], dz14 = z[1] - z[4];
  const double dx25 = x[2] - x[5], dy25 = y[2] - y[5], dz25 = z[2] - z[5];
  const double volume = triple_product(dx31 + dx72, dx63, dx20, dy31 + dy72, dy63, dy20, dz31 + dz72, dz63, dz20) +
                        triple_product(dx43 + dx57, dx64, dx70, dy43 + dy57, dy64, dy70, dz43 + dz57, dz64, dz70) +
                        triple_product(dx14 + dx25, dx61, dx50, dy14 + dy25, dy61, dy50, dz14 + dz25, dz61, dz50);
  return volume * (1.0 / 12.0);
}

inline double element_volume(const mesh& m, std::int32_t elem) {
  double x[8], y[8], z[8];
  for (int c = 0; c < 8; ++c) {
    const std::size_t n = static_cast<std::size_t>(m.node_of(elem, c));
    x[c] = m.x[n];
    y[c] = m.y[n];
    z[c] = m.z[n];
  }
  return element_volume(x, y, z);
}

// The Sedov energy: 3.948746e7 is right for 45 elements along a side; it scales with the volume.
inline double initial_energy(std::int32_t edge_elems) {
  const double scale = double(edge_elems) / 45.0;
  return 3.948746e+7 * scale * scale * scale;
}

struct initial_state {
  std::vector<double> volo;        // reference volume per element
  std::vector<double> elem_mass;   // = volo (unit density)
  std::vector<double> nodal_mass;  // an eighth of each adjacent element's mass
  std::vector<double> e;           // energy: initial_energy() in element 0, 0 elsewhere
  double deltatime = 0;            // first time step, from an analytic CFL estimate
};

inline initial_state make_initial_state(const mesh& m) {
  initial_state s;
  const std::size_t ne = static_cast<std::size_t>(m.num_elem);
  s.volo.resize(ne);
  s.elem_mass.resize(ne);
  s.nodal_mass.assign(static_cast<std::size_t>(m.num_node), 0.0);
  s.e.assign(ne, 0.0);
  for (std::int32_t i = 0; i < m.num_elem; ++i) {
    const double volume = element_volume(m, i);
    s.volo[static_cast<std::size_t>(i)] = volume;
    s.elem_mass[static_cast<std::size_t>(i)] = volume;
    for (int c = 0; c < 8; ++c) s.nodal_mass[static_cast<std::size_t>(m.node_of(i, c))] += volume / 8.0;
  }
  // The energy of the whole problem's size (side s elements along a side), deposited in the
  // element at the origin, which only the domain at the origin has. Every domain starts with its
  // own element 0's first dt (the reference's, not reduced: cycle 1 takes each rank's own).
  const double einit = initial_energy(m.edge_elems * m.place.side);
  if (m.place.at_origin()) s.e[0] = einit;
  s.deltatime = (0.5 * std::cbrt(s.volo[0])) / std::sqrt(2.0 * einit);
  return s;
}

}  // namespace lulesh
