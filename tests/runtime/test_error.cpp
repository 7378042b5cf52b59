// core/error.hpp and core/identify.hpp: the message apart from the prefix, context added without
// losing the code or the driver status, and the one spelling of a kernel and an image in messages.
#include <doctest/doctest.h>

#include <string>
#include <type_traits>

#include <tritonpack/core/error.hpp>
#include <tritonpack/core/identify.hpp>

using namespace tritonpack;

TEST_CASE("error: message() is the bare message, what() has the prefix") {
  const error e(errc::no_device, "no GPU here", 100);
  CHECK(std::string(e.message()) == "no GPU here");
  CHECK(std::string(e.what()) == "tritonpack: no GPU here");
  CHECK(std::string(e.what()) == std::string(error::prefix) + e.message());
  CHECK(std::string(error(errc::io_error, "").message()).empty());
  // Copies (as a throw makes) carry the same text; copying never throws.
  static_assert(std::is_nothrow_copy_constructible_v<error>);
  const error copy = e;
  CHECK(std::string(copy.message()) == "no GPU here");
}

TEST_CASE("error: with_context and with_note keep the code and the driver status") {
  const error e(errc::launch_failed, "cuLaunchKernel failed: CUDA_ERROR_LAUNCH_FAILED (719)", 719);
  const error c = e.with_context("kernel k");
  CHECK(c.code() == errc::launch_failed);
  CHECK(c.driver_status() == 719);
  CHECK(std::string(c.message()) == "kernel k: cuLaunchKernel failed: CUDA_ERROR_LAUNCH_FAILED (719)");
  CHECK(std::string(c.what()) == "tritonpack: kernel k: cuLaunchKernel failed: CUDA_ERROR_LAUNCH_FAILED (719)");
  const error n = c.with_note("\n  this program carries images for cuda sm_80");
  CHECK(n.code() == errc::launch_failed);
  CHECK(n.driver_status() == 719);
  CHECK(std::string(n.what()) ==
        "tritonpack: kernel k: cuLaunchKernel failed: CUDA_ERROR_LAUNCH_FAILED (719)\n  this program carries images for cuda sm_80");
  // Thrown on and caught again, the context is there once.
  try {
    try {
      throw error(errc::bad_argument, "shape[0] is 0");
    } catch (const error& inner) {
      throw inner.with_context("kernel td");
    }
  } catch (const error& outer) {
    CHECK(outer.code() == errc::bad_argument);
    CHECK(outer.driver_status() == 0);
    CHECK(std::string(outer.what()) == "tritonpack: kernel td: shape[0] is 0");
  }
}

TEST_CASE("errc_name spells each code as its enumerator") {
  CHECK(std::string(errc_name(errc::bad_container)) == "bad_container");
  CHECK(std::string(errc_name(errc::ptx_too_new)) == "ptx_too_new");
  CHECK(std::string(errc_name(errc::unsupported)) == "unsupported");
  CHECK(std::string(errc_name(static_cast<errc>(999))) == "unknown");
}

TEST_CASE("identify: a kernel, an image, a kernel as loaded from an image") {
  kernel_info k;
  k.name = "vector_add";
  image_info cubin;
  cubin.kind = image_kind::cubin;
  cubin.arch = "sm_90a";
  image_info llir;
  llir.backend = backend_kind::hip;
  llir.kind = image_kind::llir;
  llir.arch = "gfx90a:xnack-";
  CHECK(identify(k) == "kernel vector_add");
  CHECK(identify(cubin) == "cubin sm_90a");
  CHECK(identify(llir) == "llir gfx90a:xnack-");
  CHECK(identify(k, cubin) == "kernel vector_add (sm_90a cubin)");
  CHECK(identify(k, llir) == "kernel vector_add (gfx90a:xnack- llir)");
}
