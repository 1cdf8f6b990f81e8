// The packed embedded catalog (tools/pack_catalog.cpp, catalog/packed.hpp):
// unpacking gives the parts that the loader reads from the JSON file, field
// for field, and bytes the packer did not write are refused.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <fstream>
#include <sstream>
#include <stdexcept>

#include "gpuadvisor/catalog/catalog.hpp"
#include "gpuadvisor/catalog/packed.hpp"
#include "gpuadvisor/catalog/serialize.hpp"

using namespace gpuadvisor;
using namespace gpuadvisor::catalog;

namespace {

Catalog read_embedded_file() {
  std::ifstream in(GPUADVISOR_CATALOG_FILE);
  std::stringstream ss;
  ss << in.rdbuf();
  auto c = parse_catalog(ss.str(), GPUADVISOR_CATALOG_FILE, /*overlay=*/false);
  REQUIRE(c);
  return std::move(*c);
}

/// Every category as the catalog writer renders it (all fields of each part).
std::string render(const Catalog& c) {
  std::string out;
  for (auto key : kCategories) out += category_to_json(c, key).dump() + "\n";
  return out;
}

}  // namespace

TEST_CASE("the embedded catalog unpacks to what the loader reads from its JSON file",
          "[catalog][packed]") {
  const Catalog from_json = read_embedded_file();
  const Catalog& embedded = embedded_catalog();
  CHECK(embedded.gpus.size() == from_json.gpus.size());
  CHECK(render(embedded) == render(from_json));
  // Packing is deterministic: the same catalog, the same bytes.
  CHECK(pack_catalog(embedded) == pack_catalog(from_json));
}

TEST_CASE("packing keeps the fields the catalog writer does not show", "[catalog][packed]") {
  // Optional members and defaults that differ from a fresh part: a member
  // left out of fields() would come back with its default.
  Catalog c;
  Platform p;
  p.id = "srv";
  p.aliases = {"old-srv"};
  p.notes = "note";
  p.included_psu = IncludedPart{"psu-a", 4, 1};
  p.gpu_counts = {1, 2, 4, 8};
  p.nvme_form = "u.2";
  p.eps_inputs = 2;
  p.price.local = {LocalPrice{"CNY", 7000, PriceKind::street, "2026-11-01", "https://x.cn"}};
  c.platforms.push_back(p);
  Gpu g;
  g.id = "g";
  g.interconnect = {"nvlink", 900, true};
  g.cooling = GpuCooling::liquid;
  g.condition = Condition::used;
  c.gpus.push_back(g);
  ModelPreset m;
  m.id = "moe";
  m.experts = 8;
  m.experts_per_token = 2;
  m.moe_every = 2;
  m.sliding_window = 4096;
  m.head_dim = 128;
  m.router_bias = true;
  m.q_lora_rank = 1536;
  m.kv_lora_rank = 512;
  m.qk_nope_head_dim = 128;
  m.qk_rope_head_dim = 64;
  m.v_head_dim = 96;
  c.models.push_back(m);
  const Catalog back = unpack_catalog(pack_catalog(c));
  REQUIRE(back.models.size() == 1);
  CHECK(back.models[0].experts == 8);
  CHECK(back.models[0].experts_per_token == 2);
  CHECK(back.models[0].moe_every == 2);
  CHECK(back.models[0].sliding_window == 4096);
  CHECK(back.models[0].head_dim == 128);
  CHECK(back.models[0].router_bias);
  CHECK(back.models[0].q_lora_rank == 1536);
  CHECK(back.models[0].kv_lora_rank == 512);
  CHECK(back.models[0].qk_nope_head_dim == 128);
  CHECK(back.models[0].qk_rope_head_dim == 64);
  CHECK(back.models[0].v_head_dim == 96);
  REQUIRE(back.platforms.size() == 1);
  const Platform& q = back.platforms[0];
  CHECK(q.aliases == std::vector<std::string>{"old-srv"});
  CHECK(q.notes == "note");
  REQUIRE(q.included_psu);
  CHECK(q.included_psu->id == "psu-a");
  CHECK(q.included_psu->count == 4);
  CHECK(q.included_psu->redundant == 1);
  CHECK(q.gpu_counts == std::vector<int>{1, 2, 4, 8});
  CHECK(q.nvme_form == "u.2");
  CHECK(q.eps_inputs == 2);
  REQUIRE(q.price.local.size() == 1);
  CHECK(q.price.local[0].amount == 7000);
  CHECK(q.price.local[0].kind == PriceKind::street);
  REQUIRE(back.gpus.size() == 1);
  CHECK(back.gpus[0].interconnect.bandwidth_gbs == 900);
  CHECK(back.gpus[0].interconnect.peer_to_peer);
  CHECK(back.gpus[0].cooling == GpuCooling::liquid);
  CHECK(back.gpus[0].condition == Condition::used);
  CHECK(render(back) == render(c));
}

TEST_CASE("bytes the packer did not write are refused", "[catalog][packed]") {
  const std::string bytes = pack_catalog(embedded_catalog());
  CHECK_THROWS_WITH(unpack_catalog(bytes.substr(0, bytes.size() - 1)),
                    "embedded catalog: the packed data is truncated");
  CHECK_THROWS_WITH(unpack_catalog(bytes + "x"), "embedded catalog: bytes left after the catalog");
  CHECK_THROWS_WITH(unpack_catalog("JSON" + bytes.substr(4)),
                    "embedded catalog: not in the packed format");
  CHECK_THROWS_AS(unpack_catalog(""), std::runtime_error);
}
