// The packed form of a catalog: every field of every part, in declaration
// order, with no names. fields() lists each struct's members once; the same
// list writes and reads, so the two cannot disagree. A member added to a part
// must be added to its fields() too: the size checks below stop the build
// until it is, and a test compares the unpacked embedded catalog with the one
// read from data/catalog.json.
#include "gpuadvisor/catalog/packed.hpp"

#include <cstdint>
#include <cstring>
#include <optional>
#include <stdexcept>
#include <type_traits>

namespace gpuadvisor::catalog {
namespace {

// On the x86-64 GCC ABI the project builds with. A failure here means a part
// changed: list the new member in its fields() below, then update the size.
#if defined(__x86_64__) && defined(__GLIBCXX__)
static_assert(sizeof(LocalPrice) == 112 && sizeof(Price) == 104 && sizeof(PartBase) == 248);
static_assert(sizeof(Architecture) == 224 && sizeof(GpuInterconnect) == 48);
static_assert(sizeof(Gpu) == 568 && sizeof(Cpu) == 424 && sizeof(IncludedPart) == 40);
static_assert(sizeof(Platform) == 704 && sizeof(MemoryKit) == 312 && sizeof(Storage) == 312);
static_assert(sizeof(Psu) == 344 && sizeof(Cooling) == 304 && sizeof(CpuCooler) == 320);
static_assert(sizeof(ModelPreset) == 320 && sizeof(CloudPrice) == 200 && sizeof(Source) == 96);
static_assert(sizeof(Nic) == 368 && sizeof(Switch) == 368 && sizeof(Cable) == 368);
static_assert(sizeof(Catalog) == 392, "a category was added: pack it in visit_catalog()");
#endif

/// T or const T: one fields() serves the writer (const) and the reader.
template <typename T, typename U>
concept Is = std::is_same_v<std::remove_const_t<T>, U>;

template <typename V, Is<LocalPrice> T>
void fields(V& v, T& l) {
  v(l.currency, l.amount, l.kind, l.date, l.source);
}
template <typename V, Is<Price> T>
void fields(V& v, T& p) {
  v(p.usd, p.kind, p.date, p.source, p.local);
}
template <typename V, typename T>
requires std::is_base_of_v<PartBase, std::remove_const_t<T>>
void base(V& v, T& p) { v(p.id, p.aliases, p.name, p.price, p.sources, p.notes); }
template <typename V, Is<Architecture> T>
void fields(V& v, T& a) {
  v(a.id, a.vendor, a.stack, a.compute_capability, a.min_stack_version, a.max_stack_version, a.bf16,
    a.fp8, a.sources);
}
template <typename V, Is<GpuInterconnect> T>
void fields(V& v, T& i) {
  v(i.type, i.bandwidth_gbs, i.peer_to_peer);
}
template <typename V, Is<Gpu> T>
void fields(V& v, T& g) {
  base(v, g);
  v(g.vendor, g.architecture, g.market, g.memory_gb, g.memory_type, g.memory_bandwidth_gbs,
    g.tensor_tflops_16bit, g.tensor_tflops_fp8, g.fp32_tflops, g.tf32_tflops, g.power_w,
    g.form_factor, g.slot_width, g.length_mm, g.baseboard, g.interconnect, g.pcie_gen, g.pcie_lanes,
    g.power_connector, g.power_connector_count, g.passive_cooling, g.cooling, g.condition,
    g.availability);
}
template <typename V, Is<Cpu> T>
void fields(V& v, T& c) {
  base(v, c);
  v(c.vendor, c.family, c.socket, c.cores, c.threads, c.pcie_lanes, c.pcie_gen, c.memory_channels,
    c.memory_type, c.tdp_w, c.max_power_w, c.pcie_lanes_2p, c.cooler_included);
}
template <typename V, Is<IncludedPart> T>
void fields(V& v, T& p) {
  v(p.id, p.count, p.redundant);
}
template <typename V, Is<Platform> T>
void fields(V& v, T& p) {
  base(v, p);
  v(p.kind, p.form_factor, p.socket, p.cpu_families, p.cpu_sockets, p.gpu_form_factors, p.baseboard,
    p.max_gpus, p.max_gpu_slot_width, p.max_gpu_length_mm, p.gpu_pcie_lanes, p.memory_slots,
    p.memory_type, p.registered_memory, p.max_memory_gb, p.nvme_slots, p.drive_bays, p.psu_form,
    p.psu_bays, p.max_psu_w, p.base_power_w, p.included_cooling_w, p.included_psu, p.gpu_counts,
    p.cpu_cooler_included, p.gpu_airflow, p.validated_power, p.nvme_form, p.bay_size, p.eps_inputs);
}
template <typename V, Is<MemoryKit> T>
void fields(V& v, T& m) {
  base(v, m);
  v(m.type, m.registered, m.modules, m.capacity_gb, m.speed_mts, m.power_w);
}
template <typename V, Is<Storage> T>
void fields(V& v, T& s) {
  base(v, s);
  v(s.type, s.form, s.capacity_tb, s.seq_read_mbs, s.power_w);
}
template <typename V, Is<Psu> T>
void fields(V& v, T& p) {
  base(v, p);
  v(p.form, p.watts_230v, p.watts_115v, p.efficiency, p.pcie_8pin, p.connectors_12vhpwr,
    p.eps_8pin);
}
template <typename V, Is<Cooling> T>
void fields(V& v, T& c) {
  base(v, c);
  v(c.type, c.capacity_w, c.power_w, c.form);
}
template <typename V, Is<CpuCooler> T>
void fields(V& v, T& c) {
  base(v, c);
  v(c.type, c.sockets, c.max_cpu_w, c.power_w);
}
template <typename V, Is<Nic> T>
void fields(V& v, T& n) {
  base(v, n);
  v(n.vendor, n.fabrics, n.ports, n.port_gbps, n.form, n.pcie_gen, n.pcie_lanes, n.power_w);
}
template <typename V, Is<Switch> T>
void fields(V& v, T& s) {
  base(v, s);
  v(s.vendor, s.fabrics, s.ports, s.port_gbps, s.form, s.rack_units, s.power_w);
}
template <typename V, Is<Cable> T>
void fields(V& v, T& c) {
  base(v, c);
  v(c.kind, c.fabrics, c.form, c.gbps, c.links, c.length_m, c.power_w);
}
template <typename V, Is<ModelBuild> T>
void fields(V& v, T& b) {
  v(b.known, b.norm, b.norm_eps, b.position, b.rope_theta, b.rope_scaling, b.rotary_fraction,
    b.rotary_interleaved, b.max_positions, b.activation, b.bidirectional, b.attn_softcap,
    b.final_softcap, b.scaled_embedding);
}
template <typename V, Is<ModelPreset> T>
void fields(V& v, T& m) {
  v(m.id, m.name, m.kind, m.params, m.layers, m.hidden, m.heads, m.kv_heads, m.ffn, m.vocab,
    m.seq_len, m.gated_ffn, m.tied_embeddings, m.flash_attention, m.head_dim, m.experts,
    m.experts_per_token, m.expert_ffn, m.shared_experts, m.shared_expert_ffn, m.dense_layers,
    m.moe_every, m.router_bias, m.shared_expert_gate, m.q_lora_rank, m.kv_lora_rank,
    m.qk_nope_head_dim, m.qk_rope_head_dim, m.v_head_dim, m.sliding_window, m.sliding_window_layers,
    m.qkv_bias, m.o_bias, m.mlp_bias, m.norms_per_layer, m.build, m.flops_per_sample, m.image_size,
    m.activation_bytes_per_sample, m.sources);
}
template <typename V, Is<CloudPrice> T>
void fields(V& v, T& c) {
  v(c.id, c.gpu, c.provider, c.usd_per_gpu_hour, c.gpus_per_instance, c.kind, c.date, c.source,
    c.local);
}
template <typename V, Is<Source> T>
void fields(V& v, T& s) {
  v(s.key, s.title, s.url);
}

template <typename T>
concept Scalar = std::is_arithmetic_v<T> || std::is_enum_v<T>;

/// Appends each value: scalars as their bytes, strings and vectors with a
/// count first, optionals with a flag, structs through their fields().
struct Writer {
  std::string out;

