// Generated header writer. The output is meant to read like code a person wrote: one comment
// per kernel saying what it is, a function per kernel with real C++ types, one `if` per variant
// with the same predicates Triton's JIT specialises on, and grid expressions kept as the spec
// wrote them (with `cdiv`/`min`/`max` spelled in C++).
#include "tritonpack/pack/header_writer.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdint>
#include <map>
#include <set>

#include "tritonpack/container/byte_io.hpp"
#include "tritonpack/container/format.hpp"
#include "tritonpack/core/error.hpp"
#include "tritonpack/core/identify.hpp"
#include "tritonpack/pack/grid_expr.hpp"
#include "tritonpack/pack/names.hpp"

namespace tritonpack::pack {
namespace {

[[noreturn]] void bad(const std::string& msg) { throw error(errc::bad_argument, msg); }

bool is_int_type(const std::string& t) {
  static const std::set<std::string> ints = {"i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64"};
  return ints.count(t) != 0;
}

bool is_integer_literal(std::string_view s) {
  if (s.empty()) return false;
  std::size_t i = s[0] == '-' ? 1 : 0;
  if (i == s.size()) return false;
  for (; i < s.size(); ++i)
    if (!std::isdigit(static_cast<unsigned char>(s[i]))) return false;
  return true;
}

std::string element_type(const std::string& t) {
  static const std::map<std::string, std::string> m = {
      {"fp32", "float"},
      {"fp64", "double"},
      {"fp16", "::tritonpack::half"},
      {"bf16", "::tritonpack::bfloat16"},
      {"fp8e4nv", "::tritonpack::float8_e4m3"},
      {"fp8e5", "::tritonpack::float8_e5m2"},
      {"fp8e4b15", "std::uint8_t"},
      {"fp8e4b8", "std::uint8_t"},
      {"fp8e5b16", "std::uint8_t"},
      {"i1", "bool"},
      {"u1", "bool"},
      {"i8", "std::int8_t"},
      {"i16", "std::int16_t"},
      {"i32", "std::int32_t"},
      {"i64", "std::int64_t"},
      {"u8", "std::uint8_t"},
      {"u16", "std::uint16_t"},
      {"u32", "std::uint32_t"},
      {"u64", "std::uint64_t"},
  };
  auto it = m.find(t);
  return it == m.end() ? std::string() : it->second;
}

// A call (`head` ends in its opening parenthesis): arguments aligned after the parenthesis when
// every line fits in 100 columns, else from the next line, indented 4 more (as clang-format does).
void emit_call(std::string& out, const std::string& indent, const std::string& head,
               const std::vector<std::string>& args, const std::string& tail) {
  std::string call;
  emit_list(call, indent, head, args, tail);
  std::size_t widest = 0;
  for (std::size_t b = 0, e; (e = call.find('\n', b)) != std::string::npos; b = e + 1)
    widest = std::max(widest, e - b);
  if (widest > 100) {
    call = indent + head + "\n";
    emit_list(call, indent + "    ", "", args, tail);
  }
  out += call;
}

// `s` as a C++ string literal.
std::string cpp_string_literal(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

// One library per name in a program, checked by the linker where it can be (ELF, GCC or Clang;
// docs/spec.md, "One library per name in a program"): a symbol whose name says what went wrong,
// defined in a COMDAT group named after the library and its container. Every copy of this header
// brings the same group and the linker keeps one; a different library with the same name brings
// another group, so a second definition, and the link fails naming the symbol. The assembly sits in
// a function rather than at namespace scope so that LTO symbol tables never see it (they do not
// understand COMDAT in top-level assembly and would report a duplicate for every copy).
std::string link_check(const std::string& ns, std::uint64_t checksum) {
  const std::string symbol =
      fmt::format("tritonpack_two_different_libraries_named_{}__give_each_its_own_NAME", ns);
  return fmt::format(
      "\n"
      "#if defined(__ELF__) && (defined(__GNUC__) || defined(__clang__)) && "
      "!defined(__CUDA_ARCH__) && \\\n"
      "    !defined(__HIP_DEVICE_COMPILE__) && !defined(TRITONPACK_NO_LINK_CHECK)\n"
      "// One library named {0} per program, checked by the linker: the symbol below is defined in "
      "a\n"
      "// COMDAT group named after this container, which every copy of this header shares. A "
      "different\n"
      "// library also named {0} brings a second definition and the link fails with \"multiple\n"
      "// definition of {1}\".\n"
      "[[gnu::used]] inline void link_check_{2:016x}() {{\n"
      "  __asm__(\".pushsection .rodata.tritonpack_library_{0},\\\"aG\\\",%progbits,\"\n"
      "          \"tritonpack_library_{0}_{2:016x},comdat\\n\"\n"
      "          \".globl {1}\\n\"\n"
      "          \".hidden {1}\\n\"\n"
      "          \"{1}:\\n\"\n"
      "          \".byte 0\\n\"\n"
      "          \".popsection\");\n"
      "}}\n"
      "#endif\n",
      ns, symbol, checksum);
}

// The literal a constexpr spec compares with, in C++.
std::string cpp_literal(const std::string& v, const std::string& type) {
  if (v == "True") return "true";
  if (v == "False") return "false";
  if (v == "None") return "nullptr";
  if (type == "fp32" && v.find_first_of(".eE") != std::string::npos) return v + "f";
  return v;
}

// A variant's grid in C++: the constexpr lines it reads and its three axes. Refuses, naming the
// kernel, the variant and the axis, what cannot be translated and what the variant's constants
// alone make no grid (a zero divisor, an overflow, a negative dimension).
struct variant_grid {
  std::vector<std::string> constexpr_lines;
  std::vector<std::string> axes;
};

variant_grid translate_variant_grid(
    const kernel_info& k, std::size_t vi,
    const std::vector<std::pair<std::string, std::string>>& int_args) {
  const variant_info& v = k.variants[vi];
  const auto where = [&](int d) {
    return fmt::format("{}, variant {}, grid[{}]", identify(k), vi, d);
  };
  std::vector<grid_expr> axes;
  for (int d = 0; d < 3; ++d) {
    try {
      axes.push_back(parse_grid_expr(k.grid[d]));
    } catch (const error& err) {
      throw err.with_context(where(d));
    }
  }
  variant_grid out;
  // The integer constexprs the grid reads, each declared once before the grid is computed.
  std::vector<std::pair<std::string, std::int64_t>> constexprs;
  for (const auto& [name, value] : v.config.constexprs) {
    if (!is_integer_literal(value)) continue;
    if (std::none_of(axes.begin(), axes.end(),
                     [&](const grid_expr& a) { return reads_name(a.root, name); }))
      continue;
    std::int64_t n = 0;
    const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), n);
    if (ec != std::errc() || end != value.data() + value.size())
      bad(fmt::format("{}, variant {}: constexpr {} = {} does not fit in 64-bit integers",
                      identify(k), vi, name, value));
    constexprs.emplace_back(name, n);
    out.constexpr_lines.push_back(
        fmt::format("constexpr std::int64_t {} = {};", cpp_name(name), value));
  }
  for (int d = 0; d < 3; ++d) {
    try {
      out.axes.push_back(translate_grid_expr(axes[d], int_args, constexprs));
    } catch (const error& err) {
      throw err.with_context(where(d));
    }
  }
  return out;
}

// A grid's axes as the arguments of ::tritonpack::typed::grid: the kernel first.
std::vector<std::string> with_kernel(const std::vector<std::string>& axes) {
  std::vector<std::string> args{"kernel"};
  args.insert(args.end(), axes.begin(), axes.end());
  return args;
}

// A tuned specialisation's launch: a callback that launches config c of the group starting at
// variant `first` with that config's grid, the key values and protected buffers of this call, and
// the run time's choice (tune/autotune.hpp).
void emit_tuned_group(std::string& out, const std::string& ind, const kernel_info& k,
                      std::size_t first, const std::vector<variant_grid>& grids,
                      const std::vector<std::string>& names,
                      const std::vector<std::pair<std::string, std::string>>& int_args) {
  const std::uint32_t configs = k.tuning.config_count;
  out += ind + "auto run = [&](std::size_t config, ::tritonpack::stream_t on_stream) {\n";
  if (k.grid[0].empty()) {
    // The caller's grid serves every config: config c is variant first + c.
    out += ind + fmt::format(
                     "  ::tritonpack::typed::launch(kernel, {} + config, grid, on_stream, args);\n",
                     first);
  } else {
    // Each config its own grid (its tile sizes): one case per config.
    out += ind + "  switch (config) {\n";
    for (std::uint32_t c = 0; c < configs; ++c) {
      const std::size_t vi = first + c;
      // The last config is also the default: the run time passes only configs below config_count.
      out += ind + (c + 1 < configs ? fmt::format("    case {}: {{\n", c)
                                    : fmt::format("    default: {{  // config {}\n", c));
      const std::string in = ind + "      ";
      for (const std::string& l : grids[vi].constexpr_lines) out += in + l + "\n";
      emit_call(out, in, "const ::tritonpack::grid3 grid = ::tritonpack::typed::grid(",
                with_kernel(grids[vi].axes), ");");
      out +=
          in + fmt::format("::tritonpack::typed::launch(kernel, {}, grid, on_stream, args);\n", vi);
      out += in + "return;\n" + ind + "    }\n";
    }
    out += ind + "  }\n";
  }
  out += ind + "};\n";
  std::vector<std::string> keys, buffers, bytes;
  for (const tune_arg& a : k.tuning.args) {
    if (a.arg >= k.args.size())
      bad(fmt::format("{}: tuning argument index {} out of range", identify(k), a.arg));
    const std::string& n = names[a.arg];
    if (a.role == tune_role::key) {
      keys.push_back(fmt::format("static_cast<std::int64_t>({})", n));
      continue;
    }
    buffers.push_back(fmt::format("const_cast<void*>(static_cast<const void*>({}))", n));
    try {
      bytes.push_back("::tritonpack::grid_int(" + translate_grid_expr(a.bytes, int_args, {}) + ")");
    } catch (const error& err) {
      throw err.with_context(
          fmt::format("{}, byte size of {} (\"{}\")", identify(k), k.args[a.arg].name, a.bytes));
    }
  }
  if (!keys.empty()) emit_list(out, ind, "const std::int64_t key[] = {", keys, "};");
  if (!buffers.empty()) {
    emit_list(out, ind, "void* const buffers[] = {", buffers, "};");
    emit_list(out, ind, "const ::tritonpack::grid_int bytes[] = {", bytes, "};");
  }
  // Literals and nullptr carry the parameter's name; the named arrays say what they are.
  emit_call(out, ind, "::tritonpack::typed::launch_tuned(",
            {"kernel", fmt::format("/*group_first=*/{}", first),
             keys.empty() ? "/*key=*/nullptr" : "key", fmt::format("/*key_count=*/{}", keys.size()),
             buffers.empty() ? "/*buffers=*/nullptr" : "buffers",
             buffers.empty() ? "/*buffer_bytes=*/nullptr" : "bytes",
             fmt::format("/*buffer_count=*/{}", buffers.size()), "stream",
             "::tritonpack::config_launcher::of(run)"},
            ");");
}

}  // namespace

