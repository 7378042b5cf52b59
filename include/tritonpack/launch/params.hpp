// tritonpack/launch/params.hpp — Triton's kernel-parameter ABI (docs/triton-abi.md §1, §5, §7),
// backend neutral: the per-image parameter plan computed once at load, the hot-path assembly of the
// `kernelParams` array, and what a C++ argument of the dynamic API is (describe_host_arg; the
// argument types themselves are in core/args.hpp).
//
// The plan turns "one pointer per kernel_info::args entry" (what generated code passes) into the
// exact parameter list of the compiled kernel: folded arguments (`:1`, constexpr) dropped, tensor
// descriptors expanded (TMA map or decomposed, per image, as the Triton release that built the
// image passes them: launch/triton_abi.hpp), then Triton's two scratch pointers.
// For kernels without descriptors the launch path only copies pointers: no allocation, no
// formatting, nothing that depends on strings.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "tritonpack/core/args.hpp"
#include "tritonpack/core/error.hpp"
#include "tritonpack/core/identify.hpp"
#include "tritonpack/core/model.hpp"
#include "tritonpack/core/types.hpp"
#include "tritonpack/launch/tensor_descriptor.hpp"
#include "tritonpack/launch/triton_abi.hpp"
#include "tritonpack/version.hpp"

TRITONPACK_BEGIN_NAMESPACE

// ---------------------------------------------------------------------------------------------
// Parameter plan (per loaded image)

struct param_op {
  enum kind_t : std::uint8_t { pass, tma, decomposed } kind = pass;
  std::uint32_t arg = 0;             // index into kernel_info::args
  std::uint32_t rank = 0;            // descriptors
  std::uint32_t meta = 0;            // index into launch_info::tensordesc (tma)
  std::uint32_t storage_offset = 0;  // where this op's expanded values live in the launch storage
  bool fp32 = false;                 // descriptors: of fp32 (round_f32_to_tf32 is fp32 only)
};

struct param_plan {
  std::vector<param_op> ops;               // kernel_info::args order, folded ones absent
  std::vector<std::uint32_t> param_sizes;  // every kernel parameter, scratch pointers included
  std::vector<std::uint32_t> pass_args;    // fast path: args passed as is (when `simple`)
  std::size_t param_count = 0;             // == param_sizes.size()
  std::size_t storage_bytes = 0;           // descriptor expansion storage (128-aligned base)
  bool simple = true;                      // no descriptors: params are the caller's pointers
  bool uses_tma = false;
  triton_abi abi;  // the facts of the Triton release that built the image
};

inline bool folded(const arg_spec& s) noexcept {
  return s.kind == spec_kind::equal_1 || s.kind == spec_kind::constexpr_value;
}

inline std::size_t align_up(std::size_t v, std::size_t a) noexcept { return (v + a - 1) / a * a; }

// The layout of one descriptor's expansion in the storage (offsets relative to the op's start).
struct descriptor_layout {
  std::size_t map = 0, shape32 = 0, strides64 = 0;  // TMA
  std::size_t base = 0, shape64 = 0, stridesA = 0, padding = 0, round_tf32 = 0, shape32b = 0,
              stridesB = 0;  // decomposed (round_tf32: Triton 3.7+, triton_abi)
  std::size_t size = 0;
  descriptor_layout(std::uint32_t r, bool tma) {
    if (tma) {
      map = 0;
      shape32 = 128;
      strides64 = align_up(shape32 + 4 * r, 8);
      size = align_up(strides64 + 8 * r, 128);  // the next map stays 128-aligned
    } else {
      base = 0;
      shape64 = 8;
      stridesA = shape64 + 8 * r;
      padding = stridesA + 8 * r;
      round_tf32 = padding + 1;
      shape32b = padding + 8;
      stridesB = align_up(shape32b + 4 * r, 8);
      size = align_up(stridesB + 8 * r, 128);
    }
  }
};

