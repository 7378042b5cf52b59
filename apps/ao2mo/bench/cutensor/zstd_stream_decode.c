/* zstd_stream_decode.c — stdin (a zstd stream) to stdout, for bringing cuTENSOR to a GPU machine
 * that has libzstd.so.1 but maybe no zstd program (apps/ao2mo/bench/cutensor/carry.sh). The library
 * is dlopen'ed and the few streaming-API declarations are copied from zstd.h (v1.4+, stable API), so
 * no zstd header or -dev package is needed to build it: cc -O2 -o zstd_stream_decode zstd_stream_decode.c -ldl
 * The window may be up to 2^31 bytes (zstd --long=27 writes 2^27). Exit 0: decoded to the end of a
 * complete frame; 1: a read, write or decode error (said on stderr). */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct {
  const void* src;
  size_t size, pos;
} zstd_in;
typedef struct {
  void* dst;
  size_t size, pos;
} zstd_out;
enum { zstd_d_window_log_max = 100 }; /* ZSTD_d_windowLogMax */

int main(void) {
  void* lib = dlopen("libzstd.so.1", RTLD_NOW);
  if (!lib) {
    fprintf(stderr, "zstd_stream_decode: %s (install zstd or libzstd1)\n", dlerror());
    return 1;
  }
  void* (*create)(void) = (void* (*)(void))dlsym(lib, "ZSTD_createDStream");
  size_t (*set_param)(void*, int, int) = (size_t(*)(void*, int, int))dlsym(lib, "ZSTD_DCtx_setParameter");
  size_t (*decompress)(void*, zstd_out*, zstd_in*) = (size_t(*)(void*, zstd_out*, zstd_in*))dlsym(lib, "ZSTD_decompressStream");
  unsigned (*is_error)(size_t) = (unsigned (*)(size_t))dlsym(lib, "ZSTD_isError");
  const char* (*error_name)(size_t) = (const char* (*)(size_t))dlsym(lib, "ZSTD_getErrorName");
  if (!create || !set_param || !decompress || !is_error || !error_name) {
    fprintf(stderr, "zstd_stream_decode: libzstd.so.1 lacks the streaming API (zstd >= 1.4 needed)\n");
    return 1;
  }
  void* ds = create();
  size_t r = set_param(ds, zstd_d_window_log_max, 31);
  if (!ds || is_error(r)) {
    fprintf(stderr, "zstd_stream_decode: cannot set up the decoder%s%s\n", ds ? ": " : "", ds ? error_name(r) : "");
    return 1;
  }
  const size_t in_size = 1 << 20, out_size = 1 << 22;
  char* in_buf = malloc(in_size);
  char* out_buf = malloc(out_size);
  size_t pending = 0, got; /* pending: what the last call says the current frame still needs */
  int any = 0;
  while ((got = fread(in_buf, 1, in_size, stdin)) > 0) {
    zstd_in in = {in_buf, got, 0};
    any = 1;
    while (in.pos < in.size) {
      zstd_out out = {out_buf, out_size, 0};
      pending = decompress(ds, &out, &in);
      if (is_error(pending)) {
        fprintf(stderr, "zstd_stream_decode: %s\n", error_name(pending));
        return 1;
      }
      if (fwrite(out_buf, 1, out.pos, stdout) != out.pos) {
        fprintf(stderr, "zstd_stream_decode: write failed\n");
        return 1;
      }
    }
  }
  for (;;) { /* flush what the decoder still holds */
    zstd_in in = {in_buf, 0, 0};
    zstd_out out = {out_buf, out_size, 0};
    if (pending == 0) break;
    pending = decompress(ds, &out, &in);
    if (is_error(pending)) {
      fprintf(stderr, "zstd_stream_decode: %s\n", error_name(pending));
      return 1;
    }
    if (out.pos == 0) break;
    fwrite(out_buf, 1, out.pos, stdout);
  }
  if (ferror(stdin) || !any || pending != 0) {
    fprintf(stderr, "zstd_stream_decode: %s\n", !any ? "no input" : ferror(stdin) ? "read error" : "input ends inside a frame (a piece missing?)");
    return 1;
  }
  return fflush(stdout) == 0 ? 0 : 1;
}