void emit_list(std::string& out, const std::string& indent, const std::string& head,
               const std::vector<std::string>& items, const std::string& tail) {
  std::string line = indent + head;
  const std::size_t align = line.size();
  for (std::size_t i = 0; i < items.size(); ++i) {
    const std::string piece = items[i] + (i + 1 < items.size() ? "," : "");
    const std::size_t extra = (i + 1 == items.size()) ? tail.size() : 0;
    if (line.size() > align && line.size() + 1 + piece.size() + extra > 100) {
      out += line + "\n";
      line = std::string(align, ' ') + piece;
    } else {
      line += (line.size() > align ? " " : "") + piece;
    }
  }
  out += line + tail + "\n";
}

std::string cpp_name(const std::string& python_name) {
  static const std::set<std::string> generated = {
      "stream",     "grid",   "kernel",    "args", "library", "detail",  "std",
      "tritonpack", "config", "on_stream", "run",  "key",     "buffers", "bytes"};
  return generated.count(python_name) || breaks_cpp_identifier(python_name) ? python_name + "_"
                                                                            : python_name;
}

std::string spec_text(const kernel_info& k, const variant_info& v) {
  std::vector<std::string> parts;
  for (std::size_t a = 0; a < k.args.size(); ++a) {
    const arg_spec& s = v.specs[a];
    std::string t = k.args[a].type;
    switch (s.kind) {
      case spec_kind::none: break;
      case spec_kind::divisible_16: t += ":16"; break;
      case spec_kind::equal_1: t += ":1"; break;
      case spec_kind::constexpr_value: t = s.value; break;
    }
    parts.push_back(t);
  }
  return fmt::format("{}", fmt::join(parts, ", "));
}

