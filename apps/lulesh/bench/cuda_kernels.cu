// cuda_kernels.cu — the CUDA C++ twin of apps/lulesh/kernels.py: the same kernels (same
// boundaries, same structure-of-arrays layout, one element or node per thread), every formula in
// the same order as kernels.py / hex_geometry.py, so that with -fmad=false (and nvcc's defaults
// -prec-div=true -prec-sqrt=true, cbrt from libdevice) a step rounds exactly as the Triton step.
// Compiled twice (CMakeLists.txt): LULESH_CUDA_NS=nofma with -fmad=false, =fma with -fmad=true.
#include <cub/device/device_reduce.cuh>
#include <cuda/std/functional>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include <cstdio>
#include <stdexcept>
#include <string>

#include "hex_geometry.cuh"
#include "twin_state.hpp"

#ifndef LULESH_CUDA_NS
#error "compile with -DLULESH_CUDA_NS=nofma or fma"
#endif

namespace lulesh_cuda {
namespace LULESH_CUDA_NS {
namespace {

using namespace geometry;

constexpr int status_dtcourant = 0, status_dthydro = 1, status_volume_error = 2, status_qstop_error = 3;

constexpr int XI_M = 0x00007, XI_M_SYMM = 0x00001, XI_M_COMM = 0x00004;
constexpr int XI_P = 0x00038, XI_P_SYMM = 0x00008, XI_P_COMM = 0x00020;
constexpr int ETA_M = 0x001c0, ETA_M_SYMM = 0x00040, ETA_M_COMM = 0x00100;
constexpr int ETA_P = 0x00e00, ETA_P_SYMM = 0x00200, ETA_P_COMM = 0x00800;
constexpr int ZETA_M = 0x07000, ZETA_M_SYMM = 0x01000, ZETA_M_COMM = 0x04000;
constexpr int ZETA_P = 0x38000, ZETA_P_SYMM = 0x08000, ZETA_P_COMM = 0x20000;

constexpr double PTINY = 1.0e-36;
constexpr double NO_CONSTRAINT = 1.0e+20;
constexpr double SS_FLOOR = 0.1111111e-36;
constexpr double SS_FLOOR_VALUE = 0.3333333e-18;

void check(cudaError_t r, const char* what) {
  if (r != cudaSuccess) throw std::runtime_error(std::string("CUDA twin: ") + what + ": " + cudaGetErrorString(r));
}
#define LAUNCHED(name) check(cudaGetLastError(), "launch of " name)

unsigned blocks_for(long long n, int per_block) { return static_cast<unsigned>((n + per_block - 1) / per_block); }

// ---- volume force -------------------------------------------------------------------------------

__device__ __forceinline__ double dot8(const double* A, const double* B) {
  double s = A[0] * B[0];
#pragma unroll
  for (int i = 1; i < 8; ++i) s = s + A[i] * B[i];
  return s;
}

// One hourglass base vector gamma (entries +-1, passed as literals so that the multiplications by
// them fold away, as in kernels.py) made orthogonal to the linear velocity field.
__device__ __forceinline__ void hourglass_mode(const double* X, const double* Y, const double* Z, const double* DX,
                                               const double* DY, const double* DZ, double volinv, double g0, double g1,
                                               double g2, double g3, double g4, double g5, double g6, double g7,
                                               double* H) {
  const double G[8] = {g0, g1, g2, g3, g4, g5, g6, g7};
  const double hx = dot8(X, G), hy = dot8(Y, G), hz = dot8(Z, G);
#pragma unroll
  for (int i = 0; i < 8; ++i) H[i] = G[i] - volinv * (DX[i] * hx + DY[i] * hy + DZ[i] * hz);
}

__device__ __forceinline__ void hourglass_force(const double (*H)[8], const double* V, double coefficient, double* F) {
  const double m0 = dot8(H[0], V), m1 = dot8(H[1], V), m2 = dot8(H[2], V), m3 = dot8(H[3], V);
#pragma unroll
  for (int i = 0; i < 8; ++i) F[i] = coefficient * (H[0][i] * m0 + H[1][i] * m1 + H[2][i] * m2 + H[3][i] * m3);
}

__device__ __forceinline__ void load_corners(const std::int32_t* nodelist, int corner_stride, int elem, int* N) {
#pragma unroll
  for (int c = 0; c < 8; ++c) N[c] = nodelist[c * corner_stride + elem];
}

__device__ __forceinline__ void gather(const double* field, const int* N, double* out) {
#pragma unroll
  for (int c = 0; c < 8; ++c) out[c] = field[N[c]];
}

__global__ void volume_force_kernel(twin_state s, double hgcoef) {
  const int elem = blockIdx.x * blockDim.x + threadIdx.x;
  if (elem >= s.num_elem) return;
  int N[8];
  load_corners(s.nodelist, s.corner_stride, elem, N);
  double X[8], Y[8], Z[8];
  gather(s.x, N, X);
  gather(s.y, N, Y);
  gather(s.z, N, Z);
  const double sigma = -s.p[elem] - s.q[elem];
  const double stress_volume = jacobian_volume(X, Y, Z);
  double NX[8], NY[8], NZ[8];
  corner_normals(X, Y, Z, NX, NY, NZ);
  const double relative_volume = s.v[elem];
  const double determ = s.volo[elem] * relative_volume;
  if (stress_volume <= 0.0 || relative_volume <= 0.0) s.status[status_volume_error] = 1.0;
  double DX[8], DY[8], DZ[8];
  volume_derivatives(X, Y, Z, DX, DY, DZ);
  const double volinv = 1.0 / determ;
  double H[4][8];
  hourglass_mode(X, Y, Z, DX, DY, DZ, volinv, 1., 1., -1., -1., -1., -1., 1., 1., H[0]);
  hourglass_mode(X, Y, Z, DX, DY, DZ, volinv, 1., -1., -1., 1., -1., 1., 1., -1., H[1]);
  hourglass_mode(X, Y, Z, DX, DY, DZ, volinv, 1., -1., 1., -1., 1., -1., 1., -1., H[2]);
  hourglass_mode(X, Y, Z, DX, DY, DZ, volinv, -1., 1., -1., 1., 1., -1., 1., -1., H[3]);
  const double coefficient = -hgcoef * 0.01 * s.ss[elem] * s.elem_mass[elem] / cbrt(determ);
  double V[8], HX[8], HY[8], HZ[8];
  gather(s.xd, N, V);
  hourglass_force(H, V, coefficient, HX);
  gather(s.yd, N, V);
  hourglass_force(H, V, coefficient, HY);
  gather(s.zd, N, V);
  hourglass_force(H, V, coefficient, HZ);
#pragma unroll
  for (int c = 0; c < 8; ++c) {
    const int at = c * s.corner_stride + elem;
    s.fx_corner[at] = -(sigma * NX[c]) + HX[c];
    s.fy_corner[at] = -(sigma * NY[c]) + HY[c];
    s.fz_corner[at] = -(sigma * NZ[c]) + HZ[c];
  }
}

// ---- nodal kernels ------------------------------------------------------------------------------

__global__ void gather_node_forces_kernel(twin_state s) {
  const int node = blockIdx.x * blockDim.x + threadIdx.x;
  if (node >= s.num_node) return;
  const int start = s.node_elem_start[node], end = s.node_elem_start[node + 1];
  double sx = 0.0, sy = 0.0, sz = 0.0;
  for (int j = start; j < end; ++j) {
    const int slot = s.node_elem_corner[j];
    sx = sx + s.fx_corner[slot];
    sy = sy + s.fy_corner[slot];
    sz = sz + s.fz_corner[slot];
  }
  s.fx[node] = sx;
  s.fy[node] = sy;
  s.fz[node] = sz;
}

__global__ void acceleration_kernel(twin_state s) {
  const int node = blockIdx.x * blockDim.x + threadIdx.x;
  if (node >= s.num_node) return;
  const double mass = s.nodal_mass[node];
  s.xdd[node] = s.fx[node] / mass;
  s.ydd[node] = s.fy[node] / mass;
  s.zdd[node] = s.fz[node] / mass;
}

__global__ void acceleration_bc_kernel(double* acc, const std::int32_t* nodes, int count) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < count) acc[nodes[i]] = 0.0;
}

__device__ __forceinline__ void advance_node(double* pos, double* vel, const double* acc, int node, double dt,
                                             double u_cut) {
  double v = vel[node] + acc[node] * dt;
  if (fabs(v) < u_cut) v = 0.0;
  vel[node] = v;
  pos[node] = pos[node] + v * dt;
}

__global__ void position_velocity_kernel(twin_state s, double dt, double u_cut) {
  const int node = blockIdx.x * blockDim.x + threadIdx.x;
  if (node >= s.num_node) return;
  advance_node(s.x, s.xd, s.xdd, node, dt, u_cut);
  advance_node(s.y, s.yd, s.ydd, node, dt, u_cut);
  advance_node(s.z, s.zd, s.zdd, node, dt, u_cut);
}

// ---- kinematics and monotonic Q -----------------------------------------------------------------

__device__ __forceinline__ double strain_rate(const double* B, const double* V, double inv_det) {
  return inv_det * (B[0] * (V[0] - V[6]) + B[1] * (V[1] - V[7]) + B[2] * (V[2] - V[4]) + B[3] * (V[3] - V[5]));
}

__device__ __forceinline__ double face_difference(const double* X, double scale, int a, int b, int c, int d, int e,
                                                  int f, int g, int h) {
  return scale * ((X[a] + X[b] + X[c] + X[d]) - (X[e] + X[f] + X[g] + X[h]));
}

// kernels.py's q_gradient: (delx, delv) of one direction from the area vector a and velocity dv.
__device__ __forceinline__ void q_gradient(double ax, double ay, double az, double dxv, double dyv, double dzv,
                                           double vol, double norm, double& dx, double& dv) {
  dx = vol / sqrt(ax * ax + ay * ay + az * az + PTINY);
  dv = (ax * norm) * dxv + (ay * norm) * dyv + (az * norm) * dzv;
}

__global__ void kinematics_q_gradient_kernel(twin_state s, double dt) {
  const int elem = blockIdx.x * blockDim.x + threadIdx.x;
  if (elem >= s.num_elem) return;
  int N[8];
  load_corners(s.nodelist, s.corner_stride, elem, N);
  double X[8], Y[8], Z[8], XD[8], YD[8], ZD[8];
  gather(s.x, N, X);
  gather(s.y, N, Y);
  gather(s.z, N, Z);
  gather(s.xd, N, XD);
  gather(s.yd, N, YD);
  gather(s.zd, N, ZD);

  const double reference_volume = s.volo[elem];
  const double volume = element_volume(X, Y, Z);
  const double relative_volume = volume / reference_volume;
  s.vnew[elem] = relative_volume;
  s.delv[elem] = relative_volume - s.v[elem];
  s.arealg[elem] = characteristic_length(X, Y, Z, volume);
  if (relative_volume <= 0.0) s.status[status_volume_error] = 1.0;

  const double dt2 = 0.5 * dt;
  double XH[8], YH[8], ZH[8];
#pragma unroll
  for (int c = 0; c < 8; ++c) {
    XH[c] = X[c] - dt2 * XD[c];
    YH[c] = Y[c] - dt2 * YD[c];
    ZH[c] = Z[c] - dt2 * ZD[c];
  }
  double BX[4], BY[4], BZ[4];
  const double det_j = shape_derivatives(XH, YH, ZH, BX, BY, BZ);
  const double inv_det = 1.0 / det_j;
  const double dxx = strain_rate(BX, XD, inv_det);
  const double dyy = strain_rate(BY, YD, inv_det);
  const double dzz = strain_rate(BZ, ZD, inv_det);
  s.vdov[elem] = dxx + dyy + dzz;

  const double vol = reference_volume * relative_volume;
  const double norm = 1.0 / (vol + PTINY);
  const double dxj = face_difference(X, -0.25, 0, 1, 5, 4, 3, 2, 6, 7);
  const double dyj = face_difference(Y, -0.25, 0, 1, 5, 4, 3, 2, 6, 7);
  const double dzj = face_difference(Z, -0.25, 0, 1, 5, 4, 3, 2, 6, 7);
  const double dxi = face_difference(X, 0.25, 1, 2, 6, 5, 0, 3, 7, 4);
  const double dyi = face_difference(Y, 0.25, 1, 2, 6, 5, 0, 3, 7, 4);
  const double dzi = face_difference(Z, 0.25, 1, 2, 6, 5, 0, 3, 7, 4);
  const double dxk = face_difference(X, 0.25, 4, 5, 6, 7, 0, 1, 2, 3);
  const double dyk = face_difference(Y, 0.25, 4, 5, 6, 7, 0, 1, 2, 3);
  const double dzk = face_difference(Z, 0.25, 4, 5, 6, 7, 0, 1, 2, 3);
  double dx, dv;
  q_gradient(dyi * dzj - dzi * dyj, dzi * dxj - dxi * dzj, dxi * dyj - dyi * dxj,
             face_difference(XD, 0.25, 4, 5, 6, 7, 0, 1, 2, 3), face_difference(YD, 0.25, 4, 5, 6, 7, 0, 1, 2, 3),
             face_difference(ZD, 0.25, 4, 5, 6, 7, 0, 1, 2, 3), vol, norm, dx, dv);
  s.delx_zeta[elem] = dx;
  s.delv_zeta[elem] = dv;
  q_gradient(dyj * dzk - dzj * dyk, dzj * dxk - dxj * dzk, dxj * dyk - dyj * dxk,
             face_difference(XD, 0.25, 1, 2, 6, 5, 0, 3, 7, 4), face_difference(YD, 0.25, 1, 2, 6, 5, 0, 3, 7, 4),
             face_difference(ZD, 0.25, 1, 2, 6, 5, 0, 3, 7, 4), vol, norm, dx, dv);
  s.delx_xi[elem] = dx;
  s.delv_xi[elem] = dv;
  q_gradient(dyk * dzi - dzk * dyi, dzk * dxi - dxk * dzi, dxk * dyi - dyk * dxi,
             face_difference(XD, -0.25, 0, 1, 5, 4, 3, 2, 6, 7), face_difference(YD, -0.25, 0, 1, 5, 4, 3, 2, 6, 7),
             face_difference(ZD, -0.25, 0, 1, 5, 4, 3, 2, 6, 7), vol, norm, dx, dv);
  s.delx_eta[elem] = dx;
  s.delv_eta[elem] = dv;
}

__device__ __forceinline__ double neighbour_gradient(int bc, int face, int symm, int comm, const std::int32_t* neighbour,
                                                     const double* grad, int elem, double own) {
  const int kind = bc & face;
  if (kind == 0 || kind == comm) return grad[neighbour[elem]];
  return kind == symm ? own : 0.0;
}

__device__ __forceinline__ double limiter(double own, double minus, double plus, double limiter_mult,
                                          double max_slope) {
  const double norm = 1.0 / (own + PTINY);
  minus = minus * norm;
  plus = plus * norm;
  double phi = 0.5 * (minus + plus);
  minus = minus * limiter_mult;
  plus = plus * limiter_mult;
  if (minus < phi) phi = minus;
  if (plus < phi) phi = plus;
  if (phi < 0.0) phi = 0.0;
  if (phi > max_slope) phi = max_slope;
  return phi;
}

__device__ __forceinline__ double compressive(double delv, double delx) {
  const double d = delv * delx;
  return d > 0.0 ? 0.0 : d;
}

__global__ void monotonic_q_kernel(twin_state s, double limiter_mult, double max_slope, double qlc_monoq,
                                   double qqc_monoq, double qstop) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= s.num_region_elems) return;
  const int elem = s.region_elems[i];
  const int bc = s.elem_bc[elem];
  const double dv_xi = s.delv_xi[elem], dv_eta = s.delv_eta[elem], dv_zeta = s.delv_zeta[elem];
  const double phi_xi = limiter(dv_xi, neighbour_gradient(bc, XI_M, XI_M_SYMM, XI_M_COMM, s.lxim, s.delv_xi, elem, dv_xi),
                                neighbour_gradient(bc, XI_P, XI_P_SYMM, XI_P_COMM, s.lxip, s.delv_xi, elem, dv_xi),
                                limiter_mult, max_slope);
  const double phi_eta =
      limiter(dv_eta, neighbour_gradient(bc, ETA_M, ETA_M_SYMM, ETA_M_COMM, s.letam, s.delv_eta, elem, dv_eta),
              neighbour_gradient(bc, ETA_P, ETA_P_SYMM, ETA_P_COMM, s.letap, s.delv_eta, elem, dv_eta), limiter_mult,
              max_slope);
  const double phi_zeta =
      limiter(dv_zeta, neighbour_gradient(bc, ZETA_M, ZETA_M_SYMM, ZETA_M_COMM, s.lzetam, s.delv_zeta, elem, dv_zeta),
              neighbour_gradient(bc, ZETA_P, ZETA_P_SYMM, ZETA_P_COMM, s.lzetap, s.delv_zeta, elem, dv_zeta),
              limiter_mult, max_slope);
  const double d_xi = compressive(dv_xi, s.delx_xi[elem]);
  const double d_eta = compressive(dv_eta, s.delx_eta[elem]);
  const double d_zeta = compressive(dv_zeta, s.delx_zeta[elem]);
  const double rho = s.elem_mass[elem] / (s.volo[elem] * s.vnew[elem]);
  const double qlin = -qlc_monoq * rho * (d_xi * (1.0 - phi_xi) + d_eta * (1.0 - phi_eta) + d_zeta * (1.0 - phi_zeta));
  const double qquad = qqc_monoq * rho *
                       (d_xi * d_xi * (1.0 - phi_xi * phi_xi) + d_eta * d_eta * (1.0 - phi_eta * phi_eta) +
                        d_zeta * d_zeta * (1.0 - phi_zeta * phi_zeta));
  const bool expanding = s.vdov[elem] > 0.0;
  s.qq[elem] = expanding ? 0.0 : qquad;
  s.ql[elem] = expanding ? 0.0 : qlin;
  if (s.q[elem] > qstop) s.status[status_qstop_error] = 1.0;
}

