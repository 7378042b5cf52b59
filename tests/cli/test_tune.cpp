// `tritonpack tune` (generator/cli/src/tune_*.cpp): the grid grammar's evaluator, the sizes file
// and each of its errors, and whole runs of the CLI on the test-double CUDA driver
// (tests/runtime/fake_cuda, loaded through TRITONPACK_CUDA_LIBRARY) — the table it writes is the
// one `pack --tuning` embeds, its rows are the configs the double's timings make fastest, a rerun
// resumes without a launch, a damaged table is refused and left as it was, and without a GPU
// the command says what it looked for.
//
// The fixtures' matmul_f16 has 2 configs per specialisation (num_warps 1 and 2: 32 and 64 threads
// per block); TRITONPACK_FAKE_MS_BY_THREADS sets what the double's events report for each.
#include <doctest/doctest.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <string>

#include "test_util.hpp"
#include "tritonpack/container/reader.hpp"
#include "tritonpack/core/error.hpp"
#include "tritonpack/pack/grid_eval.hpp"
#include "tritonpack/pack/tune_sizes.hpp"

using namespace tritonpack;
namespace fs = std::filesystem;

namespace cli_tune_tests {  // this file's own names (the test binary is a unity build)
namespace {

grid_int eval(const std::string& e) {
  return pack::evaluate_grid_expr(e, [](const std::string& n) -> std::optional<grid_int> {
    if (n == "M") return grid_int(1000);
    if (n == "BLOCK") return grid_int(64);
    return std::nullopt;
  });
}

using tp_test::error_of;

const std::vector<std::uint8_t>& fixtures_bytes() {
  static const std::vector<std::uint8_t> b = tp_test::slurp(TP_FIXTURES_TPK);
  return b;
}
const container_info& fixtures() {
  static const container c = container::parse(fixtures_bytes().data(), fixtures_bytes().size());
  return c.info();
}

// A sizes file for matmul_f16 with these problems (JSON objects, comma-separated).
std::string matmul_sizes(const std::string& problems) {
  return R"({"schema": "tritonpack-tune-sizes", "version": 1, "kernels": {"matmul_f16": {
    "defaults": {"stride_am": "K", "stride_bk": "N", "stride_cm": "N", "bytes": {"a": "M * K * 2", "b": "K * N * 2", "c": "M * N * 2"}},
    "problems": [)" + problems + "]}}}";
}
const std::string three_problems = R"({"M": 100, "N": 48, "K": 5}, {"M": 256, "N": 256, "K": 64}, {"M": 1000, "N": 1000, "K": 64})";

// The error parse_tune_sizes gives for `text` (with matmul_f16's grid removed when `no_grid`).
std::string sizes_error(const std::string& text, bool no_grid = false) {
  container_info info = fixtures();
  if (no_grid) info.kernels[2].grid = {"", "", ""};
  return error_of([&] { pack::parse_tune_sizes(text, "s.json", info); });
}

struct tune_dir {
  fs::path dir;
  explicit tune_dir(const std::string& name) : dir(fs::path(TP_WORK) / name) {
    fs::remove_all(dir);
    fs::create_directories(dir);
  }
  std::string path(const std::string& f) const { return (dir / f).string(); }
  // `tritonpack tune` on the fixtures with the double; `timing` sets the double's event times.
  tp_test::run_result tune(const std::string& sizes_text, const std::string& timing, const std::string& extra = "") const {
    tp_test::spit(dir / "sizes.json", sizes_text);
    return tp_test::run_cli_env("TRITONPACK_CUDA_LIBRARY=\"" + std::string(TP_FAKE_CUDA) + "\" TRITONPACK_FAKE_MS_BY_THREADS=" + timing +
                                    " TRITONPACK_FAKE_REPORT=\"" + path("report.txt") + "\"",
                                "tune \"" + std::string(TP_FIXTURES_TPK) + "\" --sizes \"" + path("sizes.json") + "\" -o \"" +
                                    path("table.json") + "\" --rounds 2 " + extra);
  }
  // Launches the double accepted in the last run (its exit report).
  std::size_t launches() const {
    std::ifstream in(dir / "report.txt");
    std::string word;
    std::size_t n = 0;
    while (in >> word)
      if (word == "launches" && in >> n) return n;
    return ~std::size_t{0};
  }
};

}  // namespace

