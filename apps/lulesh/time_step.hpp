// time_step.hpp — one LULESH time step on the GPU: the step's kernels launched in the reference's
// order (LagrangeLeapFrog: nodal phase, element phase, time constraints), and the step's status
// read back (the next dt's constraints, the reference's fatal conditions).
//
// The launch layer is a template parameter, so that the host physics and driver exist once:
// `Kernels` launches one kernel of the step on its stream (triton_kernels.hpp: tritonpack's
// generated functions; apps/lulesh/bench/cuda_kernels.hpp: the CUDA C++ twin), `Timer` wraps each
// launch (kernel_timer: host clock, --timing; the benchmark's CUDA-event timer).
#pragma once

#include <tritonpack/tritonpack.hpp>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "device_state.hpp"
#include "problem.hpp"
#include "regions.hpp"
#include "time_control.hpp"

namespace lulesh {

// Host-clock time of each kernel, with a synchronisation after every launch (--timing): launch
// latency included, so short kernels read long; enough to see where a step goes.
class kernel_timer {
 public:
  struct entry {
    std::string name;
    double seconds = 0;
    std::int64_t launches = 0;
  };

  explicit kernel_timer(bool enabled) : enabled_(enabled) {}
  bool enabled() const { return enabled_; }

  template <class Launch>
  void run(const char* name, Launch&& launch) {
    if (!enabled_) {
      launch();
      return;
    }
    const auto t0 = std::chrono::steady_clock::now();
    launch();
    tritonpack::synchronize();
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    auto it = std::find_if(entries_.begin(), entries_.end(), [&](const entry& e) { return e.name == name; });
    if (it == entries_.end()) it = entries_.insert(entries_.end(), entry{name, 0, 0});
    it->seconds += s;
    ++it->launches;
  }

  const std::vector<entry>& entries() const { return entries_; }

 private:
  bool enabled_;
  std::vector<entry> entries_;  // in first-launch order: the step's order
};

struct step_status {
  double dtcourant = 1.0e+20;
  double dthydro = 1.0e+20;
  bool volume_error = false;  // an element's volume became <= 0 (the reference's VolumeError)
  bool qstop_error = false;   // q exceeded qstop (the reference's QStopError)
};

// The Kernels interface (what lagrange_step calls; one launch each unless said, on k.stream):
//   bool fp_fusion;  tritonpack::stream_t stream;
//   volume_force(d, c)  gather_node_forces(d)  acceleration(d)
//   acceleration_bc(d)                       the three symmetry planes (three launches)
//   position_velocity(d, c, dt)  kinematics_q_gradient(d, dt)  monotonic_q(d, c)
//   optional: bool fused_nodes; advance_nodes(d, c, dt)   the four node kernels in one launch
//   optional: bool fused_q_eos; monotonic_q_material_eos(d, c)   monotonic_q + material_eos in one
//   material_eos(d, c, regions, r)           region r
//   update_volume(d, c)
//   time_constraints(d, c)  reduce_time_constraints(d)   (minima into d.status[0..1])
// The exchanges with neighbouring domains (MPI), where the reference places them; one domain
// has none. A Halo provides node_forces() (after the node force sums: CommSBN), positions() (after
// position_velocity: CommSyncPosVel, the reference's SEDOV_SYNC_POS_VEL_EARLY) and q_gradients()
// (between the gradients and the monotonic Q: CommMonoQ); mpi_halo.hpp is the MPI one.
struct no_halo {
  void node_forces() {}
  void positions() {}
  void q_gradients() {}
};

// A launch layer that can run the node loops as one kernel has `bool fused_nodes` and
// advance_nodes(d, c, dt) (triton_kernels.hpp); one without (the CUDA twin) always runs them apart.
template <class K, class = void>
struct offers_fused_nodes : std::false_type {};
template <class K>
struct offers_fused_nodes<K, std::void_t<decltype(std::declval<K&>().fused_nodes)>> : std::true_type {};

// Likewise `bool fused_q_eos` and monotonic_q_material_eos(d, c).
template <class K, class = void>
struct offers_fused_q_eos : std::false_type {};
template <class K>
struct offers_fused_q_eos<K, std::void_t<decltype(std::declval<K&>().fused_q_eos)>> : std::true_type {};

template <class Kernels, class Timer = kernel_timer, class Halo = no_halo>
class lagrange_step {
 public:
  lagrange_step(device_state& d, const constants& c, Kernels kernels, Timer timer, Halo halo = {})
      : d_(d), c_(c), k_(std::move(kernels)), timer_(std::move(timer)), halo_(std::move(halo)) {
    if (fused_nodes() && !std::is_same_v<Halo, no_halo>)
      throw std::invalid_argument(
          "the fused node kernel (advance_nodes) has no place for the node-force exchange between domains: "
          "run the node kernels apart (no --fused-nodes) when there is a halo");
  }

