// Secure execution (core/env.hpp): a set-user-ID program takes neither its driver libraries nor its
// cache directory from its caller's environment. The rule itself, through env::detail::get with the
// process's state as an argument; then the real thing: secure_exec/probe.cpp installed set-user-ID
// root and run as nobody, with TRITONPACK_CUDA_LIBRARY (and _HIP_, _COMGR_) naming a library whose
// constructor writes a marker file, and the cache variables naming a directory of the caller's.
#include <doctest/doctest.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

#include <tritonpack/runtime/jit_cache.hpp>

#include "test_util.hpp"

using namespace tritonpack;
using tptest::contains;

namespace runtime_secure_execution_tests {  // this file's own names (the test binary is a unity build)
namespace {

// Sets a variable for one scope and puts the old value back.
struct scoped_env {
  std::string name;
  bool had;
  std::string old;
  scoped_env(const char* n, const char* value) : name(n), had(std::getenv(n) != nullptr) {
    if (had) old = std::getenv(n);
    setenv(n, value, 1);
  }
  ~scoped_env() {
    if (had) setenv(name.c_str(), old.c_str(), 1);
    else unsetenv(name.c_str());
  }
};

// A shell command's exit status and its stdout and stderr.
tptest::child_result run(const std::string& cmd) {
  tptest::child_result r;
  FILE* p = popen((cmd + " 2>&1").c_str(), "r");
  if (!p) return r;
  char buf[4096];
  while (size_t n = fread(buf, 1, sizeof buf, p)) r.output.append(buf, n);
  r.status = pclose(p);
  return r;
}

bool copy_file(const std::string& from, const std::string& to, mode_t mode) {
  {
    std::ifstream in(from, std::ios::binary);
    std::ofstream out(to, std::ios::binary | std::ios::trunc);
    if (!in || !out) return false;
    out << in.rdbuf();
    if (!out) return false;
  }
  return chmod(to.c_str(), mode) == 0;
}

bool exists(const std::string& path) { return access(path.c_str(), F_OK) == 0; }

}  // namespace

TEST_CASE("secure execution: every TRITONPACK_ variable reads as unset but TRITONPACK_LOG; HOME and XDG_CACHE_HOME too") {
  const char* ignored[] = {env::cuda_library, env::hip_library, env::comgr_library, env::backend, env::force_ir,
                           env::cache,        env::cache_dir,   env::verify_abi,    env::force_image,
                           env::tune_lock_wait, "TRITONPACK_AUTOTUNE", "TRITONPACK_TUNE_BUDGET_MS", "HOME",
                           "XDG_CACHE_HOME"};
  for (const char* name : ignored) {
    CAPTURE(name);
    scoped_env e(name, "/tmp/chosen-by-the-caller");
    CHECK(env::detail::get(name, true).empty());
    CHECK(env::detail::get(name, false) == "/tmp/chosen-by-the-caller");
  }
  for (const char* name : {env::log, "CUDA_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES"}) {
    CAPTURE(name);
    scoped_env e(name, "1");
    CHECK(env::detail::get(name, true) == "1");
  }
  // This test process is an ordinary one: everything reads, nothing is reported as ignored.
  CHECK_FALSE(env::secure_execution());
  scoped_env e(env::cuda_library, "/tmp/x.so");
  CHECK(env::get(env::cuda_library) == "/tmp/x.so");
  CHECK_FALSE(env::ignored(env::cuda_library));
}

TEST_CASE("a set-user-ID root program run by nobody loads no library TRITONPACK_*_LIBRARY names and keeps its cache in root's home") {
  if (geteuid() != 0) {
    MESSAGE("skipped: installing a set-user-ID root program and running it as another user needs root");
    return;
  }
  if (run("command -v setpriv").status != 0) {
    MESSAGE("skipped: setpriv (util-linux) is not installed; it runs the program as nobody");
    return;
  }
  const std::string dir = tptest::make_temp_dir("tp-setuid");
  REQUIRE(chmod(dir.c_str(), 0755) == 0);  // nobody must reach the program
  const std::string probe = dir + "/probe", lib = dir + "/libmarker.so", marker = dir + "/marker";
  const std::string theirs = dir + "/callers-cache";
  REQUIRE(copy_file(TP_SECURE_PROBE_PATH, probe, 0755));
  REQUIRE(copy_file(TP_MARKER_LIBRARY_PATH, lib, 0755));
  REQUIRE(chown(probe.c_str(), 0, 0) == 0);
  REQUIRE(chmod(probe.c_str(), 04755) == 0);
  const std::string env = "env TP_MARKER_FILE=" + marker + " TRITONPACK_CUDA_LIBRARY=" + lib +
                          " TRITONPACK_HIP_LIBRARY=" + lib + " TRITONPACK_COMGR_LIBRARY=" + lib +
                          " TRITONPACK_CACHE_DIR=" + theirs + " XDG_CACHE_HOME=" + theirs + " HOME=" + theirs +
                          " TRITONPACK_LOG=1 ";

  // Control: root runs the same program (set-user-ID root changes nothing for root: an ordinary
  // process). The library is loaded (so the marker shows a load) and the cache is where the
  // variables say.
  const auto plain = run(env + probe);
  CAPTURE(plain.output);
  CHECK(contains(plain.output, "AT_SECURE 0"));
  CHECK(exists(marker));
  CHECK(contains(plain.output, "cache dir " + theirs + "\n"));
  unlink(marker.c_str());

  const auto r = run("setpriv --reuid=65534 --regid=65534 --clear-groups " + env + probe);
  CAPTURE(r.output);
  if (!contains(r.output, "AT_SECURE 1")) {
    MESSAGE("skipped: the set-user-ID bit had no effect here (a nosuid mount of /tmp, or no_new_privs): " << r.output);
    tptest::remove_tree(dir);
    return;
  }
  CHECK(contains(r.output, " euid 0\n"));
  CHECK_MESSAGE(!exists(marker), "the library TRITONPACK_*_LIBRARY named was loaded with euid 0");
  const struct passwd* root = getpwuid(0);
  REQUIRE(root);
  CHECK(contains(r.output, "cache dir " + std::string(root->pw_dir) + "/.cache/tritonpack\n"));
  CHECK(contains(r.output,
                 "tritonpack: TRITONPACK_CUDA_LIBRARY is ignored in a set-user-ID, set-group-ID or capability-raised "
                 "(secure-execution) process; opening the system's driver"));
  CHECK(contains(r.output, "TRITONPACK_HIP_LIBRARY is ignored in a set-user-ID"));
  if (contains(r.output, "error: ")) {  // no system driver here: the error names what was tried
    CHECK(contains(r.output, "libcuda.so.1: "));
    CHECK(contains(r.output, ". TRITONPACK_CUDA_LIBRARY is ignored in a set-user-ID"));
    CHECK_FALSE(contains(r.output, lib + ": "));
  }
  tptest::remove_tree(dir);
}

}  // namespace runtime_secure_execution_tests
