// `gpuadvisor recommend`: builds within budget whose specs pass `check`,
// constraints and objectives respected, nothing-fits explanations (exit 1),
// bad flags (exit 2, exact messages), deterministic output.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdio>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "gpuadvisor/report/table.hpp"
#include "support/expect.hpp"
#include "support/run.hpp"
#include "support/scratch.hpp"

using gpuadvisor::test::recommend_json;
using gpuadvisor::test::run;
using nlohmann::json;

namespace {

/// Writes a build's spec to a temporary file and runs `check` on it.
gpuadvisor::test::RunResult check_spec(const json& spec, const std::vector<std::string>& extra) {
  const auto path =
      gpuadvisor::test::scratch_file(spec["name"].get<std::string>() + ".json", spec.dump(2));
  std::vector<std::string> args{"check", path};
  args.insert(args.end(), extra.begin(), extra.end());
  return run(args);
}

void require_widths(const std::string& text, std::size_t width) {
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    INFO(line);
    // Commands to copy ("Next:") are not wrapped.
    if (line.starts_with("  gpuadvisor ")) continue;
    CHECK(gpuadvisor::report::display_width(line) <= width);
  }
}

}  // namespace

TEST_CASE("recommend --budget 20000 --model-size 7B: ranked in-budget builds that pass check",
          "[cli][recommend]") {
  const json j = recommend_json({"--budget", "20000", "--model-size", "7B"});
  CHECK(j["schema_version"] == 5);
  CHECK(j["query"]["budget_usd"] == 20000.0);
  CHECK(j["query"]["objective"] == "time");
  CHECK(j["query"]["workload"]["task"] == "lora");
  CHECK(j["no_fit"].is_null());
  const auto& builds = j["builds"];
  REQUIRE(builds.size() == 3);
  double last_hours = 0;
  for (std::size_t i = 0; i < builds.size(); ++i) {
    const auto& b = builds[i];
    INFO("build " << i + 1);
    CHECK(b["rank"] == static_cast<int>(i) + 1);
    CHECK(b["total_price_usd"].get<double>() <= 20000.0);
    // The bill of materials adds up to the total.
    double sum = 0;
    for (const auto& p : b["parts"]) sum += p["total_price_usd"].get<double>();
    CHECK(sum == Approx(b["total_price_usd"].get<double>()).margin(0.01));
    // Ranked by time to train.
    CHECK(b["performance"]["time_hours"].get<double>() >= last_hours);
    last_hours = b["performance"]["time_hours"].get<double>();
    // Power: the PSUs cover what the rules ask.
    CHECK(b["power"]["psu_capacity_w"].get<double>() >= b["power"]["required_psu_w"].get<double>());
    // No error findings, and the spec passes check unchanged.
    for (const auto& f : b["findings"]) CHECK(f["severity"] != "error");
    const auto c = check_spec(b["spec"], {});
    INFO(c.out << c.err);
    CHECK(c.exit_code == 0);
  }
  // One build per GPU model and count.
  CHECK(builds[0]["gpu"] != builds[1]["gpu"]);
  CHECK(builds[1]["gpu"] != builds[2]["gpu"]);
}

TEST_CASE("recommend text output: ranked builds in at most 100 columns", "[cli][recommend]") {
  auto r = run({"recommend", "--budget", "20000", "--model-size", "7B"});
  REQUIRE(r.exit_code == 0);
  CHECK(r.err.empty());
  CHECK_THAT(r.out, Catch::Contains("#1  ") && Catch::Contains("#2  ") && Catch::Contains("#3  ") &&
                        Catch::Contains("    power    peak ") && Catch::Contains("    memory   ") &&
                        Catch::Contains("    speed    ") && Catch::Contains("    energy   ") &&
                        Catch::Contains("Assumptions:"));
  CHECK_THAT(r.out, !Catch::Contains("\x1b["));  // no colour when stdout is not a terminal
  require_widths(r.out, 100);
}

