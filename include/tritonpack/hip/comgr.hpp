// tritonpack/hip/comgr.hpp — AMD's code object manager (libamd_comgr), loaded with dlopen,
// compiling an LLVM IR image into a code object for one gfx target: the AMD counterpart of the PTX
// JIT.
//
// Honest scope (docs/hip-abi.md §3.4): Triton 3.6 writes its AMD LLVM IR with LLVM 22, and a
// comgr reads IR only from its own LLVM or older. Debian's comgr 2.4 (ROCm 5.2.3, LLVM 15) stops at
// the first LLVM 21 construct (`captures(none)`), and no released ROCm's comgr is known to be as
// new as Triton's LLVM. So the IR path succeeds only with a comgr at least as new as Triton's LLVM;
// everywhere else it fails, and says so in one line: no comgr, a comgr that does not know the
// gfx target (comgr 2.4 ends at gfx90a/gfx90c/gfx1036), or a comgr whose LLVM cannot read the IR
// (with the first line its parser wrote). There is no way to ask comgr for its LLVM version, so
// the last verdict comes from trying.
//
// The API subset used is comgr 2.x's, unchanged in 3.x; types are declared here (no amd_comgr.h
// needed to build), with the values of amd_comgr.h 2.4.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "tritonpack/core/dynlib.hpp"
#include "tritonpack/core/env.hpp"
#include "tritonpack/core/error.hpp"
#include "tritonpack/core/log.hpp"
#include "tritonpack/version.hpp"

TRITONPACK_BEGIN_NAMESPACE
namespace comgr {

enum status_t : int {
  status_success = 0,
  status_error = 1,
  status_invalid_argument = 2,
  status_out_of_resources = 3
};
struct data_t {
  std::uint64_t handle;
};
struct data_set_t {
  std::uint64_t handle;
};
struct action_info_t {
  std::uint64_t handle;
};
enum data_kind : int {
  kind_log = 0x5,
  kind_bc = 0x6,
  kind_relocatable = 0x7,
  kind_executable = 0x8
};
enum action_kind : int {
  action_codegen_bc_to_relocatable = 0x6,
  action_link_relocatable_to_executable = 0x9
};

// Every entry point used: name, signature. All required (each is in comgr 2.0 and later).
#define TRITONPACK_COMGR_API(X)                                                                  \
  X(amd_comgr_get_version, void, (std::size_t*, std::size_t*))                                   \
  X(amd_comgr_status_string, status_t, (status_t, const char**))                                 \
  X(amd_comgr_get_isa_count, status_t, (std::size_t*))                                           \
  X(amd_comgr_get_isa_name, status_t, (std::size_t, const char**))                               \
  X(amd_comgr_create_data, status_t, (data_kind, data_t*))                                       \
  X(amd_comgr_release_data, status_t, (data_t))                                                  \
  X(amd_comgr_set_data, status_t, (data_t, std::size_t, const char*))                            \
  X(amd_comgr_set_data_name, status_t, (data_t, const char*))                                    \
  X(amd_comgr_get_data, status_t, (data_t, std::size_t*, char*))                                 \
  X(amd_comgr_create_data_set, status_t, (data_set_t*))                                          \
  X(amd_comgr_destroy_data_set, status_t, (data_set_t))                                          \
  X(amd_comgr_data_set_add, status_t, (data_set_t, data_t))                                      \
  X(amd_comgr_action_data_count, status_t, (data_set_t, data_kind, std::size_t*))                \
  X(amd_comgr_action_data_get_data, status_t, (data_set_t, data_kind, std::size_t, data_t*))     \
  X(amd_comgr_create_action_info, status_t, (action_info_t*))                                    \
  X(amd_comgr_destroy_action_info, status_t, (action_info_t))                                    \
  X(amd_comgr_action_info_set_isa_name, status_t, (action_info_t, const char*))                  \
  X(amd_comgr_action_info_set_option_list, status_t, (action_info_t, const char**, std::size_t)) \
  X(amd_comgr_action_info_set_logging, status_t, (action_info_t, bool))                          \
  X(amd_comgr_do_action, status_t, (action_kind, action_info_t, data_set_t, data_set_t))

struct api {
#define TRITONPACK_COMGR_MEMBER(name, ret, params) ret(*name) params = nullptr;
  TRITONPACK_COMGR_API(TRITONPACK_COMGR_MEMBER)
#undef TRITONPACK_COMGR_MEMBER
};

// "amdgcn-amd-amdhsa--gfx942:sramecc+:xnack-" for a gcnArchName (comgr's ISA name form).
inline std::string isa_name(const std::string& arch) { return "amdgcn-amd-amdhsa--" + arch; }

class library {
 public:
  api fn;
  std::string path;                  // what dlopen opened
  std::size_t major = 0, minor = 0;  // amd_comgr_get_version (the API version: 2.4 in ROCm 5.2)
  dynlib lib;