TEST_CASE("grid grammar evaluator: precedence, cdiv / min / max, failures as values, syntax errors named") {
  CHECK(eval("cdiv(M, BLOCK) * 2 + 1").value() == 16 * 2 + 1);
  CHECK(eval("M - 10 * 2").value() == 980);
  CHECK(eval("(M - 10) % 7").value() == 990 % 7);
  CHECK(eval("M / 3").value() == 333);
  CHECK(eval("min(M, 5) + max(BLOCK, 7)").value() == 69);
  CHECK(eval(" 42 ").value() == 42);
  const grid_int z = eval("cdiv(M, BLOCK - 64)");
  CHECK(z.failed());
  CHECK(z.failure_text() == "cdiv(1000, 0) divides by zero");
  CHECK(eval("9223372036854775807 + M").failed());
  // The grammar's syntax errors, shared with the header's translation: tests/data/grid_grammar.json.
  CHECK(error_of([] { eval("N * 2"); }) == "tritonpack: grid expression \"N * 2\": unknown name 'N' at column 1");
}

TEST_CASE("sizes file: defaults, expressions over other values and let names, byte sizes, grids per config, key label") {
  const auto req = pack::parse_tune_sizes(
      R"({"schema": "tritonpack-tune-sizes", "version": 1, "kernels": {"matmul_f16": {
        "defaults": {"stride_bk": "N", "stride_cm": "N", "bytes": {"a": "M * K * 2", "b": "K * N * 2", "c": "M * N * 2"}},
        "problems": [{"M": 100, "N": "pad", "K": 5, "stride_am": "K * 2", "let": {"pad": "cdiv(90, 16) * 16"}},
                     {"M": 64, "N": 64, "K": 1, "stride_am": 16, "bytes": {"a": 4096}}]}}})",
      "s.json", fixtures());
  REQUIRE(req.size() == 1);
  CHECK(req[0].kernel == 2);
  REQUIRE(req[0].problems.size() == 2);
  const pack::tune_problem& p = req[0].problems[0];
  CHECK(p.ints == std::vector<std::int64_t>{0, 0, 0, 100, 96, 5, 10, 96, 96});
  CHECK(p.bytes == std::vector<std::uint64_t>{100 * 5 * 2, 5 * 96 * 2, 100 * 96 * 2, 0, 0, 0, 0, 0, 0});
  CHECK(p.values.at("pad") == 96);
  CHECK(p.label == "M=100 N=96 K=5");
  CHECK(pack::problem_bucket(fixtures().kernels[2], p) == std::vector<std::int64_t>{128, 128, 8});  // pow2 keys
  // Config 0 tiles 16x16, config 1 32x32 (the container's constexprs): each its own grid.
  const grid3 g0 = pack::problem_grid(fixtures().kernels[2], 2, p), g1 = pack::problem_grid(fixtures().kernels[2], 3, p);
  CHECK((g0.x == 7 && g0.y == 6 && g0.z == 1));
  CHECK((g1.x == 4 && g1.y == 3 && g1.z == 1));
  CHECK(req[0].problems[1].bytes[0] == 4096);  // the problem's own size wins over the default
}

