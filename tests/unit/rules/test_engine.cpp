// Every rule with a passing and a failing build (docs/rules.md).
#include <catch2/catch.hpp>

#include "gpuadvisor/rules/registry.hpp"

#include <algorithm>

#include "fixtures.hpp"
#include "gpuadvisor/catalog/catalog.hpp"
#include "gpuadvisor/workload/workload.hpp"

using namespace gpuadvisor;
using namespace gpuadvisor::rules;
using Catch::Contains;
using gpuadvisor::test::failing;
using gpuadvisor::test::find;

namespace {

const RuleSet& rs() { return embedded_rule_set(); }

std::vector<Finding> run(const Build& b, const std::vector<workload::Workload>& w = {}) {
  return evaluate(b, w, rs());
}

bool fires(const Build& b, std::string_view rule, const std::vector<workload::Workload>& w = {}) {
  const auto f = run(b, w);
  return std::any_of(f.begin(), f.end(), [&](const Finding& x) { return x.rule == rule; });
}

RuleStatus status(const Build& b, std::string_view rule) {
  const auto ev = evaluate_all(b, {}, rs());
  for (const auto& o : ev.outcomes) {
    if (o.rule == rule) return o.status;
  }
  FAIL("no outcome for " << rule);
  return RuleStatus::disabled;
}

workload::Workload make_workload(const std::string& model, workload::Task task, int gpus) {
  workload::WorkloadInput in;
  in.model = model;
  in.task = task;
  in.gpus = gpus;
  in.batch_size = 1;
  in.seq_len = 1024;
  auto w = workload::resolve(in, catalog::embedded_catalog(), workload::Origin::flags());
  REQUIRE(w.has_value());
  return *w;
}

}  // namespace

TEST_CASE("the reference builds pass every rule", "[rules][engine]") {
  test::Parts p;
  // The 4x4090 build has no P2P (a warning) and 12VHPWR plugs (a note).
  CHECK(failing(run(p.four_4090())) == std::vector<std::string>{"RISK002"});
  CHECK(run(p.hgx_h100()).empty());
  const auto ev = evaluate_all(p.hgx_h100(), {}, rs());
  CHECK(ev.outcomes.size() == registry().size());
  CHECK(ev.outcomes.front().rule == "PWR001");
}

TEST_CASE("PWR001 (guide policy): 800 W of PSU per GPU, 2,000 W for a multi-GPU build",
          "[rules][engine]") {
  test::Parts p;
  const auto guide = load_rule_set("", "guide");
  REQUIRE(guide.has_value());
  auto g = [&](const Build& b) { return evaluate(b, {}, *guide); };
  Build b = p.four_4090();
  CHECK(find(g(b), "PWR001") == nullptr);  // 3,200 W for 4 GPUs: exactly enough
  b.psu = {&p.tx1600, 1};
  auto f = g(b);
  const Finding* x = find(f, "PWR001");
  REQUIRE(x != nullptr);
  CHECK(x->severity == Severity::error);
  CHECK(x->measured.value == 1600);
  CHECK(x->limit.value == 3200);
  CHECK(x->limit.text == ">= 3,200 W");
  CHECK(x->path == "parts.psu");
  CHECK(x->fix == "use two 1,600 W PSUs at 230 V (3,200 W or more in total)");
  b.gpu.count = 2;  // 2 x 800 = 1,600, but a multi-GPU build starts at 2,000 W
  x = find(f = g(b), "PWR001");
  REQUIRE(x != nullptr);
  CHECK_THAT(x->message, Contains("a multi-GPU build starts at 2,000 W"));
  CHECK(x->fix == "use two 1,000 W PSUs at 230 V (2,000 W or more in total)");
}

TEST_CASE("PWR001 (default): 1.4x the GPUs' board power; the vendor's PSUs on validated servers",
          "[rules][engine]") {
  test::Parts p;
  Build b = p.four_4090();
  b.psu = {&p.tx1600, 1};  // 4 x 450 W x 1.4 = 2,520 W
  auto f = run(b);
  const Finding* x = find(f, "PWR001");
  REQUIRE(x != nullptr);
  CHECK(x->limit.value == 2520);
  CHECK_THAT(x->message, Contains("1.40 x their board power of 1,800 W, for transients"));
  b.gpu.count = 2;  // 2 x 450 x 1.4 = 1,260 W: one 1,600 W PSU is enough (the guide asked 2,000)
  CHECK(find(run(b), "PWR001") == nullptr);
  // A vendor-validated server's own PSUs: no per-GPU reserve, and PWR002
  // compares the peak with no extra headroom.
  catalog::Platform hgx = p.hgx;
  hgx.validated_power = true;
  Build h = p.hgx_h100();
  h.platform = &hgx;
  h.psu_from_platform = true;
  h.psu_redundant = 4;  // 2 x 3,000 W = 6,000 W usable, below 8 x 700 x 1.4
  CHECK(psu_needed_for_gpus_w(h, rs().params) == 0);
  CHECK(psu_needed_for_peak_w(h, rs().params) == peak_draw_w(h));
  CHECK(find(run(h), "PWR001") == nullptr);
  const Finding* y = find(f = run(h), "PWR002");
  REQUIRE(y != nullptr);
  CHECK_THAT(y->message, Contains("the vendor-validated configuration with no extra headroom"));
}

