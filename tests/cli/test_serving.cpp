// Serving from the command line: `estimate --task inference` with the serving
// flags (text and JSON), and `recommend --task inference` with a serving
// target: the answer for Llama 3.1 70B costed on whole builds (whose specs
// check passes), the budget, what is missing, bad flags.
#include <catch2/catch.hpp>

#include <algorithm>

#include <nlohmann/json.hpp>

#include "support/run.hpp"
#include "support/scratch.hpp"

using gpuadvisor::test::run;
using nlohmann::json;

namespace {

/// Each bad set of flags on an 8B serving estimate on an H100: one located
/// error, exit 2, nothing on stdout.
void check_estimate_errors(
    const std::vector<std::pair<std::vector<std::string>, std::string>>& cases) {
  for (const auto& [flags, message] : cases) {
    std::vector<std::string> a = {"estimate",     "--task", "inference", "--model",
                                  "llama-3.1-8b", "--gpu",  "h100-sxm"};
    a.insert(a.end(), flags.begin(), flags.end());
    const auto r = run(a);
    CAPTURE(flags);
    CHECK(r.exit_code == 2);
    CHECK(r.out.empty());
    CHECK(r.err == "gpuadvisor: error: " + message + "\n");
  }
}

}  // namespace

TEST_CASE("estimate: serving lines and JSON fields", "[cli][serving]") {
  const std::vector<std::string> args{"estimate",    "--model",
                                      "llama-2-70b", "--task",
                                      "inference",   "--engine",
                                      "trtllm",      "--gpu",
                                      "h100-sxm",    "--gpus",
                                      "4",           "--precision",
                                      "fp8",         "--kv-cache-precision",
                                      "fp8",         "--concurrency",
                                      "480",         "--prompt-len",
                                      "128",         "--output-len",
                                      "2048"};
  auto t = run(args);
  INFO(t.err);
  REQUIRE(t.exit_code == 0);
  CHECK(t.out.find("  requests    480 in flight x (128 prompt + 2048 output tokens) on trtllm\n") !=
        std::string::npos);
  CHECK(t.out.find("  TTFT          ") != std::string::npos);
  CHECK(t.out.find("  TPOT          ") != std::string::npos);
  CHECK(t.out.find("trtllm: free_gpu_memory_fraction 0.90") != std::string::npos);
  auto a = args;
  a.insert(a.end(), {"--format", "json"});
  auto r = run(a);
  REQUIRE(r.exit_code == 0);
  const auto j = json::parse(r.out);
  CHECK(j["workload"]["serving"]["engine"] == "trtllm");
  CHECK(j["workload"]["serving"]["kv_bytes_per_token_per_gpu"] == 2.0 * 80 * 2 * 128 * 1);
  const auto& c = j["compute"];
  CHECK(c["tpot_s"].get<double>() > 0);
  CHECK(c["ttft_s"].get<double>() < c["prefill_s"].get<double>());
  CHECK(c["output_tokens_per_second"] == c["tokens_per_second"]);
  // The load a benchmark puts on it: 480 kept in flight, the steady state
  // after the first 480, named as vllm bench serve names its results.
  const auto& l = c["load"];
  CHECK(l["max_concurrency"] == 480);
  CHECK(l["num_prompts"] == 4800);
  CHECK(l["warmup_prompts"] == 480);
  CHECK(l["request_rate"].is_null());
  CHECK(c["ttft_s"].get<double>() == Approx(l["mean_ttft_ms"].get<double>() / 1e3));
  CHECK(c["tpot_s"].get<double>() == Approx(l["mean_tpot_ms"].get<double>() / 1e3));
  CHECK(c["output_tokens_per_second"] == l["output_throughput"]);
  // Mutually consistent: one request's rate is its tokens over its latency,
  // and the requests in flight share the replica's throughput (Little's law).
  CHECK(c["per_request_tokens_per_second"].get<double>() ==
        Approx(2048 / (l["mean_e2el_ms"].get<double>() / 1e3)).epsilon(2e-3));
  CHECK(480 * c["per_request_tokens_per_second"].get<double>() ==
        Approx(l["output_throughput"].get<double>()).epsilon(0.02));
  CHECK(l["median_ttft_ms"].get<double>() <= l["p99_ttft_ms"].get<double>());
  CHECK(l["median_tpot_ms"].get<double>() <= l["p99_tpot_ms"].get<double>());
  CHECK(l["mean_e2el_ms"].get<double>() ==
        Approx(l["mean_ttft_ms"].get<double>() + 2047 * l["mean_tpot_ms"].get<double>())
            .epsilon(1e-3));
}