inline param_plan build_param_plan(const kernel_info& k, const variant_info& v,
                                   const launch_info& li) {
  param_plan p;
  std::string why;
  if (!parse_triton_abi(li.triton_version, p.abi, why))
    throw error(errc::bad_container,
                identify(k) + ": " + why + "; the run time cannot tell its kernel's parameters");
  if (v.specs.size() != k.args.size())
    throw error(errc::bad_container, identify(k) + ": a variant has " +
                                         std::to_string(v.specs.size()) + " argument specs for " +
                                         std::to_string(k.args.size()) + " arguments");
  std::uint32_t desc_index = 0;
  std::size_t n_desc = 0;
  for (const auto& a : k.args)
    if (a.type.rfind("tensordesc<", 0) == 0) ++n_desc;
  const bool have_meta = !li.tensordesc.empty();
  if (have_meta && li.tensordesc.size() != n_desc)
    throw error(errc::bad_container, identify(k) + ": the image has tensordesc_meta for " +
                                         std::to_string(li.tensordesc.size()) +
                                         " descriptors but the kernel takes " +
                                         std::to_string(n_desc));
  for (std::uint32_t i = 0; i < k.args.size(); ++i) {
    const arg_type t = parse_arg_type(k.args[i].type);
    if (folded(v.specs[i])) {
      if (t.cls == arg_class::tensordesc)
        throw error(errc::bad_container, identify(k) + ": descriptor argument '" + k.args[i].name +
                                             "' cannot be folded");
      continue;
    }
    param_op op;
    op.arg = i;
    if (t.cls != arg_class::tensordesc) {
      op.kind = param_op::pass;
      p.param_sizes.push_back(t.size);
      p.pass_args.push_back(i);
    } else {
      p.simple = false;
      const bool tma = have_meta;
      op.kind = tma ? param_op::tma : param_op::decomposed;
      op.rank = t.rank;
      op.meta = desc_index++;
      op.fp32 = t.elem == "fp32";
      op.storage_offset = static_cast<std::uint32_t>(p.storage_bytes);
      p.storage_bytes += descriptor_layout(t.rank, tma).size;
      if (tma) {
        p.uses_tma = true;
        p.param_sizes.push_back(128);
        for (std::uint32_t r = 0; r < t.rank; ++r) p.param_sizes.push_back(4);
        for (std::uint32_t r = 0; r < t.rank; ++r) p.param_sizes.push_back(8);
      } else {
        p.param_sizes.push_back(8);
        for (std::uint32_t r = 0; r < 2 * t.rank; ++r) p.param_sizes.push_back(8);
        p.param_sizes.push_back(1);                                  // padding
        if (p.abi.descriptor_tf32_flag) p.param_sizes.push_back(1);  // round_f32_to_tf32
        for (std::uint32_t r = 0; r < t.rank; ++r) p.param_sizes.push_back(4);
        for (std::uint32_t r = 0; r < t.rank; ++r) p.param_sizes.push_back(8);
      }
    }
    p.ops.push_back(op);
  }
  p.param_sizes.push_back(8);  // global_scratch
  p.param_sizes.push_back(8);  // profile_scratch
  p.param_count = p.param_sizes.size();
  return p;
}

