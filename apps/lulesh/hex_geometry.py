"""Geometry of one hexahedral element, evaluated for a tile of elements at once (FP64).

The helpers take an element's eight corners as tuples of [BLOCK] tensors, X = (x0, ..., x7) and so
on, and are inlined into the kernels of kernels.py. Corner numbering is LULESH's: 0-3 the lower
face counter-clockwise, 4-7 the upper face above them.

The arithmetic follows the reference's evaluation order operation for operation (C++ evaluates
`a + b - c` as `(a + b) - c`, and so does Python; the kernels are compiled without FP contraction
by default, see kernels.toml), so that a GPU run can be compared with LULESH 2.0's published
results digit for digit. Do not "simplify" an expression here without rerunning the verification.
"""
import triton
import triton.language as tl


@triton.jit
def triple_product(x1, y1, z1, x2, y2, z2, x3, y3, z3):
    # The reference's TRIPLE_PRODUCT macro with its parameter order (its call sites pass the x
    # components as x1, y1, z1, which is why the names read oddly).
    return x1 * (y2 * z3 - z2 * y3) + x2 * (z1 * y3 - y1 * z3) + x3 * (y1 * z2 - z1 * y2)


@triton.jit
def element_volume(X, Y, Z):
    """Volume of the hexahedron as a sum of three triple products (LULESH's CalcElemVolume)."""
    x0, x1, x2, x3, x4, x5, x6, x7 = X
    y0, y1, y2, y3, y4, y5, y6, y7 = Y
    z0, z1, z2, z3, z4, z5, z6, z7 = Z
    dx61 = x6 - x1
    dy61 = y6 - y1
    dz61 = z6 - z1
    dx70 = x7 - x0
    dy70 = y7 - y0
    dz70 = z7 - z0
    dx63 = x6 - x3
    dy63 = y6 - y3
    dz63 = z6 - z3
    dx20 = x2 - x0
    dy20 = y2 - y0
    dz20 = z2 - z0
    dx50 = x5 - x0
    dy50 = y5 - y0
    dz50 = z5 - z0
    dx64 = x6 - x4
    dy64 = y6 - y4
    dz64 = z6 - z4
    dx31 = x3 - x1
    dy31 = y3 - y1
    dz31 = z3 - z1
    dx72 = x7 - x2
    dy72 = y7 - y2
    dz72 = z7 - z2
    dx43 = x4 - x3
    dy43 = y4 - y3
    dz43 = z4 - z3
    dx57 = x5 - x7
    dy57 = y5 - y7
    dz57 = z5 - z7
    dx14 = x1 - x4
    dy14 = y1 - y4
    dz14 = z1 - z4
    dx25 = x2 - x5
    dy25 = y2 - y5
    dz25 = z2 - z5
    volume = (triple_product(dx31 + dx72, dx63, dx20, dy31 + dy72, dy63, dy20, dz31 + dz72, dz63, dz20)
              + triple_product(dx43 + dx57, dx64, dx70, dy43 + dy57, dy64, dy70, dz43 + dz57, dz64, dz70)
              + triple_product(dx14 + dx25, dx61, dx50, dy14 + dy25, dy61, dy50, dz14 + dz25, dz61, dz50))
    return volume * (1.0 / 12.0)


@triton.jit
def face_area_measure(X, Y, Z, a: tl.constexpr, b: tl.constexpr, c: tl.constexpr, d: tl.constexpr):
    """|f|^2 |g|^2 - (f.g)^2 for face (a, b, c, d), f and g the difference and the sum of its
    diagonals: 16 times its squared area for a parallelogram (LULESH's AreaFace)."""
    fx = (X[c] - X[a]) - (X[d] - X[b])
    fy = (Y[c] - Y[a]) - (Y[d] - Y[b])
    fz = (Z[c] - Z[a]) - (Z[d] - Z[b])
    gx = (X[c] - X[a]) + (X[d] - X[b])
    gy = (Y[c] - Y[a]) + (Y[d] - Y[b])
    gz = (Z[c] - Z[a]) + (Z[d] - Z[b])
    fg = fx * gx + fy * gy + fz * gz
    return (fx * fx + fy * fy + fz * fz) * (gx * gx + gy * gy + gz * gz) - fg * fg


@triton.jit
def keep_larger(a, current):
    # std::max(a, current) as the reference calls it: `current` only when a is smaller
    return tl.where(a < current, current, a)


@triton.jit
def characteristic_length(X, Y, Z, volume):
    """4 V / sqrt(largest face measure) (LULESH's CalcElemCharacteristicLength), faces in its order."""
    largest = tl.zeros_like(volume)
    largest = keep_larger(face_area_measure(X, Y, Z, 0, 1, 2, 3), largest)
    largest = keep_larger(face_area_measure(X, Y, Z, 4, 5, 6, 7), largest)
    largest = keep_larger(face_area_measure(X, Y, Z, 0, 1, 5, 4), largest)
    largest = keep_larger(face_area_measure(X, Y, Z, 1, 2, 6, 5), largest)
    largest = keep_larger(face_area_measure(X, Y, Z, 2, 3, 7, 6), largest)
    largest = keep_larger(face_area_measure(X, Y, Z, 3, 0, 4, 7), largest)
    return 4.0 * volume / tl.sqrt(largest)