TEST_CASE("recommend output is deterministic", "[cli][recommend]") {
  const std::vector<std::string> args{"recommend",   "--budget",        "30k",   "--model",
                                      "llama-3-8b",  "--task",          "qlora", "--allow-used",
                                      "--objective", "perf-per-dollar", "--top", "5"};
  const auto a = run(args);
  const auto b = run(args);
  REQUIRE(a.exit_code == 0);
  CHECK(a.out == b.out);
  auto ja = args, jb = args;
  ja.insert(ja.end(), {"--format", "json"});
  CHECK(run(ja).out == run(ja).out);
}

TEST_CASE("recommend honours its constraints", "[cli][recommend]") {
  SECTION("--max-gpus, --form-factor and --vendor") {
    const json j = recommend_json({"--budget", "400k", "--model-size", "13B", "--task", "pretrain",
                                   "--form-factor", "rack", "--max-gpus", "4", "--top", "5"});
    REQUIRE_FALSE(j["builds"].empty());
    for (const auto& b : j["builds"]) {
      CHECK(b["gpu"]["count"].get<int>() <= 4);
      CHECK(b["spec"]["parts"]["platform"]["id"] != "wrx90e-tower");
    }
    const json amd = recommend_json(
        {"--budget", "400k", "--model-size", "70B", "--vendor", "amd", "--top", "5"});
    REQUIRE_FALSE(amd["builds"].empty());
    for (const auto& b : amd["builds"]) CHECK(b["gpu"]["id"] == "mi300x");
  }
  SECTION("used GPUs only with --allow-used") {
    const auto has_used = [](const json& j) {
      for (const auto& b : j["builds"]) {
        if (b["gpu"]["id"].get<std::string>().ends_with("-used")) return true;
      }
      return false;
    };
    CHECK_FALSE(has_used(recommend_json({"--budget", "6000", "--model-size", "7B", "--task",
                                         "qlora", "--objective", "cost", "--top", "10"})));
    CHECK(has_used(recommend_json({"--budget", "6000", "--model-size", "7B", "--task", "qlora",
                                   "--objective", "cost", "--top", "10", "--allow-used"})));
  }
  SECTION("--circuit: the wall draw fits the circuit, and check sees the same site") {
    const json j = recommend_json({"--budget", "20000", "--model-size", "7B", "--circuit", "1800"});
    REQUIRE_FALSE(j["builds"].empty());
    CHECK(j["query"]["constraints"]["voltage"] == 120.0);
    for (const auto& b : j["builds"]) {
      CHECK(b["power"]["wall_draw_w"].get<double>() <= 1440.0);
      CHECK(b["spec"]["site"]["circuit_w"] == 1800.0);
      CHECK(check_spec(b["spec"], {}).exit_code == 0);
    }
  }
  SECTION("--policy conservative: 1.5x PSU headroom, and the specs pass check under it") {
    const json j =
        recommend_json({"--budget", "20000", "--model-size", "7B", "--policy", "conservative"});
    REQUIRE_FALSE(j["builds"].empty());
    CHECK(j["query"]["policy"] == "conservative");
    for (const auto& b : j["builds"]) {
      CHECK(b["power"]["psu_capacity_w"].get<double>() >=
            1.5 * b["power"]["peak_draw_w"].get<double>() - 1e-6);
      CHECK(check_spec(b["spec"], {"--policy", "conservative"}).exit_code == 0);
    }
  }
}

