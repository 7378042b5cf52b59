// tritonpack/pack/artifact_check.hpp — what an artifact says about itself: the GPU target in a
// cubin's or code object's ELF header, the `.version` / `.target` / entries of a PTX module, the
// triple and kernels of an LLVM IR module. `tritonpack pack` compares these with the manifest's
// labels so a mislabelled file is refused before it is shipped to a GPU that cannot run it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tritonpack::pack {

constexpr std::uint16_t em_cuda = 190;    // EM_CUDA
constexpr std::uint16_t em_amdgpu = 224;  // EM_AMDGPU

// The target an ELF GPU binary was built for, decoded from its header.
struct elf_target {
  std::uint16_t machine = 0;  // e_machine
  std::uint8_t abi_version = 0;
  std::uint32_t flags = 0;  // e_flags
  // CUDA: SM number (90) and whether it is an arch-specific ("a") build.
  unsigned sm = 0;
  bool arch_specific = false;
  // AMD: processor ("gfx942"; empty when the EF_AMDGPU_MACH value is unknown) and the 4-state
  // features as LLVM encodes them: 0 unsupported, 1 any, 2 off, 3 on.
  std::string processor;
  unsigned xnack = 0, sramecc = 0;
  std::vector<std::string> symbols;  // names of FUNC / OBJECT symbols (kernels, `.kd` descriptors)

  // "sm_90a", "gfx90a:xnack-" (features only when on/off), as the manifest writes labels.
  std::string arch() const;
};

// Decodes `bytes` as a 64-bit little-endian ELF for EM_CUDA or EM_AMDGPU. Throws
// tritonpack::error(bad_argument) saying what is wrong when it is not one, or when its structure
// is not whole: header fields, the program and section header tables, every segment and section
// (but SHT_NOBITS) within the file, e_shstrndx, the symbol tables and their string tables.
elf_target read_elf_target(const std::vector<std::uint8_t>& bytes);

// Empty when `label` (a manifest `arch`) describes `t`; otherwise why not.
std::string elf_label_mismatch(const elf_target& t, std::string_view label);

struct ptx_module {
  unsigned version_major = 0, version_minor = 0;  // .version 8.7
  std::string target;                             // first word after .target: "sm_90a"
  struct entry {
    std::string name;
    unsigned params = 0;  // number of .param declarations
  };
  std::vector<entry> entries;
};

// Reads the directives of a PTX module. Throws error(bad_argument) if `.version` or `.target`
// is missing or malformed, or if the text is not complete: a block (`.entry` / `.func` body, a
// debug `.section`) left open, a '}' closing nothing, no body at all, or anything but whitespace
// and comments after the last top-level '}'.
ptx_module read_ptx(std::string_view text);

struct llir_module {
  std::string triple;                // target triple = "amdgcn-amd-amdhsa"
  std::vector<std::string> kernels;  // define amdgpu_kernel ... @name(
};
// Throws error(bad_argument) if the text is cut short: its last line unfinished, or a `define`
// body not closed by a '}' line.
llir_module read_llir(std::string_view text);

}  // namespace tritonpack::pack
