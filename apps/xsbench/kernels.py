"""XSBench's event-based macroscopic cross-section lookups as Triton kernels, FP64.

One lookup per lane. A lookup samples an energy and a material from its own random stream (the
reference's LCG, skipped ahead to draw 2i), finds the energy's interval in every nuclide of the
material through the acceleration structure (GRID: unionized energy grid or hash grid), sums the
interpolated cross sections weighted by concentration (5 channels), and writes the index (1..5)
of the largest channel: the host sums those into the verification checksum (cpu_lookup.hpp does
the same on the CPU, lookup for lookup).

Three ways to run them (main.cpp / triton_lookups.hpp):
  fused     lookup_fused: sampling and lookup in one kernel (the reference's baseline);
  split     sample_lookups, then lookup_split over the sampled energies and materials;
  sorted    sample_lookups; material_histogram and material_scatter (a counting sort by material);
            then lookup_material once per material, so every tile runs the same nuclide loop;
  energy    as sorted, but bucket_histogram and bucket_scatter sort by material and then energy
            (the reference's best variant), so neighbouring lanes read neighbouring grid points.
PACKED = 1 (an experiment, apps/xsbench/bench): each nuclide's two grid points read as one tile.

Why a tile-uniform language loses here: every per-lane loop runs to the tile's largest trip
count with masks (the nuclide loop: 321 nuclides for a fuel lookup of the large problem, 4 for
water; the hash grid's bisection; the skip-ahead's bit loop), and a tile is 32-1024 lanes where a
CUDA warp is 32 and finishes on its own. apps/xsbench/bench measures it.

Layout: nuclide_grid is the reference's array of structures, 6 doubles a point (energy, total,
elastic, absorption, fission, nu-fission); index_grid is int32 [rows, n_isotopes]; mats and concs
are [12, max_num_nucs].
"""
import triton
import triton.language as tl

GRID_UNIONIZED = tl.constexpr(0)
GRID_HASH = tl.constexpr(1)

LCG_MULTIPLIER = tl.constexpr(2806196910506780709)
LCG_MASK = tl.constexpr(0x7FFFFFFFFFFFFFFF)  # x mod 2^63
TWO_POW_63 = tl.constexpr(9223372036854775808.0)
STARTING_SEED = tl.constexpr(1070)
NUM_MATERIALS = tl.constexpr(12)
POINT = tl.constexpr(6)  # doubles per grid point


# ---- sampling ----------------------------------------------------------------------------------
# 64-bit integers throughout: a product wraps modulo 2^64 as the reference's uint64_t does, and
# every seed is below 2^63, so int64 and uint64 agree (also in the conversion to double).

@triton.jit
def lcg_draw(seed):
    seed = (seed * LCG_MULTIPLIER + 1) & LCG_MASK
    return seed, seed.to(tl.float64) / TWO_POW_63


@triton.jit
def skip_ahead(steps, skip_bits):
    """The seed after `steps` (int64 tensor) draws from STARTING_SEED: the reference's binary
    skip-ahead, its bit loop run to `skip_bits`, the bit length of the largest `steps` (every
    lane the same count: the loop has no per-lane exit)."""
    a = tl.full([], LCG_MULTIPLIER, tl.int64)
    c = tl.full([], 1, tl.int64)
    a_total = tl.full(steps.shape, 1, tl.int64)
    c_total = tl.zeros(steps.shape, tl.int64)
    for b in range(skip_bits):
        take = ((steps >> b) & 1) != 0
        a_total = tl.where(take, a_total * a, a_total)
        c_total = tl.where(take, c_total * a + c, c_total)
        c = c * (a + 1)
        a = a * a
    return (a_total * STARTING_SEED + c_total) & LCG_MASK


@triton.jit
def pick_material(roll, thresholds):
    """Material 1..11 when roll is below its threshold and no earlier one, else 0 (fuel)."""
    material = tl.zeros(roll.shape, tl.int32)
    found = roll != roll  # all false
    for m in tl.static_range(1, NUM_MATERIALS):
        hit = (roll < tl.load(thresholds + m)) & ~found
        material = tl.where(hit, m, material)
        found = found | hit
    return material


@triton.jit
def sample(lookup, thresholds, skip_bits):
    seed = skip_ahead(2 * lookup.to(tl.int64), skip_bits)
    seed, energy = lcg_draw(seed)
    seed, roll = lcg_draw(seed)
    return energy, pick_material(roll, thresholds)


# ---- the lookup ---------------------------------------------------------------------------------