TEST_CASE("recommend ranks by the objective", "[cli][recommend]") {
  const json cost = recommend_json(
      {"--budget", "50k", "--model-size", "7B", "--objective", "cost", "--top", "5"});
  REQUIRE(cost["builds"].size() == 5);
  for (std::size_t i = 1; i < 5; ++i) {
    CHECK(cost["builds"][i]["total_price_usd"].get<double>() >=
          cost["builds"][i - 1]["total_price_usd"].get<double>());
  }
  const json ppd = recommend_json(
      {"--budget", "50k", "--model-size", "7B", "--objective", "perf-per-dollar", "--top", "5"});
  REQUIRE(ppd["builds"].size() == 5);
  auto per_dollar = [](const json& b) {
    return b["performance"]["tokens_per_second"].get<double>() / b["total_price_usd"].get<double>();
  };
  for (std::size_t i = 1; i < 5; ++i) {
    CHECK(per_dollar(ppd["builds"][i]) <= per_dollar(ppd["builds"][i - 1]) * (1 + 1e-6));
  }
}

TEST_CASE("recommend over budget: exit 1, the nearest build, the smallest budget, what fits",
          "[cli][recommend]") {
  auto r = run({"recommend", "--budget", "20000", "--model-size", "7B", "--task", "pretrain"});
  CHECK(r.exit_code == 1);
  CHECK(r.err.empty());
  CHECK_THAT(r.out, Catch::Contains("\nNothing fits: no build fits the budget of $20,000: the "
                                    "cheapest build that passes every rule"));
  CHECK_THAT(r.out, Catch::Contains("Smallest budget that works: $"));
  CHECK_THAT(r.out, Catch::Contains("Nearest build (breaks budget: "));
  CHECK_THAT(r.out, Catch::Contains("Changes that fit the budget of $20,000:"));
  CHECK_THAT(r.out, Catch::Contains("  --task lora "));
  require_widths(r.out, 100);

  const json j =
      recommend_json({"--budget", "20000", "--model-size", "7B", "--task", "pretrain"}, 1);
  CHECK(j["builds"].empty());
  const auto& nf = j["no_fit"];
  CHECK(nf["nearest"]["breaks"] == "budget");
  const double smallest = nf["smallest_budget_usd"].get<double>();
  CHECK(smallest > 20000);
  CHECK(nf["nearest"]["build"]["total_price_usd"].get<double>() == smallest);
  // The smallest budget is exact: with it, the command succeeds with that build.
  const json at = recommend_json({"--budget", fmt::format("{:.2f}", smallest), "--model-size", "7B",
                                  "--task", "pretrain", "--objective", "cost", "--top", "1"});
  CHECK(at["builds"][0]["total_price_usd"].get<double>() == smallest);
  bool lora = false;
  for (const auto& a : nf["alternatives"]) {
    CHECK(a["total_price_usd"].get<double>() <= 20000.0);
    lora = lora || a["change"] == "--task lora";
  }
  CHECK(lora);
  REQUIRE(j["diagnostics"].size() == 1);
  CHECK(j["diagnostics"][0]["severity"] == "error");
}

TEST_CASE("recommend when no GPU holds the workload: exit 1 and the rule the nearest breaks",
          "[cli][recommend]") {
  const json j =
      recommend_json({"--budget", "50000", "--model-size", "1T", "--task", "finetune"}, 1);
  const auto& nf = j["no_fit"];
  CHECK(nf["reason"] ==
        "the workload does not fit in the memory of any allowed GPU, even with gradient "
        "checkpointing, micro-batch 1 and ZeRO-3 over up to 8 GPUs");
  CHECK(nf["smallest_budget_usd"].is_null());
  CHECK(nf["nearest"]["breaks"] == "VRAM001");
  bool vram_error = false;
  for (const auto& f : nf["nearest"]["build"]["findings"]) {
    vram_error = vram_error || (f["rule"] == "VRAM001" && f["severity"] == "error");
  }
  CHECK(vram_error);
  CHECK(nf["nearest"]["lever"] ==
        "more GPUs than one server holds: gpuadvisor plan, with the same workload flags and "
        "--gpu, lays the job out over nodes (or recommend with a larger --budget composes a "
        "cluster)");
}

