// Choosing a config (tune/tuning.hpp, tune/autotune.hpp): bucketing, the packed table's lookup order, the
// persisted record and its refusals, and the whole decision against the test-double driver —
// tuning on first use, a second process reading the result without a trial launch, read-only
// mode, a corrupted entry, eight processes on one empty cache, stream capture, and buffers that
// trial runs must leave as the caller gave them.
//
// The fixtures' matmul_f16 has 2 configs per specialisation (num_warps 1 and 2: 32 and 64
// threads per block); TRITONPACK_FAKE_MS_BY_THREADS makes the fake's events report config 1 as
// the faster one.
#include <doctest/doctest.h>
#include <poll.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "fixtures.hpp"
#include "test_util.hpp"
#include "tritonpack/tune/autotune.hpp"
#include "tritonpack/pack/container_writer.hpp"
#include "tritonpack/pack/manifest.hpp"

using namespace tritonpack;
using tptest::contains;

namespace runtime_autotune_tests {  // this file's own names (the test binary is a unity build)
namespace {

// Runs the test cases matching `filter` in a child with `env` set; true in that child.
bool in_child(const char* filter, const std::string& env) {
  if (std::getenv("TP_AUTOTUNE_CHILD")) return true;
  const tptest::child_result child = tptest::run_self("TP_AUTOTUNE_CHILD=1 " + env, filter);
  CHECK_MESSAGE(tptest::one_case_passed(child), child.output);
  return false;
}

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// The one persisted entry under `dir` (the test uses one kernel group and one bucket).
std::string only_entry(const std::string& dir) {
  const std::string cmd = "find " + dir + " -name '*.tune' 2>/dev/null";
  FILE* p = popen(cmd.c_str(), "r");
  std::string out;
  char buf[1024];
  while (size_t n = fread(buf, 1, sizeof buf, p)) out.append(buf, n);
  pclose(p);
  if (!out.empty() && out.back() == '\n') out.pop_back();
  return out;
}

// Threads per block of each launch since the last clear: 32 = config 0, 64 = config 1.
std::vector<unsigned> threads(tptest::fake_driver& f) {
  std::vector<unsigned> t;
  for (const auto& l : f.launches()) t.push_back(l.block[0]);
  return t;
}

alignas(16) half as[64], bs[64], cs[64];
void matmul() { fixtures::matmul_f16(as, bs, cs, 100, 48, 5, 16, 48, 48); }  // group 2 (K not folded)

// The test process's cache directory (test_main.cpp points TRITONPACK_CACHE_DIR at a temporary
// one, inherited by the children) and the tuning results under it.
std::string cache_root() { return jit_cache::directory().value_or("/tmp/tp-autotune-test-cache"); }
std::string tune_dir() { return cache_root() + "/tune-v1"; }
// The fixtures' container tables checksum as 16 hex digits, as persisted paths spell it.
std::string checksum_hex() {
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(fixtures::detail::container_checksum));
  return hex;
}
// Config 1 faster; the smallest budget (3 rounds): the fake's L2 flush is a host memset.
const std::string env_fast1 = "TRITONPACK_FAKE_MS_BY_THREADS=32=2.0,64=1.0 TRITONPACK_TUNE_BUDGET_MS=1";

// The lock file of matmul()'s entry (group 2, bucket 128x64x8), its directory created.
std::string matmul_lock() {
  const device_props& dev = fixtures::library().current_device();
  const std::string d = tuning::entry_dir(cache_root(), dev.name, dev.arch, dev.driver_version, fixtures::detail::container_checksum);
  REQUIRE(jit_cache::make_dirs(d));
  return d + "/" + tuning::entry_file("matmul_f16", 2, {128, 64, 8}) + ".lock";
}

// Runs `f` with stderr going to a file; gives what it printed there.
template <class F>
std::string stderr_of(F&& f) {
  std::fflush(stderr);
  const int saved = dup(2);
  FILE* tmp = std::tmpfile();
  dup2(fileno(tmp), 2);
  f();
  std::fflush(stderr);
  dup2(saved, 2);
  close(saved);
  std::rewind(tmp);
  std::string out;
  char buf[4096];
  while (size_t n = std::fread(buf, 1, sizeof buf, tmp)) out.append(buf, n);
  std::fclose(tmp);
  return out;
}

}  // namespace

