// mpi_exchange.hpp — moves a halo plan's buffers between the ranks (MPI point to point, one
// message per neighbour as the reference's CommSend/CommRecv), and says whether the MPI can take
// device pointers. The buffers are host memory, or device memory where the MPI is CUDA-aware:
// the same calls either way.
#pragma once

#include <mpi.h>
#if defined(OPEN_MPI) && OPEN_MPI
#include <mpi-ext.h>  // MPIX_CUDA_AWARE_SUPPORT, MPIX_Query_cuda_support
#endif

#include <stdexcept>
#include <string>
#include <vector>

#include "halo.hpp"

namespace lulesh {

// One tag per exchange, so that messages of two exchanges can never be taken for each other.
inline int exchange_tag(exchange_kind k) { return 7100 + static_cast<int>(k); }

// Sends plan.sends from `send` and receives plan.receives into `recv` (offsets as the plan lays
// them out); returns when all have arrived. A neighbour that sends a message of another length is
// an error naming both ranks (a decomposition that disagrees, never silently short data).
inline void exchange_buffers(const halo_plan& plan, const double* send, double* recv,
                             MPI_Comm comm) {
  const int tag = exchange_tag(plan.kind);
  std::vector<MPI_Request> requests(plan.receives.size() + plan.sends.size(), MPI_REQUEST_NULL);
  std::size_t r = 0;
  for (const halo_message& in : plan.receives)
    MPI_Irecv(recv + in.offset, static_cast<int>(in.values(plan.fields)), MPI_DOUBLE, in.neighbour,
              tag, comm, &requests[r++]);
  for (const halo_message& out : plan.sends)
    MPI_Isend(const_cast<double*>(send + out.offset), static_cast<int>(out.values(plan.fields)),
              MPI_DOUBLE, out.neighbour, tag, comm, &requests[r++]);
  std::vector<MPI_Status> statuses(requests.size());
  const int rc = MPI_Waitall(static_cast<int>(requests.size()), requests.data(), statuses.data());
  for (std::size_t i = 0; i < plan.receives.size(); ++i) {
    int count = -1;
    MPI_Get_count(&statuses[i], MPI_DOUBLE, &count);
    if (rc != MPI_SUCCESS || count != static_cast<int>(plan.receives[i].values(plan.fields)))
      throw std::runtime_error(std::string("halo exchange ") + exchange_name(plan.kind) +
                               ": rank " + std::to_string(plan.receives[i].neighbour) + " sent " +
                               std::to_string(count) + " values where " +
                               std::to_string(plan.receives[i].values(plan.fields)) +
                               " were expected (do all ranks run the same -s?)");
  }
}

// The host-side exchange of a plan over host arrays: pack, exchange, unpack (the nodal mass at
// set-up; the CPU test).
inline void exchange_host(const halo_plan& plan, const std::vector<double*>& fields,
                          MPI_Comm comm) {
  std::vector<const double*> in(fields.begin(), fields.end());
  std::vector<double> send, recv(plan.receive_values);
  pack_host(plan, in, send);
  exchange_buffers(plan, send.data(), recv.data(), comm);
  unpack_host(plan, recv, fields);
}

// Whether this MPI takes CUDA device pointers, asked at run time where the MPI can say (Open MPI's
// MPIX_Query_cuda_support); false where it cannot (the host-buffer path is then taken).
inline bool mpi_is_cuda_aware() {
#if defined(MPIX_CUDA_AWARE_SUPPORT) && MPIX_CUDA_AWARE_SUPPORT
  return MPIX_Query_cuda_support() == 1;
#else
  return false;
#endif
}

}  // namespace lulesh