namespace detail {
// Writes a descriptor's shape as the kernel's `i32 × rank` parameters at `dst` (both forms pass the
// shape so, §5) and points params[n...] at them. One check for both forms: a dimension is an
// element count, so 0..INT32_MAX. A negative one can only be a caller's mistake (the decomposed
// form's kernel would silently mask every element off, `0 <= i < shape`), and above INT32_MAX the
// i32 copy would wrap. 0 (an empty dimension) is valid here; TMA refuses it in
// make_tma_encode_args (cuTensorMapEncodeTiled needs every globalDim >= 1).
//
// Strides need no such check: both forms pass them as i64, unchanged, so nothing narrows. TMA
// needs them positive and multiples of 16 bytes (make_tma_encode_args checks). The decomposed form
// takes any i64, negative included: Triton's host-side TensorDescriptor only asks strides[-1] == 1
// and outer strides of 16-byte multiples (no sign check), and the kernel (Triton's
// RewriteTensorDescriptorToPointer pass) only uses them as signed multipliers, base + sum(i *
// stride) masked by the shape, so a negative stride is a valid reversed view.
inline void pack_shape_i32(const kernel_info& k, const param_op& op, const descriptor_view& d,
                           unsigned char* dst, void** params, std::size_t& n) {
  constexpr std::int64_t max = std::numeric_limits<std::int32_t>::max();
  for (std::uint32_t r = 0; r < op.rank; ++r) {
    const std::int64_t v = d.shape[r];
    if (v < 0 || v > max)
      throw error(errc::bad_argument,
                  identify(k) + ": tensor descriptor argument '" + k.args[op.arg].name +
                      "': shape[" + std::to_string(r) + "] = " + std::to_string(v) +
                      (v < 0 ? " is negative" : " does not fit the kernel's i32 shape parameter") +
                      "; each dimension must be in 0.." + std::to_string(max));
    const auto v32 = static_cast<std::int32_t>(v);
    std::memcpy(dst + 4 * r, &v32, 4);
    params[n++] = dst + 4 * r;
  }
}

// A descriptor asks for round_f32_to_tf32 where Triton has no such flag: before 3.7
// (launch/triton_abi.hpp), or for a non-fp32 tensor (Triton's TensorDescriptor asserts fp32).
[[noreturn]] TRITONPACK_COLD inline void refuse_tf32(const kernel_info& k, const param_op& op,
                                                     const param_plan& plan,
                                                     const launch_info& li) {
  const std::string what = identify(k) + ": tensor descriptor argument '" + k.args[op.arg].name +
                           "': round_f32_to_tf32 ";
  if (!plan.abi.descriptor_tf32_flag)
    throw error(errc::bad_argument,
                what +
                    "needs an image built by Triton 3.7 or later; this one was built by Triton " +
                    (li.triton_version.empty() ? std::string("(unrecorded)") : li.triton_version));
  throw error(errc::bad_argument, what + "is for fp32 tensors only; this one is " +
                                      parse_arg_type(k.args[op.arg].type).elem);
}
}  // namespace detail

// Encodes a CUtensorMap into 128 bytes; provided by the backend (cuTensorMapEncodeTiled).
using tma_encoder = void (*)(void* self, const tma_encode_args& args, void* map128,
                             const std::string& arg_name);

