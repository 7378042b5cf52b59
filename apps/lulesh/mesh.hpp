// mesh.hpp — the Sedov problem's mesh for one domain: a cube of s^3 hexahedra on [0, 1.125]^3,
// its connectivity in the layout the kernels read, and its boundary conditions.
//
// Numbering (the reference's): node (col, row, plane) is col + (s+1) (row + (s+1) plane), element
// (col, row, plane) is col + s (row + s plane); corner 0-3 of an element are its lower face
// (z = plane) counter-clockwise from (col, row), corners 4-7 the upper face above them. The
// symmetry planes are x = 0, y = 0, z = 0; the other three faces are free surfaces.
//
// Under MPI the global cube is side^3 such domains (decomposition.hpp): a domain's placement
// shifts its coordinates, and a face it shares with a neighbouring domain is neither a symmetry
// plane nor a free surface but a COMM face, whose elements see the neighbour's across it through
// ghost elements (indices num_elem .. num_elem + num_ghost, filled by the monotonic-Q exchange).
#pragma once

#include <array>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace lulesh {

// Boundary condition bits of an element's faces (the reference's lulesh.h): per face a symmetry
// plane, a free surface or a neighbouring domain (the last never in one domain). kernels.py has
// the same values.
enum elem_bc_bits : std::int32_t {
  XI_M_SYMM = 0x00001, XI_M_FREE = 0x00002, XI_M_COMM = 0x00004,
  XI_P_SYMM = 0x00008, XI_P_FREE = 0x00010, XI_P_COMM = 0x00020,
  ETA_M_SYMM = 0x00040, ETA_M_FREE = 0x00080, ETA_M_COMM = 0x00100,
  ETA_P_SYMM = 0x00200, ETA_P_FREE = 0x00400, ETA_P_COMM = 0x00800,
  ZETA_M_SYMM = 0x01000, ZETA_M_FREE = 0x02000, ZETA_M_COMM = 0x04000,
  ZETA_P_SYMM = 0x08000, ZETA_P_FREE = 0x10000, ZETA_P_COMM = 0x20000,
};

// Corner-major arrays (nodelist, corner forces) give each corner a row of corner_stride entries:
// the element count rounded up to 32, so that every row starts 128-byte aligned.
inline std::int32_t corner_stride_for(std::int32_t num_elem) { return (num_elem + 31) / 32 * 32; }

// Where a domain sits in the global cube of side^3 domains (the reference's col/row/plane
// locations); the default is the one-domain run.
struct placement {
  std::int32_t side = 1;
  std::int32_t col = 0, row = 0, plane = 0;
  bool col_min() const { return col > 0; }  // a neighbouring domain at x-, x+, y-, ...
  bool col_max() const { return col < side - 1; }
  bool row_min() const { return row > 0; }
  bool row_max() const { return row < side - 1; }
  bool plane_min() const { return plane > 0; }
  bool plane_max() const { return plane < side - 1; }
  bool at_origin() const { return col == 0 && row == 0 && plane == 0; }
};

// The ghost planes' order after the real elements (the reference's SetupBoundaryConditions): the
// faces with a neighbour, in this order, s^2 ghosts each.
enum ghost_face : int { ghost_plane_min, ghost_plane_max, ghost_row_min, ghost_row_max, ghost_col_min, ghost_col_max };

struct mesh {
  std::int32_t edge_elems = 0;  // s
  std::int32_t edge_nodes = 0;  // s + 1
  std::int32_t num_elem = 0;
  std::int32_t num_node = 0;
  std::int32_t corner_stride = 0;

  std::vector<double> x, y, z;  // node coordinates

  // nodelist[c * corner_stride + i]: node of corner c of element i (padding entries are 0)
  std::vector<std::int32_t> nodelist;
  std::int32_t node_of(std::int32_t elem, int corner) const {
    return nodelist[static_cast<std::size_t>(corner) * static_cast<std::size_t>(corner_stride) + static_cast<std::size_t>(elem)];
  }

  // Node -> element corners (CSR): the corners of node n are node_elem_corner[node_elem_start[n]
  // .. node_elem_start[n + 1]), each a corner-major slot c * corner_stride + i, by increasing i.
  std::vector<std::int32_t> node_elem_start;
  std::vector<std::int32_t> node_elem_corner;