TEST_CASE("sizes file: every kind of mistake is refused naming the kernel, the problem and the field") {
  const std::string head = R"({"schema": "tritonpack-tune-sizes", "version": 1, "kernels": {"matmul_f16": {"problems": [)";
  const std::string bytes = R"("bytes": {"a": 64, "b": 64, "c": 64})";
  auto one = [&](const std::string& fields) { return head + "{" + fields + "}]}}}"; };
  const std::string all = R"("M": 16, "N": 16, "K": 16, "stride_am": 16, "stride_bk": 16, "stride_cm": 16, )" + bytes;
  CHECK(sizes_error(one(all)) == "(no error)");
  const std::pair<std::string, std::string> cases[] = {
      {one(R"("M": 16, "N": 16, "stride_am": 16, "stride_bk": 16, "stride_cm": 16, )" + bytes),
       "s.json: kernels.matmul_f16.problems[0].K: missing: integer argument 'K' (i32) needs a value"},
      {one(all + R"(, "Q": 3)"), "kernels.matmul_f16.problems[0].Q: kernel matmul_f16 has no argument 'Q'"},
      {one(R"("M": -16, "N": 16, "K": 16, "stride_am": 16, "stride_bk": 16, "stride_cm": 16, )" + bytes),
       "kernels.matmul_f16.problems[0].M: -16 is negative"},
      {one(R"("M": 16.5, "N": 16, "K": 16, "stride_am": 16, "stride_bk": 16, "stride_cm": 16, )" + bytes),
       "kernels.matmul_f16.problems[0].M: 16.5 is not an integer"},
      {one(R"("M": 3000000000, "N": 16, "K": 16, "stride_am": 16, "stride_bk": 16, "stride_cm": 16, )" + bytes),
       "kernels.matmul_f16.problems[0].M: 3000000000 does not fit argument 'M' of type i32"},
      {one(R"("M": "N - 32", "N": 16, "K": 16, "stride_am": 16, "stride_bk": 16, "stride_cm": 16, )" + bytes),
       "kernels.matmul_f16.problems[0].M: \"N - 32\" is -16, negative"},
      {one(R"("M": "rows", "N": 16, "K": 16, "stride_am": 16, "stride_bk": 16, "stride_cm": 16, )" + bytes),
       "kernels.matmul_f16.problems[0].M: grid expression \"rows\": unknown name 'rows' at column 1; the names an expression may use are "
       "the kernel's integer arguments (M, N, K, stride_am, stride_bk, stride_cm)"},
      {one(R"("M": "N", "N": "M", "K": 16, "stride_am": 16, "stride_bk": 16, "stride_cm": 16, )" + bytes),
       "its expression depends on itself"},
      {one(R"("M": 16, "N": 16, "K": 16, "stride_am": 16, "stride_bk": 16, "stride_cm": 16, "bytes": {"a": 64, "b": 64})"),
       "kernels.matmul_f16.problems[0].bytes.c: missing: the size in bytes of the buffer 'c' (*fp16) points to"},
      {one(R"("M": 16, "N": 16, "K": 16, "stride_am": 16, "stride_bk": 16, "stride_cm": 16, "bytes": {"a": 0, "b": 64, "c": 64})"),
       "kernels.matmul_f16.problems[0].bytes.a: 0 bytes: a buffer needs at least one byte"},
      {one(all + R"(, "a": 64)"), "kernels.matmul_f16.problems[0].a: 'a' is a pointer (*fp16): give the size in bytes of its buffer in \"bytes\""},
      {one(all + R"(, "grid": [1])"), "kernels.matmul_f16.problems[0].grid: kernel matmul_f16 has its own grid"},
      {R"({"schema": "tritonpack-tune-sizes", "version": 1, "kernels": {"nope": {"problems": [{}]}}})",
       "kernels.nope: the container has no kernel of that name (it has: vector_add, row_softmax, matmul_f16)"},
      {R"({"schema": "tritonpack-tune-sizes", "version": 1, "kernels": {"vector_add": {"problems": [{}]}}})",
       "kernels.vector_add: the kernel has one config per specialisation: there is nothing to tune"},
      {head + "]}}}", "kernels.matmul_f16.problems: missing, empty"},
      {R"({"version": 1, "kernels": {}})", "s.json: schema/version: expected \"schema\": \"tritonpack-tune-sizes\", \"version\": 1"},
      {R"({"schema": "tritonpack-tune-sizes", "version": 1, "kernels": {"matmul_f16": {"problems": [{}]})",
       "s.json: top level: not valid JSON"},
  };
  for (const auto& [text, message] : cases) {
    CAPTURE(text);
    const std::string e = sizes_error(text);
    CHECK_MESSAGE(e.find(message) != std::string::npos, e);
  }
  // A reset_to_zero buffer (c, as the spec would declare it): its tune.bytes is the default size,
  // and a smaller size given is refused (trial runs zero that many bytes).
  {
    container_info info = fixtures();
    info.kernels[2].tuning.args.push_back({2, tune_role::reset_to_zero, bucket_rule::pow2, "M * N * 2"});
    const std::string sizes = head + R"({"M": 16, "N": 16, "K": 16, "stride_am": 16, "stride_bk": 16, "stride_cm": 16, "bytes": {"a": 64, "b": 64}}, )" +
                              R"({"M": 16, "N": 16, "K": 16, "stride_am": 16, "stride_bk": 16, "stride_cm": 16, )" + bytes + "}]}}}";
    const std::string e = error_of([&] {
      const auto req = pack::parse_tune_sizes(sizes, "s.json", info);
    });
    CHECK_MESSAGE(e.find("kernels.matmul_f16.problems[1].bytes.c: 64 bytes, but the spec's tune.bytes (\"M * N * 2\") zeroes or restores "
                         "512 bytes of it between trial runs") != std::string::npos, e);
    const auto ok = pack::parse_tune_sizes(head + R"({"M": 16, "N": 16, "K": 16, "stride_am": 16, "stride_bk": 16, "stride_cm": 16, "bytes": {"a": 64, "b": 64}}]}}})",
                                           "s.json", info);
    CHECK(ok[0].problems[0].bytes[2] == 512);
  }
  // A kernel without a grid expression: the problem gives its grid; a zero-sized axis by a
  // problem's values is an error for that problem.
  CHECK(sizes_error(one(all), true).find("kernels.matmul_f16.problems[0].grid: missing: kernel matmul_f16 has no grid expression") !=
        std::string::npos);
  CHECK(sizes_error(one(all + R"x(, "grid": ["cdiv(M, BLOCK_M)", "N"])x"), true) == "(no error)");
  const std::string zero = sizes_error(one(all + R"x(, "grid": ["cdiv(M, BLOCK_M - 16)"])x"), true);
  CHECK_MESSAGE(zero.find("kernels.matmul_f16.problems[0].grid: kernel matmul_f16, config 0 (BLOCK_K=16, BLOCK_M=16, BLOCK_N=16, num_warps 1, "
                  "num_stages 1): grid[0] = cdiv(M, BLOCK_M - 16): cdiv(16, 0) divides by zero") != std::string::npos, zero);
}