std::vector<std::string> kernel_comment(const container_info& info, const kernel_info& k) {
  std::map<std::string, std::vector<std::string>> by_kind;  // "cuda cubin" → archs
  for (const variant_info& v : k.variants)
    for (std::uint32_t im : v.images) {
      const image_info& i = info.images.at(im);
      std::string label = i.arch;
      if (i.kind == image_kind::ptx)
        label += fmt::format(" (PTX {}.{})", i.ptx_version / 10, i.ptx_version % 10);
      auto& list = by_kind[fmt::format("{} {}", backend_name(i.backend), image_kind_name(i.kind))];
      if (std::find(list.begin(), list.end(), label) == list.end()) list.push_back(label);
    }
  std::vector<std::string> lines;
  lines.push_back(
      fmt::format("{} — {}", k.name, k.source.empty() ? "(no source recorded)" : k.source));
  lines.push_back(fmt::format("{} variant{}{}.", k.variants.size(),
                              k.variants.size() == 1 ? "" : "s",
                              by_kind.empty() ? ", no images" : ""));
  for (const auto& [kind, archs] : by_kind)
    lines.push_back(fmt::format("  {}: {}", kind, fmt::join(archs, ", ")));
  return lines;
}

std::string cpp_type(const std::string& t, bool is_const) {
  if (!t.empty() && t[0] == '*') {
    std::string elem = t.substr(1);
    if (!elem.empty() && elem[0] == 'k') {  // Triton's "*kfp32": a pointer to const
      elem = elem.substr(1);
      is_const = true;
    }
    const std::string e = element_type(elem);
    if (e.empty())
      bad(fmt::format("argument type \"{}\": no C++ type for pointer element \"{}\"", t, elem));
    return (is_const ? "const " : "") + e + "*";
  }
  if (t.rfind("tensordesc<", 0) == 0) {
    // tensordesc<fp16[64,64]>: element type and rank.
    const std::size_t open = t.find('['), close = t.find(']');
    if (open == std::string::npos || close == std::string::npos || t.back() != '>')
      bad(fmt::format("argument type \"{}\": expected tensordesc<dtype[d0,d1,...]>", t));
    const std::string elem = t.substr(11, open - 11);
    const std::string e = element_type(elem);
    if (e.empty())
      bad(fmt::format("argument type \"{}\": no C++ type for element \"{}\"", t, elem));
    std::size_t rank = 1;
    for (std::size_t i = open; i < close; ++i) rank += t[i] == ',';
    return fmt::format("const ::tritonpack::tensor_descriptor<{}{}, {}>&", is_const ? "const " : "",
                       e, rank);
  }
  const std::string e = element_type(t);
  if (e.empty() || t.rfind("fp8", 0) == 0)
    bad(fmt::format("argument type \"{}\" has no C++ type", t));
  return e;
}