// ---- material properties / EOS ------------------------------------------------------------------

__device__ __forceinline__ void pressure(double energy, double compression, double vnewc, double pmin, double p_cut,
                                         double eosvmax, double& bvc, double& p) {
  bvc = (2.0 / 3.0) * (compression + 1.0);
  p = bvc * energy;
  if (fabs(p) < p_cut) p = 0.0;
  if (vnewc >= eosvmax) p = 0.0;
  if (p < pmin) p = pmin;
}

__device__ __forceinline__ double sound_speed(double energy, double vsq, double bvc, double p, double rho0) {
  const double ssc = ((2.0 / 3.0) * energy + vsq * bvc * p) / rho0;
  return ssc <= SS_FLOOR ? SS_FLOOR_VALUE : sqrt(ssc);
}

__device__ __forceinline__ double cut_energy(double energy, double e_cut, double emin) {
  if (fabs(energy) < e_cut) energy = 0.0;
  return energy < emin ? emin : energy;
}

__device__ __forceinline__ double clamp_volume(double vol, double eosvmin, double eosvmax) {
  if (eosvmin != 0.0 && vol < eosvmin) vol = eosvmin;
  if (eosvmax != 0.0 && vol > eosvmax) vol = eosvmax;
  return vol;
}

// All regions in one launch, as kernels.py: slot i is an element (-1: padding) whose region
// evaluates the EOS eos_reps[i] times; a block of at most 512 threads holds one region (the host
// pads every region to 512 slots), so a warp's repetition loop is uniform.
__global__ void material_eos_kernel(twin_state s, twin_constants c) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= s.num_eos_slots) return;
  const int elem = s.eos_elems[i];
  if (elem < 0) return;
  const int rep = s.eos_reps[i];
  const double vnewc = clamp_volume(s.vnew[elem], c.eosvmin, c.eosvmax);
  const double vc = clamp_volume(s.v[elem], c.eosvmin, c.eosvmax);
  if (vc <= 0.0) s.status[status_volume_error] = 1.0;
  double p_new = 0.0, e_new = 0.0, q_new = 0.0, bvc = 0.0;
  // As kernels.py: a select on a condition that is never true keeps every repetition's work.
  const bool never = s.num_eos_slots < 0;  // not rep < 0: false inside the loop, foldable
  for (int r = 0; r < rep; ++r) {
    const double e_old = never ? e_new : s.e[elem];
    const double delvc = s.delv[elem];
    double p_old = s.p[elem];
    const double q_old = s.q[elem], qq_old = s.qq[elem], ql_old = s.ql[elem];
    double compression = 1.0 / vnewc - 1.0;
    const double vchalf = vnewc - delvc * 0.5;
    double comp_half_step = 1.0 / vchalf - 1.0;
    if (c.eosvmin != 0.0 && vnewc <= c.eosvmin) comp_half_step = compression;
    if (c.eosvmax != 0.0 && vnewc >= c.eosvmax) {
      p_old = 0.0;
      compression = 0.0;
      comp_half_step = 0.0;
    }
    const double work = 0.0;
    e_new = e_old - 0.5 * delvc * (p_old + q_old) + 0.5 * work;
    if (e_new < c.emin) e_new = c.emin;
    double p_half_step;
    pressure(e_new, comp_half_step, vnewc, c.pmin, c.p_cut, c.eosvmax, bvc, p_half_step);
    const double vhalf = 1.0 / (1.0 + comp_half_step);
    q_new = delvc > 0.0 ? 0.0 : sound_speed(e_new, vhalf * vhalf, bvc, p_half_step, c.refdens) * ql_old + qq_old;
    e_new = e_new + 0.5 * delvc * (3.0 * (p_old + q_old) - 4.0 * (p_half_step + q_new));
    e_new = e_new + 0.5 * work;
    e_new = cut_energy(e_new, c.e_cut, c.emin);
    pressure(e_new, compression, vnewc, c.pmin, c.p_cut, c.eosvmax, bvc, p_new);
    const double q_tilde =
        delvc > 0.0 ? 0.0 : sound_speed(e_new, vnewc * vnewc, bvc, p_new, c.refdens) * ql_old + qq_old;
    e_new = e_new - (7.0 * (p_old + q_old) - 8.0 * (p_half_step + q_new) + (p_new + q_tilde)) * delvc * (1.0 / 6.0);
    e_new = cut_energy(e_new, c.e_cut, c.emin);
    pressure(e_new, compression, vnewc, c.pmin, c.p_cut, c.eosvmax, bvc, p_new);
    double q_final = sound_speed(e_new, vnewc * vnewc, bvc, p_new, c.refdens) * ql_old + qq_old;
    if (fabs(q_final) < c.q_cut) q_final = 0.0;
    if (delvc <= 0.0) q_new = q_final;
  }
  s.p[elem] = p_new;
  s.e[elem] = e_new;
  s.q[elem] = q_new;
  s.ss[elem] = sound_speed(e_new, vnewc * vnewc, bvc, p_new, c.refdens);
}