TEST_CASE("recommend when the feed binds: the nearest build runs the job, and the circuit lifts it",
          "[cli][recommend]") {
  // A 70B full fine-tune fits 8x B200 (180 GB each), which draw more at the
  // wall than the default US rack feed carries (2 x 208 V / 30 A at 80 %,
  // 9,984 W): the nearest build is that one, breaking PWR003, not a 12 GB
  // card that cannot hold the job at all (it breaks VRAM001, but costs less).
  const std::vector<std::string> base{"--budget", "$500k",    "--model-size", "70B",
                                      "--task",   "finetune", "--vendor",     "nvidia"};
  const json j = recommend_json(base, 1);
  const auto& nf = j["no_fit"];
  CHECK(nf["reason"] == "no build passes every rule at any price; the nearest breaks PWR003");
  CHECK(nf["nearest"]["breaks"] == "PWR003");
  CHECK(nf["nearest"]["build"]["gpu"]["id"] == "b200-sxm");
  CHECK(nf["nearest"]["build"]["gpu"]["count"] == 8);
  CHECK(nf["nearest"]["lever"] ==
        "--circuit 14000: a feed of 14,000 W, whose 80 % continuous share carries the 11,177 W "
        "this build draws at the wall (three-phase or 60 A circuits; ask the site)");
  // The lever does what it says.
  auto lifted = base;
  lifted.insert(lifted.end(), {"--circuit", "14000"});
  const json k = recommend_json(lifted, 0);
  REQUIRE(!k["builds"].empty());
  CHECK(k["builds"][0]["gpu"]["id"] == "b200-sxm");
}

TEST_CASE("recommend rejects bad flags with exit 2 and one line per problem", "[cli][recommend]") {
  auto missing = run({"recommend", "--model-size", "7B"});
  CHECK(missing.exit_code == 2);
  CHECK(missing.out.empty());
  CHECK(missing.err ==
        "gpuadvisor: error: --budget: required: the most the build may cost, e.g. 20000 or "
        "20k\n");

  auto model = run({"recommend", "--budget", "20000"});
  CHECK(model.exit_code == 2);
  CHECK(model.err ==
        "gpuadvisor: error: --model-size: required (or --model PRESET): the model's parameters, "
        "e.g. 7B\n");

  auto money = run({"recommend", "--budget", "abc", "--model-size", "7B"});
  CHECK(money.exit_code == 2);
  CHECK(money.err ==
        "gpuadvisor: error: --budget: \"abc\" is not an amount; expected an amount such as "
        "20000, 20k or $20,000\n");

  auto zero = run({"recommend", "--budget", "0", "--model-size", "7B"});
  CHECK(zero.exit_code == 2);
  CHECK(zero.err ==
        "gpuadvisor: error: --budget: expected an amount from $1 to $1,000,000,000, got \"0\"\n");

  auto many = run({"recommend", "--budget", "20000", "--model-size", "7B", "--objective", "fastest",
                   "--top", "0", "--vendor", "intel", "--form-factor", "desk", "--circuit", "lots",
                   "--max-gpus", "99"});
  CHECK(many.exit_code == 2);
  CHECK(many.out.empty());
  CHECK(many.err ==
        "gpuadvisor: error: --max-gpus: expected a whole number from 1 to 64, got \"99\"\n"
        "gpuadvisor: error: --vendor: unknown value \"intel\"; expected nvidia or amd\n"
        "gpuadvisor: error: --form-factor: unknown value \"desk\"; expected tower or rack\n"
        "gpuadvisor: error: --objective: unknown value \"fastest\"; expected time, cost or "
        "perf-per-dollar\n"
        "gpuadvisor: error: --top: expected a whole number from 1 to 20, got \"0\"\n"
        "gpuadvisor: error: --circuit: expected the circuit's rating in watts (volts x amps), "
        "e.g. 1800 or 3680, got \"lots\"\n");

  auto workload = run({"recommend", "--budget", "20000", "--model-size", "7X"});
  CHECK(workload.exit_code == 2);
  CHECK(workload.err ==
        "gpuadvisor: error: --model-size: unknown suffix \"X\"; expected K, M, B or T (as in 7B, "
        "125M, 1.5T)\n");

  auto preset = run({"recommend", "--budget", "20000", "--model", "nope"});
  CHECK(preset.exit_code == 2);
  CHECK_THAT(preset.err, Catch::StartsWith("gpuadvisor: error: --model: unknown model preset "
                                           "\"nope\""));

  auto gpu = run({"recommend", "--budget", "20000", "--model-size", "7B", "--gpu", "rtx-4090"});
  CHECK(gpu.exit_code == 2);
  CHECK(gpu.err ==
        "gpuadvisor: error: unknown option \"--gpu\" for 'gpuadvisor recommend': it is an option "
        "of 'estimate', 'plan' (run 'gpuadvisor help recommend')\n");

  auto format = run({"recommend", "--budget", "20000", "--model-size", "7B", "--format", "sarif"});
  CHECK(format.exit_code == 2);
  CHECK(format.err ==
        "gpuadvisor: error: --format: 'recommend' does not support \"sarif\"; expected text, "
        "json or html\n");

  auto policy = run({"recommend", "--budget", "20000", "--model-size", "7B", "--policy", "lax"});
  CHECK(policy.exit_code == 2);
  CHECK_THAT(policy.err, Catch::StartsWith("gpuadvisor: error: --policy: "));
}