  // One LagrangeLeapFrog with time step dt, launched on the kernels' stream; the status is read
  // by read_status().
  void advance(double dt) {
    nodal_phase(dt);
    element_phase(dt);
    time_constraints();
  }

  // The step's results the host needs (one 32-byte copy, which also waits for the step).
  step_status read_status() {
    std::array<double, status_size> s{};
    timer_.run("status copy", [&] {
      d_.status.download_async(s.data(), s.size(), k_.stream);
      tritonpack::synchronize(k_.stream);
    });
    step_status out;
    out.dtcourant = s[status_dtcourant];
    out.dthydro = s[status_dthydro];
    out.volume_error = s[status_volume_error] != 0.0;
    out.qstop_error = s[status_qstop_error] != 0.0;
    return out;
  }

  Timer& timer() { return timer_; }
  const Timer& timer() const { return timer_; }
  Kernels& kernels() { return k_; }
  Halo& halo() { return halo_; }

 private:
  const char* named(const char* plain, const char* fma) const { return k_.fp_fusion ? fma : plain; }
  bool fused_nodes() const {
    if constexpr (offers_fused_nodes<Kernels>::value) return k_.fused_nodes;
    else return false;
  }
  bool fused_q_eos() const {
    if constexpr (offers_fused_q_eos<Kernels>::value) return k_.fused_q_eos;
    else return false;
  }

  // LagrangeNodal: forces, accelerations with the symmetry conditions, velocities and positions;
  // with fused_nodes all but the element forces in one kernel (one domain: no exchange between).
  void nodal_phase(double dt) {
    timer_.run(named("volume_force", "volume_force_fma"), [&] { k_.volume_force(d_, c_); });
    if constexpr (offers_fused_nodes<Kernels>::value && std::is_same_v<Halo, no_halo>) {
      if (k_.fused_nodes) {
        timer_.run("advance_nodes", [&] { k_.advance_nodes(d_, c_, dt); });
        return;
      }
    }
    timer_.run("gather_node_forces", [&] { k_.gather_node_forces(d_); });
    halo_.node_forces();
    timer_.run("acceleration", [&] { k_.acceleration(d_); });
    timer_.run("acceleration_bc", [&] { k_.acceleration_bc(d_); });
    timer_.run("position_velocity", [&] { k_.position_velocity(d_, c_, dt); });
    halo_.positions();
  }

  // LagrangeElements: kinematics and Q gradients, monotonic Q (all regions in one launch: the Q
  // terms of an element do not depend on its region), material update (all regions in one launch,
  // over device_state's EOS order: tiles of one region each, so a tile's repetition count is
  // uniform), volumes. With fused_q_eos the monotonic Q and the material update are one launch over
  // the EOS order (after the gradients' exchange, as unfused).
  void element_phase(double dt) {
    timer_.run(named("kinematics_q_gradient", "kinematics_q_gradient_fma"), [&] { k_.kinematics_q_gradient(d_, dt); });
    halo_.q_gradients();
    if (!fused_q_eos()) {
      timer_.run("monotonic_q", [&] { k_.monotonic_q(d_, c_); });
      timer_.run(named("material_eos", "material_eos_fma"), [&] { k_.material_eos(d_, c_); });
    } else if constexpr (offers_fused_q_eos<Kernels>::value) {
      timer_.run(named("monotonic_q_material_eos", "monotonic_q_material_eos_fma"),
                 [&] { k_.monotonic_q_material_eos(d_, c_); });
    }
    timer_.run("update_volume", [&] { k_.update_volume(d_, c_); });
  }

  // CalcTimeConstraintsForElems: per-tile minima, then the minimum of those into status[0..1].
  void time_constraints() {
    timer_.run("time_constraints", [&] { k_.time_constraints(d_, c_); });
    timer_.run("reduce_time_constraints", [&] { k_.reduce_time_constraints(d_); });
  }

  device_state& d_;
  const constants& c_;
  Kernels k_;
  Timer timer_;
  Halo halo_;
};

// One cycle of the reference's time loop after TimeIncrement: the step with t.deltatime, then the
// next dt's constraints from its status. Returns 0, or the reference's exit status for a fatal
// condition after saying what happened on stderr.
template <class Step>
int advance_cycle(Step& step, time_control& t, const constants& c) {
  step.advance(t.deltatime);
  const step_status s = step.read_status();
  if (const int fatal = report_fatal_condition(s.volume_error, s.qstop_error, t.cycle, c.qstop)) return fatal;
  t.dtcourant = s.dtcourant;
  t.dthydro = s.dthydro;
  return 0;
}

}  // namespace lulesh