__global__ void update_volume_kernel(twin_state s, double v_cut) {
  const int elem = blockIdx.x * blockDim.x + threadIdx.x;
  if (elem >= s.num_elem) return;
  const double vol = s.vnew[elem];
  s.v[elem] = fabs(vol - 1.0) < v_cut ? 1.0 : vol;
}

// ---- time constraints ---------------------------------------------------------------------------

struct dt_pair {
  double courant, hydro;
};

// One element's candidates (1e20: none), as kernels.py's time_constraints.
__device__ __forceinline__ dt_pair element_constraints(const twin_state& s, int elem, double qqc2, double dvovmax) {
  const double sound = s.ss[elem], rate = s.vdov[elem], length = s.arealg[elem];
  double dtf = sound * sound;
  if (rate < 0.0) dtf = dtf + qqc2 * length * length * rate * rate;
  dtf = length / sqrt(dtf);
  const double dtdvov = dvovmax / (fabs(rate) + 1.0e-20);
  const bool limited = rate != 0.0;
  return {limited && dtf < NO_CONSTRAINT ? dtf : NO_CONSTRAINT, limited && dtdvov < NO_CONSTRAINT ? dtdvov : NO_CONSTRAINT};
}

// The legacy shared-memory tree: each block halves its shared array until one value is left.
template <int THREADS>
__device__ __forceinline__ void block_min_tree(double* courant, double* hydro) {
#pragma unroll
  for (int half = THREADS / 2; half > 0; half >>= 1) {
    __syncthreads();
    if (threadIdx.x < half) {
      courant[threadIdx.x] = fmin(courant[threadIdx.x], courant[threadIdx.x + half]);
      hydro[threadIdx.x] = fmin(hydro[threadIdx.x], hydro[threadIdx.x + half]);
    }
  }
}