TEST_CASE("recommend --help explains the command with examples", "[cli][recommend]") {
  auto r = run({"recommend", "--help"});
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::Contains("gpuadvisor recommend --budget 20000 --model-size 7B") &&
                        Catch::Contains("--objective") && Catch::Contains("--allow-used") &&
                        Catch::Contains("--electricity-price") && Catch::Contains("Exit codes"));
}

TEST_CASE("recommend prefers builds without avoidable warnings within the clean margin",
          "[cli][recommend][clean]") {
  // Avoidable warnings are those the parts around the GPUs decide.
  const std::vector<std::string> avoidable = {"PWR004", "COOL002", "CPU001", "CPU002",
                                              "MEM002", "MEM004",  "STOR001"};
  const auto has_avoidable = [&](const json& b) {
    for (const auto& f : b["findings"]) {
      const auto id = f["rule"].get<std::string>();
      if (f["severity"] == "warning" &&
          std::find(avoidable.begin(), avoidable.end(), id) != avoidable.end())
        return true;
    }
    return false;
  };
  int clean = 0, chosen_over_cheapest = 0;
  for (const std::string budget : {"5000", "8000", "20000", "60000"}) {
    const auto j = recommend_json({"--budget", budget, "--model-size", "7B", "--top", "5"});
    const double cap = std::stod(budget);
    for (const auto& b : j["builds"]) {
      INFO(budget << " " << b["gpu"]["id"] << " x" << b["gpu"]["count"]);
      const auto& c = b["clean"];
      const double price = b["total_price_usd"].get<double>();
      const double cheapest = c["cheapest_usd"].get<double>();
      CHECK(price >= cheapest);
      if (c["clean"].get<bool>()) {
        ++clean;
        CHECK_FALSE(has_avoidable(b));
        CHECK(price == c["clean_usd"].get<double>());
        CHECK(price <= cheapest * 1.10 + 1e-6);
        if (price > cheapest) {
          ++chosen_over_cheapest;
          CHECK_THAT(c["note"].get<std::string>(), Catch::Contains("within the 10 % clean margin"));
        }
      } else {
        CHECK(price == cheapest);
        CHECK(has_avoidable(b));
        // The clean build is over the margin or the budget, or does not exist.
        if (!c["clean_usd"].is_null()) {
          const double cp = c["clean_usd"].get<double>();
          CHECK((cp > cheapest * 1.10 || cp > cap));
        }
        CHECK_THAT(c["note"].get<std::string>(), Catch::StartsWith("accepts "));
      }
    }
  }
  CHECK(clean > 0);
  CHECK(chosen_over_cheapest > 0);

  // --clean-margin 0: the cheapest build of each GPU model and count.
  const auto j = recommend_json(
      {"--budget", "20000", "--model-size", "7B", "--top", "5", "--clean-margin", "0"});
  for (const auto& b : j["builds"]) {
    CHECK(b["total_price_usd"].get<double>() == b["clean"]["cheapest_usd"].get<double>());
  }
  const auto bad =
      run({"recommend", "--budget", "20000", "--model-size", "7B", "--clean-margin", "150%"});
  CHECK(bad.exit_code == 2);
  CHECK(bad.err ==
        "gpuadvisor: error: --clean-margin: expected a share of the build's price: 0 to 1 or 0% "
        "to 100%, e.g. 10%, got \"150%\"\n");
}

