// options.hpp — the command line: the reference's options (-s -i -r -b -c -p -q -h) and this
// example's own (--timing, --no-fp-fusion, --require-gpu, --host-step, --status-every, --no-graph,
// --no-fused-nodes, --no-fused-q-eos).
#pragma once

#include <cerrno>
#include <climits>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>

namespace lulesh {

struct options {
  std::int32_t its = 9999999;  // -i: at most this many cycles (default: run to completion)
  std::int32_t nx = 30;        // -s: elements along a side
  std::int32_t num_reg = 11;   // -r: regions
  std::int32_t balance = 1;    // -b: region weights grow as (region number)^balance
  std::int32_t cost = 1;       // -c: extra EOS evaluations of the expensive regions
  bool show_progress = false;  // -p
  bool quiet = false;          // -q
  bool help = false;           // -h
  bool timing = false;         // --timing: per-kernel times (synchronises after every launch)
  // FMA contraction in the heavy kernels is the default too (issue 32: with the fused kernels it
  // reproduces the published table and every cycle's time and dt at s = 5-45 from cubins and PTX, and
  // LLNL's CPU reference at s = 90; 4-5 % faster); --no-fp-fusion rounds as the reference's x86 build.
  bool fp_fusion = true;
  bool fp_fusion_given = false;  // --fp-fusion or --no-fp-fusion on the command line
  bool require_gpu = false;    // --require-gpu: no GPU is an error, not an explanation
  bool host_step = false;      // --host-step: TimeIncrement on the host, the status read every cycle
  std::int32_t status_every = 16;  // --status-every K: the device-resident loop reads the status every K cycles
  bool graph = true;           // --no-graph: the device-resident cycle launched kernel by kernel
  // The fused kernels are the default (issue 32: the same results bit for bit as the unfused ones,
  // checked line for line on the H200 at s = 5-90, and 5-23 % faster per cycle); --no-fused-nodes and
  // --no-fused-q-eos run the kernels apart, as the reference's loops are. A --dump-cycle run needs
  // them apart and gets them so, unless a fused kernel was asked for by name.
  bool fused_nodes = true;     // the node loops as one kernel (advance_nodes)
  bool fused_q_eos = true;     // monotonic_q + material_eos as one kernel
  bool fused_nodes_given = false;  // --fused-nodes on the command line
  bool fused_q_eos_given = false;  // --fused-q-eos on the command line
  bool iterations_given = false;
  std::string reference_progress;  // --reference-progress FILE: lulesh2.0 -p output to compare with
  std::int32_t dump_cycle = 0;     // --dump-cycle K: write the state before and after cycle K ...
  std::string dump_dir = "lulesh-dump";  // --dump-dir DIR: ... here
};

// --status-every's limit: the GPU keeps (time, dt) of every cycle between two reads (16 bytes each).
constexpr std::int32_t max_status_every = 65536;

inline const char* usage_text() {
  return "Usage: lulesh [opts]\n"
         " where [opts] is one or more of:\n"
         " -q              : quiet mode - suppress all stdout\n"
         " -i <iterations> : number of cycles to run\n"
         " -s <size>       : length of cube mesh along side\n"
         " -r <numregions> : Number of distinct regions (def: 11)\n"
         " -b <balance>    : Load balance between regions of a domain (def: 1)\n"
         " -c <cost>       : Extra cost of more expensive regions (def: 1)\n"
         " -p              : Print out progress\n"
         " -h              : This message\n"
         " and this GPU port's own:\n"
         " --timing        : time every kernel (host clock, one synchronisation per launch)\n"
         " --no-fp-fusion  : run the heavy kernels compiled without FMA contraction, rounding as the\n"
         "                   reference's x86 build does (by default they contract: the same verified\n"
         "                   results, see README; --fp-fusion names the default)\n"
         " --require-gpu   : fail (exit 1) when no GPU can be used, instead of explaining why\n"
         " --host-step     : TimeIncrement on the host and the status read after every cycle (the\n"
         "                   default keeps the time step on the GPU: see --status-every)\n"
         " --status-every <k> : the host reads the GPU's status every k cycles (default 16); cycles\n"
         "                   queued past the end do nothing\n"
         " --no-graph      : launch the device-resident cycle kernel by kernel instead of replaying\n"
         "                   it as a CUDA graph (also so with --timing, and where graphs are unavailable)\n"
         " --no-fused-nodes : run the four node loops (forces, accelerations, symmetry planes,\n"
         "                   velocities and positions) as four kernels, as the reference does; by\n"
         "                   default they are one kernel, with the same results bit for bit\n"
         " --no-fused-q-eos : run the monotonic Q and the EOS as two kernels; by default they are one,\n"
         "                   with the same results bit for bit (with --fp-fusion the Q terms are\n"
         "                   contracted too)\n"
         " --fused-nodes, --fused-q-eos : the defaults, by name (an error with --dump-cycle)\n"
         " --reference-progress <file> : compare time and dt of every cycle with lulesh2.0 -p output\n"
         "                   (default for -s 5, 10, 30, 45: the copy in the source tree, if present)\n"
         " --dump-cycle <k> : write the GPU state before and after cycle k to --dump-dir (default\n"
         "                   lulesh-dump), for interpret_check.py --replay to compare field by field\n"
         "                   (runs the host-stepped loop, the kernels apart and, unless --fp-fusion is\n"
         "                   given, without FMA)\n";
}

// Thrown for a command line that cannot be run; the message says what to change.
struct usage_error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

inline std::int32_t parse_int(const char* option, const char* text, std::int32_t min_value) {
  if (text == nullptr) throw usage_error(std::string("missing integer argument to ") + option);
  char* end = nullptr;
  errno = 0;
  const long value = std::strtol(text, &end, 10);
  if (end == text || *end != '\0' || errno == ERANGE || value > INT32_MAX || value < INT32_MIN)
    throw usage_error(std::string(option) + " needs an integer, got `" + text + "`");
  if (value < min_value)
    throw usage_error(std::string(option) + " must be at least " + std::to_string(min_value) + ", got " + text);
  return static_cast<std::int32_t>(value);
}

inline options parse_options(int argc, char** argv) {
  options o;
  for (int i = 1; i < argc; ++i) {
    const char* a = argv[i];
    const char* next = i + 1 < argc ? argv[i + 1] : nullptr;
    if (std::strcmp(a, "-i") == 0) o.its = parse_int(a, next, 0), o.iterations_given = true, ++i;
    else if (std::strcmp(a, "-s") == 0) o.nx = parse_int(a, next, 1), ++i;
    else if (std::strcmp(a, "-r") == 0) o.num_reg = parse_int(a, next, 1), ++i;
    else if (std::strcmp(a, "-b") == 0) o.balance = parse_int(a, next, 0), ++i;
    else if (std::strcmp(a, "-c") == 0) o.cost = parse_int(a, next, 0), ++i;
    else if (std::strcmp(a, "-p") == 0) o.show_progress = true;
    else if (std::strcmp(a, "-q") == 0) o.quiet = true;
    else if (std::strcmp(a, "-h") == 0 || std::strcmp(a, "--help") == 0) o.help = true;
    else if (std::strcmp(a, "--timing") == 0) o.timing = true;
    else if (std::strcmp(a, "--fp-fusion") == 0) o.fp_fusion = o.fp_fusion_given = true;
    else if (std::strcmp(a, "--no-fp-fusion") == 0) o.fp_fusion = false, o.fp_fusion_given = true;
    else if (std::strcmp(a, "--require-gpu") == 0) o.require_gpu = true;
    else if (std::strcmp(a, "--host-step") == 0) o.host_step = true;
    else if (std::strcmp(a, "--status-every") == 0) {
      o.status_every = parse_int(a, next, 1), ++i;
      if (o.status_every > max_status_every)
        throw usage_error("--status-every must be at most " + std::to_string(max_status_every) +
                          " (the GPU keeps every cycle's time and dt until the host reads them), got " + next);
    }
    else if (std::strcmp(a, "--no-graph") == 0) o.graph = false;
    else if (std::strcmp(a, "--fused-nodes") == 0) o.fused_nodes = o.fused_nodes_given = true;
    else if (std::strcmp(a, "--fused-q-eos") == 0) o.fused_q_eos = o.fused_q_eos_given = true;
    else if (std::strcmp(a, "--no-fused-nodes") == 0) o.fused_nodes = o.fused_nodes_given = false;
    else if (std::strcmp(a, "--no-fused-q-eos") == 0) o.fused_q_eos = o.fused_q_eos_given = false;
    else if (std::strcmp(a, "--dump-cycle") == 0) o.dump_cycle = parse_int(a, next, 1), ++i;
    else if (std::strcmp(a, "--dump-dir") == 0) {
      if (next == nullptr) throw usage_error("missing directory argument to --dump-dir");
      o.dump_dir = next;
      ++i;
    }
    else if (std::strcmp(a, "--reference-progress") == 0) {
      if (next == nullptr) throw usage_error("missing file argument to --reference-progress");
      o.reference_progress = next;
      ++i;
    }
    else if (std::strcmp(a, "-f") == 0 || std::strcmp(a, "-v") == 0)
      throw usage_error(std::string(a) + " (visualisation files) is not supported by this port");
    else throw usage_error(std::string("unknown command line argument: ") + a);
  }
  if (o.fused_nodes_given && o.dump_cycle > 0)
    throw usage_error("--fused-nodes keeps the node forces and accelerations in registers, so a --dump-cycle "
                      "state has no f* or *dd for interpret_check.py --replay to compare: leave one of them out");
  if (o.fused_q_eos_given && o.dump_cycle > 0)
    throw usage_error("--fused-q-eos keeps the Q terms in registers, so a --dump-cycle state has no ql or qq for "
                      "interpret_check.py --replay to compare: leave one of them out");
  // A state dump compares the fields the unfused kernels write, with the interpreter's rounding: the
  // fused and FMA defaults step aside (FMA stays if asked for by name).
  if (o.dump_cycle > 0) o.fused_nodes = o.fused_q_eos = false;
  if (o.dump_cycle > 0 && !o.fp_fusion_given) o.fp_fusion = false;
  return o;
}

}  // namespace lulesh