template <int THREADS>
__global__ void __launch_bounds__(THREADS) time_constraints_tree_kernel(twin_state s, double qqc2, double dvovmax) {
  __shared__ double courant[THREADS], hydro[THREADS];
  const int elem = blockIdx.x * THREADS + threadIdx.x;
  const dt_pair d = elem < s.num_elem ? element_constraints(s, elem, qqc2, dvovmax) : dt_pair{NO_CONSTRAINT, NO_CONSTRAINT};
  courant[threadIdx.x] = d.courant;
  hydro[threadIdx.x] = d.hydro;
  block_min_tree<THREADS>(courant, hydro);
  if (threadIdx.x == 0) {
    s.partial_courant[blockIdx.x] = courant[0];
    s.partial_hydro[blockIdx.x] = hydro[0];
  }
}

template <int THREADS>
__global__ void __launch_bounds__(THREADS) reduce_time_constraints_tree_kernel(twin_state s) {
  __shared__ double courant[THREADS], hydro[THREADS];
  double c = NO_CONSTRAINT, h = NO_CONSTRAINT;
  for (int i = threadIdx.x; i < s.num_partials; i += THREADS) {
    c = fmin(c, s.partial_courant[i]);
    h = fmin(h, s.partial_hydro[i]);
  }
  courant[threadIdx.x] = c;
  hydro[threadIdx.x] = h;
  block_min_tree<THREADS>(courant, hydro);
  if (threadIdx.x == 0) {
    s.status[status_dtcourant] = courant[0];
    s.status[status_dthydro] = hydro[0];
  }
}