  // Face neighbours (an element on a domain face is its own neighbour there), as the reference.
  std::vector<std::int32_t> lxim, lxip, letam, letap, lzetam, lzetap;
  std::vector<std::int32_t> elem_bc;  // elem_bc_bits per element

  // Nodes on the symmetry planes x = 0, y = 0, z = 0 ((s+1)^2 each; empty where this domain does
  // not touch that plane).
  std::vector<std::int32_t> symm_x, symm_y, symm_z;

  placement place;
  // Ghost elements after the real ones: ghost_start[f] is the first of face f's s^2 ghosts, -1
  // where the face has no neighbour.
  std::int32_t num_ghost = 0;
  std::array<std::int32_t, 6> ghost_start{{-1, -1, -1, -1, -1, -1}};
};

// The largest mesh whose indices (8 corner slots per element) fit the kernels' 32-bit arithmetic.
constexpr std::int32_t max_edge_elems = 640;

inline void build_coordinates(mesh& m) {
  const std::size_t n = static_cast<std::size_t>(m.num_node);
  m.x.resize(n);
  m.y.resize(n);
  m.z.resize(n);
  // Each coordinate from its global index (not by accumulating a spacing), as the reference:
  // 1.125 i / (side s), so a node shared by two domains has the same coordinates in both.
  const std::int32_t s = m.edge_elems;
  const double global_edge = double(m.place.side * s);
  std::size_t node = 0;
  for (std::int32_t plane = 0; plane < m.edge_nodes; ++plane)
    for (std::int32_t row = 0; row < m.edge_nodes; ++row)
      for (std::int32_t col = 0; col < m.edge_nodes; ++col, ++node) {
        m.x[node] = 1.125 * double(m.place.col * s + col) / global_edge;
        m.y[node] = 1.125 * double(m.place.row * s + row) / global_edge;
        m.z[node] = 1.125 * double(m.place.plane * s + plane) / global_edge;
      }
}

inline void build_nodelist(mesh& m) {
  m.nodelist.assign(8 * static_cast<std::size_t>(m.corner_stride), 0);
  const std::int32_t row_step = m.edge_nodes, plane_step = m.edge_nodes * m.edge_nodes;
  for (std::int32_t plane = 0; plane < m.edge_elems; ++plane)
    for (std::int32_t row = 0; row < m.edge_elems; ++row)
      for (std::int32_t col = 0; col < m.edge_elems; ++col) {
        const std::int32_t elem = col + m.edge_elems * (row + m.edge_elems * plane);
        const std::int32_t base = col + row_step * row + plane_step * plane;  // corner 0
        const std::array<std::int32_t, 8> corners = {
            base, base + 1, base + row_step + 1, base + row_step,
            base + plane_step, base + plane_step + 1, base + plane_step + row_step + 1, base + plane_step + row_step};
        for (int c = 0; c < 8; ++c)
          m.nodelist[static_cast<std::size_t>(c) * static_cast<std::size_t>(m.corner_stride) + static_cast<std::size_t>(elem)] = corners[static_cast<std::size_t>(c)];
      }
}

inline void build_node_elem_csr(mesh& m) {
  m.node_elem_start.assign(static_cast<std::size_t>(m.num_node) + 1, 0);
  for (std::int32_t i = 0; i < m.num_elem; ++i)
    for (int c = 0; c < 8; ++c) ++m.node_elem_start[static_cast<std::size_t>(m.node_of(i, c)) + 1];
  for (std::int32_t n = 0; n < m.num_node; ++n) m.node_elem_start[n + 1] += m.node_elem_start[n];
  m.node_elem_corner.resize(static_cast<std::size_t>(m.node_elem_start.back()));
  std::vector<std::int32_t> fill(m.node_elem_start.begin(), m.node_elem_start.end() - 1);
  for (std::int32_t i = 0; i < m.num_elem; ++i)  // increasing i: the order the forces are added in
    for (int c = 0; c < 8; ++c)
      m.node_elem_corner[static_cast<std::size_t>(fill[static_cast<std::size_t>(m.node_of(i, c))]++)] = c * m.corner_stride + i;
}