TEST_CASE("PWR002: PSU capacity >= peak draw x the policy's margin", "[rules][engine]") {
  test::Parts p;
  Build b = p.hgx_h100();  // peak 7,660 W x 1.2 = 9,192 W; 4 x 3,000 W usable
  CHECK_FALSE(fires(b, "PWR002"));
  b.psu_redundant = 3;  // 3 x 3,000 = 9,000 W
  auto f = run(b);
  const Finding* x = find(f, "PWR002");
  REQUIRE(x != nullptr);
  CHECK(x->measured.value == 9000);
  CHECK(x->limit.value == 9192);
  CHECK_THAT(x->message, Contains("peak draw 7,660 W x 1.20 headroom (standard policy)"));
  CHECK(x->fix ==
        "no PSU set fits: the platform takes 6 PSUs of at most 3,000 W, 3 of them redundant; keep "
        "fewer redundant PSUs, choose a platform with more PSU bays, fewer GPUs, or power-limit "
        "the GPUs");
  b.psu_redundant = 2;
  b.psu = {&p.server3000, 4};  // 2 active x 3,000 W
  x = find(f = run(b), "PWR002");
  REQUIRE(x != nullptr);
  CHECK(x->fix == "use six 2,700 W PSUs at 230 V (9,192 W or more in total, plus 2 redundant)");

  // The conservative policy asks 1.5x: the 4x4090 build's 3,200 W no longer do.
  RuleSet conservative = rs();
  conservative.params.psu_margin = 1.5;
  conservative.policy = "conservative";
  const auto fc = evaluate(p.four_4090(), {}, conservative);
  x = find(fc, "PWR002");
  REQUIRE(x != nullptr);
  CHECK(x->limit.value == 3482);
  CHECK_THAT(x->message, Contains("(conservative policy)"));
}

TEST_CASE("PWR003: the wall draw must fit the circuit's continuous rating", "[rules][engine]") {
  test::Parts p;
  Build b = p.four_4090();
  CHECK_FALSE(fires(b, "PWR003"));  // 2,579 W on 230 V / 16 A (2,944 W)
  b.site = {1800, 120, false, 1, "", ""};
  auto f = run(b);
  const Finding* x = find(f, "PWR003");
  REQUIRE(x != nullptr);
  CHECK(x->measured.value == 2579);
  CHECK(x->limit.value == 1440);
  CHECK(x->path == "site");
  CHECK(x->fix ==
        "use one NEMA 6-20 (240 V / 20 A) circuit (3,840 W continuous); or 2 separate circuits "
        "like this one with the PSUs split across them");
  // No power limit makes it fit: 4 x 450 W would have to drop below half.
  b.site = {2400, 120, false, 1, "us", ""};
  x = find(f = run(b), "PWR003");
  REQUIRE(x != nullptr);
  CHECK(x->fix ==
        "use one NEMA 6-20 (240 V / 20 A) circuit (3,840 W continuous); or 2 separate circuits "
        "like this one with the PSUs split across them; or power-limit the GPUs to 300 W each "
        "(nvidia-smi -pl 300): about 13 % lower throughput");
  b.site = {};
  CHECK(status(b, "PWR003") == RuleStatus::not_applicable);
}

TEST_CASE("PWR004: PSUs are 80 Plus Gold or better", "[rules][engine]") {
  test::Parts p;
  Build b = p.four_4090();
  CHECK_FALSE(fires(b, "PWR004"));
  b.psu = {&p.bronze850, 4};
  const auto f = run(b);
  const Finding* x = find(f, "PWR004");
  REQUIRE(x != nullptr);
  CHECK(x->severity == Severity::warning);
  CHECK(x->measured.text == "80plus-bronze");
  CHECK(x->limit.text == "80plus-gold or better");
}

TEST_CASE("PWR005: enough GPU power connectors", "[rules][engine]") {
  test::Parts p;
  Build b = p.four_4090();
  CHECK_FALSE(fires(b, "PWR005"));
  b.psu = {&p.bronze850, 2};  // 4 GPUs by adapter x 3 = 12 eight-pin; the PSUs have 8
  const auto f = run(b);
  const Finding* x = find(f, "PWR005");
  REQUIRE(x != nullptr);
  CHECK(x->measured.value == 8);
  CHECK(x->limit.value == 12);
  CHECK_THAT(x->fix, Contains("2 native 12VHPWR/12V-2x6 connectors each"));
  CHECK(status(p.hgx_h100(), "PWR005") == RuleStatus::not_applicable);
}

