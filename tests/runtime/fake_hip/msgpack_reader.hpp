// msgpack_reader.hpp — a small, bounds-checked msgpack reader for the AMDGPU code-object metadata
// note (NT_AMDGPU_METADATA: one msgpack map, §4.2 of docs/hip-abi.md). It reads every msgpack
// type into a value tree so that any well-formed document parses; damaged input (truncated,
// reserved byte 0xc1, counts larger than the bytes left, nesting deeper than max_depth) is refused
// with the offset and what was wrong, never read past its end. Element counts are checked against
// the bytes left before anything is allocated, so a forged count cannot make it allocate much.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

namespace tpfakehip {

struct mp_value {
  enum class kind { nil, boolean, uint, sint, floating, str, bin, array, map, ext };
  kind k = kind::nil;
  bool b = false;
  std::uint64_t u = 0;  // uint; also a non-negative sint
  std::int64_t i = 0;   // sint
  double f = 0;
  std::string s;  // str, bin, ext payload
  std::vector<mp_value> items;                          // array
  std::vector<std::pair<mp_value, mp_value>> entries;  // map

  // The value of key `name` of a map whose keys are strings, nullptr if absent (or not a map).
  const mp_value* get(const char* name) const {
    if (k != kind::map) return nullptr;
    for (const auto& e : entries)
      if (e.first.k == kind::str && e.first.s == name) return &e.second;
    return nullptr;
  }
  // A non-negative integer (either msgpack integer family).
  bool as_uint(std::uint64_t& out) const {
    if (k == kind::uint || (k == kind::sint && i >= 0)) {
      out = k == kind::uint ? u : static_cast<std::uint64_t>(i);
      return true;
    }
    return false;
  }
};

class mp_reader {
 public:
  static constexpr unsigned max_depth = 32;

  mp_reader(const std::uint8_t* data, std::size_t size) : p_(data), n_(size) {}

  // Reads one value; false with why() set if the bytes are not one whole msgpack value.
  bool read(mp_value& out) { return value(out, 0); }
  std::size_t offset() const { return at_; }
  const std::string& why() const { return why_; }

 private:
  const std::uint8_t* p_;
  std::size_t n_;
  std::size_t at_ = 0;
  std::string why_;

  bool fail(const char* what) {
    if (why_.empty()) why_ = std::string(what) + " at byte " + std::to_string(at_) + " of " + std::to_string(n_);
    return false;
  }
  std::size_t left() const { return n_ - at_; }
  bool take(std::size_t k, const std::uint8_t*& where) {
    if (k > left()) return fail("truncated msgpack value");
    where = p_ + at_;
    at_ += k;
    return true;
  }
  // Big-endian unsigned of k bytes (1, 2, 4, 8).
  bool be(std::size_t k, std::uint64_t& v) {
    const std::uint8_t* q = nullptr;
    if (!take(k, q)) return false;
    v = 0;
    for (std::size_t j = 0; j < k; ++j) v = (v << 8) | q[j];
    return true;
  }
  bool bytes(std::uint64_t len, std::string& out) {
    const std::uint8_t* q = nullptr;
    if (len > left()) return fail("string or binary longer than the bytes left");
    if (!take(static_cast<std::size_t>(len), q)) return false;
    out.assign(reinterpret_cast<const char*>(q), static_cast<std::size_t>(len));
    return true;
  }
  bool array(std::uint64_t count, mp_value& out, unsigned depth) {
    // Every element takes at least one byte: a larger count is damage, refused before allocating.
    if (count > left()) return fail("array count larger than the bytes left");
    out.k = mp_value::kind::array;
    out.items.resize(static_cast<std::size_t>(count));
    for (auto& it : out.items)
      if (!value(it, depth + 1)) return false;
    return true;
  }
  bool map(std::uint64_t count, mp_value& out, unsigned depth) {
    if (count > left() / 2) return fail("map count larger than the bytes left");
    out.k = mp_value::kind::map;
    out.entries.resize(static_cast<std::size_t>(count));
    for (auto& e : out.entries)
      if (!value(e.first, depth + 1) || !value(e.second, depth + 1)) return false;
    return true;
  }
  bool ext(std::uint64_t len, mp_value& out) {
    std::uint64_t type = 0;
    if (!be(1, type)) return false;
    out.k = mp_value::kind::ext;
    out.u = type;
    return bytes(len, out.s);
  }
  bool sint(std::size_t k, mp_value& out) {
    std::uint64_t v = 0;
    if (!be(k, v)) return false;
    const unsigned bits = static_cast<unsigned>(k * 8);
    if (bits < 64 && (v >> (bits - 1)) & 1) v |= ~std::uint64_t{0} << bits;  // sign-extend
    out.k = mp_value::kind::sint;
    std::memcpy(&out.i, &v, sizeof v);
    return true;
  }