struct element_constraints_op {
  twin_state s;
  double qqc2, dvovmax;
  __device__ double2 operator()(int elem) const {
    const dt_pair d = element_constraints(s, elem, qqc2, dvovmax);
    return make_double2(d.courant, d.hydro);
  }
};

struct min_pair {
  __device__ double2 operator()(const double2& a, const double2& b) const {
    return make_double2(fmin(a.x, b.x), fmin(a.y, b.y));
  }
};

}  // namespace

void volume_force(const twin_state& s, const twin_constants& c, const twin_blocks& b, void* stream) {
  volume_force_kernel<<<blocks_for(s.num_elem, b.element), b.element, 0, static_cast<cudaStream_t>(stream)>>>(s, c.hgcoef);
  LAUNCHED("volume_force");
}
void gather_node_forces(const twin_state& s, const twin_blocks& b, void* stream) {
  gather_node_forces_kernel<<<blocks_for(s.num_node, b.node), b.node, 0, static_cast<cudaStream_t>(stream)>>>(s);
  LAUNCHED("gather_node_forces");
}
void acceleration(const twin_state& s, const twin_blocks& b, void* stream) {
  acceleration_kernel<<<blocks_for(s.num_node, b.node), b.node, 0, static_cast<cudaStream_t>(stream)>>>(s);
  LAUNCHED("acceleration");
}
void acceleration_bc(const twin_state& s, const twin_blocks& b, void* stream) {
  const auto st = static_cast<cudaStream_t>(stream);
  acceleration_bc_kernel<<<blocks_for(s.num_symm_x, b.node), b.node, 0, st>>>(s.xdd, s.symm_x, s.num_symm_x);
  acceleration_bc_kernel<<<blocks_for(s.num_symm_y, b.node), b.node, 0, st>>>(s.ydd, s.symm_y, s.num_symm_y);
  acceleration_bc_kernel<<<blocks_for(s.num_symm_z, b.node), b.node, 0, st>>>(s.zdd, s.symm_z, s.num_symm_z);
  LAUNCHED("acceleration_bc");
}
void position_velocity(const twin_state& s, const twin_constants& c, const twin_blocks& b, double dt, void* stream) {
  position_velocity_kernel<<<blocks_for(s.num_node, b.node), b.node, 0, static_cast<cudaStream_t>(stream)>>>(s, dt, c.u_cut);
  LAUNCHED("position_velocity");
}
void kinematics_q_gradient(const twin_state& s, const twin_blocks& b, double dt, void* stream) {
  kinematics_q_gradient_kernel<<<blocks_for(s.num_elem, b.element), b.element, 0, static_cast<cudaStream_t>(stream)>>>(s, dt);
  LAUNCHED("kinematics_q_gradient");
}
void monotonic_q(const twin_state& s, const twin_constants& c, const twin_blocks& b, void* stream) {
  monotonic_q_kernel<<<blocks_for(s.num_region_elems, b.element), b.element, 0, static_cast<cudaStream_t>(stream)>>>(
      s, c.monoq_limiter_mult, c.monoq_max_slope, c.qlc_monoq, c.qqc_monoq, c.qstop);
  LAUNCHED("monotonic_q");
}
void material_eos(const twin_state& s, const twin_constants& c, const twin_blocks& b, void* stream) {
  material_eos_kernel<<<blocks_for(s.num_eos_slots, b.element), b.element, 0, static_cast<cudaStream_t>(stream)>>>(s, c);
  LAUNCHED("material_eos");
}
void update_volume(const twin_state& s, const twin_constants& c, const twin_blocks& b, void* stream) {
  update_volume_kernel<<<blocks_for(s.num_elem, b.node), b.node, 0, static_cast<cudaStream_t>(stream)>>>(s, c.v_cut);
  LAUNCHED("update_volume");
}

