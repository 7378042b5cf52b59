// lulesh-mpi — LULESH 2.0 across MPI ranks, one domain per rank (a cube of ranks, -s per domain),
// each rank on a GPU of its node (node-local rank modulo the node's GPUs: ranks may share one).
// The reference's decomposition and communication (decomposition.hpp, halo.hpp): the nodal mass
// summed over the domains once at set-up, the forces every cycle, positions and velocities
// synchronised after they move, the monotonic-Q gradients into the ghost elements, dt reduced
// with MPI_Allreduce MIN. Output as the reference's MPI build, from rank 0.
//
//   mpirun -np 8 lulesh-mpi -s 15 [-p] [--mpi-buffers host|device|auto] [the options of lulesh]
#include <mpi.h>

#include <tritonpack/tritonpack.hpp>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <exception>
#include <fstream>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "decomposition.hpp"
#include "device_state.hpp"
#include "halo.hpp"
#include "mesh.hpp"
#include "mpi_exchange.hpp"
#include "mpi_halo.hpp"
#include "options.hpp"
#include "problem.hpp"
#include "progress_check.hpp"
#include "regions.hpp"
#include "report.hpp"
#include "time_control.hpp"
#include "time_step.hpp"
#include "triton_kernels.hpp"

namespace tp = tritonpack;
using namespace lulesh;

namespace {

int world_rank = 0, world_size = 1;

enum class buffer_choice { automatic, host, device };

// The node-local rank and the number of ranks on this node (they share its GPUs).
struct node_ranks {
  int rank = 0, size = 1;
};
node_ranks local_ranks() {
  MPI_Comm node;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, world_rank, MPI_INFO_NULL, &node);
  node_ranks r;
  MPI_Comm_rank(node, &r.rank);
  MPI_Comm_size(node, &r.size);
  MPI_Comm_free(&node);
  return r;
}