TEST_CASE("COOL001: cooling removes the whole heat", "[rules][engine]") {
  test::Parts p;
  Build b = p.four_4090();
  CHECK_FALSE(fires(b, "COOL001"));
  b.cooling = {{&p.fans, 1}};
  const auto f = run(b);
  const Finding* x = find(f, "COOL001");
  REQUIRE(x != nullptr);
  CHECK(x->measured.value == 1000);
  CHECK(x->limit.value == 2531);  // (2,321 - 35 - 16 + 8) / 0.9: the other coolers' fans are gone
  CHECK(x->path == "parts.cooling");
}

TEST_CASE("COOL002: dense open-air GPU heat needs liquid or datacenter cooling",
          "[rules][engine]") {
  test::Parts p;
  Build b = p.four_4090();
  CHECK_FALSE(fires(b, "COOL002"));  // the liquid loop
  b.cooling = {{&p.fans, 4}};
  const auto f = run(b);
  const Finding* x = find(f, "COOL002");
  REQUIRE(x != nullptr);
  CHECK(x->severity == Severity::warning);
  CHECK(x->measured.value == 1800);
  CHECK(x->limit.value == 1000);
  CHECK(status(p.hgx_h100(), "COOL002") == RuleStatus::not_applicable);
}

TEST_CASE("PLAT001: the platform holds the GPUs", "[rules][engine]") {
  test::Parts p;
  Build b = p.four_4090();
  CHECK_FALSE(fires(b, "PLAT001"));
  b.gpu.count = 5;
  const auto f = run(b);
  const Finding* x = find(f, "PLAT001");
  REQUIRE(x != nullptr);
  CHECK(x->path == "parts.gpu.count");
  CHECK(x->limit.text == "<= 4 GPUs");
}

TEST_CASE("PLAT002: slot width and card length fit", "[rules][engine]") {
  test::Parts p;
  Build b = p.four_4090();
  CHECK_FALSE(fires(b, "PLAT002"));
  catalog::Platform narrow = p.open_frame;
  narrow.max_gpu_slot_width = 2;  // 4 x 2 slots for 4 x 3-slot cards
  narrow.max_gpu_length_mm = 300;
  b.platform = &narrow;
  auto f = run(b);
  CHECK(std::count_if(f.begin(), f.end(), [](const Finding& x) { return x.rule == "PLAT002"; }) ==
        2);
  CHECK(find(f, "PLAT002")->measured.text == "12 slots");
  b.gpu.count = 2;  // two 3-slot cards fit in four 2-slot positions
  narrow.max_gpu_length_mm = 400;
  CHECK_FALSE(fires(b, "PLAT002"));
}

TEST_CASE("PLAT003: SXM/OAM modules only on their baseboard", "[rules][engine]") {
  test::Parts p;
  Build b = p.four_4090();
  b.gpu = {&p.h100_sxm, 4};
  b.architecture = &p.hopper;
  auto f = run(b);
  const Finding* x = find(f, "PLAT003");
  REQUIRE(x != nullptr);
  CHECK(x->message == "H100 SXM is an SXM module; WRX90 open frame takes PCIe GPUs only");
  CHECK_THAT(x->fix, Contains("hgx-h100 baseboard"));

  Build h = p.hgx_h100();
  h.gpu = {&p.rtx4090, 8};
  CHECK(fires(h, "PLAT003"));

  Build o = p.hgx_h100();
  catalog::Platform other = p.oam_server;
  other.gpu_form_factors = {"oam"};
  other.baseboard = "oam-other";
  o.platform = &other;
  o.gpu = {&p.mi300x, 8};
  o.architecture = &p.cdna3;
  o.software = {};
  x = find(f = run(o), "PLAT003");
  REQUIRE(x != nullptr);
  CHECK(x->message == "MI300X mounts on a oam-mi300x baseboard; OAM server has oam-other");
  other.baseboard = "oam-mi300x";
  CHECK_FALSE(fires(o, "PLAT003"));
}

TEST_CASE("PLAT004: CPU socket, chipset family and count", "[rules][engine]") {
  test::Parts p;
  Build b = p.four_4090();
  CHECK_FALSE(fires(b, "PLAT004"));
  b.cpu = {&p.ryzen, 1};
  auto f = run(b);
  REQUIRE(find(f, "PLAT004") != nullptr);
  CHECK(find(f, "PLAT004")->message == "Ryzen 9 fits socket AM5; WRX90 open frame has socket sTR5");
  catalog::Cpu xeon_w = p.xeon;
  xeon_w.family = "xeon-w";
  Build h = p.hgx_h100();
  h.cpu = {&xeon_w, 1};
  CHECK(find(f = run(h), "PLAT004")->measured.text == "xeon-w");
  b = p.four_4090();
  b.cpu.count = 2;
  CHECK(find(f = run(b), "PLAT004")->path == "parts.cpu.count");
}

