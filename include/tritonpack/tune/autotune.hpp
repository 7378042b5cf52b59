// tritonpack/tune/autotune.hpp — which config a launch of a tuned kernel runs (docs/runtime.md
// "Choosing a config"), and on-device tuning on first use.
//
// A kernel with several configs per specialisation (kernel_tuning::config_count > 1) is launched
// by its generated function through launch_tuned(): the function passes its key values, its
// protected buffers and a callback that launches config c with that config's grid. Per launch:
//   1. this thread's last choice for the same kernel, context, group and key values (a few
//      compares: the steady-state cost);
//   2. the process's memo of earlier choices (kernel, context, group, key bucket);
//   3. a result tuned on this very GPU and persisted (per-user cache dir, keyed by GPU name, arch,
//      driver, container, kernel, group and bucket);
//   4. the packed table's row for this GPU's name and this bucket;
//   5. tuning now, when allowed (TRITONPACK_AUTOTUNE=1, or the kernel's `tune.on_first_use` and
//      TRITONPACK_AUTOTUNE not 0) and the stream is not being captured;
//   6. the packed table's nearest row (this GPU's name, else its arch; nearest bucket);
//   7. config 0 (the first config of the spec or of @triton.autotune).
// TRITONPACK_AUTOTUNE=0 is read-only: persisted results and tables are used, nothing is timed, so
// every MPI rank reading one cache directory and one container chooses alike.
//
// Many processes on one node: the first to need an entry takes an exclusive flock on
// `<entry>.lock` (tune/entry_lock.hpp) and tunes; the others wait for that lock, then read the
// result it wrote, so every rank launches the same config from its first call (no rank benchmarks
// an entry another has finished). The wait is bounded (TRITONPACK_TUNE_LOCK_WAIT_MS): past it, or
// when the lock file is not this user's own, the launch goes on untuned and stderr says who holds
// the lock. Where flock does not work (some network file systems) several processes may tune one
// entry; the atomic rename keeps every file whole and the last one wins.
#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "tritonpack/core/env.hpp"
#include "tritonpack/core/error.hpp"
#include "tritonpack/core/identify.hpp"
#include "tritonpack/core/log.hpp"
#include "tritonpack/launch/config_launcher.hpp"
#include "tritonpack/launch/grid.hpp"
#include "tritonpack/runtime/jit_cache.hpp"
#include "tritonpack/runtime/kernel.hpp"
#include "tritonpack/runtime/memory.hpp"
#include "tritonpack/tune/entry_lock.hpp"
#include "tritonpack/tune/tuning.hpp"
#include "tritonpack/version.hpp"

TRITONPACK_BEGIN_NAMESPACE