TEST_CASE("recommend: a serving target for Llama 3.1 70B gets a costed plan", "[cli][serving]") {
  auto r = run({"recommend", "--task", "inference", "--model", "llama-3.1-70b", "--users", "50",
                "--tokens-per-second-per-user", "20", "--format", "json"});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const auto j = json::parse(r.out);
  REQUIRE(!j["options"].empty());
  for (const auto& o : j["options"]) {
    // Every option meets the target: enough requests for 50 users at 20 tokens/s each.
    CHECK(o["replicas"].get<int>() * o["concurrency_per_replica"].get<int>() >= 50);
    CHECK(o["per_user_tokens_per_second"].get<double>() >= 20);
    CHECK(o["concurrency_per_replica"] <= o["max_concurrency_per_replica"]);
    const int tp = o["gpus_per_replica"];
    CHECK((tp == 1 || tp == 2 || tp == 4 || tp == 8));  // Llama 3.1 70B: 64 heads, 8 KV heads
  }
  // Every GPU model is considered, consumer cards too: each is an option or
  // says why it is not one.
  for (const char* id : {"rtx-4090", "rtx-5090", "rtx-4080"}) {
    bool listed = false;
    for (const auto& o : j["options"]) listed = listed || o["gpu"] == id;
    for (const auto& x : j["rejected"]) listed = listed || x["gpu"] == id;
    CHECK(listed);
  }
  // Cheapest total first, each on whole builds: the servers' parts, every
  // replica on one of them.
  for (std::size_t i = 1; i < j["options"].size(); ++i) {
    CHECK(j["options"][i - 1]["total_price_usd"] <= j["options"][i]["total_price_usd"]);
  }
  for (const auto& o : j["options"]) {
    const auto& b = o["build"];
    REQUIRE(b.is_object());
    CHECK(b["gpus_per_server"] ==
          o["replicas_per_server"].get<int>() * o["gpus_per_replica"].get<int>());
    CHECK(o["replicas"] == o["servers"].get<int>() * o["replicas_per_server"].get<int>());
    double parts = 0;
    for (const auto& p : b["parts"]) parts += p["total_price_usd"].get<double>();
    CHECK(parts == Approx(b["server_price_usd"].get<double>()));
    CHECK(o["total_price_usd"].get<double>() == Approx(o["servers"].get<int>() * parts));
    CHECK(o["total_price_usd"].get<double>() > o["gpu_price_usd"].get<double>());
    std::vector<std::string> categories;
    for (const auto& p : b["parts"]) categories.push_back(p["category"]);
    for (const char* c : {"gpu", "platform", "cpu", "memory", "storage"}) {
      CHECK(std::find(categories.begin(), categories.end(), c) != categories.end());
    }
  }
  CHECK(j["missing"].is_null());
  CHECK(j["schema_version"] == 4);
  // The cheapest on the embedded catalog: four towers of one 96 GB RTX PRO
  // 6000 Workstation each, AWQ int4 weights, 13 users per replica (the
  // simulated steady state's TPOT stays under 50 ms with the others'
  // prompts in the steps).
  const auto& best = j["options"][0];
  CHECK(best["gpu"] == "rtx-pro-6000-ws");
  CHECK(best["servers"] == 4);
  CHECK(best["gpus_per_replica"] == 1);
  CHECK(best["precision"] == "int4");
  CHECK(best["concurrency_per_replica"] == 13);
  CHECK(best["total_price_usd"] == 42128);
  CHECK(best["gpu_price_usd"] == 34260);
  CHECK(best["build"]["platform"] == "lga1700-b760-entry");
  CHECK(best["load"]["max_concurrency"] == 13);
  CHECK(best["per_user_tokens_per_second"] == best["load"]["output_throughput_per_user"]);
  // One GPU a tower: prefill and decode instances would need a network
  // between the towers. Where a server holds several, its GPUs are split,
  // every server alike, and the split costs its servers.
  CHECK(best["disaggregated"].is_null());
  int split = 0;
  for (const auto& o : j["options"]) {
    const auto& d = o["disaggregated"];
    if (d.is_null()) continue;
    ++split;
    CHECK(d["total_gpus"] == d["prefill_replicas"].get<int>() * d["prefill_gpus"].get<int>() +
                                 d["decode_replicas"].get<int>() * d["decode_gpus"].get<int>());
    CHECK(d["total_gpus"].get<int>() <=
          d["servers"].get<int>() * o["build"]["gpus_per_server"].get<int>());
    CHECK(d["total_price_usd"].get<double>() ==
          Approx(d["servers"].get<int>() * o["build"]["server_price_usd"].get<double>()));
    CHECK(d["cheaper"] == (d["total_price_usd"] < o["total_price_usd"]));
    CHECK(d["tpot_ms"].get<double>() <= 50);
    CHECK(d["ttft"]["mean_ms"].get<double>() <= d["ttft_bound_ms"].get<double>());
    CHECK(d["ttft_bound_ms"].get<double>() == Approx(o["ttft_s"].get<double>() * 1e3));
    CHECK(d["requests"] == 50);
  }
  CHECK(split > 0);
  // MI325X: the catalog has no platform for its OAM board.
  bool mi325x = false;
  for (const auto& x : j["rejected"]) {
    if (x["gpu"] == "mi325x") {
      mi325x = true;
      CHECK(x["reason"] == "no allowed server in the catalog holds them");
    }
  }
  CHECK(mi325x);

  // The cheapest server's spec (one replica's workload) passes check.
  const auto& spec = j["options"][0]["build"]["spec"];
  const std::string path = gpuadvisor::test::scratch_file("serving-spec.json", spec.dump(2));
  auto c = run({"check", path});
  INFO(c.out);
  CHECK(c.exit_code == 0);

  // Text: the first option's parts as plain recommend lists them.
  auto t = run({"recommend", "--task", "inference", "--model", "llama-3.1-70b", "--users", "50",
                "--tokens-per-second-per-user", "20"});
  REQUIRE(t.exit_code == 0);
  CHECK(t.out.find("\nCheapest: ") != std::string::npos);
  CHECK(t.out.find("    part ") != std::string::npos);
  CHECK(t.out.find("    platform ") != std::string::npos);
  CHECK(t.out.find("    total ") != std::string::npos);
  CHECK(t.out.find("    power ") != std::string::npos);
  CHECK(t.out.find("  disaggregated not offered: a server holds one GPU") != std::string::npos);
}

