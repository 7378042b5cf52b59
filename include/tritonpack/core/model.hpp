// tritonpack/core/model.hpp — what a container says, as plain C++ values.
//
// This is the in-memory form shared by every stage after the manifest: the packer builds it from
// manifest.json and serialises it (docs/format.md), the container reader parses bytes back into it
// after validating them, the run time selects and launches from it, and `tritonpack inspect`
// prints it. It holds no image bytes: those stay compressed in the container until a kernel is
// loaded (container/reader.hpp decodes one image on demand).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "tritonpack/version.hpp"

TRITONPACK_BEGIN_NAMESPACE

enum class backend_kind : std::uint8_t { cuda = 1, hip = 2 };

enum class image_kind : std::uint8_t {
  cubin = 1,  // NVIDIA ELF, runs on one compute capability (or same major, higher minor)
  ptx = 2,    // NVIDIA IR, JIT-compiled by the driver
  hsaco = 3,  // AMD code object (ELF), runs on one gfx target
  llir = 4,   // LLVM IR text (AMD IR path: compiled through comgr where comgr can, hip/ir_jit.hpp)
};

inline const char* backend_name(backend_kind b) noexcept {
  return b == backend_kind::cuda ? "cuda" : b == backend_kind::hip ? "hip" : "unknown";
}

inline const char* image_kind_name(image_kind k) noexcept {
  switch (k) {
    case image_kind::cubin: return "cubin";
    case image_kind::ptx: return "ptx";
    case image_kind::hsaco: return "hsaco";
    case image_kind::llir: return "llir";
  }
  return "unknown";
}

inline bool is_binary(image_kind k) noexcept {
  return k == image_kind::cubin || k == image_kind::hsaco;
}

// One run-time argument of a kernel's C++ function, in the Python declaration order.
// Arguments that are constexpr in every variant are not listed here (they live in the configs).
struct kernel_arg {
  std::string name;
  // Triton type string after specialization: "*fp32", "*fp16", "i32", "i64", "u1", "fp32",
  // "bf16", "tensordesc<fp16[64,64]>". Pointer element types are kept for the typed C++ API.
  std::string type;
  bool is_const = false;  // pointer the kernel never writes through: the typed API takes `const T*`
};

// How one variant specialised one kernel_arg; the same predicates Triton's JIT uses.
enum class spec_kind : std::uint8_t {
  none = 0,             // passed as is
  divisible_16 = 1,     // pointer: address % 16 == 0; integer: value % 16 == 0 (`:16`)
  equal_1 = 2,          // integer == 1, folded into the kernel and not passed (`:1`)
  constexpr_value = 3,  // equals `value` (a bare number in the signature), folded and not passed
};

struct arg_spec {
  spec_kind kind = spec_kind::none;
  std::string value;  // for constexpr_value: the literal, as written in the signature
};

struct kernel_config {
  std::uint32_t num_warps = 4;
  std::uint32_t num_stages = 3;
  std::uint32_t num_ctas = 1;
  // constexpr parameters of the config, name → literal ("BLOCK" → "1024", "DTYPE" → "tl.float16")
  std::vector<std::pair<std::string, std::string>> constexprs;
};

// CUDA host-side tensor descriptor (TMA) metadata, one per descriptor argument that Triton lowered
// to a CUtensorMap (see docs/triton-abi.md §5).
struct tensordesc_meta {
  std::uint32_t swizzle = 0;
  std::uint32_t elem_size = 0;
  std::uint32_t elem_type = 0;
  std::vector<std::uint32_t> block_size;
  bool fp4_padded = false;
};

// Launch facts from Triton's metadata JSON for one compiled image.
struct launch_info {
  std::string entry;  // metadata "name": the symbol to look up in the module
  std::uint32_t num_warps = 4;
  std::uint32_t warp_size = 32;
  std::uint32_t shared = 0;  // dynamic shared memory bytes
  std::uint32_t num_ctas = 1;
  std::uint32_t tmem_size = 0;
  std::uint64_t global_scratch_size = 0;
  std::uint32_t global_scratch_align = 1;
  std::uint64_t profile_scratch_size = 0;
  std::uint32_t profile_scratch_align = 1;
  bool launch_cooperative_grid = false;
  bool launch_pdl = false;
  std::vector<tensordesc_meta> tensordesc;  // empty when descriptors are passed decomposed
  std::string triton_version;
};

