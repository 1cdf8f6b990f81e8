#include <nlohmann/json.hpp>

#include "gpuadvisor/catalog/catalog.hpp"
#include "gpuadvisor/catalog/serialize.hpp"

namespace gpuadvisor::catalog {
namespace {

void put_base(ojson& j, const PartBase& p) {
  j["id"] = p.id;
  if (!p.aliases.empty()) j["aliases"] = p.aliases;
  j["name"] = p.name;
}

ojson local_json(const std::vector<LocalPrice>& local) {
  ojson arr = ojson::array();
  for (const auto& l : local) {
    arr.push_back({{"currency", l.currency},
                   {"amount", l.amount},
                   {"kind", to_string(l.kind)},
                   {"date", l.date},
                   {"source", l.source}});
  }
  return arr;
}

void put_tail(ojson& j, const PartBase& p) {
  j["price"] = {{"usd", p.price.usd},
                {"currency", "USD"},
                {"kind", to_string(p.price.kind)},
                {"date", p.price.date},
                {"source", p.price.source}};
  if (!p.price.local.empty()) j["price"]["local"] = local_json(p.price.local);
  j["sources"] = p.sources;
  if (!p.notes.empty()) j["notes"] = p.notes;
}

/// `e`'s name in its table (the table is in the enum's order).
template <typename E, std::size_t N>
std::string_view name_of(const std::string_view (&names)[N], E e) {
  const auto i = static_cast<std::size_t>(e);
  return i < N ? names[i] : names[0];
}

}  // namespace

std::string_view to_string(PriceKind k) { return name_of(kPriceKinds, k); }
std::string_view to_string(Condition c) { return name_of(kConditionNames, c); }
std::string_view to_string(Availability a) { return name_of(kAvailabilityNames, a); }
std::string_view to_string(GpuFormFactor f) { return name_of(kGpuFormNames, f); }
std::string_view to_string(GpuMarket m) { return name_of(kGpuMarketNames, m); }
std::string_view to_string(PlatformKind k) { return name_of(kPlatformKindNames, k); }
std::string_view to_string(StorageType t) { return name_of(kStorageTypeNames, t); }
std::string_view to_string(CoolingType t) { return name_of(kCoolingTypeNames, t); }
std::string_view to_string(GpuCooling c) { return name_of(kGpuCoolingNames, c); }
std::string_view to_string(ModelKind k) { return name_of(kModelKindNames, k); }

ojson to_json(const Source& s) { return {{"key", s.key}, {"title", s.title}, {"url", s.url}}; }

ojson to_json(const Architecture& a) {
  return {{"id", a.id},
          {"vendor", a.vendor},
          {"stack", a.stack},
          {"compute_capability", a.compute_capability},
          {"min_stack_version", a.min_stack_version},
          {"max_stack_version", a.max_stack_version},
          {"bf16", a.bf16},
          {"fp8", a.fp8},
          {"sources", a.sources}};
}

ojson to_json(const Gpu& g) {
  ojson j;
  put_base(j, g);
  j["vendor"] = g.vendor;
  j["architecture"] = g.architecture;
  j["market"] = to_string(g.market);
  j["memory_gb"] = g.memory_gb;
  j["memory_type"] = g.memory_type;
  j["memory_bandwidth_gbs"] = g.memory_bandwidth_gbs;
  j["tensor_tflops_16bit"] = g.tensor_tflops_16bit;
  j["tensor_tflops_fp8"] = g.tensor_tflops_fp8;
  j["fp32_tflops"] = g.fp32_tflops;
  j["tf32_tflops"] = g.tf32_tflops;
  j["power_w"] = g.power_w;
  j["form_factor"] = to_string(g.form_factor);
  j["slot_width"] = g.slot_width;
  j["length_mm"] = g.length_mm;
  if (!g.baseboard.empty()) j["baseboard"] = g.baseboard;
  j["interconnect"] = {{"type", g.interconnect.type},
                       {"bandwidth_gbs", g.interconnect.bandwidth_gbs},
                       {"peer_to_peer", g.interconnect.peer_to_peer}};
  j["pcie_gen"] = g.pcie_gen;
  j["pcie_lanes"] = g.pcie_lanes;
  j["power_connector"] = g.power_connector;
  j["power_connector_count"] = g.power_connector_count;
  j["passive_cooling"] = g.passive_cooling;
  j["cooling"] = to_string(g.cooling);
  j["condition"] = to_string(g.condition);
  j["availability"] = to_string(g.availability);
  put_tail(j, g);
  return j;
}

ojson to_json(const Cpu& c) {
  ojson j;
  put_base(j, c);
  j["vendor"] = c.vendor;
  j["family"] = c.family;
  j["socket"] = c.socket;
  j["cores"] = c.cores;
  j["threads"] = c.threads;
  j["pcie_lanes"] = c.pcie_lanes;
  j["pcie_gen"] = c.pcie_gen;
  j["memory_channels"] = c.memory_channels;
  j["memory_type"] = c.memory_type;
  j["tdp_w"] = c.tdp_w;
  j["max_power_w"] = c.max_power_w;
  j["pcie_lanes_2p"] = c.pcie_lanes_2p;
  j["cooler_included"] = c.cooler_included;
  put_tail(j, c);
  return j;
}

ojson to_json(const Platform& p) {
  ojson j;
  put_base(j, p);
  j["kind"] = to_string(p.kind);
  j["form_factor"] = p.form_factor;
  j["socket"] = p.socket;
  if (!p.cpu_families.empty()) j["cpu_families"] = p.cpu_families;
  j["cpu_sockets"] = p.cpu_sockets;
  j["gpu_form_factors"] = p.gpu_form_factors;
  if (!p.baseboard.empty()) j["baseboard"] = p.baseboard;
  j["max_gpus"] = p.max_gpus;
  j["max_gpu_slot_width"] = p.max_gpu_slot_width;
  j["max_gpu_length_mm"] = p.max_gpu_length_mm;
  j["gpu_pcie_lanes"] = p.gpu_pcie_lanes;
  j["memory_slots"] = p.memory_slots;
  j["memory_type"] = p.memory_type;
  j["registered_memory"] = p.registered_memory;
  j["max_memory_gb"] = p.max_memory_gb;
  j["nvme_slots"] = p.nvme_slots;
  j["drive_bays"] = p.drive_bays;
  j["psu_form"] = p.psu_form;
  j["psu_bays"] = p.psu_bays;
  j["max_psu_w"] = p.max_psu_w;
  j["base_power_w"] = p.base_power_w;
  j["included_cooling_w"] = p.included_cooling_w;
  if (p.included_psu) {
    j["included_psu"] = {{"id", p.included_psu->id},
                         {"count", p.included_psu->count},
                         {"redundant", p.included_psu->redundant}};
  }
  if (!p.gpu_counts.empty()) j["gpu_counts"] = p.gpu_counts;
  j["cpu_cooler_included"] = p.cpu_cooler_included;
  j["gpu_airflow"] = p.gpu_airflow;
  j["validated_power"] = p.validated_power;
  j["nvme_form"] = p.nvme_form;
  j["bay_size"] = p.bay_size;
  j["eps_inputs"] = p.eps_inputs;
  put_tail(j, p);
  return j;
}

ojson to_json(const MemoryKit& m) {
  ojson j;
  put_base(j, m);
  j["type"] = m.type;
  j["registered"] = m.registered;
  j["modules"] = m.modules;
  j["capacity_gb"] = m.capacity_gb;
  j["speed_mts"] = m.speed_mts;
  j["power_w"] = m.power_w;
  put_tail(j, m);
  return j;
}

ojson to_json(const Storage& s) {
  ojson j;
  put_base(j, s);
  j["type"] = to_string(s.type);
  j["capacity_tb"] = s.capacity_tb;
  j["seq_read_mbs"] = s.seq_read_mbs;
  j["power_w"] = s.power_w;
  j["form"] = s.form;
  put_tail(j, s);
  return j;
}

ojson to_json(const Psu& p) {
  ojson j;
  put_base(j, p);
  j["form"] = p.form;
  j["watts_230v"] = p.watts_230v;
  j["watts_115v"] = p.watts_115v;
  j["efficiency"] = p.efficiency;
  j["pcie_8pin"] = p.pcie_8pin;
  j["connectors_12vhpwr"] = p.connectors_12vhpwr;
  j["eps_8pin"] = p.eps_8pin;
  put_tail(j, p);
  return j;
}

ojson to_json(const Cooling& c) {
  ojson j;
  put_base(j, c);
  j["type"] = to_string(c.type);
  j["capacity_w"] = c.capacity_w;
  j["power_w"] = c.power_w;
  j["form"] = c.form;
  put_tail(j, c);
  return j;
}

ojson to_json(const CpuCooler& c) {
  ojson j;
  put_base(j, c);
  j["type"] = c.type;
  j["sockets"] = c.sockets;
  j["max_cpu_w"] = c.max_cpu_w;
  j["power_w"] = c.power_w;
  put_tail(j, c);
  return j;
}

ojson to_json(const Nic& n) {
  ojson j;
  put_base(j, n);
  j["vendor"] = n.vendor;
  j["fabrics"] = n.fabrics;
  j["ports"] = n.ports;
  j["port_gbps"] = n.port_gbps;
  j["form"] = n.form;
  j["pcie_gen"] = n.pcie_gen;
  j["pcie_lanes"] = n.pcie_lanes;
  j["power_w"] = n.power_w;
  put_tail(j, n);
  return j;
}

ojson to_json(const Switch& s) {
  ojson j;
  put_base(j, s);
  j["vendor"] = s.vendor;
  j["fabrics"] = s.fabrics;
  j["ports"] = s.ports;
  j["port_gbps"] = s.port_gbps;
  j["form"] = s.form;
  j["rack_units"] = s.rack_units;
  j["power_w"] = s.power_w;
  put_tail(j, s);
  return j;
}

ojson to_json(const Cable& c) {
  ojson j;
  put_base(j, c);
  j["kind"] = c.kind;
  j["fabrics"] = c.fabrics;
  j["form"] = c.form;
  j["gbps"] = c.gbps;
  j["links"] = c.links;
  j["length_m"] = c.length_m;
  j["power_w"] = c.power_w;
  put_tail(j, c);
  return j;
}

/// The "build" object as the loader reads it: optional keys only when set.
ojson build_json(const ModelBuild& b) {
  ojson j = {{"norm", name_of(kNormNames, b.norm)},
             {"norm_eps", b.norm_eps},
             {"position_embedding", name_of(kPositionEmbeddingNames, b.position)}};
  if (b.position == PositionEmbedding::rope) j["rope_theta"] = b.rope_theta;
  if (b.rope_scaling > 0) j["rope_scaling_factor"] = b.rope_scaling;
  if (b.rotary_fraction < 1) j["rotary_fraction"] = b.rotary_fraction;
  if (b.rotary_interleaved) j["rotary_interleaved"] = true;
  j["max_positions"] = b.max_positions;
  j["activation"] = name_of(kActivationNames, b.activation);
  if (b.bidirectional) j["bidirectional"] = true;
  if (b.attn_softcap > 0) j["attn_softcap"] = b.attn_softcap;
  if (b.final_softcap > 0) j["final_softcap"] = b.final_softcap;
  if (b.scaled_embedding) j["scaled_embedding"] = true;
  return j;
}

ojson to_json(const ModelPreset& m) {
  ojson j = {{"id", m.id},
             {"name", m.name},
             {"kind", to_string(m.kind)},
             {"params", m.params},
             {"layers", m.layers},
             {"hidden", m.hidden},
             {"heads", m.heads},
             {"kv_heads", m.kv_heads},
             {"ffn", m.ffn},
             {"vocab", m.vocab},
             {"seq_len", m.seq_len},
             {"gated_ffn", m.gated_ffn},
             {"tied_embeddings", m.tied_embeddings},
             {"flash_attention", m.flash_attention},
             {"head_dim", m.head_dim},
             {"experts", m.experts},
             {"experts_per_token", m.experts_per_token},
             {"expert_ffn", m.expert_ffn},
             {"shared_experts", m.shared_experts},
             {"shared_expert_ffn", m.shared_expert_ffn},
             {"dense_layers", m.dense_layers},
             {"moe_every", m.moe_every},
             {"router_bias", m.router_bias},
             {"shared_expert_gate", m.shared_expert_gate},
             {"q_lora_rank", m.q_lora_rank},
             {"kv_lora_rank", m.kv_lora_rank},
             {"qk_nope_head_dim", m.qk_nope_head_dim},
             {"qk_rope_head_dim", m.qk_rope_head_dim},
             {"v_head_dim", m.v_head_dim},
             {"sliding_window", m.sliding_window},
             {"sliding_window_layers", m.sliding_window_layers},
             {"qkv_bias", m.qkv_bias},
             {"o_bias", m.o_bias},
             {"mlp_bias", m.mlp_bias},
             {"norms_per_layer", m.norms_per_layer},
             {"flops_per_sample", m.flops_per_sample},
             {"image_size", m.image_size},
             {"activation_bytes_per_sample", m.activation_bytes_per_sample},
             {"sources", m.sources}};
  if (m.build.known) j["build"] = build_json(m.build);
  return j;
}

ojson to_json(const CloudPrice& c) {
  ojson j = {{"id", c.id},
             {"gpu", c.gpu},
             {"provider", c.provider},
             {"usd_per_gpu_hour", c.usd_per_gpu_hour},
             {"gpus_per_instance", c.gpus_per_instance},
             {"currency", "USD"},
             {"kind", to_string(c.kind)},
             {"date", c.date},
             {"source", c.source}};
  if (!c.local.empty()) j["local"] = local_json(c.local);
  return j;
}

ojson category_to_json(const Catalog& c, std::string_view key) {
  ojson arr = ojson::array();
  for_each_category([&](const auto& cat) {
    if (cat.key != key) return;
    for (const auto& item : c.*cat.items) arr.push_back(to_json(item));
  });
  return arr;
}

}  // namespace gpuadvisor::catalog
