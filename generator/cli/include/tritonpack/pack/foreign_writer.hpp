// tritonpack/pack/foreign_writer.hpp — the C API and the Fortran module of a library
// (docs/c-fortran.md): NAME.h (C99, one function per kernel), NAME_c.cpp (its definitions over
// NAME.hpp) and NAME.f90 (module NAME: bind(C) interfaces and a wrapper per kernel).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "tritonpack/core/model.hpp"
#include "tritonpack/pack/header_writer.hpp"

namespace tritonpack::pack {

// What `tritonpack pack --languages` asks for besides NAME.hpp (always written). Fortran binds to
// the C functions, so it implies C.
struct languages {
  bool c = false;
  bool fortran = false;
};

// "c", "fortran", "c,fortran" (any order, case ignored); throws error(bad_argument) naming an
// unknown entry.
languages parse_languages(std::string_view list);

// Throws error(bad_argument) for a library whose C functions or Fortran names would collide (a
// kernel named last_error, a C name the run time's C API declares, a Fortran name over 63
// characters, a kernel whose name is another's interface name), or whose kernel takes an argument
// the C API cannot pass (a tensor descriptor), naming the kernel and what to do; with Fortran, also
// a library named like a Fortran intrinsic procedure (module NAME would hide it). Returns the
// warnings to show: each kernel whose Fortran subroutine is renamed (fortran_procedure_name).
std::vector<std::string> check_foreign_names(std::string_view library, const container_info& info,
                                             const languages& langs);

// The texts of NAME.h, NAME_c.cpp and NAME.f90 (options.namespace_name is NAME).
std::string write_c_header(const container_info& info, const header_options& options);
std::string write_c_source(const container_info& info, const header_options& options);
std::string write_fortran_module(const container_info& info, const header_options& options);

}  // namespace tritonpack::pack
