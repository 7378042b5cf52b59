// The JIT disk cache: written atomically, keyed by image checksum + arch + driver version, used by
// a later library and by another process, refused (with the reason logged) when damaged or not
// trustworthy, correct with 64 processes on a cold cache, disabled by TRITONPACK_CACHE=0.
#include <doctest/doctest.h>

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <thread>

#include <tritonpack/runtime/jit_cache.hpp>
#include <tritonpack/core/load_stats.hpp>

#include "test_util.hpp"

using namespace tritonpack;
using tptest::contains;

namespace runtime_jit_cache_tests {  // this file's own names (the test binary is a unity build)
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

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// True when the entry at `path` is intact and trusted, read with the source it records.
bool intact_entry(const std::string& path) {
  const std::string e = read_file(path);
  if (e.size() < jit_cache::header_size) return false;
  const std::uint64_t n = byte_io::load_u64(reinterpret_cast<const std::uint8_t*>(e.data()) + 16);
  if (n > e.size() - jit_cache::header_size) return false;
  const std::vector<std::uint8_t> source(e.begin() + jit_cache::header_size, e.begin() + jit_cache::header_size + static_cast<std::ptrdiff_t>(n));
  return jit_cache::read(path, source).has_value();
}

void write_file(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

// Why jit_cache refuses `path` ("" when it accepts or the file is absent).
std::string refusal(const std::string& path) {
  std::string why;
  jit_cache::inspect(path, why);
  return why;
}

// A uid other than ours, to chown a cache file to (root may).
constexpr uid_t other_uid = 4242;

void launch_vector_add(library& lib) {
  alignas(16) static float a[4];
  float* p = a;
  lib.get("vector_add").launch(nullptr, {1, 1, 1}, p, p, p, std::int32_t{16}, 1.0f);
}
}  // namespace

TEST_CASE("jit_cache: file names, round trip, damaged files ignored") {
  cache_dir_guard g;
  CHECK(jit_cache::file_name(0xabcull, "gfx90a:xnack-", 13000) == "v4-0000000000000abc-gfx90a_xnack_-13000.bin");
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
    f.write("TPJIT003", 8);
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

TEST_CASE("jit_cache: a damaged or untrustworthy file is refused with the reason") {
  cache_dir_guard g;
  const std::string path = g.path() + "/" + jit_cache::file_name(0x1234, "sm_90", 13000);
  const std::vector<std::uint8_t> payload(4096, 0x3c);
  auto fresh = [&] {
    ::unlink(path.c_str());
    REQUIRE(jit_cache::write(g.path(), path, payload).empty());
    REQUIRE(refusal(path).empty());
  };
  fresh();
  const std::string good = read_file(path);
  CHECK(refusal(g.path() + "/absent.bin").empty());  // absent: no entry, nothing to say

  SUBCASE("truncated") {
    write_file(path, good.substr(0, good.size() - 1));
    CHECK(refusal(path) == "truncated or padded: the header says 0 source and 4096 payload bytes, the file has 4095 after the header");
    write_file(path, good.substr(0, 20));
    CHECK(refusal(path) == "truncated: 20 bytes, shorter than the 40-byte header");
    write_file(path, "");
    CHECK(refusal(path) == "truncated: 0 bytes, shorter than the 40-byte header");
  }
  SUBCASE("bit-flipped") {
    for (std::size_t at : {std::size_t{40}, good.size() - 1}) {  // payload bytes
      std::string bad = good;
      bad[at] = static_cast<char>(bad[at] ^ 0x10);
      write_file(path, bad);
      CHECK(refusal(path) == "damaged: the entry's XXH64 does not match the header's");
    }
    std::string bad = good;
    bad[25] = static_cast<char>(bad[25] ^ 0x01);  // the payload size field
    write_file(path, bad);
    CHECK(contains(refusal(path), "truncated or padded: the header says "));
    bad = good;
    bad[3] = 'X';
    write_file(path, bad);
    CHECK(refusal(path) == "not a tritonpack JIT cache file of this version (no TPJIT003 magic)");
  }
  SUBCASE("another key's entry, copied or renamed") {
    const std::string other = g.path() + "/" + jit_cache::file_name(0x5678, "sm_90", 13000);
    write_file(other, good);
    REQUIRE(chmod(other.c_str(), 0600) == 0);
    CHECK(refusal(other) == "holds the entry of another key (copied or renamed)");
  }
  SUBCASE("writable by others or by the group") {
    REQUIRE(chmod(path.c_str(), 0606) == 0);
    CHECK(refusal(path) == "writable by others (mode 0606)");
    REQUIRE(chmod(path.c_str(), 0620) == 0);
    CHECK(refusal(path) == "writable by its group (mode 0620)");
    REQUIRE(chmod(path.c_str(), 0644) == 0);  // readable by others is no risk
    CHECK(refusal(path).empty());
  }
  SUBCASE("owned by another user") {
    if (chown(path.c_str(), other_uid, static_cast<gid_t>(-1)) != 0) {
      MESSAGE("skipped: chown to uid " << other_uid << " failed (" << std::strerror(errno) << "); run as root to test ownership");
      return;
    }
    CHECK(refusal(path) == "owned by uid 4242, not by this user (uid " + std::to_string(geteuid()) + ")");
  }
  SUBCASE("a symbolic link, even to a good entry") {
    const std::string target = g.path() + "/target.bin";
    REQUIRE(rename(path.c_str(), target.c_str()) == 0);
    REQUIRE(symlink(target.c_str(), path.c_str()) == 0);
    CHECK(refusal(path) == "a symbolic link");
  }
  SUBCASE("a directory others may write to, unless it has the sticky bit") {
    REQUIRE(chmod(g.path().c_str(), 0777) == 0);
    CHECK(refusal(path) == "its directory " + g.path() +
                               " is writable by others without the sticky bit (mode 0777), so another user could replace "
                               "the file; chmod o-w or +t " + g.path() + ", or set TRITONPACK_CACHE_DIR");
    REQUIRE(chmod(g.path().c_str(), 01777) == 0);
    CHECK(refusal(path).empty());
  }
  // Each refusal is repaired by the rewrite after the compile.
  ::unlink(path.c_str());
  REQUIRE(chmod(g.path().c_str(), 0700) == 0);
  fresh();
}

TEST_CASE("a refused cache entry is logged with its file and reason, compiled again and rewritten (child process)") {
  if (!std::getenv("TP_JITREFUSE_CHILD")) {
    const auto child = tptest::run_self("TP_JITREFUSE_CHILD=1 TRITONPACK_LOG=1", "*refused cache entry is logged*");
    const std::string& out = child.output;
    CAPTURE(out);
    CHECK(child.status == 0);
    CHECK(contains(out, "refused: truncated or padded: the header says "));
    CHECK(contains(out, "refused: damaged: the entry's XXH64 does not match the header's; compiling again"));
    CHECK(contains(out, "refused: writable by others (mode 0666); compiling again"));
    if (!contains(out, "skipped: chown"))
      CHECK(contains(out, "refused: owned by uid 4242, not by this user"));
    CHECK(contains(out, "-sm_90-13000.bin refused: "));  // the log names the file
    return;
  }
  cache_dir_guard g;
  setenv("TRITONPACK_FORCE_IR", "1", 1);
  const auto& bytes = tptest::fixture_container();
  auto load = [&] {  // one library's first launch: the JIT path, served by the cache or compiled
    auto& f = tptest::setup("sm_90");
    library lib(bytes.data(), bytes.size());
    launch_vector_add(lib);
    CHECK(lib.get("vector_add").loaded_image(0).kind == image_kind::ptx);
    REQUIRE(f.launches().size() == 1);
    CHECK(std::string(f.launches()[0].name) == "vector_add");
    return f.calls("cuLinkComplete");
  };
  CHECK(load() == 1);  // cold
  const auto files = list_dir(g.path());
  REQUIRE(files.size() == 1);
  const std::string path = g.path() + "/" + files[0];
  const std::string good = read_file(path);
  CHECK(load() == 0);  // warm
  using damage_fn = bool (*)(const std::string&, const std::string&);
  const std::pair<const char*, damage_fn> damages[] = {
      {"truncated", [](const std::string& p, const std::string& b) { write_file(p, b.substr(0, b.size() / 2)); return true; }},
      {"bit-flipped",
       [](const std::string& p, const std::string& b) {
         std::string bad = b;
         bad[bad.size() - 5] = static_cast<char>(bad[bad.size() - 5] ^ 0x04);
         write_file(p, bad);
         return true;
       }},
      {"world-writable", [](const std::string& p, const std::string&) { return chmod(p.c_str(), 0666) == 0; }},
      {"owned by another user",
       [](const std::string& p, const std::string&) {
         if (chown(p.c_str(), other_uid, static_cast<gid_t>(-1)) == 0) return true;
         std::printf("skipped: chown to uid %u failed (%s); run as root to test ownership\n", unsigned(other_uid), std::strerror(errno));
         return false;
       }},
  };
  for (const auto& d : damages) {
    CAPTURE(d.first);
    if (!d.second(path, good)) continue;
    CHECK(load() == 1);  // refused and compiled again
    struct stat st;
    REQUIRE(stat(path.c_str(), &st) == 0);  // rewritten: ours, private, intact
    CHECK(st.st_uid == geteuid());
    CHECK((st.st_mode & 07777) == 0600);
    CHECK(read_file(path) == good);
    CHECK(load() == 0);
  }
  unsetenv("TRITONPACK_FORCE_IR");
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

TEST_CASE("temporaries: a new file is never opened through a planted link; names are random; old ones are swept") {
  cache_dir_guard g;
  const std::string victim = g.dir + "/victim", planted = g.dir + "/out.tpk.tmp";
  write_file(victim, "precious");
  REQUIRE(symlink(victim.c_str(), planted.c_str()) == 0);
  errno = 0;
  const int fd = temp_file::open_new(planted, 0600);
  const int err = errno;
  CHECK(fd < 0);
  CHECK(err == EEXIST);
  CHECK(read_file(victim) == "precious");
  // Two temporaries of one target never share a name, and neither is the fixed one.
  std::string a, b;
  const int fa = temp_file::create(g.dir + "/out.tpk", 0600, a), fb = temp_file::create(g.dir + "/out.tpk", 0600, b);
  REQUIRE(fa >= 0);
  REQUIRE(fb >= 0);
  close(fa);
  close(fb);
  CHECK(a != b);
  CHECK(a.rfind(g.dir + "/out.tpk.tmp.", 0) == 0);
  CHECK(a.size() == (g.dir + "/out.tpk.tmp.").size() + 16);

  // A cache write sweeps what writers killed mid-write left, once it is an hour old: this user's
  // regular files only; a fresh temporary (a writer at work) stays.
  const std::string d = g.path();
  REQUIRE(jit_cache::make_dirs(d));
  auto age = [](const std::string& p, int seconds) {
    struct timespec t[2];
    t[0].tv_sec = t[1].tv_sec = time(nullptr) - seconds;
    t[0].tv_nsec = t[1].tv_nsec = 0;
    return utimensat(AT_FDCWD, p.c_str(), t, AT_SYMLINK_NOFOLLOW) == 0;
  };
  const std::string old_tmp = d + "/v2-00-sm_90-1.bin.tmp.0123456789abcdef";
  const std::string old_style = d + "/v2-00-sm_90-1.bin.tmp.4242.77.0";  // an older run time's name
  const std::string fresh_tmp = d + "/v2-01-sm_90-1.bin.tmp.fedcba9876543210";
  const std::string old_link = d + "/x.tmp.link";
  for (const std::string& p : {old_tmp, old_style, fresh_tmp}) write_file(p, "half a cubin");
  REQUIRE(symlink(victim.c_str(), old_link.c_str()) == 0);
  REQUIRE(age(old_tmp, 7200));
  REQUIRE(age(old_style, 7200));
  REQUIRE(age(old_link, 7200));
  REQUIRE(jit_cache::write(d, d + "/entry.bin", std::vector<std::uint8_t>(8, 1)).empty());
  CHECK(access(old_tmp.c_str(), F_OK) != 0);
  CHECK(access(old_style.c_str(), F_OK) != 0);
  CHECK(access(fresh_tmp.c_str(), F_OK) == 0);
  struct stat st;
  CHECK(lstat(old_link.c_str(), &st) == 0);  // not a regular file: not ours to judge
  CHECK(read_file(victim) == "precious");
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
  CHECK(intact_entry(g.path() + "/" + list_dir(g.path())[0]));
}

// 64 processes start at once on a cold cache, each loading the same PTX with the IR path forced.
// Run in a child process with TRITONPACK_LOG=1 (read once per process), which forks the 64 after
// building the container once; each writes its log to its own file.
TEST_CASE("64 processes on a cold cache: every one gets a correct module, none reads a partial file") {
  constexpr int n = 64;
  if (!std::getenv("TP_JIT64_CHILD")) {
    const auto child = tptest::run_self("TP_JIT64_CHILD=1 TRITONPACK_LOG=1", "*64 processes on a cold cache*");
    const std::string& out = child.output;
    CHECK_MESSAGE(child.status == 0, out);
    const std::size_t at = out.find("jit64: compiled by ");
    REQUIRE_MESSAGE(at != std::string::npos, out);
    MESSAGE(out.substr(at, out.find('\n', at) - at));  // the figure, for the record
    return;
  }
  cache_dir_guard g;
  setenv("TRITONPACK_FORCE_IR", "1", 1);
  const auto& bytes = tptest::fixture_container();  // built before the fork: the children share it
  int gate[2];
  REQUIRE(pipe(gate) == 0);
  enum : int { hit = 0, compiled = 10, wrong = 20, threw = 30 };
  std::vector<pid_t> pids;
  for (int i = 0; i < n; ++i) {
    const pid_t pid = fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
      ::close(gate[1]);
      const std::string log = g.dir + "/log." + std::to_string(i);
      const int lfd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
      if (lfd < 0 || ::dup2(lfd, 2) < 0) _exit(threw);
      char c;
      while (::read(gate[0], &c, 1) < 0 && errno == EINTR) {
      }  // EOF when the parent closes the gate: all start at once
      int rc = threw;
      try {
        auto& f = tptest::setup("sm_90");
        library lib(bytes.data(), bytes.size());
        alignas(16) static float x[16], y[16], out[16];
        float *px = x, *py = y, *po = out;
        lib.get("vector_add").launch(nullptr, {1, 1, 1}, px, py, po, std::int32_t{16}, 1.0f);
        const auto launches = f.launches();
        const bool right = lib.get("vector_add").loaded_image(0).kind == image_kind::ptx && launches.size() == 1 &&
                           std::string(launches[0].name) == "vector_add" && tptest::param<float*>(launches[0], 0) == px &&
                           tptest::param<float*>(launches[0], 2) == po && f.calls("cuModuleLoadData") >= 1;
        // image_loads() must tell the same story as the driver's calls: a compile or a cache hit.
        const image_load_counts counts = image_loads();
        const bool compiled_here = f.calls("cuLinkComplete") == 1 && counts.jit_compiled == 1 && counts.jit_cache_hits == 0;
        const bool served = f.calls("cuLinkComplete") == 0 && counts.jit_compiled == 0 && counts.jit_cache_hits == 1;
        rc = !right || counts.binaries != 0 ? wrong : compiled_here ? compiled : served ? hit : wrong;
      } catch (const std::exception& e) {
        std::fprintf(stderr, "child %d: %s\n", i, e.what());
      }
      std::fflush(stderr);
      _exit(rc);
    }
    pids.push_back(pid);
  }
  ::close(gate[0]);
  ::close(gate[1]);
  int hits = 0, compiles = 0;
  for (pid_t p : pids) {
    int status = 0;
    REQUIRE(waitpid(p, &status, 0) == p);
    CHECK(WIFEXITED(status));  // no crash
    const int rc = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    CHECK((rc == hit || rc == compiled));
    hits += rc == hit;
    compiles += rc == compiled;
  }
  unsetenv("TRITONPACK_FORCE_IR");
  for (int i = 0; i < n; ++i) {
    const std::string log = read_file(g.dir + "/log." + std::to_string(i));
    CAPTURE(log);
    CHECK_FALSE(contains(log, "refused"));  // no process read a partial or damaged file
    CHECK_FALSE(contains(log, "did not load"));
    CHECK_FALSE(contains(log, "not written"));
  }
  const auto files = list_dir(g.path());
  REQUIRE(files.size() == 1);  // one entry, no temporary left behind
  CHECK(intact_entry(g.path() + "/" + files[0]));
  CHECK(hits + compiles == n);
  CHECK(compiles >= 1);
  std::printf("jit64: compiled by %d of %d processes, %d served from the cache\n", compiles, n, hits);
}

// image_loads(): one count per module loaded, by how the image was obtained (examples/mpi reports them).
TEST_CASE("image_loads() counts cubins loaded, PTX compiled and JIT cache hits") {
  cache_dir_guard g;
  const auto& bytes = tptest::fixture_container();
  auto delta = [](const image_load_counts& a, const image_load_counts& b) {
    return std::to_string(b.binaries - a.binaries) + " " + std::to_string(b.jit_compiled - a.jit_compiled) + " " +
           std::to_string(b.jit_cache_hits - a.jit_cache_hits);
  };
  auto load_once = [&](const char* arch) {
    tptest::setup(arch);
    const image_load_counts before = image_loads();
    {
      library lib(bytes.data(), bytes.size());
      launch_vector_add(lib);
      launch_vector_add(lib);  // a second launch loads nothing
    }
    return delta(before, image_loads());
  };
  CHECK(load_once("sm_90") == "1 0 0");   // the sm_90 cubin
  CHECK(load_once("sm_120") == "0 1 0");  // no cubin fits: the PTX is compiled (cold cache) ...
  CHECK(load_once("sm_120") == "0 0 1");  // ... and the next library reads it from the cache
  setenv("TRITONPACK_FORCE_IR", "1", 1);
  CHECK(load_once("sm_90") == "0 1 0");  // forced IR: another key (arch), compiled
  CHECK(load_once("sm_90") == "0 0 1");
  unsetenv("TRITONPACK_FORCE_IR");
  setenv("TRITONPACK_CACHE", "0", 1);
  CHECK(load_once("sm_120") == "0 1 0");  // no cache: compiled by cuModuleLoadDataEx, counted all the same
  unsetenv("TRITONPACK_CACHE");
  const image_load_counts now = image_loads();
  CHECK(now.total() == now.binaries + now.jit_compiled + now.jit_cache_hits);
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

namespace {
// An entry for `source` and `payload` as a writer of another build (or an attacker holding an IR
// with the same XXH64) would put under `path`: every header field valid for those bytes.
void forge_entry(const std::string& path, const std::string& source, const std::string& payload) {
  std::string e(jit_cache::header_size, '\0');
  std::memcpy(&e[0], jit_cache::magic, 8);
  xxh64_stream h;
  h.update(source.data(), source.size());
  h.update(payload.data(), payload.size());
  auto put = [&](std::size_t at, std::uint64_t v) { byte_io::store_u64(reinterpret_cast<std::uint8_t*>(&e[at]), v); };
  put(8, jit_cache::key_of(path));
  put(16, source.size());
  put(24, payload.size());
  put(32, h.digest());
  write_file(path, e + source + payload);
  REQUIRE(chmod(path.c_str(), 0600) == 0);
}
}  // namespace

TEST_CASE("jit_cache: an entry is used only for the exact source bytes it was compiled from") {
  cache_dir_guard g;
  const std::string path = g.path() + "/" + jit_cache::file_name(0x1234, "sm_90", 13000);
  const std::vector<std::uint8_t> source_a(300, 'a'), payload(128, 0x7e);
  std::vector<std::uint8_t> source_b = source_a;  // same size, one byte differs: a collision of XXH64 and size
  source_b[150] = 'b';
  REQUIRE(jit_cache::write(g.path(), path, payload, source_a).empty());
  auto hit = jit_cache::read(path, source_a);
  REQUIRE(hit);
  CHECK(*hit == payload);
  std::string why;
  CHECK_FALSE(jit_cache::inspect(path, why, source_b));
  CHECK(why == "compiled from other source bytes with the same XXH64 and size (a collision, or an entry forged under "
               "this image's name)");
  CHECK_FALSE(jit_cache::inspect(path, why, std::vector<std::uint8_t>(301, 'a')));
  CHECK(why == "compiled from other source bytes (300 bytes, this image has 301)");
}

TEST_CASE("jit_cache: bytes appended after the payload are refused, and a huge file is refused without reading it") {
  cache_dir_guard g;
  const std::string path = g.path() + "/" + jit_cache::file_name(0x1234, "sm_90", 13000);
  const std::vector<std::uint8_t> source(100, 's'), payload(64, 0x11);
  REQUIRE(jit_cache::write(g.path(), path, payload, source).empty());
  const std::string good = read_file(path);
  std::string why;
  SUBCASE("one byte appended") {
    write_file(path, good + "x");
    CHECK_FALSE(jit_cache::inspect(path, why, source));
    CHECK(why == "truncated or padded: the header says 100 source and 64 payload bytes, the file has 165 after the header");
  }
  SUBCASE("6 GiB appended (sparse): refused from fstat, before any of it is read") {
    write_file(path, good);
    REQUIRE(truncate(path.c_str(), off_t{6} << 30) == 0);
    const auto t0 = std::chrono::steady_clock::now();
    CHECK_FALSE(jit_cache::inspect(path, why, source));
    CHECK(std::chrono::steady_clock::now() - t0 < std::chrono::seconds(2));
    CHECK(contains(why, "truncated or padded: the header says 100 source and 64 payload bytes, the file has 6442450904 after the header"));
  }
  SUBCASE("a header declaring more than an entry may hold") {
    std::string bad = good;
    byte_io::store_u64(reinterpret_cast<std::uint8_t*>(&bad[24]), std::uint64_t{1} << 40);
    write_file(path, bad);
    CHECK_FALSE(jit_cache::inspect(path, why, source));
    CHECK(why == "declares 1099511627776 payload bytes, more than an entry may hold (4294967296)");
  }
}

// The attack the binding stops: an entry whose checksums are all valid, made from another IR that
// has this image's XXH64 and size, stored under this image's file name. The library must compile
// its own PTX rather than load the forged module, and replace the entry.
TEST_CASE("a forged JIT cache entry under this image's name is a miss: compiled again, never loaded") {
  cache_dir_guard g;
  setenv("TRITONPACK_FORCE_IR", "1", 1);
  const auto& bytes = tptest::fixture_container();
  auto load = [&] {
    auto& f = tptest::setup("sm_90");
    library lib(bytes.data(), bytes.size());
    launch_vector_add(lib);
    CHECK(f.launches().size() == 1);
    return f.calls("cuLinkComplete");
  };
  REQUIRE(load() == 1);
  const auto files = list_dir(g.path());
  REQUIRE(files.size() == 1);
  const std::string path = g.path() + "/" + files[0];
  const std::string good = read_file(path);
  const std::uint64_t source_size = byte_io::load_u64(reinterpret_cast<const std::uint8_t*>(good.data()) + 16);
  const std::string source = good.substr(jit_cache::header_size, source_size);
  const std::string cubin = good.substr(jit_cache::header_size + source_size);
  // The source is the PTX's decode identity in its container (container::decode_identity).
  const container c = container::parse(bytes.data(), bytes.size());
  bool identity_of_a_ptx = false;
  for (std::uint32_t i = 0; i < c.info().images.size(); ++i) {
    const auto id = c.decode_identity(i, std::uint64_t{1} << 20);
    if (c.info().images[i].kind == image_kind::ptx && std::string(id.begin(), id.end()) == source)
      identity_of_a_ptx = true;
  }
  REQUIRE(identity_of_a_ptx);
  std::string other = source;  // the attacker's: same size, other bytes (its frame's, say)
  other[other.size() - 1] = static_cast<char>(other.back() ^ 1);
  // A module that loads: without the binding it would be used, and no compile would happen.
  forge_entry(path, other, cubin);
  CHECK(load() == 1);
  CHECK(read_file(path) == good);  // rewritten from this image's own PTX
  // A warm load compiles nothing and decodes nothing: the identity is compared, not the PTX.
  const image_load_counts before = image_loads();
  CHECK(load() == 0);
  CHECK(image_loads().jit_cache_hits == before.jit_cache_hits + 1);
  CHECK(image_loads().decoded == before.decoded);
  unsetenv("TRITONPACK_FORCE_IR");
}

TEST_CASE("a JIT cache that cannot be written is said once per process, and nothing goes into a directory others may replace files in") {
  if (!std::getenv("TP_JITWARN_CHILD")) {
    const auto child = tptest::run_self("TP_JITWARN_CHILD=1", "*cannot be written is said once*");
    const std::string& out = child.output;
    CAPTURE(out);
    CHECK(tptest::one_case_passed(child));
    std::size_t warnings = 0;
    for (std::size_t at = out.find("tritonpack: warning: JIT cache not written: "); at != std::string::npos;
         at = out.find("tritonpack: warning:", at + 1))
      ++warnings;
    CHECK(warnings == 1);
    CHECK(contains(out, "tritonpack: warning: JIT cache not written: nothing is written there: its directory "));
    CHECK(contains(out, " is writable by others without the sticky bit (mode 0777), so another user could replace the "
                        "file; chmod o-w or +t "));
    return;
  }
  cache_dir_guard g;
  setenv("TRITONPACK_FORCE_IR", "1", 1);
  REQUIRE(jit_cache::make_dirs(g.path()));
  REQUIRE(chmod(g.path().c_str(), 0777) == 0);
  const auto& bytes = tptest::fixture_container();
  for (int i = 0; i < 2; ++i) {  // two libraries: one warning
    auto& f = tptest::setup("sm_90");
    library lib(bytes.data(), bytes.size());
    launch_vector_add(lib);
    CHECK(f.launches().size() == 1);
  }
  CHECK(list_dir(g.path()).empty());
  // A file where the directory should be: also not written, and not said a second time.
  REQUIRE(chmod(g.path().c_str(), 0700) == 0);
  tptest::remove_tree(g.path());
  write_file(g.path(), "in the way");
  {
    tptest::setup("sm_90");
    library lib(bytes.data(), bytes.size());
    launch_vector_add(lib);
  }
  unsetenv("TRITONPACK_FORCE_IR");
}

TEST_CASE("jit_cache: a quoted ~ in TRITONPACK_CACHE_DIR is the home directory; ~user is refused") {
  const std::string old_dir = env::get("TRITONPACK_CACHE_DIR"), old_home = env::get("HOME");
  setenv("HOME", "/home/tp-test", 1);
  setenv("TRITONPACK_CACHE_DIR", "~/jit", 1);
  CHECK(jit_cache::directory() == std::optional<std::string>("/home/tp-test/jit"));
  setenv("TRITONPACK_CACHE_DIR", "~", 1);
  CHECK(jit_cache::directory() == std::optional<std::string>("/home/tp-test"));
  setenv("TRITONPACK_CACHE_DIR", "~other/jit", 1);
  CHECK_FALSE(jit_cache::directory());
  unsetenv("HOME");
  setenv("TRITONPACK_CACHE_DIR", "~/jit", 1);
  CHECK_FALSE(jit_cache::directory());
  setenv("HOME", old_home.c_str(), 1);
  setenv("TRITONPACK_CACHE_DIR", old_dir.c_str(), 1);
}

}  // namespace runtime_jit_cache_tests