@triton.jit
def jacobian_column(X):
    """One coordinate's derivatives along xi, eta, zeta at the element centre."""
    x0, x1, x2, x3, x4, x5, x6, x7 = X
    d_xi = 0.125 * ((x6 - x0) + (x5 - x3) - (x7 - x1) - (x4 - x2))
    d_eta = 0.125 * ((x6 - x0) - (x5 - x3) + (x7 - x1) - (x4 - x2))
    d_zeta = 0.125 * ((x6 - x0) + (x5 - x3) + (x7 - x1) + (x4 - x2))
    return d_xi, d_eta, d_zeta


@triton.jit
def jacobian_volume(X, Y, Z):
    """8 det(J): the volume LULESH's CalcElemShapeFunctionDerivatives returns, without the
    derivatives themselves (the stress integration only checks its sign)."""
    fjxxi, fjxet, fjxze = jacobian_column(X)
    fjyxi, fjyet, fjyze = jacobian_column(Y)
    fjzxi, fjzet, fjzze = jacobian_column(Z)
    cjxet = -(fjyxi * fjzze) + (fjzxi * fjyze)
    cjyet = (fjxxi * fjzze) - (fjzxi * fjxze)
    cjzet = -(fjxxi * fjyze) + (fjyxi * fjxze)
    return 8.0 * (fjxet * cjxet + fjyet * cjyet + fjzet * cjzet)


@triton.jit
def shape_derivatives(X, Y, Z):
    """Shape function derivatives of corners 0-3 and 8 det(J) (LULESH's
    CalcElemShapeFunctionDerivatives; corners 6, 7, 4, 5 are the negatives of 0, 1, 2, 3).
    Returns (bx0..bx3), (by0..by3), (bz0..bz3), volume."""
    fjxxi, fjxet, fjxze = jacobian_column(X)
    fjyxi, fjyet, fjyze = jacobian_column(Y)
    fjzxi, fjzet, fjzze = jacobian_column(Z)
    # cofactors
    cjxxi = (fjyet * fjzze) - (fjzet * fjyze)
    cjxet = -(fjyxi * fjzze) + (fjzxi * fjyze)
    cjxze = (fjyxi * fjzet) - (fjzxi * fjyet)
    cjyxi = -(fjxet * fjzze) + (fjzet * fjxze)
    cjyet = (fjxxi * fjzze) - (fjzxi * fjxze)
    cjyze = -(fjxxi * fjzet) + (fjzxi * fjxet)
    cjzxi = (fjxet * fjyze) - (fjyet * fjxze)
    cjzet = -(fjxxi * fjyze) + (fjyxi * fjxze)
    cjzze = (fjxxi * fjyet) - (fjyxi * fjxet)
    BX = (-cjxxi - cjxet - cjxze, cjxxi - cjxet - cjxze, cjxxi + cjxet - cjxze, -cjxxi + cjxet - cjxze)
    BY = (-cjyxi - cjyet - cjyze, cjyxi - cjyet - cjyze, cjyxi + cjyet - cjyze, -cjyxi + cjyet - cjyze)
    BZ = (-cjzxi - cjzet - cjzze, cjzxi - cjzet - cjzze, cjzxi + cjzet - cjzze, -cjzxi + cjzet - cjzze)
    volume = 8.0 * (fjxet * cjxet + fjyet * cjyet + fjzet * cjzet)
    return BX, BY, BZ, volume


@triton.jit
def face_normal(X, Y, Z, a: tl.constexpr, b: tl.constexpr, c: tl.constexpr, d: tl.constexpr):
    """A quarter of face (a, b, c, d)'s area vector: what LULESH's SumElemFaceNormal adds to
    each of the face's four corners."""
    bisect_x0 = 0.5 * (X[d] + X[c] - X[b] - X[a])
    bisect_y0 = 0.5 * (Y[d] + Y[c] - Y[b] - Y[a])
    bisect_z0 = 0.5 * (Z[d] + Z[c] - Z[b] - Z[a])
    bisect_x1 = 0.5 * (X[c] + X[b] - X[d] - X[a])
    bisect_y1 = 0.5 * (Y[c] + Y[b] - Y[d] - Y[a])
    bisect_z1 = 0.5 * (Z[c] + Z[b] - Z[d] - Z[a])
    area_x = 0.25 * (bisect_y0 * bisect_z1 - bisect_z0 * bisect_y1)
    area_y = 0.25 * (bisect_z0 * bisect_x1 - bisect_x0 * bisect_z1)
    area_z = 0.25 * (bisect_x0 * bisect_y1 - bisect_y0 * bisect_x1)
    return area_x, area_y, area_z