// Rank 0 gets every rank's device and lists the ranks of each, "device 0: ranks 0 2; device 1:
// ranks 1 3" (device ordinals are node-local: on several nodes a device lists ranks of each).
// Collective; "" on the other ranks.
std::string ranks_per_device(int device) {
  std::vector<int> all(world_rank == 0 ? world_size : 0);
  MPI_Gather(&device, 1, MPI_INT, all.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
  std::string text;
  const int highest = all.empty() ? -1 : *std::max_element(all.begin(), all.end());
  for (int d = 0; d <= highest; ++d) {
    std::string ranks;
    for (int r = 0; r < world_size; ++r)
      if (all[static_cast<std::size_t>(r)] == d) ranks += " " + std::to_string(r);
    if (ranks.empty()) continue;
    text += (text.empty() ? "device " : "; device ") + std::to_string(d) + ": ranks" + ranks;
  }
  return text;
}

// Every rank must agree before anything collective: true only if all ranks passed true.
bool all_ok(bool mine) {
  int ok = mine ? 1 : 0, all = 0;
  MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  return all == 1;
}

std::optional<progress_check> reference_trajectory(const options& o) {
  if (!o.reference_progress.empty()) return progress_check(o.reference_progress);
#ifdef LULESH_REFERENCE_DIR
  const std::string path = std::string(LULESH_REFERENCE_DIR) + "/progress_np" +
                           std::to_string(world_size) + "_s" + std::to_string(o.nx) + ".txt";
  if (std::ifstream(path)) return progress_check(path);
#endif
  return std::nullopt;
}

int run(const options& o, buffer_choice buffers) {
  const placement place = place_rank(world_size, world_rank);  // throws on a non-cube count
  if (world_rank == 0 && !o.quiet) {
    std::cout << "Running problem size " << o.nx << "^3 per domain until completion\n";
    std::cout << "Num processors: " << world_size << "\n";
    std::cout << "Total number of elements: "
              << static_cast<long long>(world_size) * o.nx * o.nx * o.nx << " \n\n";
  }
  const mesh m = make_mesh(o.nx, place);
  const region_sets regions = make_regions(m.num_elem, o.num_reg, o.balance, o.cost, world_rank);
  initial_state init = make_initial_state(m);
  // The nodal mass of a shared node is the sum over its domains (the reference's first CommSBN).
  exchange_host(make_halo_plan(m, exchange_kind::node_sum, 1), {init.nodal_mass.data()},
                MPI_COMM_WORLD);
  const constants c;

  // A GPU for this rank: node-local rank modulo the node's GPUs.
  // A rank without one cannot run (never `% 0`); every rank learns whether all have one.
  const int gpus = tp::device_count();
  if (!all_ok(gpus > 0)) {
    if (world_rank == 0)
      std::printf(
          "Set-up done on %d ranks (decomposition, nodal mass summed over MPI). Cannot run on a "
          "GPU here: %s\nRun lulesh-mpi on a node with a GPU (sm_80, sm_90, sm_100, gfx90a, "
          "gfx942).\n",
          world_size,
          gpus == 0 ? why_no_gpu("rank 0's driver reports no GPU.").c_str()
                    : "another rank's driver reports no GPU.");
    return o.require_gpu ? 1 : 0;
  }
  const node_ranks local = local_ranks();
  tp::set_device_for_local_rank(local.rank);  // local rank % GPUs: the node's ranks spread over all

  const bool cuda_aware = mpi_is_cuda_aware();
  if (buffers == buffer_choice::device && !cuda_aware) {
    if (world_rank == 0)
      std::fprintf(
          stderr,
          "lulesh-mpi: --mpi-buffers device needs a CUDA-aware MPI; this one says it is not "
          "(MPIX_Query_cuda_support); use --mpi-buffers host\n");
    return 2;
  }
  const bool device_buffers =
      buffers == buffer_choice::device || (buffers == buffer_choice::automatic && cuda_aware);

  device_state d(m, init, regions,
                 static_cast<std::size_t>(triton_kernels::partials_for(m.num_elem)));
  mpi_halo halo(d, m, MPI_COMM_WORLD, device_buffers);
  lagrange_step<triton_kernels, kernel_timer, mpi_halo_ref> step(
      d, c, triton_kernels::make(m.num_elem, o.fp_fusion), kernel_timer(o.timing),
      mpi_halo_ref{&halo});
  std::optional<progress_check> trajectory =
      world_rank == 0 ? reference_trajectory(o) : std::nullopt;
  // Where each rank's launches go (the device current on its thread now that its state is
  // allocated), for the record and for scripts: "device 0: ranks 0 2 4 6; device 1: ranks 1 3 5 7".
  const std::string placement_text = ranks_per_device(tp::get_device());
  if (world_rank == 0 && !o.quiet)
    std::printf(
        "GPU: %d rank(s) on rank 0's node share its %d GPU(s); halo buffers: %s\n"
        "GPU of each rank (node-local rank %% GPUs of its node): %s\n\n",
        local.size, gpus, device_buffers ? "device memory (CUDA-aware MPI)" : "host memory",
        placement_text.c_str());

  time_control t;
  t.deltatime = init.deltatime;
  auto reduce_min = [](double dt) {
    double all = 0;
    MPI_Allreduce(&dt, &all, 1, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
    return all;
  };
  tp::synchronize();
  MPI_Barrier(MPI_COMM_WORLD);
  const double start = MPI_Wtime();
  while (!t.done(o.its)) {
    time_increment(t, reduce_min);
    const int fatal = advance_cycle(step, t, c);
    if (fatal) MPI_Abort(MPI_COMM_WORLD, fatal);  // the reference aborts every rank too
    if (world_rank == 0 && o.show_progress && !o.quiet)
      std::printf("%s\n", progress_line(t.cycle, t.time, t.deltatime).c_str());
    if (trajectory) trajectory->observe(t.cycle, t.time, t.deltatime);
  }
  const double elapsed = MPI_Wtime() - start;
  double elapsed_max = 0, comm = halo.seconds(), comm_max = 0;
  MPI_Reduce(&elapsed, &elapsed_max, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  MPI_Reduce(&comm, &comm_max, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);

  bool ok = true;
  if (world_rank == 0) {
    run_result r;
    r.nx = o.nx;
    r.ranks = world_size;
    r.cycles = t.cycle;
    const std::vector<double> e = d.e.to_host();
    r.origin_energy = e[0];
    r.sym = measure_symmetry(e, o.nx);
    r.elapsed_seconds = elapsed_max;
    if (!o.quiet) {
      std::cout.flush();
      print_run_completed(r);
      std::cout.flush();
      std::printf("Communication (halo exchanges, slowest rank): %.3f s, %.1f%% of the run\n",
                  comm_max, elapsed_max > 0 ? 100.0 * comm_max / elapsed_max : 0.0);
    }
    ok = verify(r, !(t.time < t.stoptime), o.quiet);
    if (trajectory) trajectory->report(!(t.time < t.stoptime), o.quiet);
    if (o.timing && !o.quiet) print_timing(step.timer(), r.cycles);
  }
  int status = ok ? 0 : 1;
  MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);
  return status;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_size(MPI_COMM_WORLD, &world_size);
  MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
  // --mpi-buffers is this program's own; the rest are lulesh's.
  buffer_choice buffers = buffer_choice::automatic;
  std::vector<char*> rest{argv[0]};
  int status = 0;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--mpi-buffers") == 0 && i + 1 < argc) {
      const std::string v = argv[++i];
      if (v == "host") buffers = buffer_choice::host;
      else if (v == "device") buffers = buffer_choice::device;
      else if (v == "auto") buffers = buffer_choice::automatic;
      else {
        if (world_rank == 0)
          std::fprintf(stderr, "lulesh-mpi: --mpi-buffers takes host, device or auto, got `%s`\n",
                       v.c_str());
        status = 2;
      }
    } else {
      rest.push_back(argv[i]);
    }
  }
  options o;
  if (status == 0) {
    try {
      o = parse_options(static_cast<int>(rest.size()), rest.data());
    } catch (const usage_error& e) {
      if (world_rank == 0) std::fprintf(stderr, "lulesh-mpi: %s\n\n%s", e.what(), usage_text());
      status = 2;
    }
  }
  // The fused kernels are lulesh's (one domain): between the node loops the node forces cross the
  // domains' faces, so lulesh-mpi runs every kernel apart, whatever lulesh's default.
  if (status == 0 && (o.fused_nodes_given || o.fused_q_eos_given)) {
    if (world_rank == 0)
      std::fprintf(stderr, "lulesh-mpi: --fused-nodes and --fused-q-eos are single-domain options of lulesh; "
                           "lulesh-mpi runs its kernels apart (the node forces are exchanged between the node "
                           "loops): leave them out\n");
    status = 2;
  }
  // Across ranks the kernels round as the reference's x86 build unless asked: lulesh-mpi is verified
  // against LLNL's MPI build without FMA (scripts/lulesh-mpi-check.sh), lulesh's FMA default on one
  // domain only.
  if (status == 0 && !o.fp_fusion_given) o.fp_fusion = false;
  if (status == 0 && o.help) {
    if (world_rank == 0)
      std::printf(
          "%s --mpi-buffers <host|device|auto> : halo buffers in host memory, or device memory "
          "handed to a\n"
          "                   CUDA-aware MPI (auto: device where MPIX_Query_cuda_support says "
          "so)\n",
          usage_text());
  } else if (status == 0) {
    try {
      status = run(o, buffers);
    } catch (const tp::error& e) {
      std::fprintf(stderr, "lulesh-mpi: rank %d: %s [tritonpack::errc::%s]\n", world_rank, e.what(),
                   tp::errc_name(e.code()));
      MPI_Abort(MPI_COMM_WORLD, 1);
    } catch (const std::exception& e) {
      // The set-up's errors (a rank count that is not a cube, a bad -s) are the same on every rank.
      if (world_rank == 0) std::fprintf(stderr, "lulesh-mpi: %s\n", e.what());
      status = 1;
    }
  }
  MPI_Finalize();
  return status;
}
