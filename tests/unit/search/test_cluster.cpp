// Multi-node builds: the fat-tree arithmetic (switch counts and links for
// the NIC ports), and recommend's cluster on the embedded catalog.
#include <catch2/catch.hpp>

#include "gpuadvisor/catalog/catalog.hpp"
#include "gpuadvisor/rules/rule_set.hpp"
#include "gpuadvisor/search/cluster.hpp"
#include "gpuadvisor/search/recommend.hpp"
#include "gpuadvisor/workload/workload.hpp"

using namespace gpuadvisor;
using namespace gpuadvisor::search;

TEST_CASE("one switch holds up to its radix of NIC ports", "[search][cluster]") {
  // 4 HGX servers x 8 rails = 32 ports on a 64-port switch; 8 fill it.
  for (int nodes : {4, 8}) {
    const auto t = fat_tree(nodes, 8, 64);
    REQUIRE(t);
    CHECK(t->tiers == 1);
    CHECK(t->switches() == 1);
    CHECK(t->endpoint_links == nodes * 8);
    CHECK(t->switch_links == 0);
  }
}

TEST_CASE("two tiers: rail leaves half down half up, spines for every uplink",
          "[search][cluster]") {
  // 16 servers x 8 rails = 128 ports: two whole rails (16 + 16 ports) per
  // leaf's 32 down-ports, 4 leaves; 128 uplinks on two 64-port spines.
  auto t = fat_tree(16, 8, 64);
  REQUIRE(t);
  CHECK(t->tiers == 2);
  CHECK(t->leaves == 4);
  CHECK(t->spines == 2);
  CHECK(t->endpoint_links == 128);
  CHECK(t->switch_links == 128);
  // 40 servers: a rail needs two leaves (32 + 8 ports): 16 leaves, 5 spines.
  t = fat_tree(40, 8, 64);
  REQUIRE(t);
  CHECK(t->leaves == 16);
  CHECK(t->spines == 5);
  // 3 servers x 16 rails (two ports per NIC) on 40-port switches: six rails
  // of 3 ports share a leaf's 20 down-ports: 3 leaves, 2 spines.
  t = fat_tree(3, 16, 40);
  REQUIRE(t);
  CHECK(t->leaves == 3);
  CHECK(t->spines == 2);
  // One NIC per PCIe server: 100 ports on 40-port switches, 5 leaves of 20.
  t = fat_tree(100, 1, 40);
  REQUIRE(t);
  CHECK(t->leaves == 5);
  CHECK(t->spines == 3);
}

TEST_CASE("three tiers up to radix^3/4 endpoints, none beyond", "[search][cluster]") {
  // 1,024 HGX servers: 8,192 ports, 256 leaves (more than a 64-port spine
  // reaches): k-ary fat tree with 256 aggregation and 128 core switches.
  auto t = fat_tree(1024, 8, 64);
  REQUIRE(t);
  CHECK(t->tiers == 3);
  CHECK(t->leaves == 256);
  CHECK(t->spines == 256);
  CHECK(t->cores == 128);
  CHECK(t->switch_links == 16384);
  CHECK(fat_tree(8192, 8, 64));        // 65,536 = 64^3 / 4
  CHECK_FALSE(fat_tree(8193, 8, 64));  // one server more
}

TEST_CASE("recommend's cluster takes its time from the plan cost model", "[search][cluster]") {
  const auto& cat = catalog::embedded_catalog();
  const auto& rs = rules::embedded_rule_set();
  Request r;
  r.workload.model_size = 70e9;
  r.workload.task = workload::Task::pretrain;
  r.constraints.budget = to_cents(1'000'000);
  r.constraints.top = 1;
  auto rec = recommend(cat, rs, r);
  REQUIRE(rec);
  REQUIRE(rec->cluster);
  const Cluster& c = *rec->cluster;
  CHECK(c.nodes == 5);
  CHECK(c.total_usd <= 1'000'000);
  // The plan's own layout on 5 nodes of 8 GPUs, its hours the cluster's.
  CHECK(c.plan.nodes == 5);
  CHECK(c.plan.gpus_per_node == 8);
  CHECK(c.plan.layout.gpus() == 40);
  CHECK(c.hours == c.plan.hours);
  // One server more than the budget buys: asked with --nodes, over the budget
  // and faster, and saying so.
  r.cluster.nodes = 6;
  auto six = recommend(cat, rs, r);
  REQUIRE(six);
  REQUIRE(six->cluster);
  CHECK(six->cluster->nodes == 6);
  CHECK(six->cluster->hours < c.hours);
  CHECK(six->cluster->total_usd > 1'000'000);
  CHECK(six->cluster->notes.front().starts_with("over the budget by $"));
}
