// rng.hpp — XSBench's random-number generator: a linear congruential generator modulo 2^63 with
// a logarithmic-time skip-ahead, so lookup i can start its own stream at draw 2i (two draws per
// lookup: energy, material) without generating the draws before it. The same constants and the
// same arithmetic as the reference, so the sampled lookups — and hence the verification
// checksum — are the reference's. kernels.py implements the same three functions for the GPU.
#pragma once

#include <cstdint>

// Also compiled by nvcc (apps/xsbench/bench's CUDA twin samples with these same functions).
#if defined(__CUDACC__)
#define XSBENCH_HOST_DEVICE __host__ __device__
#else
#define XSBENCH_HOST_DEVICE
#endif

namespace xsbench {

inline constexpr std::uint64_t lcg_multiplier = 2806196910506780709ULL;
inline constexpr std::uint64_t lcg_increment = 1;
inline constexpr std::uint64_t lcg_modulus_mask = (1ULL << 63) - 1;  // x mod 2^63 == x & mask
inline constexpr std::uint64_t lookup_starting_seed = 1070;          // every lookup's stream
inline constexpr std::uint64_t nuclide_grid_seed = 42;               // the cross-section data
inline constexpr std::uint64_t concentration_seed = lookup_starting_seed * lookup_starting_seed;

// Advances `seed` one step and returns it as a double in [0, 1): seed / 2^63 (exact division,
// one rounding in the integer-to-double conversion, as the reference).
XSBENCH_HOST_DEVICE inline double lcg_random_double(std::uint64_t &seed) {
  seed = (lcg_multiplier * seed + lcg_increment) & lcg_modulus_mask;
  return static_cast<double>(seed) / 9223372036854775808.0;
}

// The seed after `n` steps from `seed`: the n-fold composition of x -> a x + c, built from the
// binary digits of n (a^(2^k) and its increment squared up as the loop walks the bits).
XSBENCH_HOST_DEVICE inline std::uint64_t lcg_skip_ahead(std::uint64_t seed, std::uint64_t n) {
  std::uint64_t a = lcg_multiplier, c = lcg_increment;
  std::uint64_t a_total = 1, c_total = 0;
  n &= lcg_modulus_mask;
  while (n > 0) {
    if (n & 1) {
      a_total *= a;
      c_total = c_total * a + c;
    }
    c *= a + 1;
    a *= a;
    n >>= 1;
  }
  return (a_total * seed + c_total) & lcg_modulus_mask;
}

}  // namespace xsbench