TEST_CASE("PLAT005: PSUs fit the platform's bays, form and size", "[rules][engine]") {
  test::Parts p;
  Build b = p.four_4090();
  CHECK_FALSE(fires(b, "PLAT005"));
  b.psu = {&p.tx1600, 3};
  auto f = run(b);
  REQUIRE(find(f, "PLAT005") != nullptr);
  CHECK(find(f, "PLAT005")->limit.text == "<= 2 PSUs");
  b.psu = {&p.server3000, 1};
  f = run(b);
  CHECK(std::count_if(f.begin(), f.end(), [](const Finding& x) { return x.rule == "PLAT005"; }) ==
        2);  // a server PSU in an ATX chassis, and larger than 1,600 W
}

TEST_CASE("CPU001: PCIe lanes for the GPUs and NVMe drives", "[rules][engine]") {
  test::Parts p;
  Build b = p.four_4090();
  CHECK_FALSE(fires(b, "CPU001"));
  catalog::Cpu few = p.tr_pro;
  few.pcie_lanes = 24;
  b.cpu = {&few, 1};
  const auto f = run(b);
  const Finding* x = find(f, "CPU001");
  REQUIRE(x != nullptr);
  CHECK(x->severity == Severity::warning);
  CHECK(x->measured.value == 24);
  CHECK(x->limit.value == 40);
}

TEST_CASE("CPU002: CPU cores per GPU", "[rules][engine]") {
  test::Parts p;
  Build b = p.four_4090();
  CHECK_FALSE(fires(b, "CPU002"));
  catalog::Cpu small = p.tr_pro;
  small.cores = 8;
  b.cpu = {&small, 1};
  const auto f = run(b);
  REQUIRE(find(f, "CPU002") != nullptr);
  CHECK(find(f, "CPU002")->limit.text == ">= 16 cores");
}

TEST_CASE("MEM001: at least 32 GB of system RAM", "[rules][engine]") {
  test::Parts p;
  Build b = p.four_4090();
  CHECK_FALSE(fires(b, "MEM001"));
  catalog::MemoryKit small = p.rdimm_256;
  small.capacity_gb = 16;
  b.memory = {&small, 1};
  auto f = run(b);
  REQUIRE(find(f, "MEM001") != nullptr);
  CHECK(find(f, "MEM001")->message ==
        "16 GB of system RAM; a training machine needs at least 32 GB");
  b.memory = {};
  CHECK(find(f = run(b), "MEM001")->path == "parts");
}

TEST_CASE("MEM001: a training build has at least half its GPU memory in RAM", "[rules][engine]") {
  test::Parts p;
  Build b = p.hgx_h100();        // 640 GB of GPU memory
  b.memory = {&p.rdimm_256, 1};  // 256 GB: below half
  const auto train = make_workload("gpt2", workload::Task::lora, 8);
  auto f = run(b, {train});
  const Finding* x = find(f, "MEM001");
  REQUIRE(x != nullptr);
  CHECK(x->severity == Severity::error);
  CHECK(x->message ==
        "256 GB of system RAM for 640 GB of GPU memory in a training build: below 0.5 x the GPU "
        "memory, saving a checkpoint of what the GPUs hold does not fit in RAM");
  CHECK(x->limit.value == 320);
  CHECK(x->fix == "use 320 GB or more of RAM");
  b.memory = {&p.rdimm_256, 2};  // 512 GB: MEM002's warning only
  CHECK_FALSE(fires(b, "MEM001", {train}));
  b.memory = {&p.rdimm_256, 1};
  const auto serve = make_workload("gpt2", workload::Task::inference, 8);
  CHECK_FALSE(fires(b, "MEM001", {serve}));  // inference stages no checkpoints
}

TEST_CASE("MEM002: system RAM at least the total GPU memory", "[rules][engine]") {
  test::Parts p;
  Build b = p.hgx_h100();
  CHECK_FALSE(fires(b, "MEM002"));
  b.memory = {&p.rdimm_256, 2};  // 512 GB for 640 GB of GPU memory
  const auto f = run(b);
  const Finding* x = find(f, "MEM002");
  REQUIRE(x != nullptr);
  CHECK(x->severity == Severity::warning);
  CHECK(x->limit.value == 640);
}

TEST_CASE("MEM003: memory type, registration, slots and capacity", "[rules][engine]") {
  test::Parts p;
  Build b = p.four_4090();
  CHECK_FALSE(fires(b, "MEM003"));
  b.memory = {&p.udimm_16, 1};
  auto f = run(b);
  CHECK(find(f, "MEM003")->message ==
        "16 GB UDIMM is unbuffered (UDIMM); WRX90 open frame takes registered (RDIMM)");
  catalog::MemoryKit ddr4 = p.rdimm_256;
  ddr4.type = "DDR4";
  b.memory = {&ddr4, 1};
  CHECK(find(f = run(b), "MEM003")->measured.text == "DDR4");
  b.memory = {&p.rdimm_256, 2};  // 16 modules in 8 slots
  CHECK(find(f = run(b), "MEM003")->limit.text == "<= 8 modules");
}