std::string encode_string_literals(const std::uint8_t* data, std::size_t size,
                                   std::size_t bytes_per_line, std::string_view indent) {
  static const char* const oct = "01234567";
  std::string out;
  out.reserve(size * 3 + (size / bytes_per_line + 1) * (indent.size() + 4));
  for (std::size_t i = 0; i < size; i += bytes_per_line) {
    const std::size_t end = std::min(size, i + bytes_per_line);
    out += indent;
    out += '"';
    for (std::size_t j = i; j < end; ++j) {
      const std::uint8_t b = data[j];
      if (b == '"' || b == '\\') {
        out += '\\';
        out += static_cast<char>(b);
      } else if (b == '?') {
        out += "\\?";  // never form a trigraph (C++14 and older compilers still warn)
      } else if (b >= 0x20 && b < 0x7f) {
        out += static_cast<char>(b);
      } else {
        // Shortest octal escape, padded to 3 digits only when the next character is an octal
        // digit that would otherwise be read as part of it.
        const bool next_is_octal = j + 1 < end && data[j + 1] >= '0' && data[j + 1] <= '7';
        out += '\\';
        if (b >= 64 || next_is_octal) out += oct[b >> 6];
        if (b >= 8 || next_is_octal) out += oct[(b >> 3) & 7];
        out += oct[b & 7];
      }
    }
    out += "\"\n";
  }
  return out;
}

