// The JIT cache under contention with the real driver (ctest label gpu): 64 processes start at once
// on a cold cache with TRITONPACK_FORCE_IR=1, each JIT-compiles vector_add's PTX or reads it from
// the cache, runs it on its own data and checks the result on the CPU. Passes when every process
// is correct, none logged a refused cache entry (a partial or damaged file would be refused), the
// cache holds exactly one entry and no temporary file, and at least one process compiled.
//
// The CPU twin is tests/runtime/test_jit_cache.cpp ("64 processes on a cold cache"), which checks
// the test-double driver's calls; this one checks results on the GPU and tritonpack::image_loads().
// The parent never touches the GPU: the children are forked before any CUDA call, each loads the
// driver itself. Every child has a deadline (alarm), so a stuck driver fails the test, not hangs it.
#include <dirent.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <tritonpack/core/load_stats.hpp>
#include <tritonpack/tritonpack.hpp>

#include "gpu_kernels.hpp"

namespace {

constexpr int processes = 64;
constexpr unsigned child_deadline_s = 240;
enum : int { compiled = 10, cache_hit = 11, wrong = 20, threw = 30 };

std::vector<std::string> list_dir(const std::string& dir) {
  std::vector<std::string> out;
  if (DIR* d = opendir(dir.c_str())) {
    while (dirent* e = readdir(d))
      if (e->d_name[0] != '.') out.push_back(e->d_name);
    closedir(d);
  }
  return out;
}

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// One process: vector_add on 1M elements of its own data, checked on the CPU.
int child(int index) {
  const std::int32_t n = 1 << 20;
  const float alpha = 0.5f + static_cast<float>(index);
  std::vector<float> x(n), y(n), got(n);
  for (std::int32_t i = 0; i < n; ++i) {
    x[i] = static_cast<float>((i * 7 + index) % 1000) * 0.001f;
    y[i] = static_cast<float>((i * 13 + 3 * index) % 1000) * 0.002f;
  }
  tritonpack::device_array<float> dx(x), dy(y), dout(static_cast<std::size_t>(n));
  dout.fill_bytes(0xFF);  // NaN: an element the kernel does not write fails the check
  gpu_kernels::vector_add(dx.data(), dy.data(), dout.data(), n, alpha);
  dout.download(got.data(), got.size());
  std::size_t bad = 0;
  for (std::int32_t i = 0; i < n; ++i)
    if (!(std::fabs(got[i] - (x[i] + alpha * y[i])) <= 1e-5f * (1.0f + std::fabs(x[i] + alpha * y[i])))) ++bad;
  const tritonpack::image_load_counts c = tritonpack::image_loads();
  const bool ptx = gpu_kernels::library().get("vector_add").loaded_image(0).kind == tritonpack::image_kind::ptx;
  std::fprintf(stderr, "child %d: %zu wrong elements, image %s, compiled %llu, cache hits %llu, cubins %llu\n", index, bad,
               ptx ? "ptx" : "not ptx", static_cast<unsigned long long>(c.jit_compiled),
               static_cast<unsigned long long>(c.jit_cache_hits), static_cast<unsigned long long>(c.binaries));
  if (bad || !ptx || c.binaries != 0) return wrong;
  if (c.jit_compiled == 1 && c.jit_cache_hits == 0) return compiled;
  if (c.jit_compiled == 0 && c.jit_cache_hits == 1) return cache_hit;
  return wrong;
}

}  // namespace

int main() {
  char tmpl[] = "/tmp/tp-gpu-jit64.XXXXXX";
  if (!mkdtemp(tmpl)) {
    std::perror("mkdtemp");
    return 1;
  }
  const std::string dir = tmpl, cache = dir + "/cache";
  // Read by each child when it first loads a kernel (the log flag once per process).
  setenv("TRITONPACK_FORCE_IR", "1", 1);
  setenv("TRITONPACK_CACHE_DIR", cache.c_str(), 1);
  setenv("TRITONPACK_LOG", "1", 1);

  int gate[2];
  if (pipe(gate) != 0) {
    std::perror("pipe");
    return 1;
  }
  std::vector<pid_t> pids;
  for (int i = 0; i < processes; ++i) {
    const pid_t pid = fork();
    if (pid < 0) {
      std::perror("fork");
      return 1;  // the children started so far exit on their own: the gate's write end closes
    }
    if (pid == 0) {
      ::close(gate[1]);
      const std::string log = dir + "/log." + std::to_string(i);
      const int lfd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
      if (lfd < 0 || ::dup2(lfd, 2) < 0) _exit(threw);
      alarm(child_deadline_s);  // SIGALRM kills a stuck child: reported as a crash, never a hang
      char c;
      while (::read(gate[0], &c, 1) < 0 && errno == EINTR) {
      }  // EOF when the parent closes the gate: all start at once
      int rc = threw;
      try {
        rc = child(i);
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

  int compiles = 0, hits = 0, failures = 0;
  for (int i = 0; i < processes; ++i) {
    int status = 0;
    if (waitpid(pids[i], &status, 0) != pids[i]) {
      std::perror("waitpid");
      return 1;
    }
    const int rc = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    compiles += rc == compiled;
    hits += rc == cache_hit;
    const std::string log = read_text(dir + "/log." + std::to_string(i));
    // "JIT cache entry ... refused: <why>" / "... did not load", "JIT cache not written: <why>".
    const bool cache_trouble =
        log.find("JIT cache entry ") != std::string::npos || log.find("JIT cache not written") != std::string::npos;
    if ((rc != compiled && rc != cache_hit) || cache_trouble) {
      ++failures;
      std::printf("process %d: %s%s\n%s\n", i,
                  WIFSIGNALED(status) ? ("killed by signal " + std::to_string(WTERMSIG(status))).c_str()
                                      : ("exit status " + std::to_string(rc)).c_str(),
                  cache_trouble ? ", and its log shows a refused or unwritten cache entry" : "", log.c_str());
    }
  }
  const std::vector<std::string> files = list_dir(cache);
  std::size_t entries = 0;
  for (const auto& f : files) entries += f.compare(0, 3, "v4-") == 0 && f.size() > 4 && f.compare(f.size() - 4, 4, ".bin") == 0;
  if (entries != 1 || files.size() != 1) {
    ++failures;
    std::printf("the cache %s holds %zu files, %zu entries; expected exactly one entry and no temporary file\n", cache.c_str(),
                files.size(), entries);
  }
  if (compiles < 1) {
    ++failures;
    std::printf("no process compiled the PTX\n");
  }
  std::printf("jit64 (GPU): compiled by %d of %d processes, %d served from the cache, %d failed\n", compiles, processes, hits,
              failures);
  if (failures == 0) {
    for (int i = 0; i < processes; ++i) ::unlink((dir + "/log." + std::to_string(i)).c_str());
    for (const auto& f : files) ::unlink((cache + "/" + f).c_str());
    ::rmdir(cache.c_str());
    ::rmdir(dir.c_str());
  } else {
    std::printf("logs kept in %s\n", dir.c_str());
  }
  return failures == 0 ? 0 : 1;
}