TEST_CASE("sizes file: a missing integer is named as missing, a bad value once with its own path, empty grids and imageless configs refused") {
  // K missing, while the defaults' bytes expressions use it: K is what is missing.
  std::string e = sizes_error(matmul_sizes(R"({"M": 16, "N": 16})"));
  CHECK_MESSAGE(e == "tritonpack: sizes file s.json: kernels.matmul_f16.problems[0].K: missing: integer argument 'K' (i32) needs a "
                     "value; write a non-negative integer, or an expression of the problem's other integers (\"N\", \"M * 2\")",
                e);
  // A bad M met first inside the bytes expression of a: one prefix, M's own path.
  e = sizes_error(matmul_sizes(R"({"M": -16, "N": 16, "K": 16})"));
  CHECK_MESSAGE(e.rfind("tritonpack: sizes file s.json: kernels.matmul_f16.problems[0].M: -16 is negative", 0) == 0, e);
  CHECK_MESSAGE(e.find("sizes file", 15) == std::string::npos, e);
  // A grid of 0 programs, given or computed, times nothing.
  e = sizes_error(matmul_sizes(R"({"M": 16, "N": 16, "K": 16, "grid": [0]})"), true);
  CHECK_MESSAGE(e.find("kernels.matmul_f16.problems[0].grid[0]: config 0 (BLOCK_K=16, BLOCK_M=16, BLOCK_N=16, num_warps 1, num_stages 1): "
                       "grid[0] = 0 is 0 programs: the launch would run nothing") != std::string::npos,
                e);
  e = sizes_error(matmul_sizes(R"({"M": 0, "N": 16, "K": 16, "bytes": {"a": 64, "c": 64}})"));
  CHECK_MESSAGE(e.find("kernels.matmul_f16.problems[0]: config 0 (BLOCK_K=16, BLOCK_M=16, BLOCK_N=16, num_warps 1, num_stages 1): grid[0] = "
                       "cdiv(M, BLOCK_M) is 0 programs") != std::string::npos,
                e);
  // A config whose variant has no image cannot be timed anywhere.
  container_info info = fixtures();
  info.kernels[2].variants[1].images.clear();
  e = error_of([&] { pack::parse_tune_sizes(matmul_sizes(three_problems), "s.json", info); });
  CHECK_MESSAGE(e.find("kernels.matmul_f16: config 1 (") != std::string::npos, e);
  CHECK_MESSAGE(e.find(", variant 1) has no image in the container: tune cannot time it on any GPU") !=
                    std::string::npos,
                e);
}

TEST_CASE("tune -o '' or a folder is refused before anything runs (it would write into the folder)") {
  const tune_dir d("tune_no_file");
  for (const std::string& o : {std::string(""), d.dir.string() + "/", d.dir.string()}) {
    CAPTURE(o);
    const auto r = tp_test::run_cli("tune \"" + std::string(TP_FIXTURES_TPK) + "\" --sizes s.json -o \"" + o + "\"");
    CHECK(r.code == 2);
    CHECK(r.out.find("names no file (the table would be written into a folder); give the table's file, e.g. -o tuning.json") !=
          std::string::npos);
  }
  CHECK(fs::is_empty(d.dir));
}