  template <typename... T>
  void operator()(const T&... v) {
    (put(v), ...);
  }
  void count(std::size_t n) { put(static_cast<std::uint32_t>(n)); }
  template <Scalar T>
  void put(const T& v) {
    out.append(reinterpret_cast<const char*>(&v), sizeof v);
  }
  void put(const std::string& s) {
    count(s.size());
    out += s;
  }
  template <typename T>
  void put(const std::vector<T>& items) {
    count(items.size());
    for (const auto& i : items) put(i);
  }
  template <typename T>
  void put(const std::optional<T>& o) {
    put(o.has_value());
    if (o) put(*o);
  }
  template <typename T>
  void put(const T& s) {
    fields(*this, s);
  }
};

/// Reads what Writer wrote, in the same order, checking every length.
struct Reader {
  std::string_view in;

  template <typename... T>
  void operator()(T&... v) {
    (get(v), ...);
  }
  const char* take(std::size_t n) {
    if (n > in.size()) throw std::runtime_error("embedded catalog: the packed data is truncated");
    const char* p = in.data();
    in.remove_prefix(n);
    return p;
  }
  std::size_t count() {
    std::uint32_t n = 0;
    get(n);
    return n;
  }
  template <Scalar T>
  void get(T& v) {
    std::memcpy(&v, take(sizeof v), sizeof v);
  }
  void get(std::string& s) {
    const std::size_t n = count();
    s.assign(take(n), n);
  }
  template <typename T>
  void get(std::vector<T>& items) {
    const std::size_t n = count();
    // Each entry takes at least a byte: a larger count is not this format's.
    if (n > in.size()) throw std::runtime_error("embedded catalog: the packed data is truncated");
    items.clear();
    items.resize(n);
    for (auto& i : items) get(i);
  }
  template <typename T>
  void get(std::optional<T>& o) {
    bool has = false;
    get(has);
    o.reset();
    if (has) get(o.emplace());
  }
  template <typename T>
  void get(T& s) {
    fields(*this, s);
  }
};

/// Marks the format, so that bytes of another build are refused.
constexpr std::uint32_t kMagic = 0x47504b31;  // "GPK1"

template <typename V, typename C>
void visit_catalog(V& v, C& c) {
  v(c.schema_version);
  for_each_category([&](const auto& cat) { v(c.*cat.items); });
}

}  // namespace

std::string pack_catalog(const Catalog& c) {
  Writer w;
  w(kMagic);
  visit_catalog(w, c);
  return std::move(w.out);
}

Catalog unpack_catalog(std::string_view bytes) {
  Reader r{bytes};
  std::uint32_t magic = 0;
  r(magic);
  if (magic != kMagic) throw std::runtime_error("embedded catalog: not in the packed format");
  Catalog c;
  visit_catalog(r, c);
  if (!r.in.empty()) throw std::runtime_error("embedded catalog: bytes left after the catalog");
  return c;
}

}  // namespace gpuadvisor::catalog
