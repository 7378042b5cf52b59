// CPU test of the device-resident time loop's host side (resident_loop.hpp: run_resident) over a
// simulated device that does on status[] what kernels.py's advance_time and the step do: the
// same cycles, times, dts and lines as the host-stepped loop, the status read every k cycles,
// nothing after the stop, fatal conditions reported with the cycle that raised them.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <tuple>
#include <vector>

#include "resident_loop.hpp"

namespace lulesh_resident_loop_test {

using namespace lulesh;

// The constraints a step "computes" for cycle n: varied enough to grow, keep and shrink dt.
double courant_after(std::int32_t n) { return 2.0e-4 * (1.0 + 0.3 * std::sin(0.7 * n)); }
double hydro_after(std::int32_t n) { return 3.0e-4 * (1.0 + 0.2 * std::cos(1.3 * n)); }

// status[] and kernels.py's semantics: advance_time (stop, or TimeIncrement via the host's own
// time_increment), then a step that sets the constraints and maybe a fatal flag; both do nothing
// once stopped.
struct simulated_device {
  time_control t;  // the clock and constants, as in status[]
  std::int32_t max_cycles;
  std::size_t history_length;
  std::vector<double> history;
  bool stopped = false, volume_error = false, qstop_error = false;
  std::int32_t fail_at = -1;         // the step of this cycle raises ...
  bool fail_qstop = false;           // ... q > qstop, else a volume error
  bool frozen = false;               // a device whose kernels never run (as the fake driver's)
  std::vector<std::int32_t> queued;  // the sizes of the batches between reads
  std::int32_t steps_run = 0, steps_skipped = 0;

  simulated_device(const time_control& start, std::int32_t its, std::size_t history)
      : t(start), max_cycles(its), history_length(history), history(2 * history, 0.0) {}