std::vector<std::uint8_t> decode_string_literals(std::string_view text) {
  std::vector<std::uint8_t> out;
  std::size_t p = 0;
  while (p < text.size()) {
    const char c = text[p];
    if (c == '/' && p + 1 < text.size() && text[p + 1] == '/') {  // line comment
      while (p < text.size() && text[p] != '\n') ++p;
      continue;
    }
    if (c != '"') {
      ++p;
      continue;
    }
    ++p;
    while (p < text.size() && text[p] != '"') {
      if (text[p] == '\n') bad("string literal runs to the end of the line");
      if (text[p] != '\\') {
        out.push_back(static_cast<std::uint8_t>(text[p++]));
        continue;
      }
      if (++p >= text.size()) bad("string literal ends in a backslash");
      const char e = text[p];
      if (e >= '0' && e <= '7') {
        unsigned v = 0;
        for (int n = 0; n < 3 && p < text.size() && text[p] >= '0' && text[p] <= '7'; ++n, ++p)
          v = v * 8 + static_cast<unsigned>(text[p] - '0');
        if (v > 255) bad("octal escape above \\377");
        out.push_back(static_cast<std::uint8_t>(v));
        continue;
      }
      if (e == 'x') {
        unsigned v = 0;
        int n = 0;
        ++p;
        while (p < text.size() && std::isxdigit(static_cast<unsigned char>(text[p]))) {
          v = v * 16 + static_cast<unsigned>(std::isdigit(static_cast<unsigned char>(text[p]))
                                                 ? text[p] - '0'
                                                 : (std::tolower(text[p]) - 'a' + 10));
          if (v > 255) bad("hex escape above \\xff");
          ++p;
          ++n;
        }
        if (n == 0) bad("\\x without hex digits");
        out.push_back(static_cast<std::uint8_t>(v));
        continue;
      }
      static const std::string simple = "\"\\?'abfnrtv";
      static const std::string value = "\"\\?'\a\b\f\n\r\t\v";
      const std::size_t k = simple.find(e);
      if (k == std::string::npos) bad(fmt::format("unknown escape \\{}", e));
      out.push_back(static_cast<std::uint8_t>(value[k]));
      ++p;
    }
    if (p >= text.size()) bad("unterminated string literal");
    ++p;  // closing quote
  }
  return out;
}

