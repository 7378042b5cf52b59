// The JIT disk cache: written atomically, keyed by image checksum + arch + driver version, used by
// a later library and by another process, ignored when damaged, disabled by TRITONPACK_CACHE=0.
#include <doctest/doctest.h>

#include <dirent.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <fstream>
#include <thread>

#include <tritonpack/jit_cache.hpp>

#include "test_util.hpp"

using namespace tritonpack;
using tptest::contains;

namespace {
std::vector<std::string> list_dir(const std::string& dir) {
  std::vector<std::string> out;
  if (DIR* d = opendir(dir.c_str())) {
    while (dirent* e = readdir(d))
      if (e->d_name[0] != '.') out.push_back(e->d_name);
    closedir(d);
  }
  return out;
}

struct cache_dir_guard {
  std::string dir;
  std::string old;
  cache_dir_guard() : dir(tptest::make_temp_dir("tp-jit")) {
    old = std::getenv("TRITONPACK_CACHE_DIR");
    setenv("TRITONPACK_CACHE_DIR", (dir + "/sub/dir").c_str(), 1);  // created on first write
  }
  ~cache_dir_guard() {
    setenv("TRITONPACK_CACHE_DIR", old.c_str(), 1);
    tptest::remove_tree(dir);
  }
  std::string path() const { return dir + "/sub/dir"; }
};

void launch_vector_add(library& lib) {
  alignas(16) static float a[4];
  float* p = a;
  lib.get("vector_add").launch(nullptr, {1, 1, 1}, p, p, p, std::int32_t{16}, 1.0f);
}
}  // namespace

TEST_CASE("jit_cache: file names, round trip, damaged files ignored") {
  cache_dir_guard g;
  CHECK(jit_cache::file_name(0xabcull, "gfx90a:xnack-", 13000) == "v1-0000000000000abc-gfx90a_xnack_-13000.bin");
  const std::string path = g.path() + "/x.bin";
  std::vector<std::uint8_t> payload(1000);
  for (size_t i = 0; i < payload.size(); ++i) payload[i] = static_cast<std::uint8_t>(i * 7);
  CHECK(jit_cache::write(g.path(), path, payload).empty());
  auto back = jit_cache::read(path);
  REQUIRE(back);
  CHECK(*back == payload);
  CHECK(list_dir(g.path()).size() == 1);  // no temporary left behind
  {  // truncate: rejected
    std::ofstream f(path, std::ios::binary | std::ios::trunc);
    f.write("TPJIT001", 8);
  }
  CHECK_FALSE(jit_cache::read(path));
  CHECK(jit_cache::write(g.path(), path, payload).empty());
  {  // flip a payload byte: checksum rejects it
    std::fstream f(path, std::ios::binary | std::ios::in | std::ios::out);
    f.seekp(100);
    f.put('\x55');
  }
  CHECK_FALSE(jit_cache::read(path));
  CHECK_FALSE(jit_cache::read(g.path() + "/missing.bin"));
}

TEST_CASE("jit_cache: a write that fails says why and what to do, and leaves no temporary") {
  cache_dir_guard g;
  const std::string file = g.dir + "/file";
  { std::ofstream(file) << "in the way"; }
  const std::vector<std::uint8_t> payload(64, 1);
  const char* remedy = "set TRITONPACK_CACHE_DIR to a directory you may write to, or TRITONPACK_CACHE=0 to not cache";
  // The cache directory is a file, or lies below one.
  for (const std::string& dir : {file, file + "/sub"}) {
    CAPTURE(dir);
    const std::string why = jit_cache::write(dir, dir + "/x.bin", payload);
    CHECK(contains(why, "cannot create the directory " + dir + ": Not a directory (a part of the path is a file"));
    CHECK(contains(why, remedy));
  }
  // A directory stands where the entry goes: the rename fails, the temporary is removed.
  const std::string entry = g.dir + "/entry.bin";
  REQUIRE(mkdir(entry.c_str(), 0700) == 0);
  REQUIRE(mkdir((entry + "/inside").c_str(), 0700) == 0);
  const std::string why = jit_cache::write(g.dir, entry, payload);
  CHECK(contains(why, "cannot rename " + entry + ".tmp."));
  CHECK(contains(why, " to " + entry + ": "));
  CHECK(contains(why, remedy));
  CHECK(list_dir(g.dir).size() == 2);  // file and entry.bin: no temporary left behind
}

