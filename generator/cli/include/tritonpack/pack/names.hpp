// tritonpack/pack/names.hpp — the rule for library and kernel names (docs/spec.md "Names").
//
// The same rule as the front end's (generator/python/tritonpack_compile/names.py, which explains
// each part); tests/data/names.json is the one table of cases both test suites check. The packer
// applies it to the name it writes (the manifest's, or --name) and to every kernel name, before
// writing anything.
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "tritonpack/core/model.hpp"

namespace tritonpack::pack {

constexpr std::size_t max_name_length = 63;  // Fortran's limit

enum class name_kind { library, kernel };

// Why `name` cannot name a library or a kernel ("'9lib' must start with a letter (…)"), or ""
// when it can.
std::string name_problem(std::string_view name);

// A valid name close to `name`, for error messages ("9lib" → "lib_9lib", "std" → "std_kernels").
std::string suggest_name(std::string_view name, name_kind kind);

// Every reserved name with why, the C++ keywords included (the tests compare it with names.json).
const std::map<std::string, std::string, std::less<>>& reserved_names();

// True for a name that cannot be a C++ identifier in generated code: a keyword of C++ or GNU
// C++, or a macro (the header writer renames such an argument with a trailing _).
bool breaks_cpp_identifier(std::string_view name);

struct kernel_name_clash {
  std::size_t kernel =
      0;  // index of the kernel whose name clashes with an earlier one's or the library's
  std::string why;
};
// The first kernel name (each valid on its own) that cannot live next to the earlier ones in
// library `library` (same name, same name but for case, the library's own name), or none.
std::optional<kernel_name_clash> kernel_names_clash(std::string_view library,
                                                    const std::vector<std::string>& kernels);

// Fortran 2018's intrinsic procedure names (generic and specific: sum, matmul, max, dabs, …), lower
// case; tests compare them with tests/data/names.json.
const std::set<std::string, std::less<>>& fortran_intrinsics();

// True when `name` is, ignoring case, a Fortran intrinsic procedure's name.
bool is_fortran_intrinsic(std::string_view name);

// The name of kernel `kernel`'s subroutine in the library's Fortran module: the kernel's own name,
// or for a Fortran intrinsic's name that name + "_kernel" ("sum" -> "sum_kernel"), because a module
// procedure named `sum` hides the intrinsic SUM in every program unit that uses the module. The C
// and C++ names are unchanged; the packer warns about each renamed kernel.
std::string fortran_procedure_name(std::string_view kernel);

// Why `library` cannot name the library's Fortran module (it is a Fortran intrinsic's name, which
// the module would hide), or "".
std::string fortran_library_problem(std::string_view library);

// Throws error(bad_argument) naming the first name of `info` (its library name `library`, then
// each kernel's) that breaks the rule, with a suggested valid name.
void check_names(std::string_view library, const container_info& info);

}  // namespace tritonpack::pack