std::string write_header(const container_info& info, const std::vector<std::uint8_t>& container,
                         const header_options& opt) {
  const std::string& ns = opt.namespace_name;
  check_names(ns, info);
  // The container's identity: its tables checksum (docs/format.md), covering every table and
  // every image's checksum.
  const std::uint64_t checksum =
      container.size() >= format::header::size
          ? byte_io::load_u64(container.data() + format::header::tables_checksum)
          : 0;
  std::string out;
  std::size_t nimages = info.images.size();
  out += fmt::format(
      "// {}.hpp — generated by {}; do not edit.\n"
      "//\n"
      "// Library \"{}\": {} kernel{}, {} image{}, {} bytes of container (format v{}, "
      "docs/format.md).\n"
      "// `tritonpack inspect {}.hpp` lists what is inside and which image a GPU would get.\n"
      "#pragma once\n\n"
      "#include <cstddef>\n#include <cstdint>\n\n"
      "// The whole run time, or with TRITONPACK_SEPARATE only its declarations (the run time "
      "compiled\n"
      "// once in tritonpack::runtime; docs/runtime-api.md, \"Separate compilation\").\n"
      "#include <tritonpack/typed_api.hpp>\n\n"
      "namespace {} {{\n\n"
      "namespace detail {{\n"
      "// The container as one string literal: it compiles fast (bench/header_compile) and, being "
      "an\n"
      "// inline variable, exists once per program however many translation units include this "
      "file.\n"
      "// Not const: GCC writes a const array's whole value into the debug information of every\n"
      "// translation unit (DW_AT_const_value), so under -g a program would carry it once per\n"
      "// translation unit; this one is described by its address only.\n"
      "inline char container_data[] =\n",
      ns, opt.generator, ns, info.kernels.size(), info.kernels.size() == 1 ? "" : "s", nimages,
      nimages == 1 ? "" : "s", container.size(), format::format_version, ns, ns);
  if (container.empty()) out += "    \"\"\n";
  out += encode_string_literals(container.data(), container.size(), opt.bytes_per_line, "    ");
  out += fmt::format(
      "    ;\n"
      "inline constexpr std::size_t container_size = {};\n"
      "// The container's identity (its tables checksum): library() and every function below "
      "check\n"
      "// that the container they meet is this one (docs/spec.md, \"One library per name in a\n"
      "// program\").\n"
      "inline constexpr std::uint64_t container_checksum = {:#018x};\n",
      container.size(), checksum);
  out += link_check(ns, checksum);
  out +=
      "}  // namespace detail\n\n"
      "// The library, parsed and validated on first use.\n"
      "inline ::tritonpack::library& library() {\n"
      "  static ::tritonpack::library& lib = ::tritonpack::typed::open_library(\n"
      "      reinterpret_cast<const std::uint8_t*>(detail::container_data), "
      "detail::container_size,\n"
      "      detail::container_checksum);\n"
      "  return lib;\n"
      "}\n";

  const std::size_t code_from = out.size();  // the kernels' functions start here
  for (std::size_t ki = 0; ki < info.kernels.size(); ++ki) {
    const kernel_info& k = info.kernels[ki];
    const std::string ctx = identify(k);

    // Comment: what it is and what it carries.
    out += "\n";
    for (const std::string& line : kernel_comment(info, k)) out += "// " + line + "\n";

    // Signature.
    const bool has_grid = !k.grid[0].empty();
    std::vector<std::string> params;
    std::vector<std::string> names;
    std::set<std::string> used;
    for (const kernel_arg& a : k.args) {
      std::string t;
      try {
        t = cpp_type(a.type, a.is_const);
      } catch (const error& e) {
        throw e.with_context(fmt::format("{}, argument {}", ctx, a.name));
      }
      // Integers take any integer type and are checked against the kernel's (launch/int_arg.hpp).
      if (is_int_type(a.type)) t = "::tritonpack::arg_" + a.type;
      const std::string n = cpp_name(a.name);
      names.push_back(n);
      used.insert(n);
      params.push_back(t + " " + n);
    }
    if (!has_grid) params.insert(params.begin(), "::tritonpack::grid3 grid");
    params.push_back("::tritonpack::stream_t stream = nullptr");
    emit_list(out, "", "inline void " + k.name + "(", params, ") {");
    // Checked once, when the static is initialised: the kernel at index ki is the one this
    // function was written for, in the container it was packed into.
    out += "  static ::tritonpack::kernel& kernel =\n";
    emit_call(out, "      ", "::tritonpack::typed::kernel_at(",
              {"library()", std::to_string(ki), cpp_string_literal(kernel_signature(k)),
               "detail::container_checksum"},
              ");");
    for (std::size_t a = 0; a < k.args.size(); ++a)
      if (is_int_type(k.args[a].type))
        out += fmt::format("  ::tritonpack::typed::check_range(kernel, {}, {});\n",
                           cpp_string_literal(k.args[a].name), names[a]);
    if (names.empty()) {
      out += "  const void* const* args = nullptr;\n";
    } else {
      std::vector<std::string> refs;
      for (const std::string& n : names) refs.push_back("&" + n);
      emit_list(out, "  ", "const void* args[] = {", refs, "};");
    }

    std::vector<std::pair<std::string, std::string>> int_args;
    for (const kernel_arg& a : k.args)
      if (is_int_type(a.type)) int_args.emplace_back(a.name, a.type);

    // Every variant's grid, dispatched to or not: a manifest whose constants make no grid is
    // refused whole, as the front end refuses the spec.
    std::vector<variant_grid> grids;
    if (has_grid)
      for (std::size_t vi = 0; vi < k.variants.size(); ++vi)
        grids.push_back(translate_variant_grid(k, vi, int_args));

    bool unconditional = false;
    for (std::size_t vi = 0; vi < k.variants.size() && !unconditional; ++vi) {
      const variant_info& v = k.variants[vi];
      std::string cfg =
          fmt::format("num_warps {}, num_stages {}", v.config.num_warps, v.config.num_stages);
      if (v.config.num_ctas != 1) cfg += fmt::format(", num_ctas {}", v.config.num_ctas);
      for (const auto& [name, value] : v.config.constexprs)
        cfg += fmt::format(", {}={}", name, value);
      const std::string sig = spec_text(k, v);
      // Autotuning configs of one specialisation share its predicates; the manifest puts the
      // default config first, so later ones with the same specs are never dispatched to.
      std::size_t same = vi;
      for (std::size_t e = 0; e < vi; ++e) {
        bool eq = true;
        for (std::size_t a = 0; a < k.args.size(); ++a)
          eq = eq && k.variants[e].specs[a].kind == v.specs[a].kind &&
               k.variants[e].specs[a].value == v.specs[a].value;
        if (eq) {
          same = e;
          break;
        }
      }
      const std::uint32_t configs = k.tuning.config_count;
      if (configs > 1) {
        // Configs of one specialisation follow each other (the container's rule): the group is
        // dispatched to as a whole, and the run time chooses the config per call.
        if (vi % configs != 0) continue;
        out += fmt::format(
            "  // {}..{}: {}\n  //   {} configs, chosen per call (docs/runtime.md \"Choosing a "
            "config\"):\n",
            vi, vi + configs - 1, sig, configs);
        for (std::size_t c = 0; c < configs; ++c) {
          const kernel_config& kc = k.variants[vi + c].config;
          std::string line =
              fmt::format("num_warps {}, num_stages {}", kc.num_warps, kc.num_stages);
          for (const auto& [name, value] : kc.constexprs)
            line += fmt::format(", {}={}", name, value);
          out += fmt::format("  //   config {}: {}\n", c, line);
        }
      } else {
        const std::string head = fmt::format("  // {}: {}", vi, sig);
        if (head.size() + cfg.size() + 3 <= 100) out += head + " (" + cfg + ")\n";
        else out += head + "\n  //    " + cfg + "\n";
      }
      if (same != vi) {
        out += fmt::format(
            "  //    (same specialisation as {}: another config, not dispatched to)\n", same);
        continue;
      }

      std::vector<std::string> preds;
      for (std::size_t a = 0; a < k.args.size(); ++a) {
        const kernel_arg& arg = k.args[a];
        const std::string& n = names[a];
        const bool ptr = !arg.type.empty() && arg.type[0] == '*';
        switch (v.specs.at(a).kind) {
          case spec_kind::none: break;
          case spec_kind::divisible_16:
            if (ptr) preds.push_back(fmt::format("::tritonpack::aligned_16({})", n));
            else if (is_int_type(arg.type)) preds.push_back(fmt::format("{} % 16 == 0", n));
            else
              bad(fmt::format("{}, variant {}: div16 on argument {} of type {}", ctx, vi, arg.name,
                              arg.type));
            break;
          case spec_kind::equal_1:
            if (!is_int_type(arg.type))
              bad(fmt::format("{}, variant {}: equal1 on argument {} of type {}", ctx, vi, arg.name,
                              arg.type));
            preds.push_back(fmt::format("{} == 1", n));
            break;
          case spec_kind::constexpr_value:
            preds.push_back(fmt::format("{} == {}", n, cpp_literal(v.specs[a].value, arg.type)));
            break;
        }
      }
      std::string ind = "  ";
      if (preds.empty()) {
        unconditional = true;  // accepts every call: later variants (if any) are never tried
      } else {
        const std::string cond = fmt::format("{}", fmt::join(preds, " && "));
        if (cond.size() + 8 <= 100) {
          out += "  if (" + cond + ") {\n";
        } else {
          // One predicate per line, as clang-format breaks a long condition.
          out += "  if (" + preds[0];
          for (std::size_t i = 1; i < preds.size(); ++i) out += " &&\n      " + preds[i];
          out += ") {\n";
        }
        ind = "    ";
      }
      if (k.tuning.config_count > 1) {
        emit_tuned_group(out, ind, k, vi, grids, names, int_args);
      } else {
        if (has_grid) {
          for (const std::string& l : grids[vi].constexpr_lines) out += ind + l + "\n";
          emit_call(out, ind, "const ::tritonpack::grid3 grid = ::tritonpack::typed::grid(",
                    with_kernel(grids[vi].axes), ");");
        }
        out +=
            ind + fmt::format("::tritonpack::typed::launch(kernel, {}, grid, stream, args);\n", vi);
      }
      if (!preds.empty()) out += ind + "return;\n  }\n";
    }
    if (!unconditional) {
      // Every variant is specialised and none matched: the run time explains, per variant, which
      // predicates failed and with which values.
      out += "  ::tritonpack::typed::no_variant(kernel, args);\n";
    }
    out += "}\n";
  }
  out += fmt::format("\n}}  // namespace {}\n", ns);
  // <algorithm> only where a grid folds constants through std::min / std::max (grid_translate.cpp).
  if (out.find("std::min<", code_from) != std::string::npos ||
      out.find("std::max<", code_from) != std::string::npos)
    out.insert(out.find("#include <cstddef>\n"), "#include <algorithm>\n");
  return out;
}

}  // namespace tritonpack::pack
