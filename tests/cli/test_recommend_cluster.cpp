// recommend's multi-node builds through the binary: the done-when query
// ($1M, 70B pretraining) answers with a cluster and its time from the plan
// cost model; --nodes, --fabric and --rack-power steer it; bad values are
// one located error; the quick start has no cluster.
#include <catch2/catch.hpp>

#include <map>

#include <nlohmann/json.hpp>

#include "support/expect.hpp"
#include "support/run.hpp"

using gpuadvisor::test::recommend_json;
using gpuadvisor::test::run;
using nlohmann::json;

TEST_CASE("recommend --budget 1M --model-size 70B --task pretrain composes a cluster",
          "[cli][recommend][cluster]") {
  const json j = recommend_json({"--budget", "1M", "--model-size", "70B", "--task", "pretrain"});
  const json& c = j["cluster"];
  REQUIRE(c.is_object());
  // One MI300X server (#1) trains for 7.2 years; the budget buys five with
  // their network: the fastest it buys, still over --max-days 90.
  CHECK(c["build_rank"] == 1);
  CHECK(c["nodes"] == 5);
  CHECK(c["gpus"] == 40);
  CHECK(c["why"] == "the most the budget buys; still over --max-days 90");
  CHECK(c["meets_max_days"] == false);
  // Rail-optimised: a 400G ConnectX-7 per GPU, 40 ports on one QM9700.
  CHECK(c["fabric"] == "infiniband");
  CHECK(c["nic"] == json({{"id", "connectx-7-400g-osfp"}, {"per_node", 8}}));
  CHECK(c["topology"]["switch"] == "quantum-2-qm9700");
  CHECK(c["topology"]["tiers"] == 1);
  // Optics: a single-port transceiver at each NIC, a twin-port one per two
  // switch ports, a fiber per link.
  std::map<std::string, int> counts;
  for (const auto& l : c["network_bom"]) counts[l["id"]] = l["count"];
  CHECK(counts == std::map<std::string, int>{{"connectx-7-400g-osfp", 40},
                                             {"quantum-2-qm9700", 1},
                                             {"mfp7e10-n030", 40},
                                             {"mma4z00-ns", 20},
                                             {"mma4z00-ns400", 40}});
  CHECK(c["network_price_usd"] == 182800.0);
  CHECK(c["total_price_usd"] == 927180.0);
  CHECK(c["total_price_usd"].get<double>() <= j["query"]["budget_usd"].get<double>());
  // The plan cost model's layout and time at the workload's 90 % goodput.
  CHECK(c["layout"]["pp"] == 4);
  CHECK(c["layout"]["dp"] == 10);
  // The expert degrees of the plan's layout: 1 and 1 for a dense model.
  CHECK(c["layout"]["ep"] == 1);
  CHECK(c["layout"]["etp"] == 1);
  CHECK(c["goodput"] == 0.9);
  CHECK(c["time_hours"] == 7903.0);
  // 8.86 kW servers, four to a 40.8 kW rack.
  CHECK(c["racks"]["server_w"] == 8858.0);
  CHECK(c["racks"]["servers_per_rack"] == 4);
  CHECK(c["racks"]["server_racks"] == 2);
  CHECK(c["racks"]["network_racks"] == 1);
}

TEST_CASE("recommend with --nodes 4 --fabric ethernet --rack-power 17 shapes the cluster",
          "[cli][recommend][cluster]") {
  const json j = recommend_json({"--budget", "2M", "--model-size", "70B", "--task", "pretrain",
                                 "--nodes", "4", "--fabric", "ethernet", "--rack-power", "17"});
  const json& c = j["cluster"];
  REQUIRE(c.is_object());
  CHECK(c["why"] == "--nodes 4");
  CHECK(c["nodes"] == 4);
  CHECK(c["fabric"] == "ethernet");
  CHECK(c["topology"]["switch"] == "spectrum-4-sn5600");
  // Two 8.86 kW servers draw 17.7 kW: one per 17 kW rack.
  CHECK(c["racks"]["rack_power_w"] == 17000.0);
  CHECK(c["racks"]["servers_per_rack"] == 1);
  CHECK(c["racks"]["server_racks"] == 4);
}

TEST_CASE("a server over the rack's power gets no cluster, and says why",
          "[cli][recommend][cluster]") {
  const json j = recommend_json(
      {"--budget", "1M", "--model-size", "70B", "--task", "pretrain", "--rack-power", "5"});
  CHECK(j["cluster"].is_null());
  bool said = false;
  for (const auto& d : j["diagnostics"]) {
    said =
        said || d["message"] == "no cluster: #1 draws 8.8 kW, over the 5.0 kW rack (--rack-power)";
  }
  CHECK(said);
}

TEST_CASE("the quick start and towers stay single servers", "[cli][recommend][cluster]") {
  CHECK(recommend_json({"--budget", "20000", "--model-size", "7B"})["cluster"].is_null());
  const json towers = recommend_json({"--budget", "20000", "--model-size", "7B", "--nodes", "2"});
  CHECK(towers["cluster"].is_null());
  CHECK(towers["diagnostics"][0]["message"] ==
        "no cluster: #1 is a tower; #2 is a tower; #3 is a tower");
}

TEST_CASE("bad cluster flags are one located error each", "[cli][recommend][cluster]") {
  const std::vector<std::string> base{"recommend", "--budget", "1M", "--model-size", "70B"};
  auto with = [&](std::vector<std::string> extra) {
    auto args = base;
    args.insert(args.end(), extra.begin(), extra.end());
    return run(args);
  };
  auto r = with({"--nodes", "1"});
  CHECK(r.exit_code == 2);
  CHECK(r.out.empty());
  CHECK(r.err == "gpuadvisor: error: --nodes: expected a whole number from 2 to 8192, got \"1\"\n");
  r = with({"--fabric", "fc"});
  CHECK(r.exit_code == 2);
  CHECK(r.err ==
        "gpuadvisor: error: --fabric: unknown value \"fc\"; expected infiniband or ethernet\n");
  r = with({"--rack-power", "0.5"});
  CHECK(r.exit_code == 2);
  CHECK(r.err ==
        "gpuadvisor: error: --rack-power: expected a rack's power in kW from 1 to 1000, "
        "e.g. 17 or 40kW, got \"0.5\"\n");
}

TEST_CASE("catalog list --category switch shows the switches", "[cli][catalog]") {
  auto r = run({"catalog", "list", "--category", "switch"});
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.starts_with("switches (4)\n"));
  CHECK(r.out.find("quantum-2-qm9700   IB      64x 400G osfp") != std::string::npos);
  r = run({"catalog", "list", "--category", "nic", "--format", "json"});
  REQUIRE(r.exit_code == 0);
  CHECK(json::parse(r.out)["categories"]["nics"].size() == 5);
}
