// The C API and the Fortran module of a library: NAME.h, NAME_c.cpp and NAME.f90
// (docs/c-fortran.md).
//
// Every C function calls the library's typed C++ function (NAME.hpp), so the C and Fortran
// entry points dispatch, check and launch exactly as C++ does; what is written here is only the
// type mapping, the names, and the error convention (a code returned, a message kept per thread).
#include "tritonpack/pack/foreign_writer.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <set>
#include <vector>

#include "tritonpack/core/error.hpp"
#include "tritonpack/core/identify.hpp"
#include "tritonpack/pack/names.hpp"

namespace tritonpack::pack {
namespace {

[[noreturn]] void bad(const std::string& msg) { throw error(errc::bad_argument, msg); }

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string upper(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

// Names <tritonpack/c/tritonpack.h> declares: a library's C function must not be one of them.
const std::set<std::string>& c_api_names() {
  static const std::set<std::string> s = {"tritonpack_last_error",
                                          "tritonpack_status_name",
                                          "tritonpack_stream_t",
                                          "tritonpack_grid3",
                                          "tritonpack_half",
                                          "tritonpack_bfloat16",
                                          "tritonpack_float8_e4m3",
                                          "tritonpack_float8_e5m2",
                                          "tritonpack_half_from_float",
                                          "tritonpack_half_to_float",
                                          "tritonpack_bfloat16_from_float",
                                          "tritonpack_bfloat16_to_float",
                                          "tritonpack_device_count",
                                          "tritonpack_set_device",
                                          "tritonpack_set_device_for_local_rank",
                                          "tritonpack_get_device",
                                          "tritonpack_device_name",
                                          "tritonpack_device_arch",
                                          "tritonpack_memory_info",
                                          "tritonpack_malloc",
                                          "tritonpack_free",
                                          "tritonpack_copy",
                                          "tritonpack_copy_async",
                                          "tritonpack_memset",
                                          "tritonpack_memset_async",
                                          "tritonpack_synchronize",
                                          "tritonpack_stream_synchronize",
                                          "tritonpack_stream_create",
                                          "tritonpack_stream_destroy",
                                          "tritonpack_status"};
  return s;
}

// ---- one argument in C, C++ and Fortran --------------------------------------------------------

struct foreign_arg {
  std::string c_type;       // "const float*", "tritonpack_half", "int32_t"
  std::string c_name;       // its C parameter name
  std::string to_cpp;       // the C++ argument the C parameter becomes
  std::string f_type;       // "type(c_ptr)", "integer(c_int32_t)", "real(c_float)"
  std::string f_kind;       // the iso_c_binding name it needs ("c_ptr", "c_int32_t")
  std::string f_name;       // its Fortran dummy-argument name
  std::string triton_type;  // as the manifest has it
};

// The C spelling of a Triton element type, and whether it differs from the C++ one (then a
// pointer is cast between the two, which have the same size and layout).
struct c_element {
  std::string c;
  bool cast = false;
};

c_element c_element_type(const std::string& t) {
  static const std::map<std::string, c_element> m = {
      {"fp32", {"float"}},
      {"fp64", {"double"}},
      {"fp16", {"tritonpack_half", true}},
      {"bf16", {"tritonpack_bfloat16", true}},
      {"fp8e4nv", {"tritonpack_float8_e4m3", true}},
      {"fp8e5", {"tritonpack_float8_e5m2", true}},
      {"fp8e4b15", {"uint8_t"}},
      {"fp8e4b8", {"uint8_t"}},
      {"fp8e5b16", {"uint8_t"}},
      {"i1", {"bool"}},
      {"u1", {"bool"}},
      {"i8", {"int8_t"}},
      {"i16", {"int16_t"}},
      {"i32", {"int32_t"}},
      {"i64", {"int64_t"}},
      {"u8", {"uint8_t"}},
      {"u16", {"uint16_t"}},
      {"u32", {"uint32_t"}},
      {"u64", {"uint64_t"}},
  };
  auto it = m.find(t);
  return it == m.end() ? c_element{} : it->second;
}

// The iso_c_binding kind of a scalar. Fortran has no unsigned integers: u32 travels as
// integer(c_int32_t), the same bits (docs/c-fortran.md); fp16 and bf16 as their 16 bits.
std::pair<std::string, std::string> fortran_scalar(const std::string& t) {
  static const std::map<std::string, std::pair<std::string, std::string>> m = {
      {"fp32", {"real", "c_float"}},      {"fp64", {"real", "c_double"}},
      {"fp16", {"integer", "c_int16_t"}}, {"bf16", {"integer", "c_int16_t"}},
      {"i1", {"logical", "c_bool"}},      {"u1", {"logical", "c_bool"}},
      {"i8", {"integer", "c_int8_t"}},    {"u8", {"integer", "c_int8_t"}},
      {"i16", {"integer", "c_int16_t"}},  {"u16", {"integer", "c_int16_t"}},
      {"i32", {"integer", "c_int32_t"}},  {"u32", {"integer", "c_int32_t"}},
      {"i64", {"integer", "c_int64_t"}},  {"u64", {"integer", "c_int64_t"}},
  };
  auto it = m.find(t);
  return it == m.end() ? std::pair<std::string, std::string>{} : it->second;
}

// C names a parameter must not take: C-only keywords and the type names the prototypes use
// (a parameter named int32_t would hide the type from the parameters after it).
bool taken_in_c(const std::string& n) {
  static const std::set<std::string> s = {
      "restrict", "_Bool",    "_Complex",  "_Imaginary",     "_Alignas",      "_Alignof",
      "_Atomic",  "_Generic", "_Noreturn", "_Static_assert", "_Thread_local", "int8_t",
      "int16_t",  "int32_t",  "int64_t",   "uint8_t",        "uint16_t",      "uint32_t",
      "uint64_t", "size_t",   "grid",      "stream"};
  return s.count(n) != 0 || n.rfind("tritonpack_", 0) == 0;
}

// Fortran names: at most 63 characters, a letter first, case ignored.
constexpr std::size_t fortran_max = 63;

std::vector<foreign_arg> foreign_args(const std::string& library, const kernel_info& k) {
  const std::string c_function = library + "_" + k.name;
  std::vector<foreign_arg> out;
  // Names a dummy argument of the wrapper must not take (lowercase): the wrapper's own, its
  // locals and optionals, the interface it calls, and what the module imports.
  std::set<std::string> f_used = {"grid",
                                  "stream",
                                  "stat",
                                  "tp_stream",
                                  "tp_status",
                                  lower(k.name),
                                  lower(c_function),
                                  "tritonpack_stop",
                                  "c_null_ptr",
                                  "c_ptr",
                                  "c_int"};
  std::set<std::string> c_used;
  for (const kernel_arg& a : k.args) {
    foreign_arg f;
    f.triton_type = a.type;
    const std::string ctx = fmt::format("{}, argument {}", identify(k), a.name);
    if (a.type.rfind("tensordesc<", 0) == 0)
      bad(fmt::format(
          "{}: a tensor descriptor ({}) has no C or Fortran form yet; call this kernel from C++ "
          "(NAME.hpp), or pack without --languages",
          ctx, a.type));
    std::string cpp;
    try {
      cpp = cpp_type(a.type,
                     a.is_const);  // refuses what C++ refuses (an fp8 scalar), with its reason
    } catch (const error& e) {
      throw e.with_context(ctx);
    }
    const bool pointer = a.type[0] == '*';
    std::string elem = pointer ? a.type.substr(1) : a.type;
    if (pointer && !elem.empty() && elem[0] == 'k') elem = elem.substr(1);
    const c_element ce = c_element_type(elem);
    if (ce.c.empty()) bad(fmt::format("{}: no C type for {}", ctx, a.type));

    f.c_name = cpp_name(a.name);
    if (taken_in_c(f.c_name)) f.c_name += "_";
    while (!c_used.insert(f.c_name).second) f.c_name += "_";
    if (pointer) {
      f.c_type = fmt::format("{}{}*", cpp.rfind("const ", 0) == 0 ? "const " : "", ce.c);
      f.to_cpp = ce.cast ? fmt::format("reinterpret_cast<{}>({})", cpp, f.c_name) : f.c_name;
      f.f_type = "type(c_ptr)";
      f.f_kind = "c_ptr";
    } else {
      f.c_type = ce.c;
      f.to_cpp = ce.cast ? fmt::format("{}::from_bits({})", cpp, f.c_name) : f.c_name;
      const auto [kind_type, kind] = fortran_scalar(elem);
      if (kind.empty()) bad(fmt::format("{}: no Fortran type for {}", ctx, a.type));
      f.f_type = fmt::format("{}({})", kind_type, kind);
      f.f_kind = kind;
    }
    std::string fn = a.name;
    if (!std::isalpha(static_cast<unsigned char>(fn[0])))
      fn = "arg" + fn;  // Fortran: a letter first
    while (!f_used.insert(lower(fn)).second) fn += "_";
    if (fn.size() > fortran_max)
      bad(fmt::format(
          "{}: the Fortran name {} is longer than Fortran's {} characters; rename the argument",
          ctx, fn, fortran_max));
    f.f_name = fn;
    out.push_back(std::move(f));
  }
  return out;
}

bool takes_grid(const kernel_info& k) { return k.grid[0].empty(); }

// The kernel's first tensor-descriptor argument, or null: such a kernel has no C or Fortran form
// yet, and is left out of NAME.h, NAME_c.cpp and NAME.f90 (with a note and a pack-time warning).
const kernel_arg* descriptor_arg(const kernel_info& k) {
  for (const kernel_arg& a : k.args)
    if (a.type.rfind("tensordesc<", 0) == 0) return &a;
  return nullptr;
}

// `info` without the kernels that have no C form (descriptor_arg).
container_info with_c_form(const container_info& info) {
  container_info out = info;
  out.kernels.clear();
  for (const kernel_info& k : info.kernels)
    if (!descriptor_arg(k)) out.kernels.push_back(k);
  return out;
}

std::vector<std::string> c_params(const kernel_info& k, const std::vector<foreign_arg>& args) {
  std::vector<std::string> params;
  if (takes_grid(k)) params.push_back("tritonpack_grid3 grid");
  for (const foreign_arg& a : args) params.push_back(a.c_type + " " + a.c_name);
  params.push_back("tritonpack_stream_t stream");
  return params;
}

// emit_list (header_writer.hpp) for Fortran free form: a line that continues ends in " &",
// continuation lines are indented 4 more, and any break (after the head, before the tail) keeps
// every line within 100 columns whatever the names' lengths (Fortran allows 63 characters a name,
// 132 a line).
void emit_fortran_list(std::string& out, const std::string& indent, const std::string& head,
                       const std::vector<std::string>& items, const std::string& tail) {
  const std::string more = indent + "    ";
  std::string line = indent + head;
  const auto add = [&](const std::string& piece, std::size_t reserve) {
    const bool open = line.back() == '(' || line.back() == ' ';
    if (line.size() + (open ? 0 : 1) + piece.size() + reserve > 100 && line.size() > more.size()) {
      out += line + " &\n";
      line = more + piece;
    } else {
      line += (open ? "" : " ") + piece;
    }
  };
  for (std::size_t i = 0; i < items.size(); ++i)
    add(items[i] + (i + 1 < items.size() ? "," : ""), 2);
  if (line.size() + tail.size() > 100) {
    out += line + " &\n";
    line = more + tail.substr(tail.find_first_not_of(' '));
  } else {
    line += tail;
  }
  out += line + "\n";
}

std::string variant_line(const kernel_info& k, std::size_t vi) {
  const variant_info& v = k.variants[vi];
  std::string line =
      fmt::format("  variant {}: {} (num_warps {})", vi, spec_text(k, v), v.config.num_warps);
  // As in NAME.hpp: a tuned kernel's configs of one specialisation are chosen per call; without
  // tuning, configs after the first are never dispatched to.
  const std::uint32_t configs = k.tuning.config_count;
  if (configs > 1)
    return line + fmt::format(", config {} of {}, chosen per call", vi % configs, configs);
  for (std::size_t e = 0; e < vi; ++e)
    if (spec_text(k, k.variants[e]) == spec_text(k, v))
      return line + fmt::format(", same specialisation as {}: not dispatched to", e);
  return line;
}

// The kernel's comment block, as NAME.hpp has it, plus its variants (the C++ header shows them
// in the function body, which C and Fortran users do not read), each line after `marker`.
std::string comment_block(const container_info& info, const kernel_info& k,
                          const std::string& marker, const std::string& indent = "") {
  std::string out;
  for (const std::string& line : kernel_comment(info, k))
    out += indent + marker + " " + line + "\n";
  for (std::size_t vi = 0; vi < k.variants.size(); ++vi)
    out += indent + marker + " " + variant_line(k, vi) + "\n";
  return out;
}

std::string header_guard(const std::string& library) {
  return "TRITONPACK_GENERATED_" + upper(library) + "_H";
}

}  // namespace

languages parse_languages(std::string_view list) {
  languages out;
  std::size_t begin = 0;
  while (begin <= list.size()) {
    const std::size_t end = std::min(list.find(',', begin), list.size());
    const std::string item = lower(list.substr(begin, end - begin));
    if (item == "c") out.c = true;
    else if (item == "fortran") out.c = out.fortran = true;
    else
      bad(fmt::format(
          "--languages: unknown language \"{}\"; give a comma-separated list of c and fortran "
          "(NAME.hpp for C++ is always written)",
          item));
    begin = end + 1;
  }
  return out;
}

std::vector<std::string> check_foreign_names(std::string_view library_view,
                                             const container_info& info, const languages& langs) {
  std::vector<std::string> warnings;
  if (!langs.c && !langs.fortran) return warnings;
  const std::string library(library_view);
  if (langs.fortran)
    if (std::string why = fortran_library_problem(library); !why.empty()) bad(why);
  const std::string last_error = library + "_last_error";
  std::map<std::string, std::string> fortran_names;  // lowercase → what it names
  fortran_names[lower(last_error)] = "the library's error-message function " + last_error;
  for (const kernel_info& k : info.kernels)
    if (const kernel_arg* d = descriptor_arg(k))
      warnings.push_back(fmt::format(
          "{}: argument {} is a tensor descriptor ({}), which has no C or Fortran form yet: the C "
          "API{} leaves this kernel out (a note in {}.h says so); call it from C++ ({}.hpp)",
          identify(k), d->name, d->type, langs.fortran ? " and the Fortran module" : "", library,
          library));
  for (const kernel_info& k : with_c_form(info).kernels) {
    const std::string c_function = library + "_" + k.name;
    if (c_function == last_error)
      bad(fmt::format(
          "{}: its C function would be {}, the library's error-message function; rename the "
          "kernel (e.g. {}_kernel)",
          identify(k), last_error, k.name));
    if (c_api_names().count(c_function))
      bad(fmt::format(
          "{} of library {}: its C function would be {}, which <tritonpack/c/tritonpack.h> "
          "declares; rename the library or the kernel",
          identify(k), library, c_function));
    (void)foreign_args(library, k);  // every argument has a C and a Fortran form
    if (!langs.fortran) continue;
    if (c_function.size() > fortran_max)
      bad(fmt::format(
          "{}: its Fortran interface {} is longer than Fortran's {} characters; shorten the "
          "library or kernel name",
          identify(k), c_function, fortran_max));
    static const std::set<std::string> imported = {
        "c_ptr",    "c_null_ptr", "c_int",     "c_float",   "c_double",        "c_bool",
        "c_int8_t", "c_int16_t",  "c_int32_t", "c_int64_t", "tritonpack_stop", "tritonpack_grid3"};
    if (imported.count(lower(k.name)))
      bad(fmt::format(
          "{}: the Fortran module {} imports a name {} from iso_c_binding or module tritonpack; "
          "rename the kernel",
          identify(k), library, k.name));
    fortran_names.emplace(lower(c_function), "the interface " + c_function);
  }
  if (!langs.fortran) return warnings;
  for (const kernel_info& k : with_c_form(info).kernels) {
    const std::string subroutine = fortran_procedure_name(k.name);
    if (auto it = fortran_names.find(lower(subroutine)); it != fortran_names.end())
      bad(fmt::format(
          "{}: in the Fortran module {} (which ignores case) it would clash with {}; rename the "
          "kernel",
          identify(k), library, it->second));
    fortran_names.emplace(lower(subroutine), "the subroutine " + subroutine);
    if (subroutine != k.name)
      warnings.push_back(fmt::format(
          "{}: {} is a Fortran intrinsic procedure, which a subroutine of that name would hide in "
          "every program unit that uses module {}; its subroutine there is {} (the C function "
          "{}_{} and the C++ function are unchanged; set `name` in the spec to choose another)",
          identify(k), upper(k.name), library, subroutine, library, k.name));
  }
  return warnings;
}

std::string write_c_header(const container_info& all, const header_options& opt) {
  const container_info info = with_c_form(all);
  const std::string& lib = opt.namespace_name;
  std::string out = fmt::format(
      "// {0}.h — generated by {1}; do not edit.\n"
      "//\n"
      "// The C API (C99) of library \"{0}\": one function per kernel, named {0}_KERNEL, taking "
      "the\n"
      "// kernel's arguments with their exact C types, then the stream (NULL: the default "
      "stream).\n"
      "// Each returns TRITONPACK_SUCCESS (0) or an error code of <tritonpack/c/tritonpack.h>; "
      "after a\n"
      "// failure {0}_last_error() holds the calling thread's message. Device memory comes from\n"
      "// tritonpack_malloc (or any CUDA / HIP allocation). The definitions are in {0}_c.cpp, "
      "compiled\n"
      "// as C++17 with the run time (tritonpack_add_kernels(... LANGUAGES C) does it; "
      "docs/c-fortran.md).\n"
      "#ifndef {2}\n#define {2}\n\n"
      "#include <stdbool.h>\n#include <stdint.h>\n\n"
      "#include <tritonpack/c/tritonpack.h>\n\n"
      "#ifdef __cplusplus\nextern \"C\" {{\n#endif\n\n"
      "// The calling thread's message for its last failed call (\"\" if none failed), the\n"
      "// same as tritonpack_last_error(), which also covers the memory API and other libraries.\n"
      "const char* {0}_last_error(void);\n",
      lib, opt.generator, header_guard(lib));
  for (const kernel_info& k : all.kernels)
    if (const kernel_arg* d = descriptor_arg(k))
      out += fmt::format(
          "\n// Not here: kernel {0} (argument {1} is a tensor descriptor, {2}, which has no C\n"
          "// form yet); call it from C++: {3}::{0} in {3}.hpp.\n",
          k.name, d->name, d->type, lib);
  for (const kernel_info& k : info.kernels) {
    out += "\n" + comment_block(info, k, "//");
    if (takes_grid(k))
      out += "// No grid expression in the spec: the caller passes the grid, in Triton programs.\n";
    emit_list(out, "", fmt::format("int {}_{}(", lib, k.name), c_params(k, foreign_args(lib, k)),
              ");");
  }
  out += fmt::format("\n#ifdef __cplusplus\n}}  // extern \"C\"\n#endif\n\n#endif  // {}\n",
                     header_guard(lib));
  return out;
}

std::string write_c_source(const container_info& all, const header_options& opt) {
  const container_info info = with_c_form(all);
  const std::string& lib = opt.namespace_name;
  std::string out = fmt::format(
      "// {0}_c.cpp — generated by {1}; do not edit.\n"
      "//\n"
      "// The definitions of {0}.h: each C function calls the typed C++ function of {0}.hpp and "
      "turns\n"
      "// any exception into its error code and this thread's message (tritonpack/c/c_bridge.hpp), "
      "so\n"
      "// no exception crosses into C or Fortran. The message goes to the thread's one\n"
      "// last-error slot, which tritonpack_last_error() reads (libtritonpack_c_api).\n"
      "// Compile it as C++17 with the run time.\n"
      "#include \"{0}.h\"\n\n"
      "#include <tritonpack/c/c_bridge.hpp>\n\n"
      "#include \"{0}.hpp\"\n\n"
      "extern \"C\" {{\n\n"
      "const char* {0}_last_error(void) {{ return tritonpack_last_error(); }}\n",
      lib, opt.generator);
  for (const kernel_info& k : info.kernels) {
    const std::vector<foreign_arg> args = foreign_args(lib, k);
    const std::string c_function = lib + "_" + k.name;
    std::vector<std::string> call;
    if (takes_grid(k))
      call.push_back(fmt::format("::tritonpack::c_bridge::grid_from_c(grid, \"{}\")", k.name));
    for (const foreign_arg& a : args) call.push_back(a.to_cpp);
    call.push_back("stream");
    out += "\n";
    emit_list(out, "", "int " + c_function + "(", c_params(k, args), ") {");
    out += fmt::format("  return ::tritonpack::c_bridge::guard(\"{}\", [&] {{\n", c_function);
    emit_list(out, "    ", fmt::format("{}::{}(", lib, k.name), call, ");");
    out += "  });\n}\n";
  }
  out += "\n}  // extern \"C\"\n";
  return out;
}

std::string write_fortran_module(const container_info& all, const header_options& opt) {
  const container_info info = with_c_form(all);
  const std::string& lib = opt.namespace_name;
  std::set<std::string> kinds = {"c_int", "c_ptr", "c_null_ptr"};
  bool any_grid = false;
  std::vector<std::vector<foreign_arg>> all_args;
  for (const kernel_info& k : info.kernels) {
    all_args.push_back(foreign_args(lib, k));
    for (const foreign_arg& a : all_args.back()) kinds.insert(a.f_kind);
    any_grid = any_grid || takes_grid(k);
  }
  std::string out = fmt::format(
      "! {0}.f90 — generated by {1}; do not edit.\n"
      "!\n"
      "! Module {0}: the kernels of library \"{0}\" for Fortran (docs/c-fortran.md). Each kernel "
      "is a\n"
      "! subroutine of its name taking device pointers as type(c_ptr) (from tritonpack_malloc, "
      "module\n"
      "! tritonpack), scalars of their exact iso_c_binding kinds (unsigned as the signed kind of "
      "the same\n"
      "! size; fp16 and bf16 as integer(c_int16_t) bits, see tritonpack_to_half), then two "
      "optional\n"
      "! arguments: stream (default: the legacy default stream) and stat.\n"
      "!   stat present: it receives TRITONPACK_SUCCESS (0) or an error code of module tritonpack, "
      "and\n"
      "!                 tritonpack_message({0}_last_error()) is the message;\n"
      "!   stat absent:  a failure prints the message on error_unit and stops the program (error "
      "stop).\n"
      "! The bind(C) interfaces {0}_KERNEL are public too; they return the code. Build it with "
      "{0}_c.cpp\n"
      "! and module tritonpack: tritonpack_add_kernels(... LANGUAGES Fortran) does both.\n"
      "module {0}\n",
      lib, opt.generator);
  std::vector<std::string> kind_list(kinds.begin(), kinds.end());
  emit_fortran_list(out, "  ", "use, intrinsic :: iso_c_binding, only: ", kind_list, "");
  out += any_grid ? "  use tritonpack, only: tritonpack_grid3, tritonpack_stop\n"
                  : "  use tritonpack, only: tritonpack_stop\n";
  out += "  implicit none\n  private\n\n";
  std::vector<std::string> publics = {lib + "_last_error"};
  for (const kernel_info& k : info.kernels) {
    publics.push_back(fortran_procedure_name(k.name));
    publics.push_back(lib + "_" + k.name);
  }
  emit_fortran_list(out, "  ", "public :: ", publics, "");
  out += fmt::format(
      "\n  interface\n"
      "    ! The calling thread's message for its last failed call of this library, as a C "
      "string:\n"
      "    ! tritonpack_message({0}_last_error()) makes it a Fortran string.\n"
      "    type(c_ptr) function {0}_last_error() bind(C, name=\"{0}_last_error\")\n"
      "      import :: c_ptr\n"
      "    end function {0}_last_error\n",
      lib);
  for (std::size_t ki = 0; ki < info.kernels.size(); ++ki) {
    const kernel_info& k = info.kernels[ki];
    const std::vector<foreign_arg>& args = all_args[ki];
    const std::string c_function = lib + "_" + k.name;
    std::vector<std::string> names;
    if (takes_grid(k)) names.push_back("grid");
    for (const foreign_arg& a : args) names.push_back(a.f_name);
    names.push_back("stream");
    out += "\n";
    emit_fortran_list(out, "    ", fmt::format("integer(c_int) function {}(", c_function), names,
                      fmt::format(") bind(C, name=\"{}\")", c_function));
    out += "      import\n";
    if (takes_grid(k)) out += "      type(tritonpack_grid3), value :: grid\n";
    for (const foreign_arg& a : args)
      out += fmt::format("      {}, value :: {}\n", a.f_type, a.f_name);
    out += "      type(c_ptr), value :: stream\n";
    out += fmt::format("    end function {}\n", c_function);
  }
  out += "  end interface\n\ncontains\n";
  for (std::size_t ki = 0; ki < info.kernels.size(); ++ki) {
    const kernel_info& k = info.kernels[ki];
    const std::vector<foreign_arg>& args = all_args[ki];
    const std::string c_function = lib + "_" + k.name;
    std::vector<std::string> names, call;
    if (takes_grid(k)) names.push_back("grid"), call.push_back("grid");
    for (const foreign_arg& a : args) names.push_back(a.f_name), call.push_back(a.f_name);
    names.push_back("stream");
    names.push_back("stat");
    call.push_back("tp_stream");
    const std::string subroutine = fortran_procedure_name(k.name);
    out += "\n" + comment_block(info, k, "!", "  ");
    if (subroutine != k.name)
      out += fmt::format(
          "  ! Named {0} here, not {1}: a subroutine {1} would hide the intrinsic {2}.\n",
          subroutine, k.name, upper(k.name));
    emit_fortran_list(out, "  ", fmt::format("subroutine {}(", subroutine), names, ")");
    if (takes_grid(k)) out += "    type(tritonpack_grid3), intent(in) :: grid\n";
    for (const foreign_arg& a : args)
      out += fmt::format("    {}, intent(in) :: {}\n", a.f_type, a.f_name);
    out +=
        "    type(c_ptr), intent(in), optional :: stream\n"
        "    integer, intent(out), optional :: stat\n"
        "    type(c_ptr) :: tp_stream\n"
        "    integer(c_int) :: tp_status\n"
        "    tp_stream = c_null_ptr\n"
        "    if (present(stream)) tp_stream = stream\n";
    emit_fortran_list(out, "    ", fmt::format("tp_status = {}(", c_function), call, ")");
    out += fmt::format(
        "    if (present(stat)) then\n"
        "      stat = int(tp_status)\n"
        "    else if (tp_status /= 0) then\n"
        "      call tritonpack_stop(\"{0}\", tp_status, {1}_last_error())\n"
        "    end if\n"
        "  end subroutine {2}\n",
        c_function, lib, subroutine);
  }
  out += fmt::format("\nend module {}\n", lib);
  return out;
}

}  // namespace tritonpack::pack