TEST_CASE("recommend: a serving target no one server holds runs on identical servers",
          "[cli][serving]") {
  auto r = run({"recommend", "--task", "inference", "--model", "llama-3.1-70b", "--users", "2000",
                "--tokens-per-second-per-user", "20", "--format", "json"});
  REQUIRE(r.exit_code == 0);
  const auto j = json::parse(r.out);
  const auto& best = j["options"][0];
  // 2,000 users need more replicas than the 8 GPUs of any catalog server hold.
  CHECK(best["servers"].get<int>() > 1);
  CHECK(best["replicas"].get<int>() * best["concurrency_per_replica"].get<int>() >= 2000);
  CHECK(best["total_price_usd"].get<double>() ==
        Approx(best["servers"].get<int>() * best["build"]["server_price_usd"].get<double>()));
  auto t = run({"recommend", "--task", "inference", "--model", "llama-3.1-70b", "--users", "2000",
                "--tokens-per-second-per-user", "20"});
  CHECK(t.out.find(" identical servers of ") != std::string::npos);
}

TEST_CASE("recommend: a serving target within a budget too small says why per GPU",
          "[cli][serving]") {
  auto r = run({"recommend", "--task", "inference", "--model", "llama-3.1-70b", "--users", "50",
                "--tokens-per-second-per-user", "20", "--budget", "20k", "--format", "json"});
  CHECK(r.exit_code == 1);
  const auto j = json::parse(r.out);
  CHECK(j["options"].empty());
  CHECK(j["budget_usd"] == 20000);
  REQUIRE(!j["rejected"].empty());
  bool over = false;
  for (const auto& x : j["rejected"]) {
    over = over || x["reason"].get<std::string>().starts_with("over the budget of $20,000: ");
  }
  CHECK(over);
}

