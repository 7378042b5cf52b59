// fake_comgr.cpp — a test-double libamd_comgr for the success path of the AMD IR JIT
// (include/tritonpack/hip/ir_jit.hpp), which no real comgr on our machines reaches: Debian's
// comgr 2.4 cannot read Triton 3.6's LLVM 22 IR (tests/runtime/test_hip_ir_jit.cpp shows it).
//
// "Compiling" IR for an ISA returns the code object Triton built from that same IR for that
// processor: the .hsaco beside the byte-identical .llir under $TP_FAKE_COMGR_ARTIFACTS (the
// fixtures: <kernel>/v<N>/hip_<gfx>.llir and .hsaco). IR found nowhere, or for another processor,
// fails as a real parse error would, with a log. The ISA list is gfx90a and gfx942; the version
// 3.0. tpfakecomgr_compile_count() counts successful code generations (tests check the JIT cache
// spares them).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <string>
#include <vector>

namespace {
struct datum {
  int kind = 0;
  std::string bytes, name;
};
struct action_info {
  std::string isa;
};
std::map<std::uint64_t, datum> data;
std::map<std::uint64_t, std::vector<std::uint64_t>> sets;
std::map<std::uint64_t, action_info> infos;
std::uint64_t next_handle = 1;
std::size_t compiles = 0;
const char* isas[] = {"amdgcn-amd-amdhsa--gfx90a", "amdgcn-amd-amdhsa--gfx942"};

std::string slurp(const std::filesystem::path& p) {
  std::ifstream f(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f), {});
}
std::uint64_t add_datum(int kind, std::string bytes) {
  const std::uint64_t h = next_handle++;
  data[h] = datum{kind, std::move(bytes), ""};
  return h;
}
// The fixture code object built from `ir` for `processor`, or "" with `log` saying why not.
std::string code_object_for(const std::string& ir, const std::string& processor, std::string& log) {
  const char* root = std::getenv("TP_FAKE_COMGR_ARTIFACTS");
  if (!root) {
    log = "fake comgr: TP_FAKE_COMGR_ARTIFACTS is not set\n";
    return "";
  }
  // Triton's IR names no target CPU, so one kernel's IR may be byte-identical for two processors:
  // the file of this processor first, then any other (the IR was written for another target).
  std::string other;
  for (const auto& e : std::filesystem::recursive_directory_iterator(root)) {
    if (e.path().extension() != ".llir" || slurp(e.path()) != ir) continue;
    if (e.path().stem() == "hip_" + processor) {
      auto hsaco = e.path();
      hsaco.replace_extension(".hsaco");
      return slurp(hsaco);
    }
    other = e.path().stem().string().substr(4);
  }
  if (!other.empty()) {
    log = "kernel.ll:1:1: error: fake comgr: this IR was written for " + other + ", not " + processor + "\n";
    return "";
  }
  log = "kernel.ll:1:1: error: fake comgr: IR unknown to the double\n";
  return "";
}
}  // namespace