@triton.jit
def grid_row(energy, unionized_energy, n_union, search_steps, hash_bins, active, GRID: tl.constexpr):
    """The acceleration structure's row for `energy`: the last unionized energy <= it (a
    bisection of fixed length, `search_steps`), or its hash bin."""
    if GRID == GRID_UNIONIZED:
        low = tl.zeros(energy.shape, tl.int64)
        high = tl.zeros(energy.shape, tl.int64) + (n_union - 1)
        for _ in range(search_steps):
            length = high - low
            go = active & (length > 1)
            mid = low + length // 2
            above = tl.load(unionized_energy + mid, mask=go, other=0.0) > energy
            high = tl.where(go & above, mid, high)
            low = tl.where(go & ~above, mid, low)
        return low
    else:
        return (energy / (1.0 / hash_bins.to(tl.float64))).to(tl.int64)


@triton.jit
def nuclide_interval(energy, nuc, row, nuclide_grid, index_grid, n_isotopes, n_gridpoints, hash_bins, hash_steps,
                     active, GRID: tl.constexpr):
    """The lower point of nuclide `nuc`'s interval holding `energy` (never the grid's last point)."""
    grid_base = nuc.to(tl.int64) * n_gridpoints
    entry = row * n_isotopes + nuc
    if GRID == GRID_UNIONIZED:
        lower = tl.load(index_grid + entry, mask=active, other=0).to(tl.int64)
    else:
        u_low = tl.load(index_grid + entry, mask=active, other=0).to(tl.int64)
        last_bin = row == hash_bins - 1
        u_high = tl.load(index_grid + entry + n_isotopes, mask=active & ~last_bin, other=0).to(tl.int64) + 1
        u_high = tl.where(last_bin, n_gridpoints - 1, u_high)
        e_low = tl.load(nuclide_grid + (grid_base + u_low) * POINT, mask=active, other=0.0)
        e_high = tl.load(nuclide_grid + (grid_base + u_high) * POINT, mask=active, other=0.0)
        low = u_low
        high = u_high
        for _ in range(hash_steps):  # to the longest bin range of all: no lane leaves early
            length = high - low
            go = active & (length > 1)
            mid = low + length // 2
            above = tl.load(nuclide_grid + (grid_base + mid) * POINT, mask=go, other=0.0) > energy
            high = tl.where(go & above, mid, high)
            low = tl.where(go & ~above, mid, low)
        lower = tl.where(energy <= e_low, 0, tl.where(energy >= e_high, n_gridpoints - 1, low))
    return tl.where(lower == n_gridpoints - 1, lower - 1, lower)


@triton.jit
def add_nuclide(acc0, acc1, acc2, acc3, acc4, energy, nuc, conc, row, nuclide_grid, index_grid, n_isotopes,
                n_gridpoints, hash_bins, hash_steps, active, GRID: tl.constexpr):
    """The accumulators plus conc x nuclide `nuc`'s five cross sections interpolated at `energy`."""
    lower = nuclide_interval(energy, nuc, row, nuclide_grid, index_grid, n_isotopes, n_gridpoints, hash_bins,
                             hash_steps, active, GRID)
    low = nuclide_grid + (nuc.to(tl.int64) * n_gridpoints + lower) * POINT
    high = low + POINT
    e_low = tl.load(low, mask=active, other=0.0)
    e_high = tl.load(high, mask=active, other=1.0)
    f = (e_high - energy) / (e_high - e_low)
    h = tl.load(high + 1, mask=active, other=0.0)
    acc0 += tl.where(active, (h - f * (h - tl.load(low + 1, mask=active, other=0.0))) * conc, 0.0)
    h = tl.load(high + 2, mask=active, other=0.0)
    acc1 += tl.where(active, (h - f * (h - tl.load(low + 2, mask=active, other=0.0))) * conc, 0.0)
    h = tl.load(high + 3, mask=active, other=0.0)
    acc2 += tl.where(active, (h - f * (h - tl.load(low + 3, mask=active, other=0.0))) * conc, 0.0)
    h = tl.load(high + 4, mask=active, other=0.0)
    acc3 += tl.where(active, (h - f * (h - tl.load(low + 4, mask=active, other=0.0))) * conc, 0.0)
    h = tl.load(high + 5, mask=active, other=0.0)
    acc4 += tl.where(active, (h - f * (h - tl.load(low + 5, mask=active, other=0.0))) * conc, 0.0)
    return acc0, acc1, acc2, acc3, acc4


@triton.jit
def unpack_halves(t):
    """[..., 2] -> its two halves, split along the last dimension (each lane keeps both in registers)."""
    return tl.split(t)