TEST_CASE("STOR001: NVMe for data and checkpoints", "[rules][engine]") {
  test::Parts p;
  Build b = p.four_4090();
  CHECK_FALSE(fires(b, "STOR001"));
  b.storage = {{&p.sata_4tb, 2}};
  const auto f = run(b);
  REQUIRE(find(f, "STOR001") != nullptr);
  CHECK(find(f, "STOR001")->severity == Severity::warning);
  CHECK(find(f, "STOR001")->message ==
        "0 NVMe drives; reading training data and writing checkpoints from SATA or disks stalls "
        "the GPUs");
}

TEST_CASE("MEM001 and STOR001 word themselves for a serving build", "[rules][engine]") {
  // A build that only serves reads no training data and writes no
  // checkpoints: the findings speak of a serving machine and its weights.
  test::Parts p;
  Build b = p.four_4090();
  b.storage = {{&p.sata_4tb, 2}};
  catalog::MemoryKit small = p.rdimm_256;
  small.capacity_gb = 16;
  b.memory = {&small, 1};
  const auto serve = make_workload("gpt2", workload::Task::inference, 4);
  const auto f = run(b, {serve});
  REQUIRE(find(f, "STOR001") != nullptr);
  CHECK(find(f, "STOR001")->message ==
        "0 NVMe drives; loading the model's weights from SATA or disks slows every start and "
        "model change");
  CHECK(find(f, "STOR001")->fix == "add 1 NVMe SSD for the weights");
  REQUIRE(find(f, "MEM001") != nullptr);
  CHECK(find(f, "MEM001")->message ==
        "16 GB of system RAM; a serving machine needs at least 32 GB");
  // With a training workload too, the training words stay.
  const auto train = make_workload("gpt2", workload::Task::lora, 4);
  const auto both = run(b, {serve, train});
  CHECK(find(both, "MEM001")->message ==
        "16 GB of system RAM; a training machine needs at least 32 GB");
  CHECK(find(both, "STOR001")->fix == "add 1 NVMe SSD for data and checkpoints");
}

TEST_CASE("MEM002 and STOR002 word themselves for a serving build", "[rules][engine]") {
  // A serving build stages the weights in RAM and keeps no training
  // checkpoints: neither finding speaks of datasets or checkpoints.
  test::Parts p;
  Build b = p.four_4090();  // 96 GB of GPU memory
  catalog::MemoryKit small = p.rdimm_256;
  small.capacity_gb = 64;
  b.memory = {&small, 1};
  b.data.dataset_gb = 7950;  // + 100 GB for the system > 8,000 GB
  const auto serve = make_workload("gpt2", workload::Task::inference, 4);
  const auto f = run(b, {serve});
  REQUIRE(find(f, "MEM002") != nullptr);
  CHECK(find(f, "MEM002")->message ==
        "64 GB of system RAM for 96 GB of GPU memory; loading the model's weights through the "
        "page cache and the engine's host buffers want 1.0 x the GPU memory");
  REQUIRE(find(f, "STOR002") != nullptr);
  CHECK(find(f, "STOR002")->message ==
        "8,000 GB of storage; data 7,950 GB + 100 GB for the system need 8,050 GB");
  CHECK(find(f, "STOR002")->fix == "add 50 GB or more of NVMe storage");
  // With a training workload too, the training words stay.
  const auto train = make_workload("gpt2", workload::Task::lora, 4);
  const auto both = run(b, {serve, train});
  CHECK_THAT(find(both, "MEM002")->message, Contains("datasets, pinned buffers"));
  CHECK_THAT(find(both, "STOR002")->fix, Contains("or keep fewer checkpoints"));
}

TEST_CASE("STOR002: capacity for the dataset and the kept checkpoints", "[rules][engine]") {
  test::Parts p;
  Build b = p.four_4090();
  CHECK(status(b, "STOR002") == RuleStatus::not_applicable);
  b.data.dataset_gb = 7600;  // 7,600 + 100 reserve <= 8,000
  CHECK_FALSE(fires(b, "STOR002"));
  const auto w = make_workload("llama-3-8b", workload::Task::pretrain, 4);
  // + 3 checkpoints x 8.03e9 x 16 B = 385 GB
  const auto f = run(b, {w});
  const Finding* x = find(f, "STOR002");
  REQUIRE(x != nullptr);
  CHECK(x->limit.value == 8085);
  CHECK_THAT(x->message, Contains("3 checkpoints of 128 GB (8.0B parameters x 16 B)"));
}

TEST_CASE("STOR003: drives fit the platform's slots and bays", "[rules][engine]") {
  test::Parts p;
  Build b = p.four_4090();
  CHECK_FALSE(fires(b, "STOR003"));
  b.storage = {{&p.nvme_4tb, 5}, {&p.sata_4tb, 5}};
  const auto f = run(b);
  CHECK(std::count_if(f.begin(), f.end(), [](const Finding& x) { return x.rule == "STOR003"; }) ==
        2);
}