TEST_CASE("tune on the test-double driver: the fastest config per bucket, a table pack --tuning embeds, resumed without a launch") {
  const tune_dir d("tune_run");
  // Config 1 (64 threads) faster: every row chooses it; M=1024 shares M=1000's bucket (pow2).
  auto r = d.tune(matmul_sizes(three_problems + R"(, {"M": 1024, "N": 1024, "K": 64})"), "32=2.0,64=1.0");
  REQUIRE_MESSAGE(r.code == 0, r.out);
  CHECK(r.out.find("[1/4] matmul_f16 M=100 N=48 K=5: config 1 (1 ms; config 0 2 ms)") != std::string::npos);
  CHECK(r.out.find("[4/4] matmul_f16 M=1024 N=1024 K=64: bucket 1024x1024x64 timed above, skipped") != std::string::npos);
  CHECK(r.out.find("3 timed, 1 skipped") != std::string::npos);
  CHECK(d.launches() > 0);
  nlohmann::json t = tp_test::load_json(d.dir / "table.json");
  CHECK(t["schema"] == "tritonpack-tuning");
  REQUIRE(t["kernels"]["matmul_f16"].size() == 3);
  const nlohmann::json row = t["kernels"]["matmul_f16"][0];
  CHECK(row["device"] == "Fake GPU sm_90");
  CHECK(row["bucket"] == nlohmann::json({128, 64, 8}));
  CHECK(row["config"] == 1);
  CHECK(row["times_ns"] == nlohmann::json({2000000, 1000000}));

  // pack embeds it: the container's table has the rows.
  const std::string manifest = "\"" + std::string(TP_ARTIFACTS) + "/manifest.json\"";
  const auto p = tp_test::run_cli("pack " + manifest + " -o \"" + d.path("packed") + "\" --name tuned --tuning \"" + d.path("table.json") + "\"");
  REQUIRE_MESSAGE(p.code == 0, p.out);
  const auto tpk = tp_test::slurp(d.dir / "packed" / "tuned.tpk");
  const container c = container::parse(tpk.data(), tpk.size());
  const kernel_tuning& kt = c.info().kernels[2].tuning;
  REQUIRE(kt.table.size() == 3);
  CHECK(kt.table[2].bucket == std::vector<std::int64_t>{1024, 1024, 64});
  CHECK(kt.table[2].config == 1);

  // A rerun resumes: every row is there, nothing is launched, the file is unchanged.
  const auto before = tp_test::slurp(d.dir / "table.json");
  r = d.tune(matmul_sizes(three_problems), "32=1.0,64=3.0");
  REQUIRE_MESSAGE(r.code == 0, r.out);
  CHECK(r.out.find("[2/3] matmul_f16 M=256 N=256 K=64: config 1 already in the table for bucket 256x256x64, skipped") != std::string::npos);
  CHECK(r.out.find("0 timed, 3 skipped") != std::string::npos);
  CHECK(d.launches() == 0);
  CHECK(tp_test::slurp(d.dir / "table.json") == before);

  // A new problem is timed and added; the done ones are not re-launched: config 0 is now faster.
  r = d.tune(matmul_sizes(three_problems + R"(, {"M": 16, "N": 16, "K": 16})"), "32=1.0,64=3.0");
  REQUIRE_MESSAGE(r.code == 0, r.out);
  CHECK(r.out.find("1 timed, 3 skipped") != std::string::npos);
  CHECK(r.out.find("[4/4] matmul_f16 M=16 N=16 K=16: config 0 (1 ms; next config 1 3 ms)") != std::string::npos);
  t = tp_test::load_json(d.dir / "table.json");
  REQUIRE(t["kernels"]["matmul_f16"].size() == 4);
  CHECK(t["kernels"]["matmul_f16"][3]["config"] == 0);
  CHECK(t["kernels"]["matmul_f16"][0]["config"] == 1);  // kept

  // --fresh re-times them all and replaces the rows in place; --arch-rows adds the arch's.
  r = d.tune(matmul_sizes(three_problems), "32=1.0,64=3.0", "--fresh --arch-rows");
  REQUIRE_MESSAGE(r.code == 0, r.out);
  CHECK(r.out.find("3 timed, 0 skipped") != std::string::npos);
  t = tp_test::load_json(d.dir / "table.json");
  REQUIRE(t["kernels"]["matmul_f16"].size() == 7);
  CHECK(t["kernels"]["matmul_f16"][0]["config"] == 0);
  CHECK(t["kernels"]["matmul_f16"][4]["device"] == "sm_90");
  CHECK(t["kernels"]["matmul_f16"][4]["bucket"] == nlohmann::json({128, 64, 8}));
  CHECK(t["kernels"]["matmul_f16"][4]["tuned_on"] == "Fake GPU sm_90");
  const auto again = tp_test::run_cli("pack " + manifest + " -o \"" + d.path("packed") + "\" --name tuned --tuning \"" + d.path("table.json") + "\"");
  CHECK_MESSAGE(again.code == 0, again.out);
}