extern "C" {
struct handle {
  std::uint64_t h;
};
int amd_comgr_get_version(std::size_t* major, std::size_t* minor) {
  *major = 3;
  *minor = 0;
  return 0;
}
int amd_comgr_status_string(int s, const char** text) {
  static const char* names[] = {"SUCCESS", "ERROR", "INVALID_ARGUMENT", "OUT_OF_RESOURCES"};
  if (s < 0 || s > 3) return 2;
  *text = names[s];
  return 0;
}
int amd_comgr_get_isa_count(std::size_t* n) {
  *n = sizeof isas / sizeof isas[0];
  return 0;
}
int amd_comgr_get_isa_name(std::size_t i, const char** name) {
  if (i >= sizeof isas / sizeof isas[0]) return 2;
  *name = isas[i];
  return 0;
}
int amd_comgr_create_data(int kind, handle* d) {
  d->h = add_datum(kind, "");
  return 0;
}
int amd_comgr_release_data(handle d) { return data.erase(d.h) ? 0 : 2; }
int amd_comgr_set_data(handle d, std::size_t size, const char* bytes) {
  if (!data.count(d.h)) return 2;
  data[d.h].bytes.assign(bytes, size);
  return 0;
}
int amd_comgr_set_data_name(handle d, const char* name) {
  if (!data.count(d.h)) return 2;
  data[d.h].name = name;
  return 0;
}
int amd_comgr_get_data(handle d, std::size_t* size, char* bytes) {
  if (!data.count(d.h)) return 2;
  const std::string& b = data[d.h].bytes;
  if (bytes) std::memcpy(bytes, b.data(), *size < b.size() ? *size : b.size());
  *size = b.size();
  return 0;
}
int amd_comgr_create_data_set(handle* s) {
  s->h = next_handle++;
  sets[s->h];
  return 0;
}
int amd_comgr_destroy_data_set(handle s) { return sets.erase(s.h) ? 0 : 2; }
int amd_comgr_data_set_add(handle s, handle d) {
  if (!sets.count(s.h) || !data.count(d.h)) return 2;
  sets[s.h].push_back(d.h);
  return 0;
}
int amd_comgr_action_data_count(handle s, int kind, std::size_t* n) {
  if (!sets.count(s.h)) return 2;
  *n = 0;
  for (auto h : sets[s.h]) *n += data.count(h) && data[h].kind == kind;
  return 0;
}
int amd_comgr_action_data_get_data(handle s, int kind, std::size_t i, handle* d) {
  if (!sets.count(s.h)) return 2;
  for (auto h : sets[s.h])
    if (data.count(h) && data[h].kind == kind && i-- == 0) {
      d->h = add_datum(kind, data[h].bytes);  // a new reference, released by the caller, as comgr's
      return 0;
    }
  return 2;
}
int amd_comgr_create_action_info(handle* a) {
  a->h = next_handle++;
  infos[a->h];
  return 0;
}
int amd_comgr_destroy_action_info(handle a) { return infos.erase(a.h) ? 0 : 2; }
int amd_comgr_action_info_set_isa_name(handle a, const char* isa) {
  if (!infos.count(a.h)) return 2;
  infos[a.h].isa = isa;
  const std::string processor = std::string(isa).substr(0, std::string(isa).find(':'));
  for (const char* known : isas)
    if (processor == known) return 0;
  return 2;
}
int amd_comgr_action_info_set_option_list(handle a, const char**, std::size_t) { return infos.count(a.h) ? 0 : 2; }
int amd_comgr_action_info_set_logging(handle a, bool) { return infos.count(a.h) ? 0 : 2; }
int amd_comgr_do_action(int kind, handle a, handle in, handle out) {
  if (!infos.count(a.h) || !sets.count(in.h) || !sets.count(out.h)) return 2;
  const std::string isa = infos[a.h].isa;
  const std::string target = isa.substr(std::strlen("amdgcn-amd-amdhsa--"));  // "gfx90a:sramecc+:xnack-"
  const std::string processor = target.substr(0, target.find(':'));
  std::vector<std::uint64_t> inputs = sets[in.h];
  if (kind == 0x6) {  // codegen: BC -> relocatable
    for (auto h : inputs) {
      if (!data.count(h) || data[h].kind != 0x6) continue;
      std::string log;
      std::string code = code_object_for(data[h].bytes, processor, log);
      if (code.empty()) {
        sets[out.h].push_back(add_datum(0x5, log));
        return 1;
      }
      ++compiles;
      sets[out.h].push_back(add_datum(0x7, code));
      return 0;
    }
    return 2;
  }
  if (kind == 0x9) {  // link: relocatable -> executable (the fixture is already linked)
    for (auto h : inputs)
      if (data.count(h) && data[h].kind == 0x7) {
        sets[out.h].push_back(add_datum(0x8, data[h].bytes));
        return 0;
      }
    return 2;
  }
  return 2;
}
std::size_t tpfakecomgr_compile_count() { return compiles; }
}