TEST_CASE("VRAM001: each workload fits in one GPU's memory", "[rules][engine]") {
  test::Parts p;
  const Build b = p.four_4090();
  CHECK(status(b, "VRAM001") == RuleStatus::not_applicable);
  const auto small = make_workload("gpt2", workload::Task::lora, 4);
  CHECK_FALSE(fires(b, "VRAM001", {small}));
  const auto big = make_workload("llama-3-8b", workload::Task::finetune, 1);
  const auto f = run(b, {small, big});
  const Finding* x = find(f, "VRAM001");
  REQUIRE(x != nullptr);
  CHECK(x->path == "workloads[1]");
  CHECK(x->measured.unit == "GiB");
  CHECK(*x->measured.value > *x->limit.value);
  CHECK_THAT(x->message, Contains("Llama 3 8B finetune"));
  CHECK_FALSE(x->fix.empty());
}

TEST_CASE("SW001: the stack matches the vendor (MI300X needs ROCm)", "[rules][engine]") {
  test::Parts p;
  Build b = p.hgx_h100();
  b.gpu = {&p.mi300x, 8};
  b.architecture = &p.cdna3;
  b.platform = &p.oam_server;
  b.software = {"", "6.2", ""};
  CHECK_FALSE(fires(b, "SW001"));
  b.software = {"12.4", "", ""};
  auto f = run(b);
  const Finding* x = find(f, "SW001");
  REQUIRE(x != nullptr);
  CHECK(x->message == "the spec declares CUDA 12.4 for MI300X; AMD GPUs run ROCm, not CUDA");
  CHECK(x->path == "software.cuda");
  Build n = p.four_4090();
  n.software = {"", "6.2", ""};
  CHECK(find(f = run(n), "SW001")->path == "software.rocm");
}

TEST_CASE("SW002: the CUDA version supports the architecture (Volta not on CUDA 13)",
          "[rules][engine]") {
  test::Parts p;
  Build b = p.hgx_h100();
  catalog::Gpu v100 = p.h100_sxm;
  v100.name = "V100 SXM2";
  b.gpu = {&v100, 8};
  b.architecture = &p.volta;
  b.software = {"12.4", "", ""};
  CHECK_FALSE(fires(b, "SW002"));
  b.software = {"13.0", "", ""};
  auto f = run(b);
  const Finding* x = find(f, "SW002");
  REQUIRE(x != nullptr);
  CHECK(x->message ==
        "V100 SXM2 is volta (compute capability 7.0), last supported by CUDA 12.9; CUDA 13.0 "
        "dropped it");
  CHECK(x->limit.text == "<= 12.9");
  Build h = p.hgx_h100();
  h.software = {"11.0", "", ""};
  CHECK(find(f = run(h), "SW002")->limit.text == ">= 11.8");
}

TEST_CASE("SW003: the framework release ships builds for the stack and the GPU",
          "[rules][engine]") {
  test::Parts p;
  Build b = p.hgx_h100();
  CHECK_FALSE(fires(b, "SW003"));
  b.software = {"12.6", "", "pytorch-2.5"};
  auto f = run(b);
  const Finding* x = find(f, "SW003");
  REQUIRE(x != nullptr);
  CHECK(x->message ==
        "pytorch-2.5 ships builds for CUDA 11.8, 12.1, 12.4; the spec declares CUDA "
        "12.6");
  CHECK_THAT(x->fix, Contains("(pytorch-2.6, pytorch-2.7, pytorch-2.8, pytorch-2.9, pytorch-2.10"));

  // PyTorch 2.8's CUDA 12.8 builds leave out Volta; its 12.6 build has it.
  b.architecture = &p.volta;
  b.software = {"12.8", "", "pytorch-2.8"};
  x = find(f = run(b), "SW003");
  REQUIRE(x != nullptr);
  CHECK(x->fix == "use pytorch-2.8's CUDA 12.6 build");
  b.software = {"12.6", "", "pytorch-2.8"};
  CHECK_FALSE(fires(b, "SW003"));

  // MI300X (ROCm 6.0+) and PyTorch 2.2 (ROCm 5.7 builds only).
  Build m = p.hgx_h100();
  m.gpu = {&p.mi300x, 8};
  m.architecture = &p.cdna3;
  m.platform = &p.oam_server;
  m.software = {"", "", "pytorch-2.2"};
  x = find(f = run(m), "SW003");
  REQUIRE(x != nullptr);
  CHECK(x->message == "no pytorch-2.2 build (ROCm 5.7) supports cdna3 (target gfx942)");
  m.software = {"", "6.2", "pytorch-2.5"};
  CHECK_FALSE(fires(m, "SW003"));
}

