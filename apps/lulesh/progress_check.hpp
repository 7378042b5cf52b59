// progress_check.hpp — compares the run's trajectory, cycle by cycle, with the reference's `-p`
// output (reference/progress_s*.txt, printed by LLNL's lulesh2.0): when the final result does not
// match, the first cycle whose time or dt differs in the printed 7 digits says where the run left
// the reference (cycle 1: a wrong kernel; late: rounding that accumulated).
#pragma once

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace lulesh {

// A progress line exactly as the reference prints it with -p.
inline std::string progress_line(std::int32_t cycle, double time, double dt) {
  char line[96];
  std::snprintf(line, sizeof line, "cycle = %d, time = %e, dt=%e", cycle, time, dt);
  return line;
}

class progress_check {
 public:
  // Reads the reference's progress lines; an unreadable or empty file is an error naming it.
  explicit progress_check(const std::string& path) : path_(path) {
    std::ifstream in(path);
    if (!in) throw std::runtime_error("cannot read the reference progress file " + path);
    for (std::string line; std::getline(in, line);)
      if (line.rfind("cycle = ", 0) == 0) reference_.push_back(line);
    if (reference_.empty())
      throw std::runtime_error(path + " has no `cycle = ...` lines (expected the output of lulesh2.0 -p)");
  }

  void observe(std::int32_t cycle, double time, double dt) {
    cycles_ = cycle;
    if (!first_difference_.empty()) return;
    const std::string ours = progress_line(cycle, time, dt);
    const std::size_t i = static_cast<std::size_t>(cycle) - 1;
    if (i >= reference_.size()) {
      first_difference_ = "cycle " + std::to_string(cycle) + ": the reference had finished after " +
                          std::to_string(reference_.size()) + " cycles\n  ours:      " + ours;
    } else if (ours != reference_[i]) {
      first_difference_ = "first difference at cycle " + std::to_string(cycle) + "\n  ours:      " + ours +
                          "\n  reference: " + reference_[i];
    }
  }

  // True when every cycle matched and a completed run was as long as the reference's; prints the
  // comparison unless quiet.
  bool report(bool completed, bool quiet) const {
    const bool ok = first_difference_.empty() && !(completed && static_cast<std::size_t>(cycles_) < reference_.size());
    if (!quiet) print(completed);
    return ok;
  }

  const std::string& first_difference() const { return first_difference_; }

 private:
  void print(bool completed) const {
    if (first_difference_.empty() && completed && static_cast<std::size_t>(cycles_) < reference_.size())
      std::printf("Trajectory vs %s (information, not verification): differs, the run completed after %d cycles, the reference after %zu\n", path_.c_str(),
                  cycles_, reference_.size());
    else if (first_difference_.empty())
      std::printf("Trajectory vs %s: PASS, time and dt of all %d cycles as the reference prints them\n", path_.c_str(),
                  cycles_);
    else
      std::printf("Trajectory vs %s (information, not verification): differs, %s\n", path_.c_str(), first_difference_.c_str());
  }

  std::string path_;
  std::vector<std::string> reference_;
  std::string first_difference_;
  std::int32_t cycles_ = 0;
};

}  // namespace lulesh
