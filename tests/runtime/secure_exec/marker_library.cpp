// A library that must never be loaded: its constructor writes the file named by TP_MARKER_FILE,
// so a test can tell whether a process opened it. test_secure_execution.cpp names it in
// TRITONPACK_CUDA_LIBRARY / TRITONPACK_HIP_LIBRARY / TRITONPACK_COMGR_LIBRARY of a set-user-ID
// program, which must ignore them.
#include <cstdio>
#include <cstdlib>
#include <unistd.h>

__attribute__((constructor)) static void tp_marker_loaded() {
  const char* path = std::getenv("TP_MARKER_FILE");
  if (!path) return;
  std::FILE* f = std::fopen(path, "w");
  if (!f) return;
  std::fprintf(f, "loaded with euid %u\n", static_cast<unsigned>(geteuid()));
  std::fclose(f);
}