inline void build_neighbours(mesh& m) {
  const std::int32_t s = m.edge_elems, n = m.num_elem;
  const std::size_t count = static_cast<std::size_t>(n);
  m.lxim.resize(count);
  m.lxip.resize(count);
  m.letam.resize(count);
  m.letap.resize(count);
  m.lzetam.resize(count);
  m.lzetap.resize(count);
  // The reference steps through the elements linearly (so lxim of an element at x = 0 is the
  // previous row's last element); at the domain's faces the element is its own neighbour. The
  // kernels only follow a neighbour across an interior face (elem_bc says which).
  for (std::int32_t i = 0; i < n; ++i) {
    m.lxim[i] = i == 0 ? 0 : i - 1;
    m.lxip[i] = i == n - 1 ? n - 1 : i + 1;
    m.letam[i] = i < s ? i : i - s;
    m.letap[i] = i >= n - s ? i : i + s;
    m.lzetam[i] = i < s * s ? i : i - s * s;
    m.lzetap[i] = i >= n - s * s ? i : i + s * s;
  }
}

// Ghost planes after the real elements, for the faces that have a neighbour (build_boundary_conditions).
inline void place_ghosts(mesh& m) {
  const placement& p = m.place;
  const bool present[6] = {p.plane_min(), p.plane_max(), p.row_min(), p.row_max(), p.col_min(), p.col_max()};
  std::int32_t next = m.num_elem;
  for (int f = 0; f < 6; ++f) {
    m.ghost_start[static_cast<std::size_t>(f)] = present[f] ? next : -1;
    if (present[f]) next += m.edge_elems * m.edge_elems;
  }
  m.num_ghost = next - m.num_elem;
}

// Per face of the domain: a symmetry plane (x-, y-, z- of the global cube), a free surface (x+,
// y+, z+ of the global cube) or a neighbour's face (COMM), where the element's neighbour across it
// becomes its ghost: ghost_start[face] + (outer * s + inner), outer and inner the element's two
// coordinates along the face, the higher axis outer (the neighbour's packing order, halo.hpp).
inline void build_boundary_conditions(mesh& m) {
  const std::int32_t s = m.edge_elems;
  const placement& p = m.place;
  place_ghosts(m);
  m.elem_bc.assign(static_cast<std::size_t>(m.num_elem), 0);
  auto elem = [s](std::int32_t col, std::int32_t row, std::int32_t plane) { return col + s * (row + s * plane); };
  auto ghost = [&](ghost_face f, std::int32_t outer, std::int32_t inner) {
    return m.ghost_start[static_cast<std::size_t>(f)] + outer * s + inner;
  };
  for (std::int32_t a = 0; a < s; ++a)
    for (std::int32_t b = 0; b < s; ++b) {
      // x- and x+ faces: element (col, a = row, b = plane)
      const std::int32_t xm = elem(0, a, b), xp = elem(s - 1, a, b);
      if (p.col_min()) m.elem_bc[xm] |= XI_M_COMM, m.lxim[xm] = ghost(ghost_col_min, b, a);
      else m.elem_bc[xm] |= XI_M_SYMM;
      if (p.col_max()) m.elem_bc[xp] |= XI_P_COMM, m.lxip[xp] = ghost(ghost_col_max, b, a);
      else m.elem_bc[xp] |= XI_P_FREE;
      // y- and y+ faces: element (a = col, row, b = plane)
      const std::int32_t ym = elem(a, 0, b), yp = elem(a, s - 1, b);
      if (p.row_min()) m.elem_bc[ym] |= ETA_M_COMM, m.letam[ym] = ghost(ghost_row_min, b, a);
      else m.elem_bc[ym] |= ETA_M_SYMM;
      if (p.row_max()) m.elem_bc[yp] |= ETA_P_COMM, m.letap[yp] = ghost(ghost_row_max, b, a);
      else m.elem_bc[yp] |= ETA_P_FREE;
      // z- and z+ faces: element (a = col, b = row, plane)
      const std::int32_t zm = elem(a, b, 0), zp = elem(a, b, s - 1);
      if (p.plane_min()) m.elem_bc[zm] |= ZETA_M_COMM, m.lzetam[zm] = ghost(ghost_plane_min, b, a);
      else m.elem_bc[zm] |= ZETA_M_SYMM;
      if (p.plane_max()) m.elem_bc[zp] |= ZETA_P_COMM, m.lzetap[zp] = ghost(ghost_plane_max, b, a);
      else m.elem_bc[zp] |= ZETA_P_FREE;
    }
}

