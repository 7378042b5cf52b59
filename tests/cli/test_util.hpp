// Helpers for the packer tests: a scratch copy of the fixture artifacts whose manifest a test can
// rewrite, and running the CLI with its exit code and output.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tritonpack/core/error.hpp"

namespace tp_test {

namespace fs = std::filesystem;

inline std::vector<std::uint8_t> slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::vector<std::uint8_t>((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

inline void spit(const fs::path& p, const std::string& s) {
  fs::create_directories(p.parent_path());
  std::ofstream(p, std::ios::binary | std::ios::trunc) << s;
}

inline void spit(const fs::path& p, const std::vector<std::uint8_t>& b) {
  fs::create_directories(p.parent_path());
  std::ofstream(p, std::ios::binary | std::ios::trunc).write(reinterpret_cast<const char*>(b.data()), static_cast<std::streamsize>(b.size()));
}

// A fresh copy of tests/data/artifacts under TP_WORK/<name>.
inline fs::path copy_artifacts(const std::string& name) {
  const fs::path dst = fs::path(TP_WORK) / name;
  fs::remove_all(dst);
  fs::create_directories(dst);
  fs::copy(TP_ARTIFACTS, dst, fs::copy_options::recursive);
  return dst;
}

inline nlohmann::json load_json(const fs::path& p) {
  std::ifstream in(p);
  return nlohmann::json::parse(in);
}

struct run_result {
  int code = -1;
  std::string out;  // stdout and stderr together
};

// `env` ("NAME=value NAME2=value2", shell syntax) set for this run only.
inline run_result run_cli_env(const std::string& env, const std::string& args) {
  static int n = 0;
  const fs::path log = fs::path(TP_WORK) / ("cli_out_" + std::to_string(++n) + ".txt");
  fs::create_directories(log.parent_path());
  const std::string cmd = (env.empty() ? "" : "env " + env + " ") + "\"" + TP_CLI + "\" " + args + " > \"" + log.string() + "\" 2>&1";
  const int status = std::system(cmd.c_str());
  run_result r;
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  std::ifstream in(log);
  r.out.assign((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return r;
}

inline run_result run_cli(const std::string& args) { return run_cli_env("", args); }

// The message of the tritonpack::error `f` throws, or "(no error)".
inline std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const tritonpack::error& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace tp_test