TEST_CASE("tune -o never writes through a symbolic link planted at the table's old fixed temporary name") {
  const tune_dir d("tune_planted");
  const std::string precious = "export PATH=/usr/bin\n";
  tp_test::spit(d.dir / "victim_profile", precious);
  fs::create_symlink(d.dir / "victim_profile", d.dir / "table.json.tmp");
  const auto r = d.tune(matmul_sizes(three_problems), "32=1.0,64=3.0");
  REQUIRE_MESSAGE(r.code == 0, r.out);
  const auto v = tp_test::slurp(d.dir / "victim_profile");
  CHECK(std::string(v.begin(), v.end()) == precious);
  CHECK(fs::is_symlink(d.dir / "table.json.tmp"));
  CHECK(tp_test::load_json(d.dir / "table.json")["kernels"]["matmul_f16"].size() == 3);
  for (const auto& e : fs::directory_iterator(d.dir))
    CHECK(e.path().filename().string().find(".tmp.") == std::string::npos);  // no temporary left
}

TEST_CASE("tune refuses a damaged table and leaves it as it was; --kernel picks one kernel; bad options are usage errors") {
  const tune_dir d("tune_damaged");
  const std::pair<std::string, std::string> damaged[] = {
      {R"({"schema": "tritonpack-tuning", "version": 1, "kernels": {"matmul_f16": [{"device": "x", "bucket": [1, 2, 3], )",
       "table.json: top level: not valid JSON"},
      {R"({"schema": "tritonpack-tuning", "version": 1, "kernels": {"matmul_f16": [{"device": "x", "bucket": [1, 2, 3], "config": 7}]}})",
       "table.json: kernels.matmul_f16[0].config: must be a config index below 2"},
  };
  for (const auto& [text, message] : damaged) {
    tp_test::spit(d.dir / "table.json", text);
    const auto r = d.tune(matmul_sizes(three_problems), "32=2.0,64=1.0");
    CHECK(r.code == 1);
    CHECK_MESSAGE(r.out.find(message) != std::string::npos, r.out);
    CHECK(r.out.find("does not overwrite one it cannot read") != std::string::npos);
    const auto now = tp_test::slurp(d.dir / "table.json");
    CHECK(std::string(now.begin(), now.end()) == text);
  }
  // A problem that fails (no memory for a 20 GB buffer on the double's 16 GiB device) stops the
  // run naming it; the rows before it are saved and a rerun resumes from there.
  fs::remove(d.dir / "table.json");
  auto r = d.tune(matmul_sizes(R"({"M": 100, "N": 48, "K": 5}, {"M": 100000, "N": 100000, "K": 16})"), "32=2.0,64=1.0");
  CHECK(r.code == 1);
  CHECK_MESSAGE(r.out.find("kernel matmul_f16, problem 1 (M=100000 N=100000 K=16): ") != std::string::npos, r.out);
  CHECK(r.out.find("has the 1 problem timed before it; a rerun resumes from there") != std::string::npos);
  CHECK(tp_test::load_json(d.dir / "table.json")["kernels"]["matmul_f16"].size() == 1);
  fs::remove(d.dir / "table.json");
  r = d.tune(matmul_sizes(three_problems), "32=2.0,64=1.0", "--kernel vector_add");
  CHECK(r.code == 1);
  CHECK(r.out.find("kernels: has no entry for kernel vector_add") != std::string::npos);
  r = d.tune(matmul_sizes(three_problems), "32=2.0,64=1.0", "--budget-ms 0");
  CHECK(r.code == 2);
  CHECK(r.out.find("--budget-ms must be an integer in 1..3600000") != std::string::npos);
  CHECK(tp_test::run_cli("tune x.tpk -o t.json").out.find("tune needs --sizes SIZES.json") != std::string::npos);
}