TEST_CASE("bucketing: exact keeps the value, pow2 rounds up to the next power of two") {
  CHECK(tuning::bucket_of(1000, bucket_rule::exact) == 1000);
  CHECK(tuning::bucket_of(1000, bucket_rule::pow2) == 1024);
  CHECK(tuning::bucket_of(1024, bucket_rule::pow2) == 1024);
  CHECK(tuning::bucket_of(1025, bucket_rule::pow2) == 2048);
  CHECK(tuning::bucket_of(3, bucket_rule::pow2) == 4);
  CHECK(tuning::bucket_of(1, bucket_rule::pow2) == 1);
  CHECK(tuning::bucket_of(0, bucket_rule::pow2) == 0);    // not near any size
  CHECK(tuning::bucket_of(-5, bucket_rule::pow2) == -5);
  CHECK(tuning::bucket_of((std::int64_t{1} << 62) + 1, bucket_rule::pow2) == (std::int64_t{1} << 62) + 1);
  CHECK(tuning::bucket_text({1024, 64}) == "1024x64");
}

TEST_CASE("packed table: this GPU's name before its arch, this bucket before the nearest one") {
  kernel_tuning t;
  t.config_count = 4;
  t.args = {{0, tune_role::key, bucket_rule::pow2, ""}, {1, tune_role::key, bucket_rule::pow2, ""}};
  const std::vector<std::uint64_t> times(4, 1);
  t.table = {{"sm_90", {1024, 1024}, 1, times}, {"NVIDIA H200", {256, 256}, 2, times}, {"NVIDIA H200", {4096, 4096}, 3, times},
             {"sm_90", {64, 64}, 0, times}};
  // This GPU, exact bucket: authoritative.
  tuning::table_pick p = tuning::lookup_table(t, "NVIDIA H200", "sm_90", {4096, 4096});
  CHECK(p.found);
  CHECK(p.exact);
  CHECK(p.config == 3);
  // This GPU, nearest bucket (512 is one step from 256, three from 4096), even though the arch has
  // a row nearer still.
  p = tuning::lookup_table(t, "NVIDIA H200", "sm_90", {512, 512});
  CHECK(p.found);
  CHECK_FALSE(p.exact);
  CHECK(p.config == 2);
  CHECK(p.why.find("this GPU") != std::string::npos);
  // Another GPU of the arch: the arch's rows, nearest bucket.
  p = tuning::lookup_table(t, "NVIDIA H100", "sm_90", {128, 64});
  CHECK(p.found);
  CHECK_FALSE(p.exact);  // an arch row is never "this GPU, this bucket"
  CHECK(p.config == 0);
  CHECK(p.why.find("same arch") != std::string::npos);
  // Another GPU of the arch whose row has this very bucket: a hint (measured on another model),
  // never the exact result that would skip tuning on this GPU.
  p = tuning::lookup_table(t, "NVIDIA H100", "sm_90", {1024, 1024});
  CHECK(p.found);
  CHECK_FALSE(p.exact);
  CHECK(p.config == 1);
  // Nothing for this arch.
  CHECK_FALSE(tuning::lookup_table(t, "NVIDIA A100", "sm_80", {64, 64}).found);
  // A row with another number of keys is never used.
  CHECK_FALSE(tuning::lookup_table(t, "NVIDIA H200", "sm_90", {64}).found);
}

// Rows on either side of a key (exact buckets, so the key falls between rows): the nearer one by
// ratio wins, whichever comes first in the table.
TEST_CASE("packed table: between two rows the nearer bucket wins, in either row order") {
  kernel_tuning t;
  t.config_count = 4;
  t.args = {{0, tune_role::key, bucket_rule::exact, ""}};
  const std::vector<std::uint64_t> times(4, 1);
  for (bool reversed : {false, true}) {
    CAPTURE(reversed);
    t.table = {{"NVIDIA H200", {512}, 1, times}, {"NVIDIA H200", {1024}, 2, times}, {"NVIDIA H200", {4096}, 3, times}};
    if (reversed) std::reverse(t.table.begin(), t.table.end());
    auto config_for = [&](std::int64_t key) { return tuning::lookup_table(t, "NVIDIA H200", "sm_90", {key}).config; };
    CHECK(config_for(1000) == 2);  // 1024, not 512
    CHECK(config_for(700) == 1);   // 512 (x1.37), not 1024 (x1.46)
    CHECK(config_for(760) == 2);   // 1024 (x1.35), not 512 (x1.48)
    CHECK(config_for(2000) == 2);  // 1024 (x1.95), not 4096 (x2.05)
    CHECK(config_for(2100) == 3);  // 4096 (x1.95), not 1024 (x2.05)
    CHECK(config_for(100) == 1);   // below every row: the smallest
    CHECK(config_for(100000) == 3);
    CHECK_FALSE(tuning::lookup_table(t, "NVIDIA H200", "sm_90", {1000}).exact);
    CHECK(tuning::lookup_table(t, "NVIDIA H200", "sm_90", {1024}).exact);
  }
}

