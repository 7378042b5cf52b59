// resident_loop.hpp — the host's side of the device-resident time loop (resident_step.hpp has the
// GPU's): how many cycles to queue between status reads, what a read means, and the lines and
// errors it gives. Plain C++ over any Device with
//     void queue_cycles(std::int32_t n);   // n cycles: advance_time, then the step
//     device_clock read_clock();           // status[] after everything queued (waits for it)
// so that it is tested with a simulated device (test_resident_loop.cpp).
#pragma once

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "problem.hpp"
#include "status_layout.hpp"
#include "time_control.hpp"

namespace lulesh {

// status[] as the host reads it (device_state.hpp's status_slot).
struct device_clock {
  double time = 0.0;
  double deltatime = 0.0;
  std::int32_t cycle = 0;
  bool stopped = false;
  bool volume_error = false;
  bool qstop_error = false;
  std::vector<double> history;  // (time, dt) pairs: cycle c at 2 * ((c - 1) % history_length)

  static device_clock from_status(const std::vector<double>& s) {
    device_clock c;
    c.volume_error = s.at(status_volume_error) != 0.0;
    c.qstop_error = s.at(status_qstop_error) != 0.0;
    c.stopped = s.at(status_stopped) != 0.0;
    c.time = s.at(status_time);
    c.deltatime = s.at(status_deltatime);
    c.cycle = static_cast<std::int32_t>(s.at(status_cycle));
    c.history.assign(s.begin() + status_history, s.end());
    return c;
  }
};

// status[] before the first cycle: the loop's clock at t (time, first dt, cycle 0), no constraint
// yet, not stopped, history_length empty history slots.
inline std::vector<double> initial_status(const time_control& t, std::size_t history_length) {
  std::vector<double> s(status_history + 2 * history_length, 0.0);
  s[status_dtcourant] = t.dtcourant;
  s[status_dthydro] = t.dthydro;
  s[status_time] = t.time;
  s[status_deltatime] = t.deltatime;
  s[status_cycle] = t.cycle;
  return s;
}

struct resident_result {
  time_control t;       // time, dt and cycle of the last cycle run
  int exit_status = 0;  // 0, or the reference's fatal exit status (time_step.hpp)
  std::int32_t status_reads = 0;
};

// Runs the loop to its end: cycles queued `status_every` at a time (fewer where -i ends sooner),
// then one status read. `on_cycle(cycle, time, dt)` is called for every completed cycle in order
// (the -p line, the trajectory check), as the host-stepped loop does after each cycle; a fatal
// condition is reported on stderr with the cycle that raised it, as advance_cycle does, and that
// cycle gets no on_cycle. Throws where the device's count disagrees with what was queued (its
// kernels did not run).
template <class Device, class OnCycle>
resident_result run_resident(Device& device, const time_control& start, std::int32_t max_cycles,
                             std::int32_t status_every, const constants& c, OnCycle&& on_cycle) {
  if (status_every < 1)
    throw std::invalid_argument("run_resident: status_every must be at least 1");
  resident_result r;
  r.t = start;
  std::int32_t queued = start.cycle;
  std::int32_t reported = start.cycle;
  // The read that shows the end (the GPU's stop: time at the stop time or -i cycles done) ends it.
  while (!r.t.done(max_cycles) && queued < max_cycles) {
    const std::int32_t n = std::min<std::int32_t>(status_every, max_cycles - queued);
    device.queue_cycles(n);
    queued += n;
    const device_clock clock = device.read_clock();
    ++r.status_reads;
    if (clock.cycle < reported || clock.cycle > queued || (!clock.stopped && clock.cycle != queued))
      throw std::runtime_error("the device reports " + std::to_string(clock.cycle) +
                               " cycles done after " + std::to_string(queued) + " were queued (" +
                               std::to_string(reported) + " at the last status read)" +
                               (clock.stopped ? ", stopped" : ", not stopped") +
                               ": its kernels did not run as queued");
    const std::size_t history_length = clock.history.size() / 2;
    if (history_length < static_cast<std::size_t>(status_every))
      throw std::logic_error(
          "run_resident: the status history holds fewer cycles than are run between reads");
    const bool fatal = clock.volume_error || clock.qstop_error;
    for (std::int32_t k = reported + 1; k <= clock.cycle; ++k) {
      if (fatal && k == clock.cycle) break;
      const std::size_t at = 2 * (static_cast<std::size_t>(k - 1) % history_length);
      on_cycle(k, clock.history[at], clock.history[at + 1]);
    }
    reported = clock.cycle;
    r.t.time = clock.time;
    r.t.deltatime = clock.deltatime;
    r.t.cycle = clock.cycle;
    r.exit_status =
        report_fatal_condition(clock.volume_error, clock.qstop_error, clock.cycle, c.qstop);
    if (r.exit_status) return r;
  }
  return r;
}

}  // namespace lulesh
