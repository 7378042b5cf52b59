// status_layout.hpp — the slots of status[], the small fp64 array the kernels and the host share
// (kernels.py's STATUS_* constants are the same numbers).
#pragma once

#include <cstddef>
#include <cstdio>

namespace lulesh {

// status[]: what the kernels report back each step (kernels.py, STATUS_*): the next dt's
// constraints and the fatal conditions; then the device-resident step's time loop (its clock and
// stop flag, all zero in the host-stepped loop, which never sets them), then, for that step, the
// (time, dt) of the last history_length cycles (resident_step.hpp).
enum status_slot : std::size_t {
  status_dtcourant = 0,
  status_dthydro = 1,
  status_volume_error = 2,
  status_qstop_error = 3,
  status_size = 4,  // what the host-stepped loop reads back
  status_stopped = 4,
  status_time = 5,
  status_deltatime = 6,
  status_cycle = 7,
  status_history = 8,  // (time, dt) of cycle c at status_history + 2 * ((c - 1) % history_length)
};
// The dt argument of position_velocity and kinematics_q_gradient that makes them read the cycle's
// dt from status[status_deltatime] (kernels.py's DT_FROM_STATUS; never a real dt, which is > 0).
constexpr double dt_from_status = -1.0;

// The reference's exit statuses for its fatal conditions (exit(VolumeError), exit(QStopError)).
constexpr int exit_volume_error = 255;  // -1
constexpr int exit_qstop_error = 254;   // -2

// Says on stderr which fatal condition the step of `cycle` raised and returns the reference's exit
// status for it; 0 (and nothing said) when none was.
inline int report_fatal_condition(bool volume_error, bool qstop_error, int cycle, double qstop) {
  if (volume_error) {
    std::fprintf(
        stderr,
        "error: an element's volume became zero or negative in cycle %d (the reference stops "
        "with VolumeError here)\n",
        cycle);
    return exit_volume_error;
  }
  if (qstop_error) {
    std::fprintf(
        stderr,
        "error: the artificial viscosity q exceeded qstop = %g in cycle %d (the reference stops "
        "with QStopError here)\n",
        qstop, cycle);
    return exit_qstop_error;
  }
  return 0;
}

}  // namespace lulesh