@triton.jit
def add_nuclide_packed(acc0, acc1, acc2, acc3, acc4, energy, nuc, conc, row, nuclide_grid, index_grid, n_isotopes,
                       n_gridpoints, hash_bins, hash_steps, active, GRID: tl.constexpr, BLOCK: tl.constexpr):
    """add_nuclide with the interval's two points (12 consecutive doubles) read as one [BLOCK, 16]
    tile (the remedy for the structure's 12 separate gathers: contiguous 16-byte loads per lane),
    then unpacked in registers by repeated splits: field k of the tile is at k = 8 a + 4 b + 2 c + d
    of its [BLOCK, 2, 2, 2, 2] view."""
    lower = nuclide_interval(energy, nuc, row, nuclide_grid, index_grid, n_isotopes, n_gridpoints, hash_bins,
                             hash_steps, active, GRID)
    first = (nuc.to(tl.int64) * n_gridpoints + lower) * POINT
    cols = tl.arange(0, 16)
    pts = tl.load(nuclide_grid + first[:, None] + cols[None, :], mask=active[:, None] & (cols[None, :] < 2 * POINT),
                  other=1.0)
    d0, d1 = unpack_halves(tl.reshape(pts, [BLOCK, 2, 2, 2, 2]))  # d: field bit 0
    c00, c10 = unpack_halves(d0)  # fields with bit 0 clear, split on bit 1
    c01, c11 = unpack_halves(d1)
    b000, b100 = unpack_halves(c00)  # split on bit 2: [BLOCK, 2] over bit 3
    b010, b110 = unpack_halves(c10)
    b001, b101 = unpack_halves(c01)
    b011, b111 = unpack_halves(c11)
    f0, f8 = unpack_halves(b000)
    f4, f12 = unpack_halves(b100)
    f2, f10 = unpack_halves(b010)
    f6, f14 = unpack_halves(b110)
    f1, f9 = unpack_halves(b001)
    f5, f13 = unpack_halves(b101)
    f3, f11 = unpack_halves(b011)
    f7, f15 = unpack_halves(b111)
    # low point: f0 (energy) .. f5; high point: f6 (energy) .. f11
    f = (f6 - energy) / (f6 - f0)
    acc0 += tl.where(active, (f7 - f * (f7 - f1)) * conc, 0.0)
    acc1 += tl.where(active, (f8 - f * (f8 - f2)) * conc, 0.0)
    acc2 += tl.where(active, (f9 - f * (f9 - f3)) * conc, 0.0)
    acc3 += tl.where(active, (f10 - f * (f10 - f4)) * conc, 0.0)
    acc4 += tl.where(active, (f11 - f * (f11 - f5)) * conc, 0.0)
    return acc0, acc1, acc2, acc3, acc4


@triton.jit
def add_nuclide_reads(acc0, acc1, acc2, acc3, acc4, energy, nuc, conc, row, nuclide_grid, index_grid, n_isotopes,
                      n_gridpoints, hash_bins, hash_steps, active, GRID: tl.constexpr, BLOCK: tl.constexpr,
                      PACKED: tl.constexpr):
    """add_nuclide with the grid points read field by field (PACKED = 0) or as one tile (1)."""
    if PACKED:
        return add_nuclide_packed(acc0, acc1, acc2, acc3, acc4, energy, nuc, conc, row, nuclide_grid, index_grid,
                                  n_isotopes, n_gridpoints, hash_bins, hash_steps, active, GRID, BLOCK)
    else:
        return add_nuclide(acc0, acc1, acc2, acc3, acc4, energy, nuc, conc, row, nuclide_grid, index_grid, n_isotopes,
                           n_gridpoints, hash_bins, hash_steps, active, GRID)


@triton.jit
def largest_channel(acc0, acc1, acc2, acc3, acc4):
    """1 + the index of the largest channel, the first of equal ones (the reference's argmax)."""
    best = acc0
    at = tl.full(acc0.shape, 1, tl.int32)
    up = acc1 > best
    best = tl.where(up, acc1, best)
    at = tl.where(up, 2, at)
    up = acc2 > best
    best = tl.where(up, acc2, best)
    at = tl.where(up, 3, at)
    up = acc3 > best
    best = tl.where(up, acc3, best)
    at = tl.where(up, 4, at)
    up = acc4 > best
    at = tl.where(up, 5, at)
    return at