TEST_CASE("the fastest config: lowest median, near-ties to the lower index, unmeasured never wins") {
  const std::uint64_t x = tuning::not_measured;
  CHECK(tuning::fastest({300, 200, 100}) == 2);
  CHECK(tuning::fastest({100, 200, 100}) == 0);
  CHECK(tuning::fastest({1005, 1000}) == 0);   // within 1%: the earlier one
  CHECK(tuning::fastest({1020, 1000}) == 1);   // 2% slower: not a tie
  CHECK(tuning::fastest({x, 500, x}) == 1);
  CHECK(tuning::fastest({x, x}) == 0);
  std::vector<std::uint64_t> v{5, 1, 3};
  CHECK(tuning::median(v) == 3);
  v = {4, 1, 3, 2};
  CHECK(tuning::median(v) == 2);
}

TEST_CASE("persisted record: round trip, and every damaged form is refused with a reason") {
  tuning::record r{{1024, 64}, 1, {2000, 1500, tuning::not_measured}};
  const std::string text = tuning::encode(r);
  CHECK(text == "tritonpack-tune 1\nbucket 1024 64\nconfig 1\ntimes_ns 2000 1500 -\n");
  tuning::record back;
  std::string why;
  REQUIRE(tuning::decode(text, {1024, 64}, 3, back, why));
  CHECK(back.config == 1);
  CHECK(back.times_ns == r.times_ns);
  const std::pair<std::string, std::string> bad[] = {
      {text.substr(0, text.size() - 1), "truncated"},
      {"", "not a tuning record"},
      {"tritonpack-tune 2\nbucket 1024 64\nconfig 1\ntimes_ns 1 2 3\n", "not a tuning record"},
      {"tritonpack-tune 1\nbucket 1024 64\nconfig x\ntimes_ns 1 2 3\n", "a line is not"},
      {"tritonpack-tune 1\nbucket 512 64\nconfig 1\ntimes_ns 1 2 3\n", "not 1024x64"},
      {"tritonpack-tune 1\nbucket 1024 64\nconfig 3\ntimes_ns 1 2 3\n", "does not fit"},
      {"tritonpack-tune 1\nbucket 1024 64\nconfig 1\ntimes_ns 1 2\n", "does not fit"},
      {"tritonpack-tune 1\nbucket 1024 64\nconfig 1\ntimes_ns 1 -2 3\n", "a line is not"},
  };
  for (const auto& [t, reason] : bad) {
    CAPTURE(t);
    CHECK_FALSE(tuning::decode(t, {1024, 64}, 3, back, why));
    CHECK(why.find(reason) != std::string::npos);
  }
}

TEST_CASE("on first use: tunes, launches the fastest config, persists it; a second process runs no trial") {
  if (!in_child("*on first use: tunes*", "TRITONPACK_AUTOTUNE=1 " + env_fast1)) return;
  tptest::remove_tree(tune_dir());
  auto& f = tptest::setup("sm_90");
  matmul();
  const autotune::counters& st = autotune::stats();
  CHECK(st.tunings == 1);
  const auto t = threads(f);
  // Trials: a first run of each config, then interleaved rounds (at least 3); then the real launch.
  CHECK(t.size() == st.trial_launches + 1);
  CHECK(st.trial_launches >= 2 + 3 * 2);
  CHECK(t.back() == 64);  // config 1, the faster
  const std::string entry = only_entry(tune_dir());
  REQUIRE(!entry.empty());
  // docs/runtime.md's format; the bucket of M=100, N=48, K=5.
  CHECK(entry == tune_dir() + "/Fake_GPU_sm_90-sm_90-drv13000/" + checksum_hex() + "/matmul_f16-g2-128x64x8.tune");
  CHECK(read_text(entry).find("config 1\n") != std::string::npos);
  // Steady state: same call, no decision.
  f.clear_launches();
  const std::uint64_t decisions = st.decisions;
  matmul();
  CHECK(st.decisions == decisions);
  CHECK(threads(f) == std::vector<unsigned>{64});
  // A new process (forgetting every choice): the persisted result, no trial launch.
  autotune::forget_choices();
  f.clear_launches();
  const std::uint64_t trials = st.trial_launches;
  matmul();
  CHECK(st.trial_launches == trials);
  CHECK(st.tunings == 1);
  CHECK(threads(f) == std::vector<unsigned>{64});
  tptest::remove_tree(tune_dir());
}

