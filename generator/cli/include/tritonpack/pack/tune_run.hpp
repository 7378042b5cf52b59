// tritonpack/pack/tune_run.hpp — `tritonpack tune`: times every config of a container's tuned
// kernels on this GPU over the problems of a sizes file and writes the tuning table that
// `tritonpack pack --tuning` embeds (generator/cli/README.md, docs/runtime.md "Choosing a config").
//
// The GPU work is the run time's own: the container is opened as a tritonpack::library (the
// driver dlopen'ed on first use), the specialisation group is the one kernel::pick_variant picks
// for the problem's values, buffers come from the memory API, and the configs are timed by
// autotune::detail::time_configs — the same interleaved rounds, L2 flush, events and medians as
// tuning on first use — so the table says what a program would measure itself.
#pragma once

#include <cstdint>
#include <filesystem>
#include <iosfwd>
#include <string>
#include <vector>

#include "tritonpack/pack/tune_sizes.hpp"

namespace tritonpack::pack {

struct tune_options {
  std::filesystem::path table;  // -o: written after every problem (tmp + rename)
  int device = 0;               // --device
  bool fresh = false;           // --fresh: re-time problems whose rows the table already has
  bool arch_rows = false;       // --arch-rows: also a row per arch ("sm_90") for other GPUs of it
  double budget_ms = 200.0;     // --budget-ms: timed rounds per problem fill about this long
  int min_rounds = 5;           // --rounds N sets both: exactly N rounds
  int max_rounds = 50;
  std::uint64_t seed = 1;  // of the random inputs
};

struct tune_summary {
  std::size_t problems = 0;  // in the sizes file (after --kernel)
  std::size_t tuned = 0;     // timed now
  std::size_t skipped =
      0;  // rows already in the table (resume), or a bucket timed earlier in this run
  std::size_t failed = 0;  // no config could run
};

// Runs the problems of `requests` on the container `bytes` (which must outlive the call) and
// writes `opt.table`. `progress` gets one line per problem; `live` draws a progress bar there
// too (a terminal). Throws error(no_driver / no_device) with "tune needs a GPU" when
// there is none, error(bad_argument) for a table that cannot be resumed (never overwritten).
tune_summary run_tune(const std::vector<std::uint8_t>& bytes,
                      const std::vector<tune_request>& requests, const tune_options& opt,
                      std::ostream& progress, bool live);

// Checks that the table at `path` (if it exists) can be resumed for the container `info`: valid
// as `pack --tuning` reads it. Throws error(bad_argument) naming the problem otherwise.
void check_resumable_table(const container_info& info, const std::filesystem::path& path);

}  // namespace tritonpack::pack