TEST_CASE("RISK001-RISK004: used cards, no P2P, passive cooling, 12VHPWR", "[rules][engine]") {
  test::Parts p;
  Build b = p.hgx_h100();
  CHECK(run(b).empty());
  catalog::Gpu used = p.h100_sxm;
  used.condition = catalog::Condition::used;
  b.gpu = {&used, 8};
  CHECK(failing(run(b)) == std::vector<std::string>{"RISK001"});

  Build four = p.four_4090();
  auto f = run(four);
  CHECK(find(f, "RISK002")->severity == Severity::warning);
  CHECK(find(f, "RISK004")->severity == Severity::info);
  four.gpu.count = 1;
  CHECK(status(four, "RISK002") == RuleStatus::not_applicable);

  Build passive = p.four_4090();
  passive.gpu = {&p.a100_pcie, 4};
  passive.architecture = &p.ada;
  passive.cooling = {{&p.fans, 3}};
  const Finding* x = find(f = run(passive), "RISK003");
  REQUIRE(x != nullptr);
  CHECK_THAT(x->message, Contains("pass 80 degC and throttle"));
  passive.cooling.push_back({&p.datacenter, 1});
  CHECK_FALSE(fires(passive, "RISK003"));
  CHECK(status(passive, "RISK004") == RuleStatus::not_applicable);
}

TEST_CASE("rules follow the rule set: severity, enabled, thresholds", "[rules][engine]") {
  test::Parts p;
  RuleSet custom = rs();
  for (auto& r : custom.rules) {
    if (r.id == "RISK002") r.severity = Severity::error;
    if (r.id == "RISK004") r.enabled = false;
  }
  auto ev = evaluate_all(p.four_4090(), {}, custom);
  REQUIRE(ev.findings.size() == 1);
  CHECK(ev.findings[0].rule == "RISK002");
  CHECK(ev.findings[0].severity == Severity::error);
  const auto it = std::find_if(ev.outcomes.begin(), ev.outcomes.end(),
                               [](const RuleOutcome& o) { return o.rule == "RISK004"; });
  CHECK(it->status == RuleStatus::disabled);
  custom.params.psu_w_per_gpu = 900;
  CHECK(find(evaluate(p.four_4090(), {}, custom), "PWR001") != nullptr);
}

TEST_CASE("fails(): unwaived errors, or warnings with strict", "[rules][engine]") {
  Finding w;
  w.severity = Severity::warning;
  Finding e;
  e.severity = Severity::error;
  Finding n;
  n.severity = Severity::info;
  CHECK_FALSE(fails({w, n}, false));
  CHECK(fails({w, n}, true));
  CHECK(fails({e}, false));
  e.waived = true;
  CHECK_FALSE(fails({e}, true));
  CHECK_FALSE(fails({n}, true));
}

TEST_CASE("PLAT006: SXM/OAM modules come as whole baseboards", "[rules][engine]") {
  test::Parts p;
  Build b = p.hgx_h100();
  CHECK_FALSE(fires(b, "PLAT006"));
  b.gpu.count = 4;
  const auto f = run(b);
  const Finding* x = find(f, "PLAT006");
  REQUIRE(x != nullptr);
  CHECK(x->severity == Severity::error);
  CHECK(x->message ==
        "HGX server is sold with a baseboard of 8 GPUs; the build has 4: SXM and OAM modules are "
        "sold and validated as whole boards");
  CHECK(x->fix == "use 8 GPUs on this board, or PCIe cards (a PCIe server) for 4 GPUs");
  CHECK(x->path == "parts.gpu.count");
  CHECK(status(p.four_4090(), "PLAT006") == RuleStatus::not_applicable);
}

TEST_CASE("COOL003: every CPU needs a cooler for its socket and power", "[rules][engine]") {
  test::Parts p;
  Build b = p.four_4090();
  CHECK_FALSE(fires(b, "COOL003"));
  b.cpu_cooler = {};
  auto f = run(b);
  const Finding* x = find(f, "COOL003");
  REQUIRE(x != nullptr);
  CHECK(x->message ==
        "Threadripper PRO is sold without a cooler and the build has none: Threadripper PRO "
        "sustains 350 W (PL2/PPT)");
  CHECK(x->fix == "add a socket sTR5 cooler rated 350 W or more");
  catalog::CpuCooler am5 = p.tr5_air;
  am5.sockets = {"AM5"};
  am5.max_cpu_w = 250;
  b.cpu_cooler = {&am5, 1};
  f = run(b);
  CHECK(failing(f).size() >= 2);
  int cool = 0;
  for (const auto& g : f) cool += g.rule == "COOL003" ? 1 : 0;
  CHECK(cool == 2);  // wrong socket and too weak
  // Case fans do not count, but a server's heatsinks do.
  CHECK(status(p.hgx_h100(), "COOL003") == RuleStatus::not_applicable);
}

TEST_CASE("PWR006: a PSU without a low-line rating needs 200-240 V", "[rules][engine]") {
  test::Parts p;
  catalog::Psu high = p.server3000;
  high.watts_115v = 0;
  Build b = p.hgx_h100();
  b.psu.part = &high;
  CHECK_FALSE(fires(b, "PWR006"));  // the site is 230 V
  b.site = {1800, 120, false, 1, "us", ""};
  const auto f = run(b);
  const Finding* x = find(f, "PWR006");
  REQUIRE(x != nullptr);
  CHECK(x->message ==
        "3000 W server PSU runs on 200-240 V only (no low-line rating); the site supplies 120 V");
  CHECK_THAT(x->fix, Contains("NEMA L6-30"));
}