TEST_CASE("read-only mode (TRITONPACK_AUTOTUNE=0) never times: config 0 on an empty cache, persisted results when present") {
  if (!in_child("*read-only mode*", "TRITONPACK_AUTOTUNE=0 " + env_fast1)) return;
  tptest::remove_tree(tune_dir());
  auto& f = tptest::setup("sm_90");
  matmul();
  CHECK(autotune::stats().tunings == 0);
  CHECK(threads(f) == std::vector<unsigned>{32});
  CHECK(only_entry(tune_dir()).empty());
  // A result persisted by a tuning run elsewhere on this GPU is used.
  // Its path as docs/runtime.md documents it (written out here, not built with the library's own
  // functions, so that the format itself is pinned): <cache dir>/tune-v1/<GPU name>-<arch>-drv<driver>/
  // <container tables checksum>/<kernel>-g<first variant>-<bucket>.tune, unsafe characters as '_'.
  const std::string d = tune_dir() + "/Fake_GPU_sm_90-sm_90-drv13000/" + checksum_hex();
  const std::string text = tuning::encode({{128, 64, 8}, 1, {2, 1}});
  REQUIRE(jit_cache::write(d, d + "/matmul_f16-g2-128x64x8.tune", {text.begin(), text.end()}).empty());
  autotune::forget_choices();
  f.clear_launches();
  matmul();
  CHECK(threads(f) == std::vector<unsigned>{64});
  CHECK(autotune::stats().tunings == 0);
  tptest::remove_tree(tune_dir());
}

TEST_CASE("a corrupted persisted entry is refused and tuned again, and the rewritten file is whole") {
  if (!in_child("*corrupted persisted entry*", "TRITONPACK_AUTOTUNE=1 " + env_fast1)) return;
  tptest::remove_tree(tune_dir());
  auto& f = tptest::setup("sm_90");
  const device_props& dev = fixtures::library().current_device();
  const std::string d = tuning::entry_dir(cache_root(), dev.name, dev.arch, dev.driver_version, fixtures::detail::container_checksum);
  const std::string path = d + "/" + tuning::entry_file("matmul_f16", 2, {128, 64, 8});
  // A record that says config 0 but whose payload no longer matches its checksum.
  const std::string text = tuning::encode({{128, 64, 8}, 0, {1, 2}});
  REQUIRE(jit_cache::write(d, path, {text.begin(), text.end()}).empty());
  {
    std::fstream io(path, std::ios::in | std::ios::out | std::ios::binary);
    io.seekp(-3, std::ios::end);
    io.put('9');
  }
  matmul();
  CHECK(autotune::stats().tunings == 1);
  CHECK(threads(f).back() == 64);
  std::string why;
  const auto payload = jit_cache::inspect(path, why);
  REQUIRE(payload);
  tuning::record r;
  CHECK(tuning::decode(std::string(payload->begin(), payload->end()), {128, 64, 8}, 2, r, why));
  CHECK(r.config == 1);
  tptest::remove_tree(tune_dir());
}

