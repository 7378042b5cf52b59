// tritonpack/select/variant.hpp — choosing a variant by argument values, and saying why none fits.
//
// A kernel's variants are specialised on Triton's predicates (a pointer 16-byte aligned, an
// integer a multiple of 16 or equal to 1, a constexpr value). The generated functions test them
// inline; the dynamic API tests them with spec_matches. When no variant accepts a call, both
// report it through no_variant_message, which names, per variant, each predicate the call failed
// with the argument's name and value ("x = 0x7f3a00000004 is not 16-byte aligned"). That path is
// cold: nothing here runs on a successful launch except spec_matches in the dynamic API.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "tritonpack/core/args.hpp"
#include "tritonpack/core/identify.hpp"
#include "tritonpack/core/model.hpp"
#include "tritonpack/core/types.hpp"
#include "tritonpack/version.hpp"

TRITONPACK_BEGIN_NAMESPACE

namespace detail {
// A constexpr spec's literal ("True", "None", "4", "0.5") compared with a value.
inline bool constexpr_literal_matches(const std::string& v, const arg_type& t, const host_arg& h) {
  if (v.empty()) return false;
  if (v == "None") return t.cls == arg_class::pointer && h.address == 0;
  if (v == "True" || v == "true") return h.has_int && h.int_value == 1;
  if (v == "False" || v == "false") return h.has_int && h.int_value == 0;
  char* end = nullptr;
  if (h.has_fp) {
    const double want = std::strtod(v.c_str(), &end);
    if (*end != '\0') return false;
    // Compared in the argument's own precision, as the generated `alpha == 0.5f` does.
    if (t.cls == arg_class::fp64) return h.fp_value == want;
    return static_cast<float>(h.fp_value) == static_cast<float>(want);
  }
  if (!h.has_int) return false;
  const long long want = std::strtoll(v.c_str(), &end, 10);
  return *end == '\0' && want == h.int_value;
}
}  // namespace detail

// Does a run-time value satisfy a variant's specialization (the predicates Triton's JIT uses)?
inline bool spec_matches(const arg_spec& s, const arg_type& t, const host_arg& h) {
  switch (s.kind) {
    case spec_kind::none: return true;
    case spec_kind::divisible_16:
      if (t.cls == arg_class::pointer || t.cls == arg_class::tensordesc) return h.address % 16 == 0;
      return h.has_int && h.int_value % 16 == 0;
    case spec_kind::equal_1: return h.has_int && h.int_value == 1;
    case spec_kind::constexpr_value: return detail::constexpr_literal_matches(s.value, t, h);
  }
  return false;
}

// The host_arg for the value at `p`, which holds a C++ argument of type `t` as a generated
// function passes it (one pointer per kernel_info::args entry): what spec_matches and the
// messages below read.
inline host_arg read_host_arg(const arg_type& t, const void* p) {
  host_arg h;
  h.cls = t.cls;
  h.size = t.size;
  auto read = [p](auto v) {
    std::memcpy(&v, p, sizeof v);
    return v;
  };
  switch (t.cls) {
    case arg_class::pointer:
    case arg_class::tensordesc:  // a tensor_descriptor starts with its base pointer
      h.address = reinterpret_cast<std::uintptr_t>(read(static_cast<const void*>(nullptr)));
      break;
    case arg_class::sint:
      h.has_int = true;
      h.int_value = t.size == 1   ? read(std::int8_t{})
                    : t.size == 2 ? read(std::int16_t{})
                    : t.size == 4 ? read(std::int32_t{})
                                  : read(std::int64_t{});
      break;
    case arg_class::uint:
      h.has_int = true;
      h.is_unsigned = true;
      h.int_value = static_cast<std::int64_t>(t.size == 1   ? read(std::uint8_t{})
                                              : t.size == 2 ? read(std::uint16_t{})
                                              : t.size == 4 ? read(std::uint32_t{})
                                                            : read(std::uint64_t{}));
      break;
    case arg_class::boolean:
      h.has_int = true;
      h.int_value = read(false) ? 1 : 0;
      break;
    case arg_class::fp16:
      h.has_fp = true;
      h.fp_value = static_cast<float>(read(half{}));
      break;
    case arg_class::bf16:
      h.has_fp = true;
      h.fp_value = static_cast<float>(read(bfloat16{}));
      break;
    case arg_class::fp32:
      h.has_fp = true;
      h.fp_value = read(0.0f);
      break;
    case arg_class::fp64:
      h.has_fp = true;
      h.fp_value = read(0.0);
      break;
    default: break;
  }
  return h;
}