namespace autotune {

constexpr const char* env_mode = "TRITONPACK_AUTOTUNE";  // 1: tune every tuned kernel; 0: read-only
constexpr const char* env_budget =
    "TRITONPACK_TUNE_BUDGET_MS";  // time for one entry's trials (default 1000)

// Counts for tests and benchmarks: how much tuning this process did.
struct counters {
  std::atomic<std::uint64_t> tunings{0};         // entries tuned by this process
  std::atomic<std::uint64_t> trial_launches{0};  // launches made while tuning (warm-ups included)
  std::atomic<std::uint64_t> decisions{0};       // slow-path decisions (memo misses)
};
inline counters& stats() {
  static counters c;
  return c;
}

// -1 read-only (TRITONPACK_AUTOTUNE=0), 1 always (=1), 0 as each kernel's spec says (unset).
inline int mode() {
  const std::string raw = env::get(env_mode), v = env::lower(raw);
  if (v.empty()) return 0;
  if (v == "1" || v == "true" || v == "yes" || v == "on") return 1;
  if (v == "0" || v == "false" || v == "no" || v == "off") return -1;
  env::warn_unrecognised(env_mode, raw, "1 (tune on first use) or 0 (read-only)",
                         "tuning as each kernel's spec says");
  return 0;
}

inline double budget_ms() {
  const std::string v = env::get(env_budget);
  if (v.empty()) return 1000.0;
  char* end = nullptr;
  const double ms = std::strtod(v.c_str(), &end);
  if (*end != '\0' || !(ms > 0)) {
    env::warn_unrecognised(env_budget, v, "a positive number of milliseconds", "using 1000");
    return 1000.0;
  }
  return ms;
}

// How many timed rounds a tuning run makes: as many as `budget_ms` allows after a first run of
// every config, clamped to min_rounds..max_rounds. On first use from TRITONPACK_TUNE_BUDGET_MS
// (3..25 rounds); `tritonpack tune` passes its --budget-ms and --rounds.
struct trial_plan {
  double budget_ms = 1000.0;
  int min_rounds = 3;
  int max_rounds = 25;
  static trial_plan from_env() {
    trial_plan p;
    p.budget_ms = autotune::budget_ms();
    return p;
  }
};

// "BLOCK_M=128, BLOCK_N=64, num_warps 4, num_stages 3": how logs name config c of a group.
inline std::string config_text(const kernel_info& k, std::size_t variant) {
  return tuning::config_text(k.variants.at(variant).config);
}

namespace detail {

struct memo_key {
  const void* kernel;
  const void* slot;
  std::size_t group;
  std::vector<std::int64_t> bucket;
  bool operator<(const memo_key& o) const {
    return std::tie(kernel, slot, group, bucket) < std::tie(o.kernel, o.slot, o.group, o.bucket);
  }
};
inline std::mutex& memo_mutex() {
  static std::mutex m;
  return m;
}
inline std::map<memo_key, std::uint32_t>& memo() {
  static std::map<memo_key, std::uint32_t> m;
  return m;
}
// Bumped by forget_choices(): every thread's last-call cache is stale from then on.
inline std::atomic<unsigned>& generation() {
  static std::atomic<unsigned> g{1};
  return g;
}

// The buffers a kernel declared (reset_to_zero / restore) with the sizes of this call.
struct protected_buffer {
  tune_role role;
  void* ptr;
  std::size_t bytes;
  void* saved = nullptr;  // restore: the copy taken before the trials
};

// Puts the declared buffers back as the caller left them: restore copies back, reset zeroes.
inline void put_back(device_ops& ops, const std::vector<protected_buffer>& bufs, stream_t stream) {
  for (const protected_buffer& b : bufs) {
    if (b.bytes == 0) continue;
    if (b.role == tune_role::reset_to_zero) ops.fill_async(b.ptr, 0, b.bytes, stream);
    else ops.copy_async(b.ptr, b.saved, b.bytes, stream);
  }
}

// Times every config of the group on `stream` (interleaved rounds, L2 flushed before each run,
// one event pair per run, median per config; `plan` says how many rounds) and returns the
// per-config medians in ns (tuning::not_measured for a config that cannot run). The
// declared buffers are put back before every run and after the last one.
inline std::vector<std::uint64_t> time_configs(const kernel_info& k, std::size_t group_first,
                                               std::uint32_t configs,
                                               std::vector<protected_buffer>& bufs, stream_t stream,
                                               const config_launcher& run,
                                               const trial_plan& plan = trial_plan::from_env()) {
  device_ops& ops = tritonpack::detail::device_api();
  counters& st = stats();
  // Scratch: the restore copies and a buffer larger than any L2 (H200: 60 MB) to flush it.
  constexpr std::size_t flush_bytes = std::size_t{128} << 20;
  struct scratch {
    device_ops& ops;
    std::vector<void*> ptrs;
    std::vector<void*> events;
    ~scratch() {
      for (void* e : events) ops.destroy_event(e);
      for (void* p : ptrs) try {
          ops.free(p);
        } catch (const error&) {
        }
    }
  } s{ops, {}, {}};
  void* flush = ops.allocate(flush_bytes);
  s.ptrs.push_back(flush);
  for (protected_buffer& b : bufs)
    if (b.role == tune_role::restore && b.bytes) {
      b.saved = ops.allocate(b.bytes);
      s.ptrs.push_back(b.saved);
      ops.copy_async(b.saved, b.ptr, b.bytes, stream);
    }
  s.events.push_back(ops.create_event());
  s.events.push_back(ops.create_event());
  auto timed = [&](std::uint32_t c) -> double {  // ms; < 0 when the config fails
    ops.fill_async(flush, 0, flush_bytes, stream);
    put_back(ops, bufs, stream);
    ops.record_event(s.events[0], stream);
    try {
      st.trial_launches.fetch_add(1, std::memory_order_relaxed);
      run(c, stream);
    } catch (const error& e) {
      log::line("tuning " + k.name + ": config " + std::to_string(c) + " (" +
                config_text(k, group_first + c) + ") cannot run here: " + e.message());
      return -1;
    }
    ops.record_event(s.events[1], stream);
    return ops.elapsed_ms(s.events[0], s.events[1]);
  };
  // A first run per config (loads its module; a config that cannot run is out), which also
  // estimates how many rounds the budget allows.
  std::vector<bool> usable(configs, true);
  double sum_ms = 0;
  for (std::uint32_t c = 0; c < configs; ++c) {
    const double ms = timed(c);
    usable[c] = ms >= 0;
    if (usable[c]) sum_ms += std::max(ms, 0.001);
  }
  const double fit = sum_ms > 0 ? plan.budget_ms / sum_ms : plan.min_rounds;
  const int rounds =
      std::max(plan.min_rounds, std::min(plan.max_rounds, static_cast<int>(std::min(fit, 1e6))));
  std::vector<std::vector<std::uint64_t>> samples(configs);
  for (int r = 0; r < rounds; ++r)
    for (std::uint32_t c = 0; c < configs; ++c)
      if (usable[c]) {
        const double ms = timed(c);
        if (ms < 0) usable[c] = false;
        else samples[c].push_back(static_cast<std::uint64_t>(ms * 1e6));
      }
  put_back(ops, bufs, stream);
  ops.synchronize(stream);
  std::vector<std::uint64_t> med(configs, tuning::not_measured);
  for (std::uint32_t c = 0; c < configs; ++c)
    if (usable[c]) med[c] = tuning::median(samples[c]);
  return med;
}

inline bool read_persisted(const std::string& path, const std::vector<std::int64_t>& bucket,
                           std::uint32_t configs, tuning::record& r) {
  std::string why;
  const auto payload = jit_cache::inspect(path, why);
  if (!payload) {
    if (!why.empty()) log::line("tuning result " + path + " refused: " + why);
    return false;
  }
  if (!tuning::decode(std::string(payload->begin(), payload->end()), bucket, configs, r, why)) {
    log::line("tuning result " + path + " refused: " + why);
    return false;
  }
  return true;
}

// The slow path: steps 2 to 7 of the file comment. `why` says which step chose and on what.
inline std::uint32_t decide(kernel& kn, const context_slot& slot, std::size_t group_first,
                            const std::vector<std::int64_t>& bucket,
                            std::vector<protected_buffer>& bufs, stream_t stream,
                            const config_launcher& run, std::string& why) {
  const kernel_info& k = kn.info();
  const kernel_tuning& t = k.tuning;
  const device_props& dev = slot.state->props();
  const memo_key key{&kn, &slot, group_first, bucket};
  std::lock_guard<std::mutex> lock(
      memo_mutex());  // one decision at a time: a tuning run owns the GPU
  auto found = memo().find(key);
  if (found != memo().end()) return why = "chosen earlier", found->second;
  stats().decisions.fetch_add(1, std::memory_order_relaxed);
  auto remember = [&](std::uint32_t c) {
    memo()[key] = c;
    return c;
  };

  const std::optional<std::string> cache = jit_cache::directory();
  std::string dir, path;
  if (cache) {
    dir = tuning::entry_dir(*cache, dev.name, dev.arch, dev.driver_version,
                            kn.container().tables_checksum());
    path = dir + "/" + tuning::entry_file(k.name, group_first, bucket);
  }
  tuning::record r;
  if (!path.empty() && read_persisted(path, bucket, t.config_count, r))
    return why = "tuned on this GPU earlier (" + path + ")", remember(r.config);

  const tuning::table_pick table = tuning::lookup_table(t, dev.name, dev.arch, bucket);
  if (table.exact) return why = table.why, remember(table.config);

  const int m = mode();
  const bool allowed = m == 1 || (m == 0 && t.on_first_use);
  device_ops* ops = nullptr;
  std::string no_tuning;
  if (!allowed) {
    no_tuning = m < 0 ? "TRITONPACK_AUTOTUNE=0 (read-only)"
                      : "tuning not enabled (tune.on_first_use or TRITONPACK_AUTOTUNE=1)";
  } else {
    try {
      ops = &tritonpack::detail::device_api();
      if (ops->capturing(stream)) no_tuning = "the stream is being captured into a graph";
    } catch (const error& e) {
      no_tuning = std::string("cannot time on this device: ") + e.message();
    }
  }
  std::unique_ptr<entry_lock> held;  // until the result is written: other processes wait for it
  const auto t0 = std::chrono::steady_clock::now();
  if (no_tuning.empty() && !path.empty() && jit_cache::make_dirs(dir)) {
    held = std::make_unique<entry_lock>(path + ".lock", lock_wait_ms());
    // Another process may have tuned this entry while this one waited for the lock.
    if (read_persisted(path, bucket, t.config_count, r))
      return why = "tuned by another process on this GPU (" + path + ")", remember(r.config);
    if (held->status() == entry_lock::state::refused ||
        held->status() == entry_lock::state::timed_out) {
      no_tuning = held->why();
      std::fprintf(stderr, "tritonpack: warning: %s: not tuning, %s\n", identify(k).c_str(),
                   no_tuning.c_str());
    }
  }
  if (no_tuning.empty()) {
    r.bucket = bucket;
    try {
      r.times_ns = time_configs(k, group_first, t.config_count, bufs, stream, run);
    } catch (const error& e) {
      // No memory for the flush buffer or the restore copies, a failed copy or event: the launch
      // itself must not fail for it. Nothing is persisted; the choice falls through to the table
      // or config 0 (and is remembered, so this process does not retry on every call).
      no_tuning = std::string("tuning failed: ") + e.message();
    }
  }
  if (no_tuning.empty()) {
    r.config = tuning::fastest(r.times_ns);
    stats().tunings.fetch_add(1, std::memory_order_relaxed);
    std::string times;
    for (std::uint64_t ns : r.times_ns)
      times += (times.empty() ? "" : " ") + (ns == tuning::not_measured
                                                 ? std::string("-")
                                                 : std::to_string(ns / 1000.0).substr(0, 7));
    why = "tuned now in " + log::ms_since(t0) + " (medians us: " + times + ")";
    if (!path.empty()) {
      const std::string text = tuning::encode(r);
      const std::string failed =
          jit_cache::write(dir, path, std::vector<std::uint8_t>(text.begin(), text.end()));
      why += failed.empty() ? ", saved to " + path : ", not saved: " + failed;
    }
    return remember(r.config);
  }
  if (table.found) return why = table.why + "; " + no_tuning, remember(table.config);
  return why = "first config (no tuning result for this GPU and bucket; " + no_tuning + ")",
         remember(0);
}

}  // namespace detail

// The generated code's entry for a tuned kernel: chooses config c of the group starting at
// variant `group_first` for these key values and launches it through `run`. `buffers` /
// `buffer_bytes`: the kernel's reset_to_zero and restore arguments, in the order of its
// tune_args, with their sizes in bytes for this call.
inline void launch_tuned(kernel& kn, std::size_t group_first, const std::int64_t* key,
                         std::size_t key_count, void* const* buffers, const grid_int* buffer_bytes,
                         std::size_t buffer_count, stream_t stream, const config_launcher& run) {
  const context_slot& slot = kn.current_slot();
  // Steady state: the same call as this thread's last one.
  struct last_call {
    const kernel* k = nullptr;
    const context_slot* slot = nullptr;
    std::size_t group = 0;
    std::size_t n = 0;
    std::int64_t key[6] = {};
    std::uint32_t config = 0;
    unsigned generation = 0;
  };
  static thread_local last_call last;
  const unsigned gen = detail::generation().load(std::memory_order_relaxed);
  if (last.generation == gen && last.k == &kn && last.slot == &slot && last.group == group_first &&
      last.n == key_count && key_count <= 6 && std::equal(key, key + key_count, last.key)) {
    run(last.config, stream);
    return;
  }
  const kernel_info& k = kn.info();
  const kernel_tuning& t = k.tuning;
  std::vector<std::int64_t> bucket;
  std::size_t ki = 0;
  std::vector<detail::protected_buffer> bufs;
  std::size_t bi = 0;
  for (const tune_arg& a : t.args) {
    if (a.role == tune_role::key) {
      if (ki < key_count) bucket.push_back(tuning::bucket_of(key[ki], a.bucket));
      ++ki;
    } else if (bi < buffer_count) {
      const grid_int b = buffer_bytes[bi];
      if (b.failed() || b.value() < 0)
        throw error(errc::bad_argument,
                    identify(k) + ": the byte size of " + k.args.at(a.arg).name + " (" + a.bytes +
                        ") is " + (b.failed() ? b.failure_text() : std::to_string(b.value())));
      bufs.push_back({a.role, buffers[bi], static_cast<std::size_t>(b.value())});
      ++bi;
    }
  }
  if (ki != key_count || bi != buffer_count || group_first + t.config_count > k.variants.size())
    throw error(errc::bad_argument,
                identify(k) + ": the generated function passes " + std::to_string(key_count) +
                    " keys and " + std::to_string(buffer_count) + " buffers for group " +
                    std::to_string(group_first) + ", the container declares " + std::to_string(ki) +
                    " and " + std::to_string(bi) +
                    ": the header and its container do not belong together; pack again");
  std::string why;
  const std::uint32_t c = detail::decide(kn, slot, group_first, bucket, bufs, stream, run, why);
  if (why != "chosen earlier")
    log::line(identify(k) + " (variants " + std::to_string(group_first) + ".." +
              std::to_string(group_first + t.config_count - 1) + ", bucket " +
              tuning::bucket_text(bucket) + ") on " + slot.state->props().describe() + ": config " +
              std::to_string(c) + " (" + config_text(k, group_first + c) + "), " + why);
  if (key_count <= 6) {
    last.k = &kn;
    last.slot = &slot;
    last.group = group_first;
    last.n = key_count;
    std::copy(key, key + key_count, last.key);
    last.config = c;
    last.generation = gen;
  }
  run(c, stream);
}

// Forgets every choice this process made (tests; a program that changed TRITONPACK_CACHE_DIR).
inline void forget_choices() {
  std::lock_guard<std::mutex> lock(detail::memo_mutex());
  detail::memo().clear();
  detail::generation().fetch_add(1);
}

}  // namespace autotune
TRITONPACK_END_NAMESPACE