struct image_info {
  backend_kind backend = backend_kind::cuda;
  image_kind kind = image_kind::cubin;
  std::string arch;               // "sm_90a", "sm_80", "gfx942", "gfx90a:xnack-"
  std::uint32_t ptx_version = 0;  // PTX ISA as major*10+minor (8.7 → 87); 0 when not PTX
  std::uint64_t raw_size = 0;     // bytes after decompression
  std::uint64_t stored_size = 0;  // bytes this image occupies in the container (compressed)
  std::uint64_t checksum = 0;     // of the raw bytes (algorithm in docs/format.md)
  // What produced the code: a cubin's ptxas version ("12.8.93"), an hsaco's LLVM ("22.0.0
  // (f6ded0be...)", or the revision of Triton 3.9's AMD code generator). Empty: not recorded
  // (always for IR, and for containers before format v3).
  std::string tool_version;
  launch_info launch;
};

struct variant_info {
  std::vector<arg_spec> specs;  // one per kernel_info::args entry, same order
  kernel_config config;
  std::vector<std::uint32_t> images;  // indices into container_info::images
};

// Tuning (container v2, docs/spec.md "Tuning"): which arguments choose among a kernel's configs,
// what trial runs must protect, and an optional packed table of measured choices.
enum class tune_role : std::uint8_t {
  key = 1,            // an integer argument whose (bucketed) value selects a config
  reset_to_zero = 2,  // a buffer zeroed before every trial run and before the real launch
  restore = 3,        // a buffer saved before trials and copied back after every trial run
};
enum class bucket_rule : std::uint8_t {
  exact = 0,  // every value is its own bucket
  pow2 = 1,  // values round up to the next power of two (1, 2, 4, ...); values below 1 stay as they
             // are
};

struct tune_arg {
  std::uint32_t arg = 0;  // index into kernel_info::args
  tune_role role = tune_role::key;
  bucket_rule bucket = bucket_rule::pow2;  // keys only
  std::string
      bytes;  // protected buffers: byte size, an expression over integer args (grid grammar)
};

// One row of a packed tuning table: on `device`, for key bucket `bucket`, config `config` won.
struct tune_entry {
  std::string device;                   // GPU name ("NVIDIA H200") or arch ("sm_90")
  std::vector<std::int64_t> bucket;     // one per key arg, in tune_args order
  std::uint32_t config = 0;             // index within the specialisation's configs
  std::vector<std::uint64_t> times_ns;  // per config, median; ~0 = not measured or failed
};

struct kernel_tuning {
  // Variants come in groups of one specialisation × config_count configs (docs/spec.md): config c
  // of the group starting at variant v is variant v + c. 1 = nothing to choose.
  std::uint32_t config_count = 1;
  bool on_first_use = false;  // tune on this GPU at the first call of a new key bucket
  std::vector<tune_arg> args;
  std::vector<tune_entry> table;
  std::size_t key_count() const {
    std::size_t n = 0;
    for (const tune_arg& a : args) n += a.role == tune_role::key;
    return n;
  }
};

struct kernel_info {
  std::string name;    // C++ function name (usually the Python function name)
  std::string source;  // "kernels.py:vector_add", informational
  std::vector<kernel_arg> args;
  // Grid in programs, expressions over argument and constexpr names ("cdiv(n, BLOCK)", "1").
  // All three empty: the caller passes the grid.
  std::array<std::string, 3> grid;
  std::vector<variant_info> variants;  // most specialised first (the order dispatch tries them)
  kernel_tuning tuning;                // v1 containers: config_count 1, nothing else
};

// "scale(*fp32, *fp32, i32, fp32)": a kernel's name and argument types. A generated header records
// it for each kernel, and the run time compares it with the kernel it finds at that index
// (library::at(index, signature, checksum)), so one function spells it for both.
inline std::string kernel_signature(const kernel_info& k) {
  std::string s = k.name + "(";
  for (std::size_t i = 0; i < k.args.size(); ++i) s += (i ? ", " : "") + k.args[i].type;
  return s + ")";
}

struct container_info {
  std::uint32_t format_version = 4;
  std::string name;  // library name (the generated header's namespace)
  std::string triton_version;
  std::string
      triton_commit;  // the Triton git commit where its installation recorded one, else empty
  std::vector<kernel_info> kernels;
  std::vector<image_info> images;
};

TRITONPACK_END_NAMESPACE
