// tritonpack/launch/tensor_descriptor.hpp — host-side tensor descriptors as Triton passes them
// (docs/triton-abi.md §5, §7), as pure computations the tests check without a driver.
//
// Two forms, decided per image at load time:
//   TMA (the image's tensordesc_meta has an entry): a CUtensorMap by value (128 bytes, 64-byte
//     aligned parameter), then shape as i32 × rank, then strides as i64 × rank;
//   decomposed (no meta, e.g. sm_80 and AMD): base pointer, shape i64 × rank, strides i64 × rank,
//     padding i1, [round_f32_to_tf32 i1: Triton 3.7 and later], shape i32 × rank,
//     strides i64 × rank.
// Which parameters a release passes is launch/triton_abi.hpp's. The CUtensorMap itself is built by
// the backend (cuTensorMapEncodeTiled) from tma_encode_args.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

#include "tritonpack/core/error.hpp"
#include "tritonpack/core/model.hpp"
#include "tritonpack/core/types.hpp"
#include "tritonpack/version.hpp"

TRITONPACK_BEGIN_NAMESPACE

// A tensor_descriptor<T, Rank> read through `const void*` (the layout is fixed by Rank alone).
struct descriptor_view {
  std::uint64_t base = 0;
  std::uint32_t rank = 0;
  std::int64_t shape[5] = {};
  std::int64_t strides[5] = {};
  bool padding_nan = false;
  bool round_f32_to_tf32 = false;
};

inline descriptor_view read_descriptor(const void* p, std::uint32_t rank) {
  // Offsets of tensor_descriptor<T, Rank>: pointer, then two int64 arrays, then the two bools
  // (core/types.hpp asserts this layout).
  descriptor_view v;
  v.rank = rank;
  const auto* b = static_cast<const unsigned char*>(p);
  const void* base = nullptr;
  std::memcpy(&base, b, sizeof base);
  v.base = reinterpret_cast<std::uintptr_t>(base);
  std::memcpy(v.shape, b + sizeof(void*), 8 * rank);
  std::memcpy(v.strides, b + sizeof(void*) + 8 * rank, 8 * rank);
  v.padding_nan = b[sizeof(void*) + 16 * rank] != 0;
  v.round_f32_to_tf32 = b[sizeof(void*) + 16 * rank + 1] != 0;
  return v;
}

// Arguments of cuTensorMapEncodeTiled for one descriptor, computed as Triton's
// fillTMADescriptor does (NVDC L329–430).
struct tma_encode_args {
  int data_type = 0;  // CUtensorMapDataType
  std::uint32_t rank = 0;
  std::uint64_t global_address = 0;
  std::uint64_t global_dim[5] = {};      // innermost first
  std::uint64_t global_strides[4] = {};  // bytes, rank-1 entries, innermost-but-one first
  std::uint32_t box_dim[5] = {};         // innermost first
  std::uint32_t element_strides[5] = {};
  int interleave = 0;    // CU_TENSOR_MAP_INTERLEAVE_NONE
  int swizzle = 0;       // CUtensorMapSwizzle, from the metadata
  int l2_promotion = 2;  // CU_TENSOR_MAP_L2_PROMOTION_L2_128B
  int oob_fill = 0;      // NONE, or NAN_REQUEST_ZERO_FMA (1) when padding is "nan"
};

// CU_TENSOR_MAP_DATA_TYPE_TFLOAT32: the map's data type for a descriptor with round_f32_to_tf32
// (Triton 3.7+ driver.py TMA_TF32, docs/triton-abi.md §7), whatever the metadata's elem_type.
inline constexpr int tma_data_type_tf32 = 11;

// Triton's elem_type → CUtensorMapDataType: identity except 8→10, 9→8, 10→9 (NVD L603–607).
inline int tma_data_type(std::uint32_t triton_elem_type) noexcept {
  switch (triton_elem_type) {
    case 8: return 10;
    case 9: return 8;
    case 10: return 9;
    default: return static_cast<int>(triton_elem_type);
  }
}

// `arg_name` only for messages. Throws bad_argument for descriptors TMA cannot express (the same
// requirements the driver enforces, checked here so the message names the argument).
inline tma_encode_args make_tma_encode_args(const descriptor_view& d, const tensordesc_meta& meta,
                                            const std::string& arg_name) {
  auto bad = [&](const std::string& what) {
    throw error(errc::bad_argument, "tensor descriptor argument '" + arg_name + "': " + what);
  };
  if (meta.block_size.size() != d.rank)
    bad("the kernel's block has " + std::to_string(meta.block_size.size()) +
        " dimensions but the descriptor has rank " + std::to_string(d.rank));
  if (d.rank == 0 || d.rank > 5) bad("rank " + std::to_string(d.rank) + " is outside 1..5");
  if (d.strides[d.rank - 1] != 1)
    bad("the innermost stride is " + std::to_string(d.strides[d.rank - 1]) + ", it must be 1");
  if (d.base % 16 != 0) bad("the base address must be 16-byte aligned for TMA");
  tma_encode_args a;
  a.data_type = d.round_f32_to_tf32 ? tma_data_type_tf32 : tma_data_type(meta.elem_type);
  a.rank = d.rank;
  a.global_address = d.base;
  for (std::uint32_t i = 0; i < d.rank; ++i) {
    const std::uint32_t r = d.rank - 1 - i;  // reversed: innermost first
    if (d.shape[r] <= 0) bad("shape[" + std::to_string(r) + "] is " + std::to_string(d.shape[r]));
    a.global_dim[i] = static_cast<std::uint64_t>(d.shape[r]);
    a.box_dim[i] = meta.block_size[r];
    a.element_strides[i] = 1;
  }
  if (meta.fp4_padded) a.global_dim[0] *= 2;
  for (std::uint32_t i = 0; i + 1 < d.rank; ++i) {
    const std::uint32_t r = d.rank - 2 - i;  // strides[0..rank-2] reversed, in bytes
    if (d.strides[r] <= 0)
      bad("strides[" + std::to_string(r) + "] is " + std::to_string(d.strides[r]));
    a.global_strides[i] = static_cast<std::uint64_t>(d.strides[r]) * meta.elem_size;
    if (a.global_strides[i] % 16 != 0)
      bad("strides[" + std::to_string(r) + "] × " + std::to_string(meta.elem_size) + " bytes = " +
          std::to_string(a.global_strides[i]) + " is not a multiple of 16, which TMA requires");
  }
  a.interleave = 0;
  a.swizzle = static_cast<int>(meta.swizzle);
  a.l2_promotion = 2;
  a.oob_fill = d.padding_nan ? 1 : 0;
  return a;
}

TRITONPACK_END_NAMESPACE
