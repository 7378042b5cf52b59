// time_control.hpp — the host's part of the time step: choosing dt from the last step's Courant
// and hydro constraints (the reference's TimeIncrement), on plain doubles so it can be tested.
#pragma once

#include <cstdint>

namespace lulesh {

struct time_control {
  double time = 0.0;
  double deltatime = 0.0;          // set from the initial state
  double stoptime = 1.0e-2;
  double dtfixed = -1.0e-6;        // negative: use the Courant / hydro constraints
  double deltatimemultlb = 1.1;    // a ratio below this keeps dt
  double deltatimemultub = 1.2;    // dt grows by at most this factor
  double dtmax = 1.0e-2;
  double dtcourant = 1.0e+20;      // from the last step's time_constraints (1e20: none)
  double dthydro = 1.0e+20;
  std::int32_t cycle = 0;

  bool done(std::int32_t max_cycles) const { return !(time < stoptime && cycle < max_cycles); }
};

// Advances time by the next dt (TimeIncrement): from cycle 1 on, the smaller of dtcourant / 2 and
// 2/3 dthydro, kept if it grew by less than 10%, grown by at most 20%, at most dtmax; then
// shortened so that the run ends exactly at stoptime without a tiny last step. Under MPI,
// reduce_min is the MPI_Allreduce MIN of every rank's candidate (the reference's), else identity.
template <class ReduceMin>
void time_increment(time_control& t, ReduceMin&& reduce_min) {
  double targetdt = t.stoptime - t.time;
  if (t.dtfixed <= 0.0 && t.cycle != 0) {
    const double olddt = t.deltatime;
    double newdt = 1.0e+20;
    if (t.dtcourant < newdt) newdt = t.dtcourant / 2.0;
    if (t.dthydro < newdt) newdt = t.dthydro * 2.0 / 3.0;
    newdt = reduce_min(newdt);
    const double ratio = newdt / olddt;
    if (ratio >= 1.0) {
      if (ratio < t.deltatimemultlb) newdt = olddt;
      else if (ratio > t.deltatimemultub) newdt = olddt * t.deltatimemultub;
    }
    if (newdt > t.dtmax) newdt = t.dtmax;
    t.deltatime = newdt;
  }
  if (targetdt > t.deltatime && targetdt < 4.0 * t.deltatime / 3.0) targetdt = 2.0 * t.deltatime / 3.0;
  if (targetdt < t.deltatime) t.deltatime = targetdt;
  t.time += t.deltatime;
  ++t.cycle;
}

inline void time_increment(time_control& t) {
  time_increment(t, [](double newdt) { return newdt; });
}

}  // namespace lulesh