inline void build_symmetry_planes(mesh& m) {
  const std::int32_t e = m.edge_nodes;
  const std::size_t count = static_cast<std::size_t>(e) * static_cast<std::size_t>(e);
  // Only a domain at the global cube's x = 0 (y = 0, z = 0) side has that plane (the reference's
  // SetupCommBuffers sizes them so); elsewhere the list stays empty and nothing is zeroed.
  m.symm_x.resize(m.place.col == 0 ? count : 0);
  m.symm_y.resize(m.place.row == 0 ? count : 0);
  m.symm_z.resize(m.place.plane == 0 ? count : 0);
  // Listed as the reference lists them (outer index first); the order does not matter to a kernel
  // that only zeroes.
  std::size_t k = 0;
  for (std::int32_t outer = 0; outer < e; ++outer)
    for (std::int32_t inner = 0; inner < e; ++inner, ++k) {
      if (!m.symm_x.empty()) m.symm_x[k] = e * (inner + e * outer);  // col 0: x = 0
      if (!m.symm_y.empty()) m.symm_y[k] = inner + e * e * outer;    // row 0: y = 0
      if (!m.symm_z.empty()) m.symm_z[k] = inner + e * outer;        // plane 0: z = 0
    }
}

// Bits of node_symmetry_bits (kernels.py's SYMM_X, SYMM_Y, SYMM_Z).
enum node_symmetry_bit : std::int32_t { NODE_SYMM_X = 1, NODE_SYMM_Y = 2, NODE_SYMM_Z = 4 };

// Per node, the symmetry planes it lies on, from the three lists: what advance_nodes (lulesh
// --fused-nodes) reads to zero the normal accelerations where acceleration_bc takes the lists.
inline std::vector<std::int32_t> node_symmetry_bits(const mesh& m) {
  std::vector<std::int32_t> bits(static_cast<std::size_t>(m.num_node), 0);
  for (std::int32_t n : m.symm_x) bits[static_cast<std::size_t>(n)] |= NODE_SYMM_X;
  for (std::int32_t n : m.symm_y) bits[static_cast<std::size_t>(n)] |= NODE_SYMM_Y;
  for (std::int32_t n : m.symm_z) bits[static_cast<std::size_t>(n)] |= NODE_SYMM_Z;
  return bits;
}

// One domain of s^3 elements at `where` in the global cube (default: the whole problem).
inline mesh make_mesh(std::int32_t edge_elems, placement where = {}) {
  if (edge_elems < 1 || edge_elems > max_edge_elems)
    throw std::invalid_argument("the mesh size (-s) must be between 1 and " + std::to_string(max_edge_elems) + ", got " +
                                std::to_string(edge_elems));
  if (where.side < 1 || where.col < 0 || where.row < 0 || where.plane < 0 || where.col >= where.side ||
      where.row >= where.side || where.plane >= where.side)
    throw std::invalid_argument("domain (" + std::to_string(where.col) + ", " + std::to_string(where.row) + ", " +
                                std::to_string(where.plane) + ") is outside a cube of " + std::to_string(where.side) +
                                "^3 domains");
  mesh m;
  m.place = where;
  m.edge_elems = edge_elems;
  m.edge_nodes = edge_elems + 1;
  m.num_elem = edge_elems * edge_elems * edge_elems;
  m.num_node = m.edge_nodes * m.edge_nodes * m.edge_nodes;
  m.corner_stride = corner_stride_for(m.num_elem);
  build_coordinates(m);
  build_nodelist(m);
  build_node_elem_csr(m);
  build_neighbours(m);
  build_boundary_conditions(m);
  build_symmetry_planes(m);
  return m;
}

}  // namespace lulesh