TEST_CASE("eight processes on one empty cache: one tunes, the others wait and read its result") {
  if (!in_child("*eight processes*", "TRITONPACK_AUTOTUNE=1 " + env_fast1)) return;
  tptest::remove_tree(tune_dir());
  tptest::setup("sm_90");
  fixtures::library();  // the container is parsed before the fork; nothing is decided yet
  std::vector<pid_t> kids;
  for (int i = 0; i < 8; ++i) {
    const pid_t p = fork();
    if (p == 0) {
      int code = 0;
      try {
        tptest::setup("sm_90");
        matmul();
        const auto t = threads(tptest::fake_driver::get());
        code = (t.back() == 64 ? 10 : 20) + static_cast<int>(autotune::stats().tunings);
      } catch (...) {
        code = 99;
      }
      _exit(code);
    }
    kids.push_back(p);
  }
  int tuned = 0, fast = 0;
  for (pid_t p : kids) {
    int status = 0;
    waitpid(p, &status, 0);
    REQUIRE(WIFEXITED(status));
    const int code = WEXITSTATUS(status);
    CAPTURE(code);
    CHECK(code / 10 == 1);  // every process launched config 1
    fast += code / 10 == 1;
    tuned += code % 10;
  }
  CHECK(fast == 8);
  CHECK(tuned == 1);  // flock: exactly one tuning run
  const std::string entry = only_entry(tune_dir());
  REQUIRE(!entry.empty());
  std::string why;
  const auto payload = jit_cache::inspect(entry, why);
  CHECK(payload);
  tptest::remove_tree(tune_dir());
}

TEST_CASE("nothing is tuned while the stream is being captured") {
  if (!in_child("*being captured*", "TRITONPACK_AUTOTUNE=1 " + env_fast1)) return;
  tptest::remove_tree(tune_dir());
  auto& f = tptest::setup("sm_90");
  stream_t s = create_stream(true);
  using begin_fn = int (*)(void*, int);
  using end_fn = int (*)(void*, void**);
  void* h = dlopen(TP_FAKE_CUDA_PATH, RTLD_NOW | RTLD_NOLOAD);
  REQUIRE(h);
  auto begin = reinterpret_cast<begin_fn>(dlsym(h, "cuStreamBeginCapture"));
  auto end = reinterpret_cast<end_fn>(dlsym(h, "cuStreamEndCapture"));
  REQUIRE(reinterpret_cast<void*>(begin) != nullptr);
  REQUIRE(begin(s, 0) == 0);
  const std::size_t allocs = f.calls("cuMemAlloc"), events = f.calls("cuEventCreate");
  fixtures::matmul_f16(as, bs, cs, 100, 48, 5, 16, 48, 48, s);
  void* graph = nullptr;
  REQUIRE(end(s, &graph) == 0);
  // The captured graph is ours to destroy (LeakSanitizer, in the sanitize step, reports it otherwise).
  using destroy_fn = int (*)(void*);
  auto destroy_graph = reinterpret_cast<destroy_fn>(dlsym(h, "cuGraphDestroy"));
  REQUIRE(reinterpret_cast<void*>(destroy_graph) != nullptr);
  CHECK(destroy_graph(graph) == 0);
  CHECK(autotune::stats().tunings == 0);
  // Not even attempted (a failed attempt would also end in config 0): no scratch, no events.
  CHECK(f.calls("cuMemAlloc") == allocs);
  CHECK(f.calls("cuEventCreate") == events);
  CHECK(autotune::stats().trial_launches == 0);
  const auto t = threads(f);
  REQUIRE(t.size() == 1);
  CHECK(t[0] == 32);  // config 0, captured
  destroy_stream(s);
  tptest::remove_tree(tune_dir());
}