// The tree kernels are compiled for the block sizes twin_blocks::reduce may take.
template <template <int> class K, class... A>
void launch_tree(int threads, unsigned grid, cudaStream_t st, A... a) {
  switch (threads) {
    case 256: K<256>::launch(grid, st, a...); break;
    case 512: K<512>::launch(grid, st, a...); break;
    case 1024: K<1024>::launch(grid, st, a...); break;
    default: throw std::runtime_error("CUDA twin: twin_blocks::reduce must be 256, 512 or 1024, not " + std::to_string(threads));
  }
}
template <int T>
struct tile_minima {
  static void launch(unsigned grid, cudaStream_t st, twin_state s, double qqc2, double dvovmax) {
    time_constraints_tree_kernel<T><<<grid, T, 0, st>>>(s, qqc2, dvovmax);
  }
};
template <int T>
struct minimum_of_tiles {
  static void launch(unsigned, cudaStream_t st, twin_state s) { reduce_time_constraints_tree_kernel<T><<<1, T, 0, st>>>(s); }
};

void time_constraints_tree(const twin_state& s, const twin_constants& c, const twin_blocks& b, void* stream) {
  launch_tree<tile_minima>(b.reduce, blocks_for(s.num_elem, b.reduce), static_cast<cudaStream_t>(stream), s,
                           64.0 * c.qqc * c.qqc, c.dvovmax);
  LAUNCHED("time_constraints (tree)");
}
void reduce_time_constraints_tree(const twin_state& s, const twin_blocks& b, void* stream) {
  launch_tree<minimum_of_tiles>(b.reduce, 1u, static_cast<cudaStream_t>(stream), s);
  LAUNCHED("reduce_time_constraints (tree)");
}

void time_constraints_cub(const twin_state& s, const twin_constants& c, void* temp, std::size_t& temp_bytes,
                          void* stream) {
  auto in = thrust::make_transform_iterator(thrust::counting_iterator<int>(0),
                                            element_constraints_op{s, 64.0 * c.qqc * c.qqc, c.dvovmax});
  check(cub::DeviceReduce::Reduce(temp, temp_bytes, in, reinterpret_cast<double2*>(s.status), s.num_elem, min_pair{},
                                  make_double2(NO_CONSTRAINT, NO_CONSTRAINT), static_cast<cudaStream_t>(stream)),
        "cub::DeviceReduce::Reduce (time constraints)");
}

}  // namespace LULESH_CUDA_NS
}  // namespace lulesh_cuda