// Fills `params` (param_count entries) for one launch. `storage` must be 128-byte aligned and
// hold plan.storage_bytes; `scratch` points to the two scratch pointer values.
inline void assemble_params(const param_plan& plan, const kernel_info& k, const launch_info& li,
                            const void* const* args, void** params, unsigned char* storage,
                            void* const* scratch, tma_encoder encode, void* encoder_self) {
  std::size_t n = 0;
  if (plan.simple) {
    for (std::uint32_t a : plan.pass_args) params[n++] = const_cast<void*>(args[a]);
  } else {
    for (const param_op& op : plan.ops) {
      if (op.kind == param_op::pass) {
        params[n++] = const_cast<void*>(args[op.arg]);
        continue;
      }
      const descriptor_view d = read_descriptor(args[op.arg], op.rank);
      if (d.round_f32_to_tf32 && !(plan.abi.descriptor_tf32_flag && op.fp32))
        detail::refuse_tf32(k, op, plan, li);
      unsigned char* s = storage + op.storage_offset;
      const descriptor_layout L(op.rank, op.kind == param_op::tma);
      if (op.kind == param_op::tma) {
        params[n++] = s + L.map;  // filled by `encode` below
        // Shapes first, so that a negative one gets the same message as in the decomposed form.
        detail::pack_shape_i32(k, op, d, s + L.shape32, params, n);
        try {
          const tma_encode_args ea =
              make_tma_encode_args(d, li.tensordesc[op.meta], k.args[op.arg].name);
          encode(encoder_self, ea, s + L.map, k.args[op.arg].name);
        } catch (const error&
                     e) {  // name the kernel too (the error path only: no string work per launch)
          throw e.with_context(identify(k));
        }
        for (std::uint32_t r = 0; r < op.rank; ++r) {
          std::memcpy(s + L.strides64 + 8 * r, &d.strides[r], 8);
          params[n++] = s + L.strides64 + 8 * r;
        }
      } else {
        // Triton's TensorDescriptor requires a contiguous innermost dimension in both forms (the
        // TMA form checks it in make_tma_encode_args).
        if (op.rank > 0 && d.strides[op.rank - 1] != 1)
          throw error(errc::bad_argument, identify(k) + ": tensor descriptor argument '" +
                                              k.args[op.arg].name + "': the innermost stride is " +
                                              std::to_string(d.strides[op.rank - 1]) +
                                              ", it must be 1");
        std::memcpy(s + L.base, &d.base, 8);
        params[n++] = s + L.base;
        for (std::uint32_t r = 0; r < op.rank; ++r) {
          std::memcpy(s + L.shape64 + 8 * r, &d.shape[r], 8);
          params[n++] = s + L.shape64 + 8 * r;
        }
        for (std::uint32_t r = 0; r < op.rank; ++r) {
          std::memcpy(s + L.stridesA + 8 * r, &d.strides[r], 8);
          params[n++] = s + L.stridesA + 8 * r;
        }
        s[L.padding] = d.padding_nan ? 1 : 0;
        params[n++] = s + L.padding;
        if (plan.abi.descriptor_tf32_flag) {
          s[L.round_tf32] = d.round_f32_to_tf32 ? 1 : 0;
          params[n++] = s + L.round_tf32;
        }
        detail::pack_shape_i32(k, op, d, s + L.shape32b, params, n);
        for (std::uint32_t r = 0; r < op.rank; ++r) {
          std::memcpy(s + L.stridesB + 8 * r, &d.strides[r], 8);
          params[n++] = s + L.stridesB + 8 * r;
        }
      }
    }
  }
  params[n++] = const_cast<void*>(static_cast<const void*>(&scratch[0]));
  params[n++] = const_cast<void*>(static_cast<const void*>(&scratch[1]));
}

// ---------------------------------------------------------------------------------------------
// Scratch sizing (docs/triton-abi.md §1): grid × num_ctas × per-program size, aligned; on AMD
// (Triton 3.8 and later) grid × per-program size (§7 "HIP global scratch").

struct scratch_need {
  std::uint64_t global_bytes = 0;  // 0: pass a null pointer
  std::uint64_t profile_bytes = 0;
  std::uint64_t profile_offset = 0;  // profile region inside the same allocation
  std::uint64_t total = 0;
  std::uint32_t align = 1;
};

namespace detail {
// a * b, or false when it does not fit in 62 bits (allocation sizes stay far from wrapping).
inline bool mul_checked(std::uint64_t a, std::uint64_t b, std::uint64_t& out) noexcept {
  const std::uint64_t limit = std::uint64_t{1} << 62;
  if (a != 0 && b > limit / a) return false;
  out = a * b;
  return out <= limit;
}
}  // namespace detail

// What the per-program sizes are multiplied by. Triton's CUDA launcher gives every CTA its
// region (grid x num_ctas); its AMD launcher (driver.py allocate_scratch, 3.8 and 3.9) only
// gridX * gridY * gridZ, whatever num_ctas says.
enum class scratch_per { cta, program };