TEST_CASE("trial runs leave restore buffers as given and reset_to_zero buffers zeroed; a packed table row is used") {
  if (!in_child("*trial runs leave*", "TRITONPACK_AUTOTUNE=1 " + env_fast1)) return;
  tptest::remove_tree(tune_dir());
  tptest::setup("sm_90");
  // The fixtures' container with matmul_f16 declaring `c` restored and `a` zeroed (the fake's
  // device memory is host memory, so the "kernel" below can write it as a real one would).
  auto m = pack::load_manifest(std::string(TP_ARTIFACTS_DIR) + "/manifest.json");
  kernel_info& mk = m.info.kernels[2];
  REQUIRE(mk.name == "matmul_f16");
  mk.tuning.args.push_back({2, tune_role::restore, bucket_rule::exact, "M"});
  mk.tuning.args.push_back({0, tune_role::reset_to_zero, bucket_rule::exact, "N"});
  const auto bytes = pack::write_container(m.info, m.image_bytes);
  library lib(bytes.data(), bytes.size());
  kernel& k = lib.get("matmul_f16");
  auto* acc = static_cast<unsigned char*>(device_malloc(64));
  auto* zeroed = static_cast<unsigned char*>(device_malloc(64));
  std::fill(acc, acc + 64, 5);
  std::fill(zeroed, zeroed + 64, 0);
  int runs = 0;
  auto run = [&](std::size_t config, stream_t s) {
    ++runs;
    for (int i = 0; i < 64; ++i) acc[i] = static_cast<unsigned char>(acc[i] + 1);  // accumulates in place
    for (int i = 0; i < 64; ++i) zeroed[i] = static_cast<unsigned char>(zeroed[i] + 3);  // atomically adds into zeroed output
    const void* no_args[9] = {};
    (void)no_args;
    (void)s;
    (void)config;
  };
  const std::int64_t key[] = {64, 64, 7};
  void* const bufs[] = {acc, zeroed};
  const grid_int sizes[] = {grid_int{64}, grid_int{64}};
  autotune::launch_tuned(k, 2, key, 3, bufs, sizes, 2, nullptr, config_launcher::of(run));
  CHECK(runs > 2);
  CHECK(autotune::stats().tunings == 1);
  // As if only the real launch ran: 5 + 1, and 0 + 3.
  CHECK(std::count(acc, acc + 64, 6) == 64);
  CHECK(std::count(zeroed, zeroed + 64, 3) == 64);
  device_free(acc);
  device_free(zeroed);

  // A packed table: a row for this arch wins over tuning only when it is for this GPU and bucket;
  // a row for the same arch and another bucket is used when tuning is not allowed.
  kernel_info& mk2 = m.info.kernels[2];
  mk2.tuning.args.resize(3);
  mk2.tuning.table = {{"Fake GPU sm_90", {64, 64, 8}, 1, {2, 1}}, {"sm_90", {4096, 4096, 8}, 1, {2, 1}}};
  const auto bytes2 = pack::write_container(m.info, m.image_bytes);
  library lib2(bytes2.data(), bytes2.size());
  kernel& k2 = lib2.get("matmul_f16");
  std::vector<std::size_t> chosen;
  auto record = [&](std::size_t config, stream_t) { chosen.push_back(config); };
  const std::int64_t exact_key[] = {64, 64, 7};
  autotune::launch_tuned(k2, 2, exact_key, 3, nullptr, nullptr, 0, nullptr, config_launcher::of(record));
  CHECK(chosen == std::vector<std::size_t>{1});  // the table's exact row: no trial runs
  CHECK(autotune::stats().tunings == 1);
  // The same bucket measured on another GPU model of this arch: a hint, not this GPU's result;
  // tuning is allowed here, so this GPU times the configs itself.
  mk2.tuning.table = {{"sm_90", {64, 64, 8}, 0, {1, 2}}};
  const auto bytes3 = pack::write_container(m.info, m.image_bytes);
  library lib3(bytes3.data(), bytes3.size());
  chosen.clear();
  autotune::launch_tuned(lib3.get("matmul_f16"), 2, exact_key, 3, nullptr, nullptr, 0, nullptr, config_launcher::of(record));
  CHECK(autotune::stats().tunings == 2);
  CHECK(chosen.size() > 2);  // trial runs, then the launch
}

TEST_CASE("a tuning run that fails (no memory for its scratch) never fails the launch: config 0, nothing persisted") {
  if (!in_child("*tuning run that fails*", "TRITONPACK_AUTOTUNE=1 " + env_fast1)) return;
  tptest::remove_tree(tune_dir());
  auto& f = tptest::setup("sm_90", 13000, "cuMemAlloc=2");  // CUDA_ERROR_OUT_OF_MEMORY on every allocation
  matmul();
  CHECK(autotune::stats().tunings == 0);
  const auto t = threads(f);
  REQUIRE(!t.empty());
  CHECK(t.back() == 32);  // config 0
  CHECK(only_entry(tune_dir()).empty());
  // Remembered: the next call does not try again.
  const std::uint64_t decisions = autotune::stats().decisions;
  matmul();
  CHECK(autotune::stats().decisions == decisions);
}

