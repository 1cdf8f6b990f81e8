#pragma once
/// The parts of a GPU server and the model presets, as plain structs.
/// Field names match data/catalog.json (docs/catalog.md describes the format);
/// units are in the names. Every figure comes from the catalog's sources.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpuadvisor/catalog/fwd.hpp"
#include "gpuadvisor/catalog/model_build.hpp"

namespace gpuadvisor::catalog {

enum class Condition { new_, used };
/// Whether a GPU model is sold new: `discontinued` ones are not (new
/// listings of them are never recommended; their -used listings are, under
/// --allow-used); `superseded` ones gave way to a successor sold in the same
/// markets.
enum class Availability { current, discontinued, superseded };

/// What a price is: a list price (MSRP/SEP), a new street price, a used sold
/// price, a vendor quote, or an estimate (its source says how it was derived).
enum class PriceKind { msrp, street, used, quote, estimate };

/// A price published in a region's own currency (a China-market card's CNY
/// list price). The region whose currency it is shows it as is; the search
/// compares it in US dollars at the region's exchange rate.
struct LocalPrice {
  std::string currency;  ///< ISO code other than USD: "CNY", "EUR", ...
  double amount = 0;
  PriceKind kind = PriceKind::estimate;
  std::string date;
  std::string source;
};

/// The price in `currency` among `local`, when the catalog has one: the
/// region's own price (`--region`), used in place of the converted one.
[[nodiscard]] inline const LocalPrice* local_price(const std::vector<LocalPrice>& local,
                                                   std::string_view currency) {
  for (const auto& l : local) {
    if (l.currency == currency) return &l;
  }
  return nullptr;
}

/// Every part has a price in US dollars (the search's unit) with its date,
/// kind and source; `local` adds prices published in other currencies.
struct Price {
  double usd = 0;  ///< unit price
  PriceKind kind = PriceKind::estimate;
  std::string date;    ///< YYYY-MM-DD when the price was observed or listed
  std::string source;  ///< source key or URL; "estimate: reason" for estimates
  std::vector<LocalPrice> local;
};

/// Fields common to every catalog part.
struct PartBase {
  std::string id;  ///< short lowercase hyphenated id, unique within its category
  /// Former ids of a renamed part: specs and flags that name one still find
  /// it. Unique with the ids of the category.
  std::vector<std::string> aliases;
  std::string name;  ///< product name as sold
  Price price;
  std::vector<std::string> sources;  ///< source keys (catalog "sources" table) for spec figures
  std::string notes;                 ///< optional free text
};

/// GPU architecture and which software stacks support it.
struct Architecture {
  std::string id;                  ///< "volta", "ampere", "ada", "hopper", "cdna3"
  std::string vendor;              ///< "nvidia" or "amd"
  std::string stack;               ///< "cuda" or "rocm"
  std::string compute_capability;  ///< "7.0", "8.0", "8.9", "9.0", "gfx942"
  std::string min_stack_version;   ///< first CUDA/ROCm version that supports it, "11.8"
  std::string max_stack_version;   ///< last version that supports it; empty = still supported
  bool bf16 = true;                ///< tensor cores support BF16
  bool fp8 = false;                ///< tensor cores support FP8
  std::vector<std::string> sources;
};

enum class GpuFormFactor { pcie, sxm, oam };
/// How a card is cooled: passive (datacenter cards: the chassis must force
/// air through the fins), blower (exhausts out of the case), open-air
/// (consumer cards: fans dump the heat into the case), liquid.
enum class GpuCooling { passive, blower, open_air, liquid };
enum class GpuMarket { consumer, workstation, datacenter };

struct GpuInterconnect {
  std::string type;           ///< "none", "nvlink", "nvlink-bridge", "infinity-fabric"
  double bandwidth_gbs = 0;   ///< total GPU-to-GPU bandwidth per GPU, GB/s (0 for none)
  bool peer_to_peer = false;  ///< PCIe/NVLink peer-to-peer supported by the driver
};

struct Gpu : PartBase {
  std::string vendor;        ///< "nvidia" or "amd"
  std::string architecture;  ///< Architecture id
  GpuMarket market = GpuMarket::datacenter;
  double memory_gb = 0;     ///< decimal GB as marketed (24 GB = 24e9 bytes)
  std::string memory_type;  ///< "GDDR6X", "HBM3", ...
  double memory_bandwidth_gbs = 0;
  /// Dense (no sparsity) 16-bit tensor rate used for training, TFLOPS. BF16 where
  /// supported, else FP16; FP32 accumulate (GeForce cards run that at half the
  /// FP16-accumulate rate, so the RTX 4090 stores 165.2, not 330 or 660).
  double tensor_tflops_16bit = 0;
  double tensor_tflops_fp8 = 0;  ///< dense FP8 rate with FP32 accumulate; 0 = no FP8
  double fp32_tflops = 0;        ///< non-tensor FP32
  double tf32_tflops = 0;        ///< dense TF32 tensor rate; 0 = none (Volta)
  double power_w = 0;            ///< board power (TBP/TDP)
  GpuFormFactor form_factor = GpuFormFactor::pcie;
  int slot_width = 0;     ///< PCIe slots occupied (0 for SXM/OAM)
  double length_mm = 0;   ///< card length (0 for SXM/OAM)
  std::string baseboard;  ///< SXM/OAM: baseboard family it mounts on, e.g. "hgx-h100"
  GpuInterconnect interconnect;
  int pcie_gen = 0;
  int pcie_lanes = 16;
  std::string power_connector;  ///< "8pin", "12vhpwr", "none" (SXM/OAM: from the board)
  int power_connector_count = 0;
  bool passive_cooling = false;  ///< needs chassis airflow (datacenter cards)
  /// Optional in the catalog: passive when passive_cooling, else open-air for
  /// consumer cards and blower for the rest.
  GpuCooling cooling = GpuCooling::blower;
  Condition condition = Condition::new_;
  Availability availability = Availability::current;
};

struct Cpu : PartBase {
  std::string vendor;  ///< "intel" or "amd"
  std::string family;  ///< "xeon-w", "xeon-scalable", "threadripper-pro", "epyc", "core", "ryzen"
  std::string socket;  ///< "LGA4677", "sTR5", "SP5", "AM5", "LGA1700"
  int cores = 0;
  int threads = 0;
  int pcie_lanes = 0;  ///< CPU PCIe lanes per socket
  int pcie_gen = 0;
  int memory_channels = 0;
  std::string memory_type;  ///< "DDR5" or "DDR4"
  double tdp_w = 0;
  /// Sustained package power the platform must feed and cool: Intel PL2
  /// (processor base power for Xeons that have no PL2 above it), AMD PPT.
  /// Optional; defaults to tdp_w.
  double max_power_w = 0;
  /// PCIe lanes each socket gives in a two-socket system, where some lanes
  /// link the sockets (EPYC 9004: 128 in 1P, 160 in all in 2P). Optional;
  /// defaults to pcie_lanes.
  int pcie_lanes_2p = 0;
  bool cooler_included = false;  ///< sold with a cooler that handles max_power_w
};

enum class PlatformKind { tower, rack };

struct IncludedPart {
  std::string id;  ///< id in the category the field names
  int count = 1;
  int redundant = 0;  ///< of count, held in reserve (N+M: M); PSUs only
};

/// Motherboard + chassis, or a barebone server.
struct Platform : PartBase {
  PlatformKind kind = PlatformKind::tower;
  std::string form_factor;  ///< "tower", "4U", "8U", ...
  std::string socket;       ///< CPU socket
  /// CPU families the chipset takes: one socket can serve several (LGA4677 is
  /// both Xeon W on W790 and Xeon Scalable on C741). Empty = any on the socket.
  std::vector<std::string> cpu_families;
  int cpu_sockets = 1;
  std::vector<std::string> gpu_form_factors;  ///< subset of "pcie", "sxm", "oam"
  std::string baseboard;         ///< SXM/OAM platforms: baseboard family, e.g. "hgx-h100"
  int max_gpus = 0;              ///< GPUs it can hold at the widths below
  int max_gpu_slot_width = 0;    ///< widest PCIe card at max_gpus (0 for SXM/OAM)
  double max_gpu_length_mm = 0;  ///< longest card (0 for SXM/OAM)
  int gpu_pcie_lanes = 16;       ///< lanes wired to each GPU slot
  int memory_slots = 0;
  std::string memory_type;  ///< "DDR5" or "DDR4"
  bool registered_memory = true;
  double max_memory_gb = 0;
  int nvme_slots = 0;    ///< M.2/U.2 bays for NVMe drives
  int drive_bays = 0;    ///< 2.5"/3.5" SATA bays
  std::string psu_form;  ///< "atx" or "server"
  int psu_bays = 1;
  double max_psu_w = 0;     ///< largest single PSU it takes
  double base_power_w = 0;  ///< board, fans, NICs: the draw besides CPU, GPU, memory, storage
  double included_cooling_w =
      0;  ///< heat the chassis airflow removes (servers); 0 = needs cooling part
  std::optional<IncludedPart> included_psu;  ///< barebones that ship with PSUs
  /// Baseboard platforms: the GPU counts the board is sold with (an HGX
  /// 8-GPU board takes 8). Empty = any count up to max_gpus.
  std::vector<int> gpu_counts;
  bool cpu_cooler_included = false;  ///< ships with CPU heatsinks (servers)
  bool gpu_airflow = false;          ///< forces air through passive GPUs (servers)
  /// The vendor validated the included PSUs (N+M) for the board's GPUs: the
  /// PSU rules use that configuration instead of generic per-GPU reserves.
  bool validated_power = false;
  std::string nvme_form = "m.2";  ///< NVMe slots: "m.2" (boards) or "u.2" (server bays)
  std::string bay_size = "3.5";   ///< drive bays: "3.5" (also take 2.5") or "2.5"
  int eps_inputs = 1;             ///< CPU (EPS 8-pin) power inputs of the board, ATX PSUs
};

struct MemoryKit : PartBase {
  std::string type;  ///< "DDR5" or "DDR4"
  bool registered = true;
  int modules = 1;
  double capacity_gb = 0;  ///< whole kit
  int speed_mts = 0;
  double power_w = 0;  ///< whole kit, under load
};

enum class StorageType { nvme, sata_ssd, hdd };

struct Storage : PartBase {
  StorageType type = StorageType::nvme;
  /// "m.2", "u.2", "2.5" or "3.5". Optional: m.2 for NVMe, 2.5 for SATA
  /// SSDs, 3.5 for disks.
  std::string form;
  double capacity_tb = 0;  ///< decimal TB
  double seq_read_mbs = 0;
  double power_w = 0;  ///< active
};

struct Psu : PartBase {
  std::string form;  ///< "atx" or "server"
  double watts_230v = 0;
  double watts_115v = 0;       ///< same as 230 V where the unit is not derated
  std::string efficiency;      ///< "80plus-bronze", "-gold", "-platinum", "-titanium"
  int pcie_8pin = 0;           ///< 8-pin PCIe GPU connectors
  int connectors_12vhpwr = 0;  ///< 12VHPWR / 12V-2x6 connectors
  int eps_8pin = 0;            ///< CPU/EPS 8-pin connectors (boards and cpu8pin GPUs)
};

enum class CoolingType { air, liquid, datacenter };

struct Cooling : PartBase {
  CoolingType type = CoolingType::air;
  double capacity_w = 0;  ///< heat it removes
  double power_w = 0;     ///< fans/pumps
  std::string form;       ///< "tower" or "rack": what it is meant for
};

/// A CPU cooler: the socket mounts it takes and the package power it is
/// rated to remove.
struct CpuCooler : PartBase {
  std::string type;                  ///< "air" or "liquid"
  std::vector<std::string> sockets;  ///< "AM5", "LGA1700", "sTR5", ...
  double max_cpu_w = 0;              ///< rated package power
  double power_w = 0;                ///< fans and pump
};

/// Cluster network parts (docs/catalog.md "Network"): what `recommend`
/// composes a multi-node build from. Fabrics: "infiniband", "ethernet".
struct Nic : PartBase {
  std::string vendor;                ///< "nvidia", "broadcom", "intel"
  std::vector<std::string> fabrics;  ///< link layers it speaks
  int ports = 1;
  double port_gbps = 0;  ///< line rate per port, Gb/s
  std::string form;      ///< port cage: "osfp", "qsfp112", "qsfp56", "qsfp28"
  int pcie_gen = 0;
  int pcie_lanes = 16;
  double power_w = 0;  ///< maximum, without the transceivers
};

struct Switch : PartBase {
  std::string vendor;
  std::vector<std::string> fabrics;
  int ports = 0;  ///< ports at port_gbps (a twin-port OSFP cage counts as two)
  double port_gbps = 0;
  std::string form;  ///< cage: "osfp", "qsfp56", "qsfp28"
  int rack_units = 1;
  double power_w = 0;  ///< maximum, without the transceivers
};

/// A transceiver (one end of an optical link), a passive fiber between two
/// transceivers, or a cable with its ends attached (DAC copper, AOC optical).
struct Cable : PartBase {
  std::string kind;  ///< "transceiver", "fiber", "dac", "aoc"
  std::vector<std::string> fabrics;
  std::string form;  ///< cage it plugs into ("mpo" for a fiber's connector)
  double gbps = 0;   ///< per link
  int links = 1;     ///< links one unit serves (a twin-port OSFP transceiver: 2)
  double length_m = 0;
  double power_w = 0;  ///< whole unit (a DAC/AOC: both ends)
};

// ModelKind (transformer, cnn) is in catalog/fwd.hpp.

struct ModelPreset {
  std::string id, name;
  ModelKind kind = ModelKind::transformer;
  double params = 0;  ///< total parameters
  int layers = 0;
  int hidden = 0;
  int heads = 0;
  int kv_heads = 0;  ///< < heads for grouped-query attention
  int ffn = 0;       ///< feed-forward inner size
  int vocab = 0;
  int seq_len = 0;         ///< default training sequence length
  bool gated_ffn = false;  ///< SwiGLU (3 FFN matrices) vs GELU MLP (2)
  bool tied_embeddings = false;
  bool flash_attention = true;  ///< modern training stacks use it by default
  int head_dim = 0;             ///< explicit head size; 0 = hidden / heads
  // Mixture of experts (0 = dense) and sliding-window attention, as in
  // workload::Architecture.
  int experts = 0;
  int experts_per_token = 0;
  int expert_ffn = 0;
  int shared_experts = 0;
  int shared_expert_ffn = 0;
  int dense_layers = 0;
  int moe_every = 1;
  bool router_bias = false;
  bool shared_expert_gate = false;  ///< Qwen2-MoE: a 1-output gate on the shared expert
  // Multi-head latent attention (DeepSeek), as in workload::Architecture.
  int q_lora_rank = 0;
  int kv_lora_rank = 0;
  int qk_nope_head_dim = 0;
  int qk_rope_head_dim = 0;
  int v_head_dim = 0;
  int sliding_window = 0;
  int sliding_window_layers = 0;
  /// Biases (config.json attention_bias, mlp_bias; Qwen2's q/k/v), as in
  /// workload::Architecture.
  bool qkv_bias = false;
  bool o_bias = false;
  bool mlp_bias = false;
  int norms_per_layer = 2;      ///< Gemma 2: 4 (sandwich norms around attention and the FFN)
  ModelBuild build;             ///< what an engine needs to build it; `known` when given
  double flops_per_sample = 0;  ///< CNN: forward FLOPs per sample
  int image_size = 0;           ///< CNN: input side, pixels
  double activation_bytes_per_sample = 0;  ///< CNN: stored activations per sample, 16-bit
  std::vector<std::string> sources;
};

/// An on-demand cloud price per GPU-hour. Chinese providers publish CNY:
/// their rows carry `local` prices and a USD figure at the stated rate.
struct CloudPrice {
  std::string id;
  std::string gpu;  ///< Gpu id
  std::string provider;
  double usd_per_gpu_hour = 0;
  /// The smallest instance: GPUs billed together (AWS p5: 8). Default 1.
  int gpus_per_instance = 1;
  PriceKind kind = PriceKind::msrp;  ///< msrp = the provider's list price
  std::string date;
  std::string source;
  std::vector<LocalPrice> local;  ///< per GPU-hour, in the provider's currency
};

struct Source {
  std::string key, title, url;
};

}  // namespace gpuadvisor::catalog