TEST_CASE("jit_cache: concurrent writers and readers never see a partial file") {
  cache_dir_guard g;
  const std::string path = g.path() + "/race.bin";
  std::vector<std::uint8_t> payload(1 << 20, 0x5a);
  std::atomic<bool> stop{false};
  std::atomic<int> bad{0}, hits{0};
  std::vector<std::thread> ts;
  for (int w = 0; w < 4; ++w)
    ts.emplace_back([&] {
      for (int i = 0; i < 10; ++i)
        if (!jit_cache::write(g.path(), path, payload).empty()) bad.fetch_add(1);
    });
  std::thread reader([&] {
    while (!stop.load()) {
      if (auto r = jit_cache::read(path)) {
        hits.fetch_add(1);
        if (*r != payload) bad.fetch_add(1);
      }
    }
  });
  for (auto& t : ts) t.join();
  stop = true;
  reader.join();
  CHECK(bad.load() == 0);
  CHECK(jit_cache::read(path));
  CHECK(list_dir(g.path()).size() == 1);
}

TEST_CASE("PTX JIT results are cached and reused by a later library and by another process") {
  cache_dir_guard g;
  auto& f = tptest::setup("sm_120");  // no cubin fits: the sm_80 PTX is JIT-compiled
  const auto& bytes = tptest::fixture_container();
  {
    library lib(bytes.data(), bytes.size());
    launch_vector_add(lib);
    CHECK(lib.get("vector_add").loaded_image(0).kind == image_kind::ptx);
  }
  CHECK(f.calls("cuLinkComplete") == 1);
  auto files = list_dir(g.path());
  REQUIRE(files.size() == 1);
  CHECK(contains(files[0], "-sm_120-13000.bin"));
  {
    library lib(bytes.data(), bytes.size());
    launch_vector_add(lib);
  }
  CHECK(f.calls("cuLinkComplete") == 1);  // served from the cache
  CHECK(f.launches().size() == 2);

  // Another process (same cache directory) loads the cached cubin without compiling.
  const pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    int rc = 1;
    try {
      auto& cf = tptest::setup("sm_120");
      library lib(bytes.data(), bytes.size());
      launch_vector_add(lib);
      rc = cf.calls("cuLinkComplete") == 0 && cf.calls("cuModuleLoadData") == 1 && cf.launches().size() == 1 ? 0 : 2;
    } catch (...) {
      rc = 3;
    }
    _exit(rc);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);

  // Another driver version is another key.
  auto& f2 = tptest::setup("sm_120", 13010);
  {
    library lib(bytes.data(), bytes.size());
    launch_vector_add(lib);
  }
  CHECK(f2.calls("cuLinkComplete") == 1);
  CHECK(list_dir(g.path()).size() == 2);

  // A damaged entry is ignored and rewritten.
  for (const auto& name : list_dir(g.path())) {
    std::ofstream out(g.path() + "/" + name, std::ios::binary | std::ios::trunc);
    out << "junk";
  }
  auto& f3 = tptest::setup("sm_120");
  {
    library lib(bytes.data(), bytes.size());
    launch_vector_add(lib);
  }
  CHECK(f3.calls("cuLinkComplete") == 1);
  CHECK(jit_cache::read(g.path() + "/" + list_dir(g.path())[0]));
}

TEST_CASE("many processes compiling the same key at once all succeed and leave one file") {
  cache_dir_guard g;
  const auto& bytes = tptest::fixture_container();
  std::vector<pid_t> pids;
  for (int i = 0; i < 6; ++i) {
    const pid_t pid = fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
      int rc = 1;
      try {
        tptest::setup("sm_120");
        library lib(bytes.data(), bytes.size());
        launch_vector_add(lib);
        rc = 0;
      } catch (...) {
        rc = 2;
      }
      _exit(rc);
    }
    pids.push_back(pid);
  }
  for (pid_t p : pids) {
    int status = 0;
    waitpid(p, &status, 0);
    CHECK(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 0);
  }
  auto files = list_dir(g.path());
  REQUIRE(files.size() == 1);
  CHECK(jit_cache::read(g.path() + "/" + files[0]));
}

TEST_CASE("TRITONPACK_CACHE=0 JIT-compiles with cuModuleLoadDataEx and writes nothing") {
  cache_dir_guard g;
  setenv("TRITONPACK_CACHE", "0", 1);
  auto& f = tptest::setup("sm_120");
  const auto& bytes = tptest::fixture_container();
  {
    library lib(bytes.data(), bytes.size());
    launch_vector_add(lib);
  }
  unsetenv("TRITONPACK_CACHE");
  CHECK(f.calls("cuModuleLoadDataEx") == 1);
  CHECK(f.calls("cuLinkCreate") == 0);
  CHECK(list_dir(g.path()).empty());
}