TEST_CASE("recommend serves with tensor-parallel GPU counts only", "[cli][recommend][tp]") {
  // Before, inference builds of 3, 5 and 7 GPUs were offered; the derived
  // 70B architecture had 71 heads.
  for (const std::string size : {"13B", "70B"}) {
    const auto j = recommend_json(
        {"--budget", "100000", "--model-size", size, "--task", "inference", "--top", "10"});
    REQUIRE_FALSE(j["builds"].empty());
    for (const auto& b : j["builds"]) {
      const int n = b["gpu"]["count"].get<int>();
      INFO(size << " " << b["gpu"]["id"] << " x" << n);
      // 6 divides the derived 70B's 72 heads (vLLM's all-reduce takes 6).
      CHECK((n == 1 || n == 2 || n == 4 || n == 8 || (n == 6 && size == "70B")));
    }
  }
}

TEST_CASE("recommend's spec keeps --head-dim, so that check accepts a GPT-3 13B shape",
          "[cli][recommend]") {
  auto r = run({"recommend", "--budget", "20000", "--model-size", "13B", "--layers", "40",
                "--hidden", "5140", "--heads", "40", "--head-dim", "128", "--task", "qlora",
                "--top", "1", "--format", "json"});
  REQUIRE(r.exit_code == 0);
  const auto spec = nlohmann::json::parse(r.out)["builds"][0]["spec"];
  CHECK(spec["workloads"][0]["head_dim"] == 128);
  const auto path = gpuadvisor::test::scratch_file("gpt3-13b-spec.json", spec.dump());
  auto check = run({"check", path});
  CHECK(check.exit_code == 0);
}

TEST_CASE("recommend shows each part's price kind and date, and a total resting on estimates",
          "[cli][recommend]") {
  // JSON: the catalog's price.kind and price.date for every part.
  const json j = recommend_json({"--budget", "20000", "--model-size", "7B"});
  const auto& parts = j["builds"][0]["parts"];
  REQUIRE(parts[0]["id"] == "rtx-pro-6000-ws");
  CHECK(parts[0]["price_kind"] == "msrp");
  CHECK(parts[0]["price_date"] == "2026-04-06");
  for (const auto& p : parts) {
    CHECK(p["price_date"].get<std::string>().size() == 10);
  }
  // Text: "MSRP 2026-04" beside the GPU's price; "est." for estimates.
  auto t = gpuadvisor::test::run({"recommend", "--budget", "20000", "--model-size", "7B"});
  CHECK_THAT(t.out, Catch::Contains(" $8,565  $8,565 MSRP 2026-04  NVIDIA RTX PRO 6000"));
  CHECK_THAT(t.out, Catch::Contains(" est. 2026-11  LGA1700 B760"));
  // A total mostly on estimated prices says so (the China-market L20 build:
  // its GPUs' prices are estimates).
  auto cn = gpuadvisor::test::run(
      {"recommend", "--budget", "$100k", "--model-size", "7B", "--task", "lora", "--region", "cn"});
  CHECK_THAT(cn.out, Catch::Contains("\n    total  "));
  CHECK_THAT(cn.out, Catch::Contains("% on estimates\n"));
}