TEST_CASE("recommend: a serving target nothing meets says what is missing", "[cli][serving]") {
  auto r = run({"recommend", "--task", "inference", "--model", "llama-3.1-405b", "--users", "10",
                "--tokens-per-second-per-user", "500"});
  CHECK(r.exit_code == 1);
  CHECK(r.out.find("Nothing meets the target: no allowed GPU serves one request fast enough") !=
        std::string::npos);
}

TEST_CASE("recommend: serving target flags are checked", "[cli][serving]") {
  auto r = run({"recommend", "--model", "llama-3.1-8b", "--users", "10",
                "--tokens-per-second-per-user", "20"});
  CHECK(r.exit_code == 2);
  CHECK(r.err ==
        "gpuadvisor: error: --task: a serving target (--users, --throughput, ...) needs "
        "--task inference\n");
  r = run({"recommend", "--task", "inference", "--model", "llama-3.1-8b", "--users", "10"});
  CHECK(r.exit_code == 2);
  CHECK(r.err ==
        "gpuadvisor: error: --tokens-per-second-per-user: required with --users (or "
        "--max-tpot): the rate each user must see\n");
  r = run({"recommend", "--task", "inference", "--model", "llama-3.1-8b", "--throughput", "1000",
           "--max-ttft", "soon"});
  CHECK(r.exit_code == 2);
  CHECK(r.err ==
        "gpuadvisor: error: --max-ttft: expected a time (0.5, 0.5s or 500ms) above 0 "
        "and at most 3600, got \"soon\"\n");
}

TEST_CASE("estimate: the benchmark load's flags are checked", "[cli][serving]") {
  // Each bad value: one located error, exit 2, nothing on stdout.
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"--request-rate", "0"},
       "--request-rate: expected requests per second above 0 and at most 1000000, got 0"},
      {{"--request-rate", "-3"},
       "--request-rate: expected requests per second above 0 and at most 1000000, got -3"},
      {{"--request-rate", "abc"}, "--request-rate: expected a number, got \"abc\""},
      {{"--num-prompts", "0"}, "--num-prompts: expected an integer from 1 to 20000, got 0"},
      {{"--num-prompts", "20001"}, "--num-prompts: expected an integer from 1 to 20000, got 20001"},
      {{"--chunked-prefill", "maybe"},
       "--chunked-prefill: unknown value \"maybe\"; expected on or off"},
      {{"--kv-cache-precision", "fp4"},
       "--kv-cache-precision: fp4 KV caches run on Blackwell data-center GPUs (compute "
       "capability 10.x: B200, B300); h100-sxm is compute capability 9.0"},
      {{"--engine", "hf", "--chunked-prefill", "on"},
       "--chunked-prefill: hf runs each batch's prompts in one pass; chunked prefill applies "
       "to vllm, sglang and trtllm"},
  };
  check_estimate_errors(cases);
  auto t = run({"estimate", "--model", "llama-3.1-8b", "--gpu", "h100-sxm", "--request-rate", "2"});
  CHECK(t.exit_code == 2);
  CHECK(t.err ==
        "gpuadvisor: error: --request-rate: applies to serving a transformer (task inference)\n");
  // A serving target sizes replicas at a closed loop of its users.
  t = run({"recommend", "--task", "inference", "--model", "llama-3.1-8b", "--users", "5",
           "--tokens-per-second-per-user", "20", "--request-rate", "3"});
  CHECK(t.exit_code == 2);
  CHECK(t.err ==
        "gpuadvisor: error: --request-rate: the plan sizes each replica for its users kept in "
        "flight (the steady state of a closed loop); drop it\n");
}