  bool value(mp_value& out, unsigned depth) {
    if (depth > max_depth) return fail("msgpack nested deeper than 32 levels");
    std::uint64_t tag = 0, v = 0;
    if (!be(1, tag)) return false;
    const unsigned t = static_cast<unsigned>(tag);
    if (t <= 0x7f) {
      out.k = mp_value::kind::uint;
      out.u = t;
      return true;
    }
    if (t >= 0xe0) {
      out.k = mp_value::kind::sint;
      out.i = static_cast<std::int64_t>(t) - 256;
      return true;
    }
    if (t >= 0x80 && t <= 0x8f) return map(t & 0x0f, out, depth);
    if (t >= 0x90 && t <= 0x9f) return array(t & 0x0f, out, depth);
    if (t >= 0xa0 && t <= 0xbf) {
      out.k = mp_value::kind::str;
      return bytes(t & 0x1f, out.s);
    }
    switch (t) {
      case 0xc0: out.k = mp_value::kind::nil; return true;
      case 0xc2: case 0xc3: out.k = mp_value::kind::boolean; out.b = t == 0xc3; return true;
      case 0xc4: case 0xc5: case 0xc6:
        if (!be(std::size_t{1} << (t - 0xc4), v)) return false;
        out.k = mp_value::kind::bin;
        return bytes(v, out.s);
      case 0xc7: case 0xc8: case 0xc9:
        if (!be(std::size_t{1} << (t - 0xc7), v)) return false;
        return ext(v, out);
      case 0xca: {
        if (!be(4, v)) return false;
        const std::uint32_t w = static_cast<std::uint32_t>(v);
        float x;
        std::memcpy(&x, &w, 4);
        out.k = mp_value::kind::floating;
        out.f = x;
        return true;
      }
      case 0xcb:
        if (!be(8, v)) return false;
        out.k = mp_value::kind::floating;
        std::memcpy(&out.f, &v, 8);
        return true;
      case 0xcc: case 0xcd: case 0xce: case 0xcf:
        out.k = mp_value::kind::uint;
        return be(std::size_t{1} << (t - 0xcc), out.u);
      case 0xd0: case 0xd1: case 0xd2: case 0xd3: return sint(std::size_t{1} << (t - 0xd0), out);
      case 0xd4: case 0xd5: case 0xd6: case 0xd7: case 0xd8: return ext(std::uint64_t{1} << (t - 0xd4), out);
      case 0xd9: case 0xda: case 0xdb:
        if (!be(std::size_t{1} << (t - 0xd9), v)) return false;
        out.k = mp_value::kind::str;
        return bytes(v, out.s);
      case 0xdc: case 0xdd:
        if (!be(t == 0xdc ? 2 : 4, v)) return false;
        return array(v, out, depth);
      case 0xde: case 0xdf:
        if (!be(t == 0xde ? 2 : 4, v)) return false;
        return map(v, out, depth);
      default: break;
    }
    --at_;
    return fail("reserved msgpack byte 0xc1");
  }
};

// Parses a whole msgpack document: one value and nothing after it.
inline bool mp_parse(const std::uint8_t* data, std::size_t size, mp_value& out, std::string& why) {
  mp_reader r(data, size);
  if (!r.read(out)) {
    why = r.why();
    return false;
  }
  if (r.offset() != size) {
    why = std::to_string(size - r.offset()) + " bytes after the msgpack document";
    return false;
  }
  return true;
}

}  // namespace tpfakehip
