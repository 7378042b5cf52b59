// The rule for library and kernel names: the packer's half (the front end's is
// generator/python/tritonpack_compile/names.py; tests/data/names.json holds the cases both check).
#include "tritonpack/pack/names.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <set>

#include "tritonpack/core/error.hpp"
#include "tritonpack/core/identify.hpp"

namespace tritonpack::pack {
namespace {

const char* const gnu_default = "in the default -std=gnu++17 and gnu11 modes";
const char* const std_macro = "a macro of the C and C++ standard libraries";
const char* const fortran_why =
    "a Fortran module programs use (the library's Fortran module would clash; Fortran ignores "
    "case)";

const std::set<std::string, std::less<>>& cpp_keywords() {
  static const std::set<std::string, std::less<>> s = {
      "alignas",       "alignof",     "and",
      "and_eq",        "asm",         "auto",
      "bitand",        "bitor",       "bool",
      "break",         "case",        "catch",
      "char",          "char8_t",     "char16_t",
      "char32_t",      "class",       "compl",
      "concept",       "const",       "consteval",
      "constexpr",     "constinit",   "const_cast",
      "continue",      "co_await",    "co_return",
      "co_yield",      "decltype",    "default",
      "delete",        "do",          "double",
      "dynamic_cast",  "else",        "enum",
      "explicit",      "export",      "extern",
      "false",         "float",       "for",
      "friend",        "goto",        "if",
      "inline",        "int",         "long",
      "mutable",       "namespace",   "new",
      "noexcept",      "not",         "not_eq",
      "nullptr",       "operator",    "or",
      "or_eq",         "private",     "protected",
      "public",        "register",    "reinterpret_cast",
      "requires",      "return",      "short",
      "signed",        "sizeof",      "static",
      "static_assert", "static_cast", "struct",
      "switch",        "template",    "this",
      "thread_local",  "throw",       "true",
      "try",           "typedef",     "typeid",
      "typename",      "union",       "unsigned",
      "using",         "virtual",     "void",
      "volatile",      "wchar_t",     "while",
      "xor",           "xor_eq"};
  return s;
}

// Names the compiler or the standard headers turn into something else: keywords of GNU C++ and
// macros. Reserved, and renamed when a kernel's argument has one (breaks_cpp_identifier).
const std::map<std::string, std::string, std::less<>>& not_identifiers() {
  static const std::map<std::string, std::string, std::less<>> m = {
      {"typeof", fmt::format("a keyword of GNU C and C++ {}", gnu_default)},
      {"linux", fmt::format("a macro GCC and Clang predefine {}", gnu_default)},
      {"unix", fmt::format("a macro GCC and Clang predefine {}", gnu_default)},
      {"i386", fmt::format("a macro GCC and Clang predefine on 32-bit x86 {}", gnu_default)},
      {"assert", std_macro},
      {"errno", std_macro},
      {"offsetof", std_macro},
      {"setjmp", std_macro},
      {"va_arg", std_macro},
      {"va_copy", std_macro},
      {"va_end", std_macro},
      {"va_start", std_macro},
      {"stdin", std_macro},
      {"stdout", std_macro},
      {"stderr", std_macro},
      {"NULL", std_macro},
      {"EOF", std_macro},
  };
  return m;
}

// Names already taken in the places a library's names go: C's keywords, the program's and the
// generated code's names.
const std::map<std::string, std::string, std::less<>>& taken_names() {
  static const std::map<std::string, std::string, std::less<>> m = {
      {"restrict", "a C keyword (the library's C header)"},
      {"typeof_unqual", "a C keyword (the library's C header)"},
      {"std", "the C++ standard library's namespace"},
      {"posix", "reserved by C++ for POSIX"},
      {"tritonpack", "the run time's namespace"},
      {"detail", "used by every generated header (NAME::detail)"},
      {"library", "used by every generated header (NAME::library())"},
      {"main", "the program's entry point, int main()"},
      {"last_error", "used by the generated C API (NAME_last_error())"},
  };
  return m;
}

// Fortran modules a program may `use` next to the library's module NAME; compared ignoring case.
const std::set<std::string, std::less<>>& fortran_modules() {
  static const std::set<std::string, std::less<>> s = {
      "iso_c_binding", "iso_fortran_env", "ieee_arithmetic", "ieee_exceptions",
      "ieee_features", "omp_lib",         "omp_lib_kinds",   "openacc",
      "mpi",           "mpi_f08"};
  return s;
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// Fortran 2018's intrinsic procedures (ISO/IEC 1539-1:2018, 16.7 generic and 16.8 specific names),
// lower case. A module procedure of such a name hides the intrinsic in every scope that uses the
// module: `use lib` with a kernel `sum` makes `sum(a)` an error ("Unexpected use of subroutine").
const std::set<std::string, std::less<>>& fortran_intrinsic_set() {
  // clang-format off
  static const std::set<std::string, std::less<>> s = {
      "abs", "achar", "acos", "acosh", "adjustl", "adjustr", "aimag", "aint", "all", "allocated",
      "alog", "alog10", "amax0", "amax1", "amin0", "amin1", "amod", "anint", "any", "asin",
      "asinh", "associated", "atan", "atan2", "atanh", "atomic_add", "atomic_and", "atomic_cas",
      "atomic_define", "atomic_fetch_add", "atomic_fetch_and", "atomic_fetch_or",
      "atomic_fetch_xor", "atomic_or", "atomic_ref", "atomic_xor", "bessel_j0", "bessel_j1",
      "bessel_jn", "bessel_y0", "bessel_y1", "bessel_yn", "bge", "bgt", "bit_size", "ble", "blt",
      "btest", "cabs", "ccos", "ceiling", "cexp", "char", "clog", "cmplx", "co_broadcast",
      "co_max", "co_min", "co_reduce", "co_sum", "command_argument_count", "conjg", "cos", "cosh",
      "coshape", "count", "cpu_time", "cshift", "csin", "csqrt", "dabs", "dacos", "dasin", "datan",
      "datan2", "date_and_time", "dble", "dcos", "dcosh", "ddim", "dexp", "digits", "dim", "dint",
      "dlog", "dlog10", "dmax1", "dmin1", "dmod", "dnint", "dot_product", "dprod", "dshiftl",
      "dshiftr", "dsign", "dsin", "dsinh", "dsqrt", "dtan", "dtanh", "eoshift", "epsilon", "erf",
      "erfc", "erfc_scaled", "event_query", "execute_command_line", "exp", "exponent",
      "extends_type_of", "failed_images", "findloc", "float", "floor", "fraction", "gamma",
      "get_command", "get_command_argument", "get_environment_variable", "get_team", "huge",
      "hypot", "iabs", "iachar", "iall", "iand", "iany", "ibclr", "ibits", "ibset", "ichar",
      "idim", "idint", "idnint", "ieor", "ifix", "image_index", "image_status", "index", "int",
      "ior", "iparity", "is_contiguous", "is_iostat_end", "is_iostat_eor", "ishft", "ishftc",
      "isign", "kind", "lbound", "lcobound", "leadz", "len", "len_trim", "lge", "lgt", "lle",
      "llt", "log", "log10", "log_gamma", "logical", "maskl", "maskr", "matmul", "max", "max0",
      "max1", "maxexponent", "maxloc", "maxval", "merge", "merge_bits", "min", "min0", "min1",
      "minexponent", "minloc", "minval", "mod", "modulo", "move_alloc", "nearest", "new_line",
      "nint", "norm2", "not", "null", "num_images", "out_of_range", "pack", "parity", "popcnt",
      "poppar", "precision", "present", "product", "radix", "random_init", "random_number",
      "random_seed", "range", "rank", "real", "reduce", "repeat", "reshape", "rrspacing",
      "same_type_as", "scale", "scan", "selected_char_kind", "selected_int_kind",
      "selected_real_kind", "set_exponent", "shape", "shifta", "shiftl", "shiftr", "sign", "sin",
      "sinh", "size", "sngl", "spacing", "spread", "sqrt", "stopped_images", "storage_size", "sum",
      "system_clock", "tan", "tanh", "team_number", "this_image", "tiny", "trailz", "transfer",
      "transpose", "trim", "ubound", "ucobound", "unpack", "verify"};
  // clang-format on
  return s;
}

std::string upper_ascii(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

bool is_name_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// "std" followed by digits: namespaces C++ keeps for future standards.
bool is_future_std(std::string_view s) {
  return s.size() > 3 && s.substr(0, 3) == "std" && std::all_of(s.begin() + 3, s.end(), [](char c) {
           return std::isdigit(static_cast<unsigned char>(c)) != 0;
         });
}

}  // namespace

const std::map<std::string, std::string, std::less<>>& reserved_names() {
  static const std::map<std::string, std::string, std::less<>> m = [] {
    std::map<std::string, std::string, std::less<>> all;
    for (const std::string& k : cpp_keywords()) all.emplace(k, "a C++ keyword");
    for (const auto& [k, why] : not_identifiers()) all.emplace(k, why);
    for (const auto& [k, why] : taken_names()) all.emplace(k, why);
    for (const std::string& k : fortran_modules()) all.emplace(k, fortran_why);
    return all;
  }();
  return m;
}

std::string name_problem(std::string_view name) {
  if (name.empty()) return "'' is not a name: use a letter, then letters, digits and _";
  if (!std::all_of(name.begin(), name.end(), is_name_char))
    return fmt::format("'{}' is not a name: use a letter, then letters, digits and _ only", name);
  if (!std::isalpha(static_cast<unsigned char>(name[0])))
    return fmt::format(
        "'{}' must start with a letter (a leading _ is reserved in C and C++, and Fortran names "
        "start with a letter)",
        name);
  if (name.size() > max_name_length)
    return fmt::format("'{}' is {} characters long; the most is {} (Fortran's limit)", name,
                       name.size(), max_name_length);
  if (name.find("__") != std::string_view::npos)
    return fmt::format("'{}' contains __, which C++ reserves", name);
  if (cpp_keywords().count(name)) return fmt::format("'{}' is a C++ keyword", name);
  for (const auto* table : {&not_identifiers(), &taken_names()})
    if (auto it = table->find(name); it != table->end())
      return fmt::format("'{}' is reserved: {}", name, it->second);
  if (is_future_std(name))
    return fmt::format("'{}' is reserved: C++ keeps std followed by digits for future standards",
                       name);
  if (fortran_modules().count(lower(name)))
    return fmt::format("'{}' is reserved: {}", name, fortran_why);
  return "";
}

std::string suggest_name(std::string_view name, name_kind kind) {
  std::string s;
  for (char c : name) {
    const char d = is_name_char(c) ? c : '_';
    if (!(d == '_' && !s.empty() && s.back() == '_')) s += d;  // no "__"
  }
  s.erase(0, s.find_first_not_of('_') == std::string::npos ? s.size() : s.find_first_not_of('_'));
  if (s.empty()) return kind == name_kind::library ? "kernels" : "kernel";
  if (std::isdigit(static_cast<unsigned char>(s[0])))
    s = (kind == name_kind::library ? "lib_" : "kernel_") + s;
  auto trim = [&](std::size_t max) {
    s.resize(std::min(s.size(), max));
    while (!s.empty() && s.back() == '_') s.pop_back();
  };
  trim(max_name_length);
  if (!name_problem(s).empty()) {
    const std::string suffix = kind == name_kind::library ? "_kernels" : "_kernel";
    trim(max_name_length - suffix.size());
    s += suffix;
  }
  return s;
}

bool breaks_cpp_identifier(std::string_view name) {
  return cpp_keywords().count(name) != 0 || not_identifiers().count(name) != 0;
}

std::optional<kernel_name_clash> kernel_names_clash(std::string_view library,
                                                    const std::vector<std::string>& kernels) {
  std::map<std::string, std::size_t> seen;  // lower-cased name → first kernel with it
  const std::string lib = lower(library);
  for (std::size_t i = 0; i < kernels.size(); ++i) {
    const std::string key = lower(kernels[i]);
    if (auto it = seen.find(key); it != seen.end()) {
      const std::string& other = kernels[it->second];
      if (other == kernels[i])
        return kernel_name_clash{
            i, fmt::format("'{}' is already used by kernel [{}]", other, it->second)};
      return kernel_name_clash{
          i,
          fmt::format("'{}' and '{}' (kernel [{}]) differ only in case, and Fortran ignores case",
                      kernels[i], other, it->second)};
    }
    seen.emplace(key, i);
    if (key == lib)
      return kernel_name_clash{i, fmt::format("'{}' is also the library's name, and a Fortran "
                                              "module cannot hold a procedure named like itself",
                                              kernels[i])};
  }
  return std::nullopt;
}

const std::set<std::string, std::less<>>& fortran_intrinsics() { return fortran_intrinsic_set(); }

bool is_fortran_intrinsic(std::string_view name) {
  return fortran_intrinsic_set().count(lower(name)) != 0;
}

std::string fortran_procedure_name(std::string_view kernel) {
  std::string name(kernel);
  return is_fortran_intrinsic(kernel) ? name + "_kernel" : name;
}

std::string fortran_library_problem(std::string_view library) {
  if (!is_fortran_intrinsic(library)) return "";
  return fmt::format(
      "the library name '{}' is a Fortran intrinsic procedure ({}): module {} would hide the "
      "intrinsic in every program unit that uses it; pack with --name {}_kernels (or set `name` "
      "in the spec), or pack without Fortran",
      library, upper_ascii(library), library, library);
}

void check_names(std::string_view library, const container_info& info) {
  if (std::string why = name_problem(library); !why.empty())
    throw error(errc::bad_argument,
                fmt::format("the library name {}; pack with --name {} (or set `name` in the spec)",
                            why, suggest_name(library, name_kind::library)));
  std::vector<std::string> kernels;
  for (const kernel_info& k : info.kernels) {
    if (std::string why = name_problem(k.name); !why.empty())
      throw error(
          errc::bad_argument,
          fmt::format("{}: the kernel name {}; set `name = \"{}\"` on its [[kernel]] in the spec",
                      identify(k), why, suggest_name(k.name, name_kind::kernel)));
    kernels.push_back(k.name);
  }
  if (auto clash = kernel_names_clash(library, kernels))
    throw error(errc::bad_argument, fmt::format("{}: {}; give it another `name` in the spec",
                                                identify(info.kernels[clash->kernel]), clash->why));
}

}  // namespace tritonpack::pack