TEST_CASE("tune without a GPU says it needs one and which driver it looked for; nothing is written") {
  const tune_dir d("tune_no_gpu");
  tp_test::spit(d.dir / "sizes.json", matmul_sizes(three_problems));
  const auto r = tp_test::run_cli_env("TRITONPACK_CUDA_LIBRARY=/nonexistent/libcuda.so.1",
                                      "tune \"" + std::string(TP_FIXTURES_TPK) + "\" --sizes \"" + d.path("sizes.json") + "\" -o \"" +
                                          d.path("table.json") + "\"");
  CHECK(r.code == 1);
  CHECK_MESSAGE(r.out.find("tritonpack: tune needs a GPU to time kernels on: no NVIDIA driver: /nonexistent/libcuda.so.1") != std::string::npos,
                r.out);
  CHECK_FALSE(fs::exists(d.dir / "table.json"));
  // The other commands still work on such a machine.
  CHECK(tp_test::run_cli_env("TRITONPACK_CUDA_LIBRARY=/nonexistent/libcuda.so.1", "inspect \"" + std::string(TP_FIXTURES_TPK) + "\" --quick").code == 0);
}

TEST_CASE("tune launches the specialisation the generated code would pick, each config with its own grid") {
  const tune_dir d("tune_launches");
  const fs::path log = d.dir / "launches.txt";
  // K = 5, stride_am = 7: only the general group (variants 2, 3) accepts these values; it passes
  // every integer (the `K == 1` group would fold K away).
  tp_test::spit(d.dir / "sizes.json", matmul_sizes(R"({"M": 100, "N": 48, "K": 5, "stride_am": 7}, {"M": 40, "N": 20, "K": 3})"));
  const auto r = tp_test::run_cli_env("TRITONPACK_CUDA_LIBRARY=\"" + std::string(TP_FAKE_CUDA) + "\" TRITONPACK_FAKE_MS_BY_THREADS=32=2.0,64=1.0" +
                                          " TRITONPACK_FAKE_LAUNCH_LOG=\"" + log.string() + "\"",
                                      "tune \"" + std::string(TP_FIXTURES_TPK) + "\" --sizes \"" + d.path("sizes.json") + "\" -o \"" +
                                          d.path("table.json") + "\" --rounds 1");
  REQUIRE_MESSAGE(r.code == 0, r.out);
  std::ifstream in(log);
  std::map<std::string, int> seen;  // "grid=... block=... ints=..." -> launches
  for (std::string line; std::getline(in, line);) {
    const std::size_t g = line.find(" grid="), p = line.find(" params=");
    REQUIRE((g != std::string::npos && p != std::string::npos));
    // The six 4-byte integers after the three pointers: M, N, K, stride_am, stride_bk, stride_cm.
    std::string ints = line.substr(p + 8);
    for (int skip = 0; skip < 3; ++skip) ints = ints.substr(ints.find(',') + 1);
    ints = ints.substr(0, 6 * 9 - 1);
    ++seen[line.substr(g + 1, p - g - 1) + " ints=" + ints];
  }
  std::string all;
  for (const auto& [k, v] : seen) all += k + " x" + std::to_string(v) + "\n";
  CAPTURE(all);
  // M=100, N=48: config 0 (16x16 tiles) 7x3 programs of 32 threads, config 1 (32x32) 4x2 of 64;
  // M=40, N=20: 3x2 and 2x1. Each config: a first run and one round.
  CHECK(seen.size() == 4);
  const std::string first = "64000000,30000000,05000000,07000000,30000000,30000000";
  const std::string second = "28000000,14000000,03000000,03000000,14000000,14000000";
  CHECK(seen["grid=7,3,1 block=32,1,1 ints=" + first] == 2);
  CHECK(seen["grid=4,2,1 block=64,1,1 ints=" + first] == 2);
  CHECK(seen["grid=3,2,1 block=32,1,1 ints=" + second] == 2);
  CHECK(seen["grid=2,1,1 block=64,1,1 ints=" + second] == 2);
}

}  // namespace cli_tune_tests