TEST_CASE("a tuning lock another process holds: the launch waits at most TRITONPACK_TUNE_LOCK_WAIT_MS, names the holder and runs untuned") {
  if (!in_child("*a tuning lock another process holds*", "TRITONPACK_AUTOTUNE=1 TRITONPACK_TUNE_LOCK_WAIT_MS=300 " + env_fast1)) return;
  tptest::remove_tree(tune_dir());
  auto& f = tptest::setup("sm_90");
  const std::string lock = matmul_lock();
  // The holder: takes the lock as a tuning process does, says so, and keeps it until told to let
  // go (or 8 s pass: an unbounded wait then shows as a launch that took that long).
  int held[2], release[2];
  REQUIRE(pipe(held) == 0);
  REQUIRE(pipe(release) == 0);
  const pid_t holder = fork();
  if (holder == 0) {
    autotune::detail::entry_lock l(lock, 0);
    const char c = l.status() == autotune::detail::entry_lock::state::held ? 'y' : 'n';
    if (write(held[1], &c, 1) != 1) _exit(1);
    pollfd p{release[0], POLLIN, 0};
    poll(&p, 1, 8000);
    _exit(0);
  }
  char c = 0;
  REQUIRE(read(held[0], &c, 1) == 1);
  REQUIRE(c == 'y');
  const auto t0 = std::chrono::steady_clock::now();
  const std::string err = stderr_of([] { matmul(); });
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  CAPTURE(err);
  CHECK(ms >= 250);
  CHECK(ms < 4000);
  CHECK(autotune::stats().tunings == 0);
  CHECK(threads(f) == std::vector<unsigned>{32});  // config 0: the launch still ran, untuned
  CHECK(contains(err, "tritonpack: warning: kernel matmul_f16"));
  CHECK(contains(err, ": not tuning, the tuning lock " + lock + " is held by pid " + std::to_string(holder) + " uid " +
                          std::to_string(geteuid()) + " host "));
  CHECK(contains(err, " for more than 300 ms (TRITONPACK_TUNE_LOCK_WAIT_MS)\n"));
  CHECK(only_entry(tune_dir()).empty());
  // Once the holder is gone, the entry is tuned as usual.
  REQUIRE(write(release[1], "x", 1) == 1);
  int status = 0;
  waitpid(holder, &status, 0);
  autotune::forget_choices();
  f.clear_launches();
  matmul();
  CHECK(autotune::stats().tunings == 1);
  CHECK(threads(f).back() == 64);
  tptest::remove_tree(tune_dir());
}

TEST_CASE("a symbolic link or a file of another user where the tuning lock goes is refused: never followed, never written") {
  if (!in_child("*where the tuning lock goes*", "TRITONPACK_AUTOTUNE=1 " + env_fast1)) return;
  tptest::remove_tree(tune_dir());
  auto& f = tptest::setup("sm_90");
  const std::string lock = matmul_lock();
  const std::string victim = cache_root() + "/victim-profile";
  { std::ofstream(victim) << "export PATH=/usr/bin\n"; }
  REQUIRE(symlink(victim.c_str(), lock.c_str()) == 0);
  std::string err = stderr_of([] { matmul(); });
  CAPTURE(err);
  CHECK(read_text(victim) == "export PATH=/usr/bin\n");
  CHECK(autotune::stats().tunings == 0);
  CHECK(threads(f).back() == 32);
  CHECK(contains(err, "the tuning lock " + lock + " cannot be used: it is a symbolic link; remove it, or set TRITONPACK_CACHE_DIR"));
  unlink(lock.c_str());
  { std::ofstream(lock) << ""; }
  if (chown(lock.c_str(), 4242, static_cast<gid_t>(-1)) == 0) {
    autotune::forget_choices();
    f.clear_launches();
    err = stderr_of([] { matmul(); });
    CHECK(autotune::stats().tunings == 0);
    CHECK(threads(f).back() == 32);
    CHECK(contains(err, "the tuning lock " + lock + " cannot be used: it is owned by uid 4242, not by this user (uid " +
                            std::to_string(geteuid()) + ")"));
    struct stat st;
    REQUIRE(stat(lock.c_str(), &st) == 0);
    CHECK(st.st_size == 0);  // not written
  } else {
    MESSAGE("skipped: chown to uid 4242 failed; run as root to test a lock file of another user");
  }
  // Our own lock file: tuned.
  unlink(lock.c_str());
  autotune::forget_choices();
  f.clear_launches();
  matmul();
  CHECK(autotune::stats().tunings == 1);
  CHECK(threads(f).back() == 64);
  unlink(victim.c_str());
  tptest::remove_tree(tune_dir());
}

}  // namespace runtime_autotune_tests