  std::string describe() const {
    return "comgr " + std::to_string(major) + "." + std::to_string(minor) + " (" + path + ")";
  }

  // TRITONPACK_COMGR_LIBRARY (not in a secure-execution process: core/env.hpp), else
  // libamd_comgr.so, .so.3, .so.2. nullptr with `why` (one line) when none loads or one lacks an
  // entry point.
  static std::unique_ptr<library> load(std::string& why) {
    const std::string forced = env::get(env::comgr_library);
    const bool ignored = env::ignored(env::comgr_library);
    if (ignored) log::line(env::ignored_text(env::comgr_library) + "; opening the system's comgr");
    const std::vector<std::string> names =
        forced.empty()
            ? std::vector<std::string>{"libamd_comgr.so", "libamd_comgr.so.3", "libamd_comgr.so.2"}
            : std::vector<std::string>{forced};
    auto c = std::make_unique<library>();
    std::string tried;
    c->lib = dynlib::open_first(names, tried);
    if (!c->lib) {
      why = "no AMD comgr library (" + tried + ")" +
            (ignored ? "; " + env::ignored_text(env::comgr_library)
             : forced.empty()
                 ? "; install ROCm's comgr (libamd_comgr) or set TRITONPACK_COMGR_LIBRARY"
                 : "; TRITONPACK_COMGR_LIBRARY names this path");
      return nullptr;
    }
    c->path = c->lib.name();
    std::string missing;
#define TRITONPACK_COMGR_RESOLVE(name, ret, params)                          \
  c->fn.name = reinterpret_cast<decltype(c->fn.name)>(c->lib.symbol(#name)); \
  if (!c->fn.name) missing += std::string(missing.empty() ? "" : ", ") + #name;
    TRITONPACK_COMGR_API(TRITONPACK_COMGR_RESOLVE)
#undef TRITONPACK_COMGR_RESOLVE
    if (!missing.empty()) {
      why = "the comgr library " + c->path + " lacks " + missing;
      return nullptr;
    }
    c->fn.amd_comgr_get_version(&c->major, &c->minor);
    return c;
  }

  std::string status(status_t s) const {
    const char* text = nullptr;
    fn.amd_comgr_status_string(s, &text);
    return (text ? std::string(text) : std::string("status")) + " (" +
           std::to_string(static_cast<int>(s)) + ")";
  }

  // Whether comgr lists `processor` ("gfx942") among its ISAs.
  bool knows_processor(const std::string& processor) const {
    std::size_t n = 0;
    if (fn.amd_comgr_get_isa_count(&n) != status_success) return false;
    const std::string want = isa_name(processor);
    for (std::size_t i = 0; i < n; ++i) {
      const char* name = nullptr;
      if (fn.amd_comgr_get_isa_name(i, &name) == status_success && name && want == name)
        return true;
    }
    return false;
  }

  // The last ISA comgr lists ("gfx1036" for comgr 2.4), for messages.
  std::string newest_isa() const {
    std::size_t n = 0;
    const char* name = nullptr;
    if (fn.amd_comgr_get_isa_count(&n) != status_success || n == 0 ||
        fn.amd_comgr_get_isa_name(n - 1, &name) != status_success || !name)
      return "?";
    const std::string s = name;
    return s.substr(s.rfind('-') + 1);
  }

  // Compiles LLVM IR (text or bitcode) to a code object for `arch` ("gfx942:sramecc+:xnack-").
  // Returns the code object; on failure empty, with `why` one line: which step failed, comgr's
  // status and the first error line comgr's log holds (the IR parser's, for IR too new).
  std::vector<std::uint8_t> compile(const std::vector<std::uint8_t>& ir, const std::string& arch,
                                    std::string& why) const {
    why.clear();
    struct handles {
      const api& fn;
      std::vector<data_t> data;
      std::vector<data_set_t> sets;
      action_info_t info{0};
      bool has_info = false;
      ~handles() {
        for (auto d : data) fn.amd_comgr_release_data(d);
        for (auto s : sets) fn.amd_comgr_destroy_data_set(s);
        if (has_info) fn.amd_comgr_destroy_action_info(info);
      }
    } h{fn, {}, {}};
    auto fail = [&](const char* step, status_t s, const std::string& detail = std::string()) {
      why = describe() + ": " + step + " failed: " + status(s) +
            (detail.empty() ? "" : ": " + detail);
      return std::vector<std::uint8_t>();
    };
    auto new_set = [&](data_set_t& s) {
      const status_t r = fn.amd_comgr_create_data_set(&s);
      if (r == status_success) h.sets.push_back(s);
      return r;
    };
    data_t input{0};
    data_set_t in{0}, reloc{0}, exe{0};
    status_t r = fn.amd_comgr_create_data(kind_bc, &input);
    if (r != status_success) return fail("amd_comgr_create_data", r);
    h.data.push_back(input);
    if ((r = fn.amd_comgr_set_data(input, ir.size(), reinterpret_cast<const char*>(ir.data()))) !=
        status_success)
      return fail("amd_comgr_set_data", r);
    if ((r = fn.amd_comgr_set_data_name(input, "kernel.ll")) != status_success)
      return fail("amd_comgr_set_data_name", r);
    if ((r = new_set(in)) != status_success || (r = new_set(reloc)) != status_success ||
        (r = new_set(exe)) != status_success)
      return fail("amd_comgr_create_data_set", r);
    if ((r = fn.amd_comgr_data_set_add(in, input)) != status_success)
      return fail("amd_comgr_data_set_add", r);
    if ((r = fn.amd_comgr_create_action_info(&h.info)) != status_success)
      return fail("amd_comgr_create_action_info", r);
    h.has_info = true;
    if ((r = fn.amd_comgr_action_info_set_isa_name(h.info, isa_name(arch).c_str())) !=
        status_success)
      return fail("setting the ISA", r, "comgr does not accept " + isa_name(arch));
    const char* options[] = {"-O3"};
    if ((r = fn.amd_comgr_action_info_set_option_list(h.info, options, 1)) != status_success)
      return fail("amd_comgr_action_info_set_option_list", r);
    if ((r = fn.amd_comgr_action_info_set_logging(h.info, true)) != status_success)
      return fail("amd_comgr_action_info_set_logging", r);
    if ((r = fn.amd_comgr_do_action(action_codegen_bc_to_relocatable, h.info, in, reloc)) !=
        status_success)
      return fail("code generation from the LLVM IR", r, first_error_line(reloc, h.data));
    if ((r = fn.amd_comgr_do_action(action_link_relocatable_to_executable, h.info, reloc, exe)) !=
        status_success)
      return fail("linking the code object", r, first_error_line(exe, h.data));
    std::vector<std::uint8_t> out = data_of(exe, kind_executable, h.data);
    if (out.empty()) why = describe() + ": the link produced no code object";
    return out;
  }

 private:
  // The bytes of the first datum of `kind` in `set` (empty if none); data handles go to `keep`
  // for release.
  std::vector<std::uint8_t> data_of(data_set_t set, data_kind kind,
                                    std::vector<data_t>& keep) const {
    std::size_t count = 0;
    if (fn.amd_comgr_action_data_count(set, kind, &count) != status_success || count == 0)
      return {};
    data_t d{0};
    if (fn.amd_comgr_action_data_get_data(set, kind, 0, &d) != status_success) return {};
    keep.push_back(d);
    std::size_t size = 0;
    if (fn.amd_comgr_get_data(d, &size, nullptr) != status_success || size == 0) return {};
    std::vector<std::uint8_t> bytes(size);
    if (fn.amd_comgr_get_data(d, &size, reinterpret_cast<char*>(bytes.data())) != status_success)
      return {};
    bytes.resize(size);
    return bytes;
  }

  // The first line of the action's log that says "error", else its first line ("" when none).
  std::string first_error_line(data_set_t set, std::vector<data_t>& keep) const {
    const std::vector<std::uint8_t> log = data_of(set, kind_log, keep);
    const std::string text(log.begin(), log.end());
    std::string first;
    std::size_t pos = 0;
    while (pos < text.size()) {
      std::size_t end = text.find('\n', pos);
      if (end == std::string::npos) end = text.size();
      const std::string line = text.substr(pos, end - pos);
      if (first.empty() && !line.empty()) first = line;
      // "/tmp/comgr-380e51/input/kernel.ll:7:71: error: ..." -> "kernel.ll:7:71: error: ..."
      const std::size_t input = line.find("kernel.ll:");
      if (line.find("error") != std::string::npos)
        return input == std::string::npos ? line : line.substr(input);
      pos = end + 1;
    }
    return first;
  }
};

}  // namespace comgr
TRITONPACK_END_NAMESPACE
