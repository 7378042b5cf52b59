// mpi_halo.hpp — the step's exchanges with the neighbouring domains on the GPU (lagrange_step's
// Halo, time_step.hpp): pack with a Triton kernel, move the buffer over MPI (through host memory,
// or device memory where the MPI is CUDA-aware), unpack with a Triton kernel. Each exchange waits
// for the step's kernels before it (the buffers must be complete) and is timed (host clock), so the
// program can say how much of a cycle is communication.
#pragma once

#include <mpi.h>

#include <tritonpack/tritonpack.hpp>

#include <chrono>
#include <cstdint>
#include <vector>

#include "device_state.hpp"
#include "halo.hpp"
#include "mesh.hpp"
#include "mpi_exchange.hpp"
#include "triton_kernels.hpp"

namespace lulesh {

// A plan on the device: its index lists and its two buffers (plus host copies for the host path).
struct device_halo_plan {
  halo_plan plan;
  tritonpack::device_array<std::int32_t> pack_item, pack_slot, pack_stride, dest, dest_start,
      source_slot, source_stride;
  tritonpack::device_array<double> send, recv;
  std::vector<double> host_send, host_recv;

  explicit device_halo_plan(halo_plan p)
      : plan(std::move(p)),
        pack_item(plan.pack_item),
        pack_slot(plan.pack_slot),
        pack_stride(plan.pack_stride),
        dest(plan.dest),
        dest_start(plan.dest_start),
        source_slot(plan.source_slot),
        source_stride(plan.source_stride),
        send(plan.send_values),
        recv(plan.receive_values),
        host_send(plan.send_values),
        host_recv(plan.receive_values) {
    if (plan.max_sources > 8)
      throw std::logic_error("halo plan: a destination receives " +
                             std::to_string(plan.max_sources) +
                             " messages, halo_unpack takes at most MAX_SOURCES = 8 (kernels.toml)");
  }
};

class mpi_halo {
 public:
  // device_buffers: hand device pointers to MPI (only where mpi_is_cuda_aware()).
  mpi_halo(device_state& d, const mesh& m, MPI_Comm comm, bool device_buffers,
           tritonpack::stream_t stream = nullptr)
      : d_(d),
        comm_(comm),
        device_buffers_(device_buffers),
        stream_(stream),
        forces_(make_halo_plan(m, exchange_kind::node_sum, 3)),
        pos_vel_(make_halo_plan(m, exchange_kind::pos_vel, 6)),
        monoq_(make_halo_plan(m, exchange_kind::monoq, 3)) {}

  // CommSend + CommSBN of fx, fy, fz.
  void node_forces() {
    timed([&] {
      pack(forces_, d_.fx, d_.fy, d_.fz, 0);
      move(forces_);
      unpack(forces_, d_.fx, d_.fy, d_.fz, 0);
    });
  }
  // CommSend + CommSyncPosVel of x, y, z, xd, yd, zd.
  void positions() {
    timed([&] {
      pack(pos_vel_, d_.x, d_.y, d_.z, 0);
      pack(pos_vel_, d_.xd, d_.yd, d_.zd, 3);
      move(pos_vel_);
      unpack(pos_vel_, d_.x, d_.y, d_.z, 0);
      unpack(pos_vel_, d_.xd, d_.yd, d_.zd, 3);
    });
  }
  // CommSend + CommMonoQ of delv_xi, delv_eta, delv_zeta into the ghosts.
  void q_gradients() {
    timed([&] {
      pack(monoq_, d_.delv_xi, d_.delv_eta, d_.delv_zeta, 0);
      move(monoq_);
      unpack(monoq_, d_.delv_xi, d_.delv_eta, d_.delv_zeta, 0);
    });
  }

  double seconds() const { return seconds_; }
  bool device_buffers() const { return device_buffers_; }

 private:
  template <class F>
  void timed(F&& exchange) {
    const auto t0 = std::chrono::steady_clock::now();
    exchange();
    seconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  }

  using field = tritonpack::device_array<double>;

  void pack(device_halo_plan& p, field& a, field& b, field& c, std::int32_t field_offset) {
    if (p.plan.pack_item.empty()) return;
    lulesh_kernels::halo_pack(p.pack_item.data(), p.pack_slot.data(), p.pack_stride.data(),
                              static_cast<std::int32_t>(p.plan.pack_item.size()), a.data(),
                              b.data(), c.data(), p.send.data(), field_offset, stream_);
  }

  void unpack(device_halo_plan& p, field& a, field& b, field& c, std::int32_t field_offset) {
    if (p.plan.dest.empty()) return;
    auto launch =
        p.plan.adds() ? &lulesh_kernels::halo_unpack_add : &lulesh_kernels::halo_unpack_set;
    launch(p.dest.data(), p.dest_start.data(), p.source_slot.data(), p.source_stride.data(),
           static_cast<std::int32_t>(p.plan.dest.size()), p.recv.data(), a.data(), b.data(),
           c.data(), field_offset, stream_);
  }

  // The buffers between the ranks: the packs must have finished before MPI reads the buffer.
  void move(device_halo_plan& p) {
    if (p.plan.empty()) return;
    if (device_buffers_) {
      tritonpack::synchronize(stream_);
      exchange_buffers(p.plan, p.send.data(), p.recv.data(), comm_);
      return;
    }
    if (!p.host_send.empty())
      p.send.download_async(p.host_send.data(), p.host_send.size(), stream_);
    tritonpack::synchronize(stream_);
    exchange_buffers(p.plan, p.host_send.data(), p.host_recv.data(), comm_);
    if (!p.host_recv.empty()) p.recv.upload_async(p.host_recv.data(), p.host_recv.size(), stream_);
  }

  device_state& d_;
  MPI_Comm comm_;
  bool device_buffers_;
  tritonpack::stream_t stream_;
  device_halo_plan forces_, pos_vel_, monoq_;
  double seconds_ = 0;
};

// lagrange_step keeps its Halo by value: this forwards to the program's one mpi_halo.
struct mpi_halo_ref {
  mpi_halo* halo = nullptr;
  void node_forces() { halo->node_forces(); }
  void positions() { halo->positions(); }
  void q_gradients() { halo->q_gradients(); }
};

}  // namespace lulesh
