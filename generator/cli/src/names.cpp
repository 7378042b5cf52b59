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