TEST_CASE("MEM004: every memory channel filled evenly", "[rules][engine]") {
  test::Parts p;
  catalog::Cpu xeon = p.xeon;
  xeon.memory_channels = 8;
  Build b = p.hgx_h100();
  b.cpu.part = &xeon;
  CHECK_FALSE(fires(b, "MEM004"));  // 4 kits x 8 = 32 DIMMs on 16 channels
  b.memory.count = 1;
  const auto f = run(b);
  const Finding* x = find(f, "MEM004");
  REQUIRE(x != nullptr);
  CHECK(x->severity == Severity::warning);
  CHECK(x->message ==
        "8 DIMMs on 16 memory channels (2x Xeon Platinum x 8): 8 of them stay empty, which cuts "
        "memory bandwidth");
}

TEST_CASE("STOR003: drive forms fit the platform's slots and bays", "[rules][engine]") {
  test::Parts p;
  catalog::Platform hgx = p.hgx;
  hgx.nvme_form = "u.2";
  catalog::Storage m2 = p.nvme_4tb;
  m2.form = "m.2";
  Build b = p.hgx_h100();
  b.platform = &hgx;
  b.storage = {{&m2, 1}};
  const auto f = run(b);
  const Finding* x = find(f, "STOR003");
  REQUIRE(x != nullptr);
  CHECK(x->message == "NVMe 4 TB is an m.2 drive; HGX server's NVMe slots are u.2");
  m2.form = "u.2";
  CHECK_FALSE(fires(b, "STOR003"));
}

TEST_CASE("SW004: a declared precision needs the GPU's tensor cores", "[rules][engine]") {
  test::Parts p;
  Build b = p.four_4090();
  auto w = make_workload("gpt2", workload::Task::lora, 1);
  w.precision = workload::Precision::bf16;
  w.precision_stated = true;
  CHECK_FALSE(fires(b, "SW004", {w}));  // Ada has BF16
  b.architecture = &p.volta;
  const auto f = run(b, {w});
  const Finding* x = find(f, "SW004");
  REQUIRE(x != nullptr);
  CHECK_THAT(x->message, Contains("runs bf16"));
  CHECK_THAT(x->message, Contains("has no BF16 tensor cores"));
  w.precision_stated = false;  // a default the estimate may change to fp16
  CHECK_FALSE(fires(b, "SW004", {w}));
}

TEST_CASE("SW005: QLoRA and FP8 training on ROCm name the library they need", "[rules][engine]") {
  test::Parts p;
  Build b = p.four_4090();
  auto w = make_workload("gpt2", workload::Task::qlora, 1);
  CHECK_FALSE(fires(b, "SW005", {w}));  // CUDA
  b.architecture = &p.cdna3;
  const Finding* x = nullptr;
  const auto f = run(b, {w});
  x = find(f, "SW005");
  REQUIRE(x != nullptr);
  CHECK(x->severity == Severity::warning);
  CHECK_THAT(x->message, Contains("needs bitsandbytes' 4-bit kernels for ROCm: experimental up to "
                                  "bitsandbytes 0.49, supported from 0.50"));
  CHECK(x->limit.text == "bitsandbytes >= 0.50 (ROCm)");
  auto fp8 = make_workload("gpt2", workload::Task::pretrain, 1);
  fp8.precision = workload::Precision::fp8;
  const auto g = run(b, {fp8});
  x = find(g, "SW005");
  REQUIRE(x != nullptr);
  CHECK_THAT(x->message, Contains("NVIDIA's Transformer Engine does not run on ROCm"));
  auto lora = make_workload("gpt2", workload::Task::lora, 1);  // bf16 LoRA: nothing to say
  CHECK_FALSE(fires(b, "SW005", {lora}));
}

TEST_CASE("RISK006: GeForce cards in a rack server break the GeForce driver license",
          "[rules][engine]") {
  test::Parts p;
  Build b = p.four_4090();
  CHECK_FALSE(fires(b, "RISK006"));  // a tower (open frame) is not a data center
  b.platform = &p.hgx;               // a rack server
  const auto f = run(b);
  const Finding* x = find(f, "RISK006");
  REQUIRE(x != nullptr);
  CHECK(x->severity == Severity::warning);
  CHECK(x->message ==
        "4x RTX 4090 in a rack server: NVIDIA's GeForce driver license (section 2.1.3) does not "
        "license data-center deployment");
  CHECK(x->path == "parts.gpu");
  CHECK_FALSE(fires(p.hgx_h100(), "RISK006"));  // data-center cards
}

TEST_CASE("RISK003: passive cards outside server airflow are an error", "[rules][engine]") {
  test::Parts p;
  Build b = p.four_4090();
  b.gpu.part = &p.a100_pcie;
  const auto f = run(b);
  const Finding* x = find(f, "RISK003");
  REQUIRE(x != nullptr);
  CHECK(x->severity == Severity::error);
  CHECK_FALSE(fires(p.hgx_h100(), "RISK003"));  // the server's gpu_airflow
}
