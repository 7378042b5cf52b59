// tritonpack/pack/header_writer.hpp — writes NAME.hpp: the container as data plus a typed C++
// function per kernel (docs/runtime-api.md "Generated header shape").
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "tritonpack/core/model.hpp"
#include "tritonpack/pack/grid_expr.hpp"

namespace tritonpack::pack {

struct header_options {
  std::string namespace_name;  // the library name: the header's namespace
  std::size_t bytes_per_line =
      4096;  // container bytes per string-literal line (bench/header_compile)
  std::string generator = "tritonpack pack";  // named in the header's first comment
};

// The whole header text. Throws error(bad_argument) for a model that cannot become C++ (an
// argument type with no C++ mapping, a grid expression it cannot translate), naming it.
std::string write_header(const container_info& info, const std::vector<std::uint8_t>& container,
                         const header_options& options);

// The C++ parameter type for a Triton type ("*fp32" const → "const float*"); throws
// error(bad_argument) for a type with no mapping.
std::string cpp_type(const std::string& triton_type, bool is_const);

// The C++ name of an argument: its Python name, with a trailing underscore when that cannot be a
// C++ identifier (a keyword, a macro) or is a name the generated function itself uses ("stream").
std::string cpp_name(const std::string& python_name);

// Appends `head` (ending in its opening bracket) + items joined by ", " + `tail` to `out`, wrapping
// at 100 columns with continuation lines aligned after the bracket (clang-format's BinPack style).
void emit_list(std::string& out, const std::string& indent, const std::string& head,
               const std::vector<std::string>& items, const std::string& tail);

// A variant's specialisation as the header's comments show it: "*fp32:16, i32:16, 1024".
std::string spec_text(const kernel_info& k, const variant_info& v);

// The comment block above a kernel's function (without the comment markers): what it is, its
// variant count, and its images by backend and kind ("  cuda cubin: sm_80, sm_90a"). The C header
// and the Fortran module repeat it, so every language's user reads the same description.
std::vector<std::string> kernel_comment(const container_info& info, const kernel_info& k);

// Translates a grid expression (parsed by parse_grid_expr, the grammar's one parser) over the
// kernel's integer arguments and the variant's integer constexprs (name, value) into C++ for
// kernel::grid. Run-time values go through
// ::tritonpack::grid_int, whose arithmetic reports a zero divisor or an overflow (`cdiv(n, BLOCK)`
// → `::tritonpack::cdiv(::tritonpack::grid_int{n}, BLOCK)`); constant parts are evaluated here,
// and a constant zero divisor, an overflow, or a constant negative or over-32-bit result throws
// error(bad_argument) naming the expression, as does a syntax error or an unknown name (with its
// column). `int_args` lists the integer argument names with their Triton types.
std::string translate_grid_expr(
    const grid_expr& expr, const std::vector<std::pair<std::string, std::string>>& int_args,
    const std::vector<std::pair<std::string, std::int64_t>>& constexprs);
std::string translate_grid_expr(
    std::string_view expr, const std::vector<std::pair<std::string, std::string>>& int_args,
    const std::vector<std::pair<std::string, std::int64_t>>& constexprs);

// The container bytes as C++ string-literal lines ("\211TPK\r\n..."), `bytes_per_line` each, and
// back: decode_string_literals reads every "..." literal in `text` (as the header holds them) and
// returns the concatenated bytes, for `tritonpack inspect NAME.hpp`.
std::string encode_string_literals(const std::uint8_t* data, std::size_t size,
                                   std::size_t bytes_per_line, std::string_view indent);
std::vector<std::uint8_t> decode_string_literals(std::string_view text);

}  // namespace tritonpack::pack