@triton.jit
def from_zero(a, b, c):
    # ((0 + a) + b) + c: the reference zeroes a corner's normal, then adds its three faces
    return ((tl.zeros_like(a) + a) + b) + c


@triton.jit
def corner_sums(f1, f2, f3, f4, f5, f6):
    """One component of the eight corner normals from the six faces' components: each corner
    gets its three faces in face order (corner 0 lies on faces 1, 2, 5; corner 1 on 1, 2, 3; ...)."""
    return (from_zero(f1, f2, f5), from_zero(f1, f2, f3), from_zero(f1, f3, f4), from_zero(f1, f4, f5),
            from_zero(f2, f5, f6), from_zero(f2, f3, f6), from_zero(f3, f4, f6), from_zero(f4, f5, f6))


@triton.jit
def corner_normals(X, Y, Z):
    """Area-weighted normals at the eight corners (LULESH's CalcElemNodeNormals)."""
    x1, y1, z1 = face_normal(X, Y, Z, 0, 1, 2, 3)
    x2, y2, z2 = face_normal(X, Y, Z, 0, 4, 5, 1)
    x3, y3, z3 = face_normal(X, Y, Z, 1, 5, 6, 2)
    x4, y4, z4 = face_normal(X, Y, Z, 2, 6, 7, 3)
    x5, y5, z5 = face_normal(X, Y, Z, 3, 7, 4, 0)
    x6, y6, z6 = face_normal(X, Y, Z, 4, 7, 6, 5)
    return (corner_sums(x1, x2, x3, x4, x5, x6), corner_sums(y1, y2, y3, y4, y5, y6),
            corner_sums(z1, z2, z3, z4, z5, z6))


@triton.jit
def volume_derivative(X, Y, Z, c0: tl.constexpr, c1: tl.constexpr, c2: tl.constexpr,
                      c3: tl.constexpr, c4: tl.constexpr, c5: tl.constexpr):
    """d(volume)/d(corner) from six neighbouring corners c0..c5, in the order in which LULESH's
    CalcElemVolumeDerivative passes them to VoluDer."""
    x0, x1, x2, x3, x4, x5 = X[c0], X[c1], X[c2], X[c3], X[c4], X[c5]
    y0, y1, y2, y3, y4, y5 = Y[c0], Y[c1], Y[c2], Y[c3], Y[c4], Y[c5]
    z0, z1, z2, z3, z4, z5 = Z[c0], Z[c1], Z[c2], Z[c3], Z[c4], Z[c5]
    dvdx = ((y1 + y2) * (z0 + z1) - (y0 + y1) * (z1 + z2) + (y0 + y4) * (z3 + z4)
            - (y3 + y4) * (z0 + z4) - (y2 + y5) * (z3 + z5) + (y3 + y5) * (z2 + z5))
    dvdy = (-(x1 + x2) * (z0 + z1) + (x0 + x1) * (z1 + z2) - (x0 + x4) * (z3 + z4)
            + (x3 + x4) * (z0 + z4) + (x2 + x5) * (z3 + z5) - (x3 + x5) * (z2 + z5))
    dvdz = (-(y1 + y2) * (x0 + x1) + (y0 + y1) * (x1 + x2) - (y0 + y4) * (x3 + x4)
            + (y3 + y4) * (x0 + x4) + (y2 + y5) * (x3 + x5) - (y3 + y5) * (x2 + x5))
    # The constant inline: a Python float bound to a local name becomes an fp32 scalar in Triton
    # (1/12 rounded to 0.0833333358), one met by an fp64 tensor in arithmetic stays fp64.
    return dvdx * (1.0 / 12.0), dvdy * (1.0 / 12.0), dvdz * (1.0 / 12.0)


@triton.jit
def volume_derivatives(X, Y, Z):
    """(dV/dx_i), (dV/dy_i), (dV/dz_i) for the eight corners i."""
    dx0, dy0, dz0 = volume_derivative(X, Y, Z, 1, 2, 3, 4, 5, 7)
    dx3, dy3, dz3 = volume_derivative(X, Y, Z, 0, 1, 2, 7, 4, 6)
    dx2, dy2, dz2 = volume_derivative(X, Y, Z, 3, 0, 1, 6, 7, 5)
    dx1, dy1, dz1 = volume_derivative(X, Y, Z, 2, 3, 0, 5, 6, 4)
    dx4, dy4, dz4 = volume_derivative(X, Y, Z, 7, 6, 5, 0, 3, 1)
    dx5, dy5, dz5 = volume_derivative(X, Y, Z, 4, 7, 6, 1, 0, 2)
    dx6, dy6, dz6 = volume_derivative(X, Y, Z, 5, 4, 7, 2, 1, 3)
    dx7, dy7, dz7 = volume_derivative(X, Y, Z, 6, 5, 4, 3, 2, 0)
    return ((dx0, dx1, dx2, dx3, dx4, dx5, dx6, dx7),
            (dy0, dy1, dy2, dy3, dy4, dy5, dy6, dy7),
            (dz0, dz1, dz2, dz3, dz4, dz5, dz6, dz7))