  void advance_time() {
    if (stopped) return;
    if (volume_error || qstop_error || t.done(max_cycles)) {
      stopped = true;
      return;
    }
    time_increment(t);
    const std::size_t at = 2 * (static_cast<std::size_t>(t.cycle - 1) % history_length);
    history[at] = t.time;
    history[at + 1] = t.deltatime;
  }
  void step() {
    if (stopped) {
      ++steps_skipped;
      return;
    }
    ++steps_run;
    t.dtcourant = courant_after(t.cycle);
    t.dthydro = hydro_after(t.cycle);
    if (t.cycle == fail_at) (fail_qstop ? qstop_error : volume_error) = true;
  }
  void queue_cycles(std::int32_t n) {
    queued.push_back(n);
    if (frozen) return;
    for (std::int32_t i = 0; i < n; ++i) {
      advance_time();
      step();
    }
  }
  device_clock read_clock() {
    std::vector<double> s(status_history + history.size(), 0.0);
    s[status_volume_error] = volume_error;
    s[status_qstop_error] = qstop_error;
    s[status_stopped] = stopped;
    s[status_time] = t.time;
    s[status_deltatime] = t.deltatime;
    s[status_cycle] = t.cycle;
    std::copy(history.begin(), history.end(), s.begin() + status_history);
    return device_clock::from_status(s);
  }
};

using line = std::tuple<std::int32_t, double, double>;

time_control start_clock() {
  time_control t;
  t.deltatime = 1.0e-5;
  t.stoptime = 2.0e-2;
  return t;
}

// The host-stepped loop (main.cpp with --host-step) over the same constraints.
std::vector<line> host_stepped(std::int32_t its, time_control& t) {
  std::vector<line> lines;
  while (!t.done(its)) {
    time_increment(t);
    t.dtcourant = courant_after(t.cycle);
    t.dthydro = hydro_after(t.cycle);
    lines.emplace_back(t.cycle, t.time, t.deltatime);
  }
  return lines;
}

struct run_outcome {
  std::vector<line> lines;
  resident_result result;
};

run_outcome resident(simulated_device& dev, std::int32_t its, std::int32_t every) {
  run_outcome out;
  const constants c;
  out.result = run_resident(
      dev, start_clock(), its, every, c,
      [&](std::int32_t cycle, double time, double dt) { out.lines.emplace_back(cycle, time, dt); });
  return out;
}

TEST_CASE(
    "resident loop: the host-stepped loop's cycles, times and dts, for every status cadence") {
  time_control host = start_clock();
  const std::vector<line> want = host_stepped(9999999, host);
  REQUIRE(want.size() > 40);  // the run ends by time, after a few dozen cycles
  for (const std::int32_t every : {1, 2, 7, 16, 64, 1000}) {
    CAPTURE(every);
    simulated_device dev(start_clock(), 9999999, static_cast<std::size_t>(every));
    const run_outcome got = resident(dev, 9999999, every);
    CHECK(got.result.exit_status == 0);
    CHECK(got.lines == want);  // exact: same doubles
    CHECK(got.result.t.cycle == host.cycle);
    CHECK(got.result.t.time == host.time);
    CHECK(got.result.t.deltatime == host.deltatime);
    // One read every `every` cycles; the one that sees the last cycle ends the loop: the cycles
    // queued past the end (doing nothing) are at most every - 1.
    const auto cycles = static_cast<std::int32_t>(want.size());
    CHECK(got.result.status_reads == (cycles + every - 1) / every);
    CHECK(dev.steps_run == cycles);
    CHECK(dev.steps_skipped == got.result.status_reads * every - cycles);
    for (const std::int32_t n : dev.queued) CHECK(n == every);
  }
}

TEST_CASE("resident loop: -i cuts the last batch short and ends without an extra read") {
  simulated_device dev(start_clock(), 10, 4);
  const run_outcome got = resident(dev, 10, 4);
  CHECK(dev.queued == std::vector<std::int32_t>{4, 4, 2});
  CHECK(got.result.status_reads == 3);
  CHECK(got.result.t.cycle == 10);
  CHECK(dev.steps_skipped == 0);
  time_control host = start_clock();
  CHECK(got.lines == host_stepped(10, host));
}

TEST_CASE(
    "resident loop: a fatal condition is reported with the cycle that raised it, and stops the "
    "run") {
  for (const bool qstop : {false, true}) {
    CAPTURE(qstop);
    simulated_device dev(start_clock(), 9999999, 5);
    dev.fail_at = 13;
    dev.fail_qstop = qstop;
    const run_outcome got = resident(dev, 9999999, 5);
    CHECK(got.result.exit_status == (qstop ? exit_qstop_error : exit_volume_error));
    CHECK(got.result.t.cycle == 13);
    // Lines for the cycles before it only, as the host-stepped loop prints them.
    REQUIRE(got.lines.size() == 12);
    CHECK(std::get<0>(got.lines.back()) == 12);
    CHECK(got.result.status_reads == 3);  // cycles 1-5, 6-10, 11-15 (14 and 15 did nothing)
    CHECK(dev.steps_run == 13);
    CHECK(dev.steps_skipped == 2);
  }
}

TEST_CASE("resident loop: a device whose kernels did not run is an error, not a hang") {
  simulated_device dev(start_clock(), 9999999, 4);
  dev.frozen = true;
  const constants c;
  CHECK_THROWS_WITH(
      run_resident(dev, start_clock(), 9999999, 4, c, [](std::int32_t, double, double) {}),
      doctest::Contains("reports 0 cycles done after 4 were queued"));
  CHECK(dev.queued.size() == 1);
}

TEST_CASE("resident loop: a history shorter than the cadence is refused") {
  simulated_device dev(start_clock(), 9999999, 2);
  const constants c;
  CHECK_THROWS_AS(
      run_resident(dev, start_clock(), 9999999, 4, c, [](std::int32_t, double, double) {}),
      std::logic_error);
}

}  // namespace lulesh_resident_loop_test