@triton.jit
def macro_xs_lookup(energy, material, active, nuclide_grid, unionized_energy, index_grid, num_nucs, mats, concs,
                    n_isotopes, n_gridpoints, search_steps, hash_bins, hash_steps, max_num_nucs,
                    GRID: tl.constexpr, BLOCK: tl.constexpr, PACKED: tl.constexpr):
    """Per lane: the verification value of the lookup (energy, material); the nuclide loop runs to
    the tile's largest nuclide count, lanes of smaller materials masked off."""
    n_union = n_isotopes.to(tl.int64) * n_gridpoints
    row = grid_row(energy, unionized_energy, n_union, search_steps, hash_bins, active, GRID)
    count = tl.load(num_nucs + material, mask=active, other=0)
    acc0 = tl.zeros(energy.shape, tl.float64)
    acc1 = tl.zeros(energy.shape, tl.float64)
    acc2 = tl.zeros(energy.shape, tl.float64)
    acc3 = tl.zeros(energy.shape, tl.float64)
    acc4 = tl.zeros(energy.shape, tl.float64)
    table = material * max_num_nucs
    for j in range(tl.max(count, axis=0)):
        live = active & (j < count)
        nuc = tl.load(mats + table + j, mask=live, other=0)
        conc = tl.load(concs + table + j, mask=live, other=0.0)
        acc0, acc1, acc2, acc3, acc4 = add_nuclide_reads(acc0, acc1, acc2, acc3, acc4, energy, nuc, conc, row,
                                                         nuclide_grid, index_grid, n_isotopes, n_gridpoints, hash_bins,
                                                         hash_steps, live, GRID, BLOCK, PACKED)
    return largest_channel(acc0, acc1, acc2, acc3, acc4)


@triton.jit
def lookup_fused(nuclide_grid, unionized_energy, index_grid, num_nucs, mats, concs, thresholds, verification,
                 n_lookups, skip_bits, n_isotopes, n_gridpoints, search_steps, hash_bins, hash_steps, max_num_nucs,
                 GRID: tl.constexpr, BLOCK: tl.constexpr, PACKED: tl.constexpr = 0):
    """The reference's baseline: lookup i = program * BLOCK + lane samples and looks up."""
    lookup = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    active = lookup < n_lookups
    energy, material = sample(lookup, thresholds, skip_bits)
    value = macro_xs_lookup(energy, material, active, nuclide_grid, unionized_energy, index_grid, num_nucs, mats,
                            concs, n_isotopes, n_gridpoints, search_steps, hash_bins, hash_steps, max_num_nucs, GRID,
                            BLOCK, PACKED)
    tl.store(verification + lookup, value, mask=active)


@triton.jit
def sample_lookups(energies, materials, thresholds, n_lookups, skip_bits, BLOCK: tl.constexpr):
    lookup = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    active = lookup < n_lookups
    energy, material = sample(lookup, thresholds, skip_bits)
    tl.store(energies + lookup, energy, mask=active)
    tl.store(materials + lookup, material, mask=active)


@triton.jit
def lookup_split(energies, materials, nuclide_grid, unionized_energy, index_grid, num_nucs, mats, concs,
                 verification, n_lookups, n_isotopes, n_gridpoints, search_steps, hash_bins, hash_steps,
                 max_num_nucs, GRID: tl.constexpr, BLOCK: tl.constexpr):
    """The lookups of sample_lookups' energies and materials."""
    lookup = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    active = lookup < n_lookups
    energy = tl.load(energies + lookup, mask=active, other=0.0)
    material = tl.load(materials + lookup, mask=active, other=0)
    value = macro_xs_lookup(energy, material, active, nuclide_grid, unionized_energy, index_grid, num_nucs, mats,
                            concs, n_isotopes, n_gridpoints, search_steps, hash_bins, hash_steps, max_num_nucs, GRID,
                            BLOCK, 0)
    tl.store(verification + lookup, value, mask=active)


# ---- grouping by material: a counting sort ----------------------------------------------------

@triton.jit
def material_histogram(materials, counts, n_lookups, BLOCK: tl.constexpr):
    """counts[m] += the number of lookups of material m (counts zeroed by the caller)."""
    lookup = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    material = tl.load(materials + lookup, mask=lookup < n_lookups, other=NUM_MATERIALS)
    tile = tl.histogram(material, 16)  # bin 12: the padding lanes
    bins = tl.arange(0, 16)
    tl.atomic_add(counts + bins, tile, mask=bins < NUM_MATERIALS)


