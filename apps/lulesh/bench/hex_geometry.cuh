// hex_geometry.cuh — the CUDA twin of apps/lulesh/hex_geometry.py: the geometry of one
// hexahedral element (corners 0-3 the lower face counter-clockwise, 4-7 above them), every formula
// in hex_geometry.py's order so that with -fmad=false it rounds as the Triton kernels.
#pragma once

namespace lulesh_cuda {
namespace geometry {

__device__ __forceinline__ double triple_product(double x1, double y1, double z1, double x2, double y2, double z2,
                                                 double x3, double y3, double z3) {
  return x1 * (y2 * z3 - z2 * y3) + x2 * (z1 * y3 - y1 * z3) + x3 * (y1 * z2 - z1 * y2);
}

__device__ __forceinline__ double element_volume(const double* X, const double* Y, const double* Z) {
  const double dx61 = X[6] - X[1], dy61 = Y[6] - Y[1], dz61 = Z[6] - Z[1];
  const double dx70 = X[7] - X[0], dy70 = Y[7] - Y[0], dz70 = Z[7] - Z[0];
  const double dx63 = X[6] - X[3], dy63 = Y[6] - Y[3], dz63 = Z[6] - Z[3];
  const double dx20 = X[2] - X[0], dy20 = Y[2] - Y[0], dz20 = Z[2] - Z[0];
  const double dx50 = X[5] - X[0], dy50 = Y[5] - Y[0], dz50 = Z[5] - Z[0];
  const double dx64 = X[6] - X[4], dy64 = Y[6] - Y[4], dz64 = Z[6] - Z[4];
  const double dx31 = X[3] - X[1], dy31 = Y[3] - Y[1], dz31 = Z[3] - Z[1];
  const double dx72 = X[7] - X[2], dy72 = Y[7] - Y[2], dz72 = Z[7] - Z[2];
  const double dx43 = X[4] - X[3], dy43 = Y[4] - Y[3], dz43 = Z[4] - Z[3];
  const double dx57 = X[5] - X[7], dy57 = Y[5] - Y[7], dz57 = Z[5] - Z[7];
  const double dx14 = X[1] - X[4], dy14 = Y[1] - Y[4], dz14 = Z[1] - Z[4];
  const double dx25 = X[2] - X[5], dy25 = Y[2] - Y[5], dz25 = Z[2] - Z[5];
  const double volume =
      triple_product(dx31 + dx72, dx63, dx20, dy31 + dy72, dy63, dy20, dz31 + dz72, dz63, dz20) +
      triple_product(dx43 + dx57, dx64, dx70, dy43 + dy57, dy64, dy70, dz43 + dz57, dz64, dz70) +
      triple_product(dx14 + dx25, dx61, dx50, dy14 + dy25, dy61, dy50, dz14 + dz25, dz61, dz50);
  return volume * (1.0 / 12.0);
}

__device__ __forceinline__ double face_area_measure(const double* X, const double* Y, const double* Z, int a, int b,
                                                    int c, int d) {
  const double fx = (X[c] - X[a]) - (X[d] - X[b]);
  const double fy = (Y[c] - Y[a]) - (Y[d] - Y[b]);
  const double fz = (Z[c] - Z[a]) - (Z[d] - Z[b]);
  const double gx = (X[c] - X[a]) + (X[d] - X[b]);
  const double gy = (Y[c] - Y[a]) + (Y[d] - Y[b]);
  const double gz = (Z[c] - Z[a]) + (Z[d] - Z[b]);
  const double fg = fx * gx + fy * gy + fz * gz;
  return (fx * fx + fy * fy + fz * fz) * (gx * gx + gy * gy + gz * gz) - fg * fg;
}

__device__ __forceinline__ double keep_larger(double a, double current) { return a < current ? current : a; }

__device__ __forceinline__ double characteristic_length(const double* X, const double* Y, const double* Z,
                                                        double volume) {
  double largest = 0.0;
  largest = keep_larger(face_area_measure(X, Y, Z, 0, 1, 2, 3), largest);
  largest = keep_larger(face_area_measure(X, Y, Z, 4, 5, 6, 7), largest);
  largest = keep_larger(face_area_measure(X, Y, Z, 0, 1, 5, 4), largest);
  largest = keep_larger(face_area_measure(X, Y, Z, 1, 2, 6, 5), largest);
  largest = keep_larger(face_area_measure(X, Y, Z, 2, 3, 7, 6), largest);
  largest = keep_larger(face_area_measure(X, Y, Z, 3, 0, 4, 7), largest);
  return 4.0 * volume / sqrt(largest);
}

__device__ __forceinline__ void jacobian_column(const double* X, double& d_xi, double& d_eta, double& d_zeta) {
  d_xi = 0.125 * ((X[6] - X[0]) + (X[5] - X[3]) - (X[7] - X[1]) - (X[4] - X[2]));
  d_eta = 0.125 * ((X[6] - X[0]) - (X[5] - X[3]) + (X[7] - X[1]) - (X[4] - X[2]));
  d_zeta = 0.125 * ((X[6] - X[0]) + (X[5] - X[3]) + (X[7] - X[1]) + (X[4] - X[2]));
}

__device__ __forceinline__ double jacobian_volume(const double* X, const double* Y, const double* Z) {
  double fjxxi, fjxet, fjxze, fjyxi, fjyet, fjyze, fjzxi, fjzet, fjzze;
  jacobian_column(X, fjxxi, fjxet, fjxze);
  jacobian_column(Y, fjyxi, fjyet, fjyze);
  jacobian_column(Z, fjzxi, fjzet, fjzze);
  const double cjxet = -(fjyxi * fjzze) + (fjzxi * fjyze);
  const double cjyet = (fjxxi * fjzze) - (fjzxi * fjxze);
  const double cjzet = -(fjxxi * fjyze) + (fjyxi * fjxze);
  return 8.0 * (fjxet * cjxet + fjyet * cjyet + fjzet * cjzet);
}

// Shape function derivatives of corners 0-3 and 8 det(J) (corners 6, 7, 4, 5 are their negatives).
__device__ __forceinline__ double shape_derivatives(const double* X, const double* Y, const double* Z, double* BX,
                                                    double* BY, double* BZ) {
  double fjxxi, fjxet, fjxze, fjyxi, fjyet, fjyze, fjzxi, fjzet, fjzze;
  jacobian_column(X, fjxxi, fjxet, fjxze);
  jacobian_column(Y, fjyxi, fjyet, fjyze);
  jacobian_column(Z, fjzxi, fjzet, fjzze);
  const double cjxxi = (fjyet * fjzze) - (fjzet * fjyze);
  const double cjxet = -(fjyxi * fjzze) + (fjzxi * fjyze);
  const double cjxze = (fjyxi * fjzet) - (fjzxi * fjyet);
  const double cjyxi = -(fjxet * fjzze) + (fjzet * fjxze);
  const double cjyet = (fjxxi * fjzze) - (fjzxi * fjxze);
  const double cjyze = -(fjxxi * fjzet) + (fjzxi * fjxet);
  const double cjzxi = (fjxet * fjyze) - (fjyet * fjxze);
  const double cjzet = -(fjxxi * fjyze) + (fjyxi * fjxze);
  const double cjzze = (fjxxi * fjyet) - (fjyxi * fjxet);
  BX[0] = -cjxxi - cjxet - cjxze; BX[1] = cjxxi - cjxet - cjxze; BX[2] = cjxxi + cjxet - cjxze; BX[3] = -cjxxi + cjxet - cjxze;
  BY[0] = -cjyxi - cjyet - cjyze; BY[1] = cjyxi - cjyet - cjyze; BY[2] = cjyxi + cjyet - cjyze; BY[3] = -cjyxi + cjyet - cjyze;
  BZ[0] = -cjzxi - cjzet - cjzze; BZ[1] = cjzxi - cjzet - cjzze; BZ[2] = cjzxi + cjzet - cjzze; BZ[3] = -cjzxi + cjzet - cjzze;
  return 8.0 * (fjxet * cjxet + fjyet * cjyet + fjzet * cjzet);
}

__device__ __forceinline__ void face_normal(const double* X, const double* Y, const double* Z, int a, int b, int c,
                                            int d, double& ax, double& ay, double& az) {
  const double bisect_x0 = 0.5 * (X[d] + X[c] - X[b] - X[a]);
  const double bisect_y0 = 0.5 * (Y[d] + Y[c] - Y[b] - Y[a]);
  const double bisect_z0 = 0.5 * (Z[d] + Z[c] - Z[b] - Z[a]);
  const double bisect_x1 = 0.5 * (X[c] + X[b] - X[d] - X[a]);
  const double bisect_y1 = 0.5 * (Y[c] + Y[b] - Y[d] - Y[a]);
  const double bisect_z1 = 0.5 * (Z[c] + Z[b] - Z[d] - Z[a]);
  ax = 0.25 * (bisect_y0 * bisect_z1 - bisect_z0 * bisect_y1);
  ay = 0.25 * (bisect_z0 * bisect_x1 - bisect_x0 * bisect_z1);
  az = 0.25 * (bisect_x0 * bisect_y1 - bisect_y0 * bisect_x1);
}

__device__ __forceinline__ double from_zero(double a, double b, double c) { return ((0.0 + a) + b) + c; }

__device__ __forceinline__ void corner_sums(double f1, double f2, double f3, double f4, double f5, double f6, double* N) {
  N[0] = from_zero(f1, f2, f5); N[1] = from_zero(f1, f2, f3); N[2] = from_zero(f1, f3, f4); N[3] = from_zero(f1, f4, f5);
  N[4] = from_zero(f2, f5, f6); N[5] = from_zero(f2, f3, f6); N[6] = from_zero(f3, f4, f6); N[7] = from_zero(f4, f5, f6);
}

__device__ __forceinline__ void corner_normals(const double* X, const double* Y, const double* Z, double* NX,
                                               double* NY, double* NZ) {
  double x1, y1, z1, x2, y2, z2, x3, y3, z3, x4, y4, z4, x5, y5, z5, x6, y6, z6;
  face_normal(X, Y, Z, 0, 1, 2, 3, x1, y1, z1);
  face_normal(X, Y, Z, 0, 4, 5, 1, x2, y2, z2);
  face_normal(X, Y, Z, 1, 5, 6, 2, x3, y3, z3);
  face_normal(X, Y, Z, 2, 6, 7, 3, x4, y4, z4);
  face_normal(X, Y, Z, 3, 7, 4, 0, x5, y5, z5);
  face_normal(X, Y, Z, 4, 7, 6, 5, x6, y6, z6);
  corner_sums(x1, x2, x3, x4, x5, x6, NX);
  corner_sums(y1, y2, y3, y4, y5, y6, NY);
  corner_sums(z1, z2, z3, z4, z5, z6, NZ);
}

__device__ __forceinline__ void volume_derivative(const double* X, const double* Y, const double* Z, int c0, int c1,
                                                  int c2, int c3, int c4, int c5, double& dx, double& dy, double& dz) {
  const double x0 = X[c0], x1 = X[c1], x2 = X[c2], x3 = X[c3], x4 = X[c4], x5 = X[c5];
  const double y0 = Y[c0], y1 = Y[c1], y2 = Y[c2], y3 = Y[c3], y4 = Y[c4], y5 = Y[c5];
  const double z0 = Z[c0], z1 = Z[c1], z2 = Z[c2], z3 = Z[c3], z4 = Z[c4], z5 = Z[c5];
  const double dvdx = (y1 + y2) * (z0 + z1) - (y0 + y1) * (z1 + z2) + (y0 + y4) * (z3 + z4) -
                      (y3 + y4) * (z0 + z4) - (y2 + y5) * (z3 + z5) + (y3 + y5) * (z2 + z5);
  const double dvdy = -(x1 + x2) * (z0 + z1) + (x0 + x1) * (z1 + z2) - (x0 + x4) * (z3 + z4) +
                      (x3 + x4) * (z0 + z4) + (x2 + x5) * (z3 + z5) - (x3 + x5) * (z2 + z5);
  const double dvdz = -(y1 + y2) * (x0 + x1) + (y0 + y1) * (x1 + x2) - (y0 + y4) * (x3 + x4) +
                      (y3 + y4) * (x0 + x4) + (y2 + y5) * (x3 + x5) - (y3 + y5) * (x2 + x5);
  const double twelfth = 1.0 / 12.0;
  dx = dvdx * twelfth;
  dy = dvdy * twelfth;
  dz = dvdz * twelfth;
}

__device__ __forceinline__ void volume_derivatives(const double* X, const double* Y, const double* Z, double* DX,
                                                   double* DY, double* DZ) {
  volume_derivative(X, Y, Z, 1, 2, 3, 4, 5, 7, DX[0], DY[0], DZ[0]);
  volume_derivative(X, Y, Z, 0, 1, 2, 7, 4, 6, DX[3], DY[3], DZ[3]);
  volume_derivative(X, Y, Z, 3, 0, 1, 6, 7, 5, DX[2], DY[2], DZ[2]);
  volume_derivative(X, Y, Z, 2, 3, 0, 5, 6, 4, DX[1], DY[1], DZ[1]);
  volume_derivative(X, Y, Z, 7, 6, 5, 0, 3, 1, DX[4], DY[4], DZ[4]);
  volume_derivative(X, Y, Z, 4, 7, 6, 1, 0, 2, DX[5], DY[5], DZ[5]);
  volume_derivative(X, Y, Z, 5, 4, 7, 2, 1, 3, DX[6], DY[6], DZ[6]);
  volume_derivative(X, Y, Z, 6, 5, 4, 3, 2, 0, DX[7], DY[7], DZ[7]);
}

}  // namespace geometry
}  // namespace lulesh_cuda