// A value as a message shows it: pointers in hex, integers in decimal, bools as true/false.
inline std::string host_value_text(const arg_type& t, const host_arg& h) {
  char b[40];
  if (t.cls == arg_class::pointer || t.cls == arg_class::tensordesc) {
    std::snprintf(b, sizeof b, "0x%llx", static_cast<unsigned long long>(h.address));
  } else if (t.cls == arg_class::boolean) {
    return h.int_value ? "true" : "false";
  } else if (h.has_fp) {
    std::snprintf(b, sizeof b, "%.*g", t.cls == arg_class::fp64 ? 17 : 9, h.fp_value);
  } else if (h.is_unsigned) {
    std::snprintf(b, sizeof b, "%llu", static_cast<unsigned long long>(h.int_value));
  } else {
    std::snprintf(b, sizeof b, "%lld", static_cast<long long>(h.int_value));
  }
  return b;
}

// Why argument `name` with value `h` fails `s`: "x = 0x7f3a00000004 is not 16-byte aligned",
// "n = 1000003 is not a multiple of 16", "BLOCK_N = 3, this variant needs 4".
inline std::string spec_failure_text(const arg_spec& s, const arg_type& t, const host_arg& h,
                                     const std::string& name) {
  const bool addr = t.cls == arg_class::pointer || t.cls == arg_class::tensordesc;
  const std::string shown =
      (t.cls == arg_class::tensordesc ? name + ".base" : name) + " = " + host_value_text(t, h);
  switch (s.kind) {
    case spec_kind::none: return {};
    case spec_kind::divisible_16:
      return shown + (addr ? " is not 16-byte aligned" : " is not a multiple of 16");
    case spec_kind::equal_1: return shown + ", this variant needs 1";
    case spec_kind::constexpr_value: {
      const std::string& v = s.value;
      const std::string want = v == "True"    ? "true"
                               : v == "False" ? "false"
                               : v == "None"  ? "nullptr"
                                              : v;
      return shown + ", this variant needs " + want;
    }
  }
  return {};
}

// "kernel k: no variant accepts these arguments:" then, per variant (one per distinct
// specialisation: autotuning configs share theirs), each predicate the values fail.
inline std::string no_variant_message(const kernel_info& k, const std::vector<arg_type>& types,
                                      const host_arg* values) {
  std::string msg = identify(k) + ": no variant accepts these arguments:";
  for (std::size_t v = 0; v < k.variants.size(); ++v) {
    const std::vector<arg_spec>& specs = k.variants[v].specs;
    bool repeated = false;
    for (std::size_t e = 0; e < v && !repeated; ++e) {
      repeated = k.variants[e].specs.size() == specs.size();
      for (std::size_t i = 0; i < specs.size() && repeated; ++i)
        repeated = k.variants[e].specs[i].kind == specs[i].kind &&
                   k.variants[e].specs[i].value == specs[i].value;
    }
    if (repeated) continue;
    std::string why;
    for (std::size_t i = 0; i < specs.size() && i < k.args.size(); ++i)
      if (!spec_matches(specs[i], types[i], values[i]))
        why += (why.empty() ? "" : "; ") +
               spec_failure_text(specs[i], types[i], values[i], k.args[i].name);
    msg += "\n  variant " + std::to_string(v) + ": " + why;
  }
  return msg +
         "\n  (a signature without these specialisations in the kernel's spec would accept any "
         "value)";
}

TRITONPACK_END_NAMESPACE
