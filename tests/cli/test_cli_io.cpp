// What the `tritonpack` CLI says about help requests, a directory given where a file belongs (or a
// file where a directory belongs), and outputs it cannot write: stdout and exit 0 for help; for
// bad paths exit 1, the path, what was expected, the reason and what to do.
#include <doctest/doctest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <set>

#include "test_util.hpp"

using tp_test::fs::path;
using tp_test::run_cli;

namespace cli_io_tests {  // this file's own names (the test binary is a unity build)
namespace {
const path work = path(TP_WORK) / "io";

struct split_result {
  int code = -1;
  std::string out, err;
};

// The CLI with stdout and stderr kept apart.
split_result run_split(const std::string& args) {
  static int n = 0;
  const path out = work / ("split_" + std::to_string(++n) + ".out"), err = out.string() + ".err";
  tp_test::fs::create_directories(work);
  const int status = std::system((std::string("\"") + TP_CLI + "\" " + args + " > \"" + out.string() + "\" 2> \"" +
                                  err.string() + "\"")
                                     .c_str());
  split_result r;
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  const auto o = tp_test::slurp(out), e = tp_test::slurp(err);
  r.out.assign(o.begin(), o.end());
  r.err.assign(e.begin(), e.end());
  return r;
}

std::string q(const path& p) { return "\"" + p.string() + "\""; }

bool has(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }
}  // namespace

TEST_CASE("help, also after a command, goes to stdout with exit 0; a usage error stays on stderr with exit 2") {
  for (const char* args : {"--help", "-h", "help", "pack --help", "pack -h", "inspect --help", "extract --help",
                           "pack manifest.json -o out --help", "inspect f --device sm_90 -h"}) {
    CAPTURE(args);
    const auto r = run_split(args);
    CHECK(r.code == 0);
    CHECK(has(r.out, "usage:\n  tritonpack pack MANIFEST"));
    CHECK(r.err.empty());
  }
  const auto bad = run_split("pack --bogus");
  CHECK(bad.code == 2);
  CHECK(bad.out.empty());
  CHECK(has(bad.err, "tritonpack: unknown option --bogus\nusage:"));
}

TEST_CASE("the usage names the front end as it runs from a checkout and an installed tree") {
  const auto r = run_split("--help");
  CHECK_FALSE(has(r.out, "tritonpack compile"));
  CHECK(has(r.out, "`python -m tritonpack_compile\n      SPEC -o DIR`"));
  CHECK(has(r.out, "PYTHONPATH=<tritonpack>/generator/python (a checkout)"));
  CHECK(has(r.out, "<prefix>/share/tritonpack/python (an installed tree)"));
  CHECK(has(r.out, "after `pip install\n      <tritonpack>/generator/python` also `tritonpack-compile SPEC -o DIR`"));
}

TEST_CASE("a directory given as an input file: the path and what was expected") {
  const path dir = work / "a_directory";
  tp_test::fs::create_directories(dir);
  const std::string container = "is a directory; expected a .tpk, a generated .hpp or a program that embeds a container";
  for (const std::string& args : {"pack " + q(dir) + " -o " + q(work / "out"), "inspect " + q(dir),
                                  "extract " + q(dir) + " -o " + q(work / "ex")}) {
    CAPTURE(args);
    const auto r = run_cli(args);
    CHECK(r.code == 1);
    CHECK(r.out == "tritonpack: " + dir.string() + " " +
                       (args.rfind("pack", 0) == 0
                            ? "is a directory; expected a manifest file (manifest.json, written by `python -m "
                              "tritonpack_compile SPEC -o DIR`)\n"
                            : container + "\n"));
  }

  // An image the manifest names is a directory.
  const path arts = tp_test::copy_artifacts("io_dir_image");
  const auto m = tp_test::load_json(arts / "manifest.json");
  const path image = arts / m["kernels"][0]["variants"][0]["images"][0]["file"].get<std::string>();
  tp_test::fs::remove(image);
  tp_test::fs::create_directories(image);
  const auto r = run_cli("pack " + q(arts / "manifest.json") + " -o " + q(work / "out"));
  CHECK(r.code == 1);
  CHECK(r.out == "tritonpack: " + image.string() + " is a directory; expected an image file\n");
}

TEST_CASE("an output the packer cannot write: the reason and what to do, and no temporary left behind") {
  const std::string manifest = q(path(TP_ARTIFACTS) / "manifest.json");
  const path out = work / "outputs";
  tp_test::fs::remove_all(out);
  tp_test::fs::create_directories(out);

  // -o names a file, or a path below a file.
  tp_test::spit(out / "a_file", std::string("x"));
  auto r = run_cli("pack " + manifest + " -o " + q(out / "a_file") + " --name fx");
  CHECK(r.code == 1);
  CHECK(r.out == "tritonpack: " + (out / "a_file").string() +
                     " is a file; expected a directory (remove the file, or choose another output directory with -o)\n");
  r = run_cli("pack " + manifest + " -o " + q(out / "a_file" / "sub") + " --name fx");
  CHECK(r.code == 1);
  CHECK(r.out == "tritonpack: cannot create the directory " + (out / "a_file" / "sub").string() +
                     ": Not a directory (a part of the path is a file, not a directory); choose another output "
                     "directory with -o\n");

  // The header's place is taken by a directory.
  tp_test::fs::create_directories(out / "fx.hpp");
  r = run_cli("pack " + manifest + " -o " + q(out) + " --name fx");
  CHECK(r.code == 1);
  CHECK(r.out == "tritonpack: " + (out / "fx.hpp").string() +
                     " is a directory; expected a file to write (remove the directory, or choose another output "
                     "directory with -o)\n");
  tp_test::fs::remove(out / "fx.hpp");

  // The temporary cannot be created: a directory this user may not write to (root runs the packer
  // as nobody for it).
  const path locked = out / "locked";
  tp_test::fs::create_directories(locked);
  const bool root = geteuid() == 0;
  if (!root) REQUIRE(chmod(locked.c_str(), 0555) == 0);
  r = tp_test::run_cli_env(root ? "setpriv --reuid=65534 --regid=65534 --clear-groups" : "",
                           "pack " + manifest + " -o " + q(locked) + " --name fx");
  CHECK(r.code == 1);
  const std::string prefix = "tritonpack: cannot create a temporary file next to " + (locked / "fx.tpk").string() +
                             " (" + (locked / "fx.tpk.tmp.").string();
  CHECK_MESSAGE(r.out.rfind(prefix, 0) == 0, r.out);
  CHECK(has(r.out, "): Permission denied; choose another output directory with -o\n"));
  tp_test::fs::remove_all(locked);

  // extract: a kernel's directory is taken by a file.
  r = run_cli("pack " + manifest + " -o " + q(out) + " --name fx");
  REQUIRE_MESSAGE(r.code == 0, r.out);
  tp_test::spit(out / "ex" / "vector_add", std::string("x"));
  r = run_cli("extract " + q(out / "fx.tpk") + " -o " + q(out / "ex"));
  CHECK(r.code == 1);
  CHECK(has(r.out, "tritonpack: cannot create the directory " + (out / "ex" / "vector_add" / "v0").string() +
                       ": Not a directory (a part of the path is a file, not a directory); choose another output "
                       "directory with -o\n"));
  for (const auto& e : tp_test::fs::recursive_directory_iterator(out)) {
    CAPTURE(e.path());
    CHECK(e.path().filename().string().find(".tmp.") == std::string::npos);  // no temporary left
  }
}

TEST_CASE("pack and extract never write through a symbolic link planted at a temporary's old fixed name") {
  const std::string manifest = q(path(TP_ARTIFACTS) / "manifest.json");
  const path out = work / "planted";
  tp_test::fs::remove_all(out);
  tp_test::fs::create_directories(out);
  const path victim = out / "victim_profile";
  const std::string precious = "export PATH=/usr/bin\n";
  tp_test::spit(victim, precious);
  auto untouched = [&] {
    const auto v = tp_test::slurp(victim);
    return std::string(v.begin(), v.end()) == precious;
  };
  // pack: `<out>.tmp` of the container and of the header point at the victim.
  for (const char* name : {"fx.tpk.tmp", "fx.hpp.tmp"}) tp_test::fs::create_symlink(victim, out / name);
  auto r = run_cli("pack " + manifest + " -o " + q(out) + " --name fx");
  CHECK_MESSAGE(r.code == 0, r.out);
  CHECK(untouched());
  CHECK(tp_test::fs::is_regular_file(out / "fx.tpk"));
  CHECK(tp_test::fs::file_size(out / "fx.tpk") > 0);
  CHECK(tp_test::fs::is_regular_file(out / "fx.hpp"));

  // extract: every image's `<file>.tmp` points at the victim.
  const path ex = out / "ex";
  r = run_cli("extract " + q(out / "fx.tpk") + " -o " + q(ex));
  REQUIRE_MESSAGE(r.code == 0, r.out);
  std::set<path> files;
  for (const auto& e : tp_test::fs::recursive_directory_iterator(ex))
    if (e.is_regular_file()) files.insert(e.path());
  REQUIRE(!files.empty());
  for (const path& f : files) {
    tp_test::fs::remove(f);
    tp_test::fs::create_symlink(victim, f.string() + ".tmp");
  }
  r = run_cli("extract " + q(out / "fx.tpk") + " -o " + q(ex));
  CHECK_MESSAGE(r.code == 0, r.out);
  CHECK(untouched());
  for (const path& f : files) {
    CAPTURE(f);
    CHECK(tp_test::fs::is_regular_file(f));
    CHECK(tp_test::fs::is_symlink(f.string() + ".tmp"));  // left as it was
  }
  tp_test::fs::remove_all(out);
}

}  // namespace cli_io_tests
