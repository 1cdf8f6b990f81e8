// Steady-state training speed: matmul time at the board's measured matmul
// efficiency, memory-bound kernels at its bandwidth, and the collectives of
// data parallelism and ZeRO/FSDP over the link the GPUs actually share.
// docs/estimation.md section 4 derives each part and shows the calibration.
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "gpuadvisor/catalog/parts.hpp"
#include "gpuadvisor/core/arith.hpp"
#include "gpuadvisor/core/quantity.hpp"
#include "gpuadvisor/workload/constants.hpp"
#include "gpuadvisor/workload/workload.hpp"
#include "model.hpp"

namespace gpuadvisor::workload::detail {
namespace {

bool fabric(const catalog::Gpu& g) {
  return (g.interconnect.type == "nvlink" || g.interconnect.type == "infinity-fabric") &&
         g.interconnect.peer_to_peer;
}

}  // namespace

MatmulEfficiency matmul_efficiency(const catalog::Gpu& g) {
  const bool sxm = g.form_factor != catalog::GpuFormFactor::pcie;
  if (g.architecture == "ampere") {
    return sxm ? MatmulEfficiency{k::kMamfA100Sxm, "MAMF of A100 SXM"}
               : MatmulEfficiency{k::kMamfA100Pcie, "MAMF of A100 PCIe"};
  }
  if (g.architecture == "hopper" && sxm) {
    return {k::kMamfH100Sxm * k::kSustainedHopper, "sustained matmul rate of H100/H200 SXM"};
  }
  if (g.architecture == "cdna3") return {k::kMamfMi300x, "MAMF of MI300X on ROCm 6.3"};
  return {k::kMamfDefault, "no published MAMF: H100 SXM's fraction assumed"};
}

Link collective_link(const catalog::Gpu& g, int gpus) {
  if (gpus > k::kGpusPerNode) {
    return {k::kInterNodeGBs * 1e9 * k::kBusEfficiency, "400 Gb/s per GPU between nodes"};
  }
  const auto& ic = g.interconnect;
  if (fabric(g) || (ic.type == "nvlink-bridge" && gpus <= 2)) {
    // The catalog gives both directions together.
    return {
        ic.bandwidth_gbs / 2 * 1e9 * k::kBusEfficiency,
        fmt::format("{} {:.0f} GB/s", ic.type == "infinity-fabric" ? "Infinity Fabric" : "NVLink",
                    ic.bandwidth_gbs)};
  }
  const int gen = std::clamp(g.pcie_gen, 0, 6);
  const double lane = k::kPcieLaneGBs[gen > 0 ? gen : 4];
  const double rate = lane * std::max(1, g.pcie_lanes) * 1e9 * k::kBusEfficiency;
  if (!ic.peer_to_peer) {
    return {
        rate * k::kNoP2pFactor,
        fmt::format("PCIe {} x{} without peer-to-peer (through host memory)", gen, g.pcie_lanes)};
  }
  return {rate, fmt::format("PCIe {} x{} peer-to-peer", gen, g.pcie_lanes)};
}

CommCost comm_per_token(const Workload& w, const catalog::Gpu& g, int gpus) {
  CommCost c;
  if (gpus <= 1 || !w.training()) return c;
  const double n = d(gpus);
  // Unsharded sizes of what the collectives move: the forward's weights (NF4
  // for QLoRA) and the gradients of the trained parameters.
  const auto one = memory(w.arch, w.counts, settings_of(w), g.tensor_tflops_fp8 > 0, 1);
  const double weights = one.weights;
  const double grads = one.gradients;
  const double micro = d(w.batch_size) * std::max(1.0, d(w.seq_len));
  const double step = micro * std::max(1, w.grad_accumulation);
  const Link link = collective_link(g, gpus);
  double bytes = 0;
  if (w.sharding == Sharding::zero3) {
    // FSDP/ZeRO-3: weights all-gathered for the forward and again for the
    // backward, gradients reduce-scattered, every micro-batch.
    bytes = (2 * weights + grads) * (n - 1) / n / micro;
    c.text =
        fmt::format("ZeRO-3 gathers {} of weights twice per micro-batch", format_bytes(weights));
  } else {
    // DDP and ZeRO-1/2: one all-reduce (or reduce-scatter + all-gather) of the
    // gradients per optimizer step.
    const double local = std::min(n, d(k::kGpusPerNode));
    bytes = 2 * grads * (local - 1) / local / step;
    c.text = fmt::format("all-reduce of {} of gradients per step", format_bytes(grads));
    if (gpus > k::kGpusPerNode) {
      // Hierarchical: each GPU of a node carries 1/8 of the gradients across nodes.
      const double nodes = n / k::kGpusPerNode;
      const Link inter = collective_link(g, gpus);
      const Link intra = collective_link(g, k::kGpusPerNode);
      c.seconds = bytes / intra.bytes_per_second +
                  2 * grads / k::kGpusPerNode * (nodes - 1) / nodes / step / inter.bytes_per_second;
      c.bytes = bytes;
      c.text += fmt::format(" over {} and {}", intra.text, inter.text);
      return c;
    }
  }
  c.bytes = bytes;
  c.seconds = bytes / link.bytes_per_second;
  c.text += fmt::format(" over {}", link.text);
  return c;
}

double overlapped(double compute, double comm) {
  return compute + comm - k::kCommOverlap * std::min(compute, comm);
}

}  // namespace gpuadvisor::workload::detail
