// libFuzzer target for the test-double HIP runtime's code-object reader
// (tests/runtime/fake_hip/code_object.hpp, with its msgpack reader): any input must be refused
// with a "corrupt code object: ..." reason or parse into kernels whose explicit arguments lie
// inside their kernarg segment, without a crash, leak or UB. The launch checker then reads the
// parsed layout, so it runs on every kernel too.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "fake_hip/code_object.hpp"
#include "fake_hip/launch_check.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  tpfakehip::code_object co;
  std::string why;
  if (!tpfakehip::read_code_object(data, size, co, why)) {
    if (why.compare(0, 21, "corrupt code object: ") != 0) std::abort();
    return 0;
  }
  for (const auto& k : co.kernels) {
    if (k.explicit_end() > k.kernarg_segment_size) std::abort();
    // A launch with a zeroed kernarg buffer of the kernel's own size: accepted or refused, never UB.
    std::vector<std::uint8_t> buf(static_cast<std::size_t>(k.kernarg_segment_size) + 1, 0);
    std::size_t n = static_cast<std::size_t>(k.explicit_end());
    void* extra[] = {reinterpret_cast<void*>(1), buf.data(), reinterpret_cast<void*>(2), &n, reinterpret_cast<void*>(3)};
    tpfakehip::launch_request r;
    r.block[0] = static_cast<unsigned>(k.wavefront_size);
    r.extra = extra;
    const auto v = tpfakehip::check_launch(k, r, 0, 65536, [](std::uint64_t) { return -1; });
    if (v.code == 0 && v.kernarg.size() != n) std::abort();
  }
  return 0;
}