@triton.jit
def material_scatter(energies, materials, cursor, sorted_energies, sorted_lookups, n_lookups, BLOCK: tl.constexpr):
    """Each lookup's energy and index to its material's next free slot. cursor[m] starts at
    material m's first slot (the exclusive prefix sum of material_histogram's counts); a tile
    takes its slots with one atomic add per material, and ranks its lanes among those of the same
    material by a prefix count over the tile."""
    lookup = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    active = lookup < n_lookups
    material = tl.load(materials + lookup, mask=active, other=NUM_MATERIALS)
    bins = tl.arange(0, 16)
    one_hot = (material[:, None] == bins[None, :]).to(tl.int32)  # [BLOCK, 16]
    tile = tl.sum(one_hot, axis=0)
    first = tl.atomic_add(cursor + bins, tile, mask=bins < NUM_MATERIALS)
    rank = tl.sum((tl.cumsum(one_hot, axis=0) - one_hot) * one_hot, axis=1)
    slot = tl.sum(one_hot * first[None, :], axis=1) + rank
    tl.store(sorted_energies + slot, tl.load(energies + lookup, mask=active, other=0.0), mask=active)
    tl.store(sorted_lookups + slot, lookup, mask=active)


@triton.jit
def energy_bucket(energies, materials, lookup, active, energy_bins):
    """Material-major bucket of each lookup: material * energy_bins + its energy's bin."""
    energy = tl.load(energies + lookup, mask=active, other=0.0)
    material = tl.load(materials + lookup, mask=active, other=0)
    energy_bin = tl.minimum((energy * energy_bins).to(tl.int32), energy_bins - 1)
    return material * energy_bins + energy_bin, energy


@triton.jit
def bucket_histogram(energies, materials, counts, n_lookups, energy_bins, BLOCK: tl.constexpr):
    """counts[material * energy_bins + energy bin] += 1 per lookup (counts zeroed by the caller):
    the counting sort by material, then energy, of the reference's best variant (there a full sort;
    energy_bins buckets are enough to make neighbouring lanes read neighbouring grid points)."""
    lookup = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    active = lookup < n_lookups
    bucket, _ = energy_bucket(energies, materials, lookup, active, energy_bins)
    tl.atomic_add(counts + bucket, tl.full([BLOCK], 1, tl.int32), mask=active)


@triton.jit
def bucket_scatter(energies, materials, cursor, sorted_energies, sorted_lookups, n_lookups, energy_bins,
                   BLOCK: tl.constexpr):
    """Each lookup's energy and index to the next free slot of its bucket (cursor: the exclusive
    prefix sum of bucket_histogram's counts); one atomic per lookup: the order inside a bucket is
    the atomics' order, which the checksum does not depend on."""
    lookup = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    active = lookup < n_lookups
    bucket, energy = energy_bucket(energies, materials, lookup, active, energy_bins)
    slot = tl.atomic_add(cursor + bucket, tl.full([BLOCK], 1, tl.int32), mask=active)
    tl.store(sorted_energies + slot, energy, mask=active)
    tl.store(sorted_lookups + slot, lookup, mask=active)


@triton.jit
def lookup_material(sorted_energies, sorted_lookups, first, count, material, nuclide_grid, unionized_energy,
                    index_grid, num_nucs, mats, concs, verification, n_isotopes, n_gridpoints, search_steps,
                    hash_bins, hash_steps, max_num_nucs, GRID: tl.constexpr, BLOCK: tl.constexpr,
                    PACKED: tl.constexpr = 0):
    """The `count` lookups of one material from slot `first` on: the nuclide loop is the same for
    every lane (one count, nuclide ids and concentrations loaded once per tile, not per lane).
    PACKED = 1: each nuclide's two grid points read as one tile (add_nuclide_packed)."""
    slot = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    active = slot < count
    energy = tl.load(sorted_energies + first + slot, mask=active, other=0.0)
    lookup = tl.load(sorted_lookups + first + slot, mask=active, other=0)
    n_union = n_isotopes.to(tl.int64) * n_gridpoints
    row = grid_row(energy, unionized_energy, n_union, search_steps, hash_bins, active, GRID)
    acc0 = tl.zeros(energy.shape, tl.float64)
    acc1 = tl.zeros(energy.shape, tl.float64)
    acc2 = tl.zeros(energy.shape, tl.float64)
    acc3 = tl.zeros(energy.shape, tl.float64)
    acc4 = tl.zeros(energy.shape, tl.float64)
    table = material * max_num_nucs
    for j in range(tl.load(num_nucs + material)):
        nuc = tl.load(mats + table + j)
        conc = tl.load(concs + table + j)
        acc0, acc1, acc2, acc3, acc4 = add_nuclide_reads(acc0, acc1, acc2, acc3, acc4, energy, nuc, conc, row,
                                                         nuclide_grid, index_grid, n_isotopes, n_gridpoints, hash_bins,
                                                         hash_steps, active, GRID, BLOCK, PACKED)
    tl.store(verification + lookup, largest_channel(acc0, acc1, acc2, acc3, acc4), mask=active)
