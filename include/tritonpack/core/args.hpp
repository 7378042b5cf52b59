// tritonpack/core/args.hpp — a kernel's argument types as the container spells them ("*fp32",
// "i32", "tensordesc<fp16[64, 64]>"), and what a host value passed for one is (host_arg): what
// the parameter plan (launch/params.hpp) sizes, what variant selection (select/variant.hpp) tests
// Triton's predicates on, and what the dynamic API checks a call against.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "tritonpack/core/error.hpp"
#include "tritonpack/core/model.hpp"
#include "tritonpack/version.hpp"

TRITONPACK_BEGIN_NAMESPACE

// ---------------------------------------------------------------------------------------------
// Argument types

enum class arg_class : std::uint8_t {
  pointer,
  sint,
  uint,
  boolean,
  fp16,
  bf16,
  fp32,
  fp64,
  tensordesc,
  other
};

struct arg_type {
  arg_class cls = arg_class::other;
  std::uint32_t size = 0;       // bytes passed to the kernel (0 for tensordesc: it expands)
  std::uint32_t rank = 0;       // tensordesc only
  std::uint32_t elem_size = 0;  // pointer / tensordesc element bytes, 0 when unknown (fp8 etc.)
  std::string elem;             // element type for pointers and tensordesc ("fp16")
};

namespace detail {
// Triton's scalar type names, and how the run time passes a value of each. A table, compared as
// string_views: a kernel's first load parses every argument's type (the parameter plan), so this
// is on that path.
struct scalar_type {
  std::string_view name;
  arg_class cls;
  std::uint32_t size;
};
inline constexpr scalar_type scalar_types[] = {
    {"i1", arg_class::boolean, 1}, {"u1", arg_class::boolean, 1}, {"i8", arg_class::sint, 1},
    {"i16", arg_class::sint, 2},   {"i32", arg_class::sint, 4},   {"i64", arg_class::sint, 8},
    {"u8", arg_class::uint, 1},    {"u16", arg_class::uint, 2},   {"u32", arg_class::uint, 4},
    {"u64", arg_class::uint, 8},   {"fp16", arg_class::fp16, 2},  {"bf16", arg_class::bf16, 2},
    {"fp32", arg_class::fp32, 4},  {"fp64", arg_class::fp64, 8}};

inline const scalar_type* find_scalar_type(std::string_view t) noexcept {
  for (const scalar_type& s : scalar_types)
    if (s.name == t) return &s;
  return nullptr;
}

// Bytes of one element of Triton scalar type `t` (a pointer's pointee, a descriptor's element);
// 0 when unknown.
inline std::uint32_t triton_scalar_size(std::string_view t) noexcept {
  if (t.substr(0, 3) == "fp8") return 1;
  const scalar_type* s = find_scalar_type(t);
  return s ? s->size : 0;
}
}  // namespace detail

// Parses a kernel_arg::type ("*fp32", "*kfp16", "i32", "fp16", "tensordesc<fp16[64,64]>").
// Throws error(bad_container) for a type the run time cannot pass.
inline arg_type parse_arg_type(const std::string& t) {
  arg_type a;
  if (!t.empty() && t[0] == '*') {
    a.cls = arg_class::pointer;
    a.size = 8;
    a.elem = t.substr(t.size() > 1 && t[1] == 'k' ? 2 : 1);
    a.elem_size = detail::triton_scalar_size(a.elem);
    return a;
  }
  if (t.rfind("tensordesc<", 0) == 0) {
    a.cls = arg_class::tensordesc;
    auto lb = t.find('['), rb = t.find(']');
    if (lb == std::string::npos || rb == std::string::npos || rb < lb)
      throw error(errc::bad_container, "tensor descriptor type '" + t + "' has no block shape");
    a.elem = t.substr(11, lb - 11);
    a.elem_size = detail::triton_scalar_size(a.elem);
    a.rank = 1;
    for (auto i = lb; i < rb; ++i)
      if (t[i] == ',') ++a.rank;
    if (a.rank > 5)
      throw error(errc::bad_container, "tensor descriptor type '" + t + "' has rank > 5");
    return a;
  }
  const detail::scalar_type* s = detail::find_scalar_type(t);
  if (!s)
    throw error(errc::bad_container, "argument type '" + t + "' is not one the run time can pass");
  a.cls = s->cls;
  a.size = s->size;
  return a;
}

// ---------------------------------------------------------------------------------------------
// What a host value passed for an argument is (launch/params.hpp's describe_host_arg makes one
// from a C++ value).

struct host_arg {
  arg_class cls = arg_class::other;
  std::uint32_t size = 0;
  std::uint32_t rank = 0;       // tensor_descriptor
  std::uint32_t elem_size = 0;  // tensor_descriptor element / pointee (0 for void)
  bool is_unsigned = false;
  bool has_int = false;
  std::int64_t int_value = 0;  // integers and bool
  bool has_fp = false;
  double fp_value = 0;        // fp16, bf16, fp32, fp64
  std::uint64_t address = 0;  // pointers, descriptor base
  const char* what = "";      // C++ type in words, for messages
};

inline const char* arg_class_words(const arg_type& t) {
  switch (t.cls) {
    case arg_class::pointer: return "a pointer";
    case arg_class::sint: return "a signed integer";
    case arg_class::uint: return "an unsigned integer";
    case arg_class::boolean: return "a bool (i1)";
    case arg_class::fp16: return "fp16 (tritonpack::half)";
    case arg_class::bf16: return "bf16 (tritonpack::bfloat16)";
    case arg_class::fp32: return "fp32 (float)";
    case arg_class::fp64: return "fp64 (double)";
    case arg_class::tensordesc: return "a tensor descriptor";
    default: return "an unsupported type";
  }
}

// "" when `h` may be passed for an argument of type `t`; otherwise why not.
inline std::string check_host_arg(const arg_type& t, const host_arg& h) {
  auto mismatch = [&]() {
    return std::string("expects ") + arg_class_words(t) +
           (t.size ? " of " + std::to_string(t.size) + " bytes" : "") + " but got " + h.what +
           " of " + std::to_string(h.size) + " bytes";
  };
  switch (t.cls) {
    case arg_class::pointer:
      if (h.cls == arg_class::pointer) {
        if (h.elem_size && t.elem_size && h.elem_size != t.elem_size)
          return "expects a pointer to " + t.elem + " (" + std::to_string(t.elem_size) +
                 "-byte elements) but got a pointer to " + std::to_string(h.elem_size) +
                 "-byte elements";
        return {};
      }
      if (h.cls == arg_class::uint && h.size == 8) return {};  // CUdeviceptr
      return mismatch();
    case arg_class::sint:
    case arg_class::uint:
      if ((h.cls == arg_class::sint || h.cls == arg_class::uint) && h.size == t.size) return {};
      return mismatch();
    case arg_class::boolean:
      if (h.cls == arg_class::boolean) return {};
      return mismatch();
    case arg_class::tensordesc:
      if (h.cls != arg_class::tensordesc) return mismatch();
      if (h.rank != t.rank)
        return "expects a rank-" + std::to_string(t.rank) + " tensor descriptor but got rank " +
               std::to_string(h.rank);
      if (h.elem_size && t.elem_size && h.elem_size != t.elem_size)
        return "expects a descriptor of " + t.elem + " (" + std::to_string(t.elem_size) +
               "-byte elements) but got " + std::to_string(h.elem_size) + "-byte elements";
      return {};
    default:
      if (h.cls == t.cls) return {};
      return mismatch();
  }
}

TRITONPACK_END_NAMESPACE