inline scratch_need compute_scratch(const launch_info& li, grid3 g,
                                    scratch_per per = scratch_per::cta) {
  scratch_need s;
  if (li.global_scratch_size == 0 && li.profile_scratch_size == 0) return s;
  const std::uint32_t ctas = per == scratch_per::cta && li.num_ctas ? li.num_ctas : 1;
  std::uint64_t programs = 0, gb = 0, pb = 0;
  const bool ok = detail::mul_checked(std::uint64_t{g.x} * g.y, g.z, programs) &&
                  detail::mul_checked(programs, ctas, programs) &&
                  detail::mul_checked(programs, li.global_scratch_size, gb) &&
                  detail::mul_checked(programs, li.profile_scratch_size, pb);
  if (!ok)
    throw error(errc::out_of_memory,
                "scratch memory for grid " + std::to_string(g.x) + "x" + std::to_string(g.y) + "x" +
                    std::to_string(g.z) + (ctas > 1 ? " x " + std::to_string(ctas) + " CTAs" : "") +
                    " (" + std::to_string(li.global_scratch_size) + " bytes of global and " +
                    std::to_string(li.profile_scratch_size) +
                    " bytes of profile scratch per program) exceeds 2^62 bytes; launch a "
                    "smaller grid");
  const std::uint32_t ga = li.global_scratch_align ? li.global_scratch_align : 1;
  const std::uint32_t pa = li.profile_scratch_align ? li.profile_scratch_align : 1;
  s.global_bytes = gb;
  s.profile_bytes = pb;
  s.profile_offset = pb ? align_up(gb, pa) : 0;
  s.total = pb ? s.profile_offset + pb : gb;
  s.align = ga > pa ? ga : pa;
  return s;
}

// ---------------------------------------------------------------------------------------------
// Dynamic API: what a C++ argument is, for checking it against the kernel's declared types.

namespace detail {
template <class T>
struct always_false : std::false_type {};

template <class T>
constexpr std::uint32_t pointee_size() {
  using U = std::remove_cv_t<T>;
  if constexpr (std::is_void<U>::value) return 0;
  else return sizeof(U);
}
}  // namespace detail

template <class T>
host_arg describe_host_arg(const T& v) {
  host_arg h;
  h.size = sizeof(T);
  if constexpr (std::is_pointer<T>::value) {
    h.cls = arg_class::pointer;
    h.address = reinterpret_cast<std::uintptr_t>(v);
    h.elem_size = detail::pointee_size<std::remove_pointer_t<T>>();
    h.what = "a pointer";
  } else if constexpr (std::is_same<T, std::nullptr_t>::value) {
    h.cls = arg_class::pointer;
    h.what = "nullptr";
  } else if constexpr (std::is_same<T, bool>::value) {
    h.cls = arg_class::boolean;
    h.has_int = true;
    h.int_value = v ? 1 : 0;
    h.what = "bool";
  } else if constexpr (std::is_integral<T>::value) {
    h.cls = std::is_signed<T>::value ? arg_class::sint : arg_class::uint;
    h.is_unsigned = !std::is_signed<T>::value;
    h.has_int = true;
    h.int_value = static_cast<std::int64_t>(v);
    h.address = static_cast<std::uint64_t>(v);  // a CUdeviceptr passed for a pointer argument
    h.what = std::is_signed<T>::value ? "a signed integer" : "an unsigned integer";
  } else if constexpr (std::is_same<T, float>::value) {
    h.cls = arg_class::fp32;
    h.has_fp = true;
    h.fp_value = v;
    h.what = "float";
  } else if constexpr (std::is_same<T, double>::value) {
    h.cls = arg_class::fp64;
    h.has_fp = true;
    h.fp_value = v;
    h.what = "double";
  } else if constexpr (std::is_same<T, half>::value) {
    h.cls = arg_class::fp16;
    h.has_fp = true;
    h.fp_value = static_cast<float>(v);
    h.what = "tritonpack::half";
  } else if constexpr (std::is_same<T, bfloat16>::value) {
    h.cls = arg_class::bf16;
    h.has_fp = true;
    h.fp_value = static_cast<float>(v);
    h.what = "tritonpack::bfloat16";
  } else if constexpr (is_tensor_descriptor<T>::value) {
    h.cls = arg_class::tensordesc;
    h.rank = static_cast<std::uint32_t>(v.shape.size());
    h.elem_size = detail::pointee_size<std::remove_pointer_t<decltype(v.base)>>();
    h.address = reinterpret_cast<std::uintptr_t>(v.base);
    h.what = "a tensor_descriptor";
  } else {
    static_assert(detail::always_false<T>::value,
                  "tritonpack: unsupported kernel argument type (pass pointers, integers, bool, "
                  "float, double, "
                  "tritonpack::half, tritonpack::bfloat16 or tritonpack::tensor_descriptor)");
  }
  return h;
}

TRITONPACK_END_NAMESPACE
