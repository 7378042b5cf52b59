// tritonpack/container/tuning_records.hpp — reads and checks a kernel's tuning records (format v2,
// docs/format.md "Tuning"): the tuning record, its tune_args and its table rows. A member of
// detail::record_reader (container/records.hpp), in both of its modes; kept in a header of its own
// so that records.hpp stays at the records every kernel has.
#pragma once

#include "tritonpack/container/records.hpp"

TRITONPACK_BEGIN_NAMESPACE
namespace detail {

// v2: kernel i's tuning record, its tune_args and its table rows. Their runs, the roles and the
// config count (which the rows' lengths follow from) were checked at parse time
// (container/validation.hpp).
inline void record_reader::read_tuning(std::uint64_t i, kernel_info& k, std::uint32_t a0,
                                       std::uint32_t an, std::uint32_t v0, std::uint32_t vn) {
  using namespace format;
  const std::uint8_t* r = rec(sec_tunings, i);
  auto T = [i](const char* field) { return field_ref{"tunings", i, field}; };
  kernel_tuning& t = k.tuning;
  t.config_count = u32(r + tuning_rec::config_count);  // divides vn (parse)
  // Config c of the group starting at variant g is variant g + c: every variant of a group has
  // the group's specialisation (read in place, so validation needs no copies).
  for (std::uint32_t v = 0; v < vn; ++v) {
    if (v % t.config_count == 0) continue;
    const std::uint32_t first = v0 + v / t.config_count * t.config_count;
    for (std::uint32_t s = 0; s < an; ++s) {
      const std::uint8_t* a =
          rec(sec_specs, u32(rec(sec_variants, first) + variant_rec::first_spec) + s);
      const std::uint8_t* b =
          rec(sec_specs, u32(rec(sec_variants, v0 + v) + variant_rec::first_spec) + s);
      if (a[spec_rec::kind] != b[spec_rec::kind] ||
          view(a + spec_rec::value, {"specs"}) != view(b + spec_rec::value, {"specs"}))
        fail(T("config_count"),
             "is %u, but variant %u does not have the specialisation of variant %u, the first of "
             "its group",
             t.config_count, v0 + v, first);
    }
  }
  const std::uint32_t flags = u32(r + tuning_rec::flags);
  if (flags & ~tuning_rec::flag_on_first_use)
    fail(T("flags"), "is %u, only bit 0 (tune on first use) is defined", flags);
  t.on_first_use = (flags & tuning_rec::flag_on_first_use) != 0;
  const std::uint32_t ta0 = u32(r + tuning_rec::first_arg), tan = u32(r + tuning_rec::arg_count);
  t.args.resize(tan);
  std::uint32_t keys = 0;
  for (std::uint32_t x = 0; x < tan; ++x) {
    const std::uint64_t xi = std::uint64_t{ta0} + x;
    const std::uint8_t* ar = rec(sec_tune_args, xi);
    auto A = [xi](const char* field) { return field_ref{"tune_args", xi, field}; };
    tune_arg& ta = t.args[x];
    ta.arg = u32(ar + tune_arg_rec::arg);
    if (ta.arg >= an) fail(A("arg"), "is %u, the kernel has %u args", ta.arg, an);
    const std::string_view type =
        view(rec(sec_args, a0 + ta.arg) + arg_rec::type, {"args", a0 + ta.arg, "type"});
    const unsigned role = ar[tune_arg_rec::role], bucket = ar[tune_arg_rec::bucket];  // role: 1..3
    ta.role = static_cast<tune_role>(role);
    const bool key = ta.role == tune_role::key;
    const bool is_int =
        !type.empty() && (type[0] == 'i' || type[0] == 'u') && type != "i1" && type != "u1";
    if (key && !is_int)
      fail(A("arg"), "is %u, of type %.*s: a tuning key must be an integer argument", ta.arg,
           static_cast<int>(type.size()), type.data());
    if (!key && (type.empty() || type[0] != '*'))
      fail(A("arg"), "a reset_to_zero or restore argument must be a pointer, this one is %.*s",
           static_cast<int>(type.size()), type.data());
    if (bucket > 1 || (!key && bucket != 0))
      fail(A("bucket"), "is %u, must be 0 (exact) or 1 (pow2), and 0 unless the arg is a key",
           bucket);
    ta.bucket = static_cast<bucket_rule>(bucket);
    zero(ar + tune_arg_rec::reserved, 2, A("reserved"));
    if (str(ta.bytes, ar + tune_arg_rec::bytes, A("bytes")).empty() != key)
      fail(A("bytes"), "%s",
           key ? "must be empty for a key" : "is empty: a protected buffer needs its byte size");
    keys += key;
  }
  const std::uint32_t e0 = u32(r + tuning_rec::first_entry), en = u32(r + tuning_rec::entry_count);
  t.table.resize(en);
  for (std::uint32_t x = 0; x < en; ++x) {
    const std::uint64_t xi = std::uint64_t{e0} + x;
    const std::uint8_t* er = rec(sec_tune_entries, xi);
    auto E = [xi](const char* field) { return field_ref{"tune_entries", xi, field}; };
    tune_entry& e = t.table[x];
    if (str(e.device, er + tune_entry_rec::device, E("device")).empty())
      fail(E("device"), "is empty");
    e.config = u32(er + tune_entry_rec::config);
    if (e.config >= t.config_count)
      fail(E("config"), "is %u, the kernel has %u configs", e.config, t.config_count);
    const std::uint8_t* vals = rec(sec_tune_values, u32(er + tune_entry_rec::first_value));
    e.bucket.resize(keys);
    e.times_ns.resize(t.config_count);
    for (std::uint32_t b = 0; b < keys; ++b)
      e.bucket[b] = static_cast<std::int64_t>(u64v(vals + 8 * b));
    for (std::uint32_t c = 0; c < t.config_count; ++c) e.times_ns[c] = u64v(vals + 8 * (keys + c));
  }
}

}  // namespace detail
TRITONPACK_END_NAMESPACE
