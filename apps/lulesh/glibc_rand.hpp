// glibc_rand.hpp — the pseudo-random sequence of glibc's srand()/rand(), on any platform.
//
// LULESH 2.0 assigns elements to regions with the C library's rand() after srand(0), so its
// region sets (and the published run times per region cost) are those of glibc's generator. To
// get the same regions with any C library, this is that generator: the additive lagged Fibonacci
// generator of glibc's random() in its default state ("TYPE_3": 31 words, lag 3), seeded with the
// Park-Miller "minimal standard" LCG, its first 310 outputs discarded, each output the 32-bit sum
// shifted right by one. test_setup.cpp checks it against the C library's rand() where that is
// glibc.
#pragma once

#include <array>
#include <cstdint>

namespace lulesh {

class glibc_rand {
 public:
  explicit glibc_rand(std::uint32_t seed) {
    // glibc takes seed 0 as 1 (0 would make the whole state zero).
    std::int64_t word = seed == 0 ? 1 : seed;
    state_[0] = static_cast<std::int32_t>(word);
    for (int i = 1; i < kDegree; ++i) {
      // 16807 * word mod (2^31 - 1), Schrage's method as glibc computes it (in signed 32 bits)
      const std::int64_t hi = word / 127773, lo = word % 127773;
      word = 16807 * lo - 2836 * hi;
      if (word < 0) word += 2147483647;
      state_[i] = static_cast<std::int32_t>(word);
    }
    front_ = kSeparation;  // r[i] = r[i - 31] + r[i - 3]: the two taps
    rear_ = 0;
    for (int i = 0; i < 10 * kDegree; ++i) next();
  }

  // The next value of rand(): 0 .. 2^31 - 1.
  int next() {
    const std::uint32_t sum = static_cast<std::uint32_t>(state_[front_]) + static_cast<std::uint32_t>(state_[rear_]);
    state_[front_] = static_cast<std::int32_t>(sum);
    front_ = front_ + 1 == kDegree ? 0 : front_ + 1;
    rear_ = rear_ + 1 == kDegree ? 0 : rear_ + 1;
    return static_cast<int>(sum >> 1);
  }

 private:
  static constexpr int kDegree = 31;
  static constexpr int kSeparation = 3;
  std::array<std::int32_t, kDegree> state_{};
  int front_ = 0;
  int rear_ = 0;
};

}  // namespace lulesh
