// tritonpack/core/error.hpp — the one exception type every tritonpack failure is reported with.
//
// Why one type: applications catch `tritonpack::error` once and get a code to branch on, the
// driver's own status where a driver call failed, and a message that says what was attempted,
// what was found and what to do. The library never calls exit() or abort().
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>

#include "tritonpack/core/error_codes.hpp"
#include "tritonpack/version.hpp"

// Failure paths: kept out of line and out of the hot code's way; messages built only there.
#if defined(__GNUC__) || defined(__clang__)
#define TRITONPACK_COLD __attribute__((cold, noinline))
#define TRITONPACK_NOINLINE __attribute__((noinline))
#define TRITONPACK_PRINTF(fmt_index, first_arg) \
  __attribute__((format(printf, fmt_index, first_arg)))
#else
#define TRITONPACK_COLD
#define TRITONPACK_NOINLINE
#define TRITONPACK_PRINTF(fmt_index, first_arg)
#endif

TRITONPACK_BEGIN_NAMESPACE

// One enumerator per entry of TRITONPACK_ERROR_CODES (core/error_codes.hpp says what each means).
enum class errc {
#define TRITONPACK_ERRC_ENUMERATOR(name, NAME, value, description) name,
  TRITONPACK_ERROR_CODES(TRITONPACK_ERRC_ENUMERATOR)
#undef TRITONPACK_ERRC_ENUMERATOR
};

// "bad_container": the enumerator's name; "unknown" for a value that is none.
inline const char* errc_name(errc code) noexcept {
  switch (code) {
#define TRITONPACK_ERRC_CASE(name, NAME, value, description) \
  case errc::name: return #name;
    TRITONPACK_ERROR_CODES(TRITONPACK_ERRC_CASE)
#undef TRITONPACK_ERRC_CASE
  }
  return "unknown";
}

// what() is prefix + message(), built once by the constructor. An error caught to add context is
// thrown on as e.with_context(...) or e.with_note(...), which keep its code and driver status;
// text built from an error takes message(), never what() with the prefix cut off.
class error : public std::runtime_error {
 public:
  // What every what() starts with.
  static constexpr char prefix[] = "tritonpack: ";

  // `driver_status` is the raw CUresult / hipError_t of the failing call, 0 when no driver call
  // was involved.
  error(errc code, const std::string& message, int driver_status = 0)
      : std::runtime_error(prefix + message), code_(code), driver_status_(driver_status) {}

  errc code() const noexcept { return code_; }
  int driver_status() const noexcept { return driver_status_; }

  // The message without the prefix (a view into what(), valid as long as this error).
  const char* message() const noexcept { return what() + (sizeof prefix - 1); }

  // The same error (code, driver status) with `context` in front: "context: message".
  [[nodiscard]] error with_context(std::string_view context) const {
    return error(code_, std::string(context) + ": " + message(), driver_status_);
  }

  // The same error (code, driver status) with `note` appended to the message as it is (the note
  // brings its own separator, e.g. "\n  ...").
  [[nodiscard]] error with_note(std::string_view note) const {
    return error(code_, message() + std::string(note), driver_status_);
  }

 private:
  errc code_;
  int driver_status_;
};

TRITONPACK_END_NAMESPACE