TEST_CASE("estimate: Poisson arrivals print the load and its saturation", "[cli][serving]") {
  auto r = run({"estimate", "--task", "inference", "--model", "llama-3.1-8b", "--gpu", "h100-sxm",
                "--request-rate", "500", "--format", "json"});
  REQUIRE(r.exit_code == 0);
  const auto j = json::parse(r.out);
  CHECK(j["workload"]["serving"]["request_rate"] == 500);
  const auto& l = j["compute"]["load"];
  CHECK(l["request_rate"] == 500);
  CHECK(l["max_concurrency"].is_null());
  CHECK(l["num_prompts"] == 200);
  CHECK(l["warmup_prompts"] == 0);
  CHECK(l["saturated"] == true);
  auto t = run({"estimate", "--task", "inference", "--model", "llama-3.1-8b", "--gpu", "h100-sxm",
                "--request-rate", "500"});
  REQUIRE(t.exit_code == 0);
  CHECK(t.out.find("  load          Poisson arrivals at 500 requests/s; 200 requests, all") !=
        std::string::npos);
  CHECK(t.out.find("  overloaded    arrivals at 500 requests/s outpace the") != std::string::npos);
  CHECK(l["max_request_rate"].get<double>() < 500);
  CHECK(t.out.find("  latency band  ") != std::string::npos);
}

TEST_CASE("estimate: disaggregated prefill and decode beside the same GPUs aggregated",
          "[cli][serving][disaggregated]") {
  const std::vector<std::string> args{
      "estimate", "--model", "llama-3.1-70b", "--task", "inference",      "--gpu", "h100-sxm",
      "--gpus",   "4",       "--concurrency", "64",     "--disaggregate", "2:2",   "--prefill-gpus",
      "2"};
  auto t = run(args);
  INFO(t.err);
  REQUIRE(t.exit_code == 0);
  CHECK(t.out.find("\nDisaggregated prefill and decode: 2 prefill x 2 GPUs + 2 decode x 4 GPUs "
                   "= 12 GPUs\n") != std::string::npos);
  CHECK(t.out.find("  aggregated    the same GPUs as 3 replicas of 4 GPUs") != std::string::npos);
  CHECK(t.out.find("  error band    not validated: no public run of disaggregated prefill and "
                   "decode serving") != std::string::npos);
  auto a = args;
  a.insert(a.end(), {"--format", "json"});
  auto r = run(a);
  REQUIRE(r.exit_code == 0);
  const auto j = json::parse(r.out);
  const auto& d = j["disaggregated"];
  CHECK(d["prefill_replicas"] == 2);
  CHECK(d["prefill_gpus"] == 2);
  CHECK(d["decode_replicas"] == 2);
  CHECK(d["decode_gpus"] == 4);
  CHECK(d["total_gpus"] == 12);
  CHECK(d["requests"] == 64);
  // 1,024 prompt tokens x 327,680 bytes (80 layers, 8 KV heads of 128, K and V, 2 bytes).
  CHECK(d["kv_transfer"]["bytes"] == 335544320);
  CHECK(d["kv_transfer"]["link"] == "400 Gb/s per GPU between nodes");
  CHECK(d["aggregated"]["replicas"] == 3);
  CHECK(d["error_band"]["band"].is_null());
  // The aggregated estimate itself is unchanged by the flag.
  auto plain = std::vector<std::string>(args.begin(), args.end() - 4);
  plain.insert(plain.end(), {"--format", "json"});
  const auto p = json::parse(run(plain).out);
  CHECK(p["disaggregated"].is_null());
  CHECK(p["compute"] == j["compute"]);
}

TEST_CASE("estimate: disaggregation's flags are checked", "[cli][serving][disaggregated]") {
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"--disaggregate", "2"},
       "--disaggregate: expected PREFILL:DECODE, the instances of each (e.g. 2:3)"},
      {{"--disaggregate", "0:1"},
       "--disaggregate: expected a whole number from 1 to 1024, got \"0\""},
      {{"--prefill-gpus", "2"}, "--prefill-gpus: needs --disaggregate PREFILL:DECODE"},
      {{"--disaggregate", "1:1", "--prefill-gpus", "3"},
       "--prefill-gpus: tensor parallel over 3 GPUs: 32 heads (8 KV heads) do not split 3 ways"},
  };
  check_estimate_errors(cases);
  auto r =
      run({"estimate", "--task", "inference", "--model", "llama-3.1-8b", "--disaggregate", "1:1"});
  CHECK(r.err == "gpuadvisor: error: --disaggregate: is priced on one GPU type: give --gpu\n");
  r = run({"estimate", "--model", "llama-3.1-8b", "--gpu", "h100-sxm", "--disaggregate", "1:1"});
  CHECK(r.err ==
        "gpuadvisor: error: --disaggregate: serves a transformer: give --task inference and a "
        "transformer\n");
}
