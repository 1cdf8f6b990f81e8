// Sources inside the product: no file of data/, docs/, src/ or include/ cites
// material the repository does not ship; every price of the embedded catalog
// has a date, kind and source; regions.json availability names real parts.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "gpuadvisor/catalog/catalog.hpp"
#include "gpuadvisor/catalog/serialize.hpp"
#include "gpuadvisor/rules/region.hpp"
#include "support/scratch.hpp"

using namespace gpuadvisor;
namespace fs = std::filesystem;

using gpuadvisor::test::slurp;

namespace {

std::vector<fs::path> shipped_files() {
  std::vector<fs::path> out;
  for (const char* dir : {"data", "docs", "src", "include"}) {
    for (const auto& e : fs::recursive_directory_iterator(fs::path(GPUADVISOR_SOURCE_DIR) / dir)) {
      if (e.is_regular_file()) out.push_back(e.path());
    }
  }
  return out;
}

template <typename Part>
void check_price(const Part& p, const std::string& where) {
  INFO(where);
  CHECK(p.price.date.size() == 10);
  CHECK(!p.price.source.empty());
  CHECK((p.price.kind == catalog::PriceKind::estimate) == p.price.source.starts_with("estimate:"));
  for (const auto& l : p.price.local) {
    CHECK(l.date.size() == 10);
    CHECK(!l.source.empty());
    CHECK(l.currency != "USD");
  }
}

}  // namespace

TEST_CASE("no citation points outside the repository", "[catalog][sources]") {
  // The product once cited a specification and reference notes it did not ship.
  static const std::regex outside(
      R"(shared/|SPEC section|calibration #|calibration\.md|gpu-specs\.md)");
  // A repository-relative docs/*.md; not one inside a URL (another project's docs).
  static const std::regex doc_ref(R"((?:^|[^/\w.-])(docs/[a-z0-9-]+\.md))");
  int files = 0;
  for (const auto& path : shipped_files()) {
    const std::string text = slurp(path);
    ++files;
    std::smatch m;
    INFO(path.string());
    CHECK_FALSE(std::regex_search(text, m, outside));
    // Every docs/*.md a file names exists.
    for (auto it = std::sregex_iterator(text.begin(), text.end(), doc_ref);
         it != std::sregex_iterator(); ++it) {
      INFO(it->str(1));
      CHECK(fs::exists(fs::path(GPUADVISOR_SOURCE_DIR) / it->str(1)));
    }
  }
  CHECK(files > 100);
}

TEST_CASE("every price has a date, kind and source", "[catalog][prices]") {
  const catalog::Catalog& c = catalog::embedded_catalog();
  int prices = 0;
  catalog::for_each_category([&](const auto& cat) {
    using T = typename std::remove_cvref_t<decltype(cat)>::Part;
    if constexpr (std::is_base_of_v<catalog::PartBase, T>) {
      for (const auto& p : c.*cat.items) {
        check_price(p, std::string(cat.key) + "/" + p.id);
        ++prices;
      }
    }
  });
  for (const auto& x : c.cloud) {
    INFO(x.id);
    CHECK(x.date.size() == 10);
    CHECK(!x.source.empty());
    ++prices;
  }
  CHECK(prices == 142);  // 127, then 15 NICs, switches and cables
  // The stale prices the catalog once had: a discontinued card at its 2022
  // MSRP, a used card above new, PCIe above SXM, a 2019 list-price CPU.
  CHECK(c.gpu("rtx-4090")->price.usd > 1599);
  CHECK(c.gpu("rtx-4090-used")->price.usd < c.gpu("rtx-4090")->price.usd);
  CHECK(c.gpu("h100-pcie")->price.usd < c.gpu("h100-sxm")->price.usd);
  CHECK(c.cpu("xeon-gold-6248")->price.usd < 200);
  CHECK(c.gpu("rtx-4090d")->price.local.at(0).currency == "CNY");
  CHECK(c.gpu("rtx-4090d")->price.local.at(0).amount == 12999);
}

TEST_CASE("regions.json: currencies, dated rates and availability of real parts",
          "[catalog][regions]") {
  const catalog::Catalog& c = catalog::embedded_catalog();
  for (const auto& r : rules::regions()) {
    INFO(r.id);
    CHECK(find_currency(r.currency) != nullptr);
    CHECK(r.fx.per_usd > 0);
    CHECK(r.fx.date.size() == 10);
    CHECK(!r.fx.source.empty());
    // The electricity price energy is costed at: dated, classed, cited.
    CHECK(r.electricity.price > 0);
    CHECK(find_currency(r.electricity.currency) != nullptr);
    CHECK(r.electricity.date.size() == 10);
    CHECK(!r.electricity.kind.empty());
    CHECK(!r.electricity.note.empty());
    CHECK(r.electricity.source.find("https://") != std::string::npos);
  }
  CHECK(rules::electricity_usd_per_kwh(*rules::find_region("us"), 1) == 0.125);
  CHECK(rules::electricity_usd_per_kwh(*rules::find_region("eu"), 0.5) == Approx(0.5744));
  CHECK(rules::find_region("cn")->currency == "CNY");
  CHECK(rules::find_region("cn")->fx.per_usd == 7.18);
  CHECK(rules::find_region("jp")->currency == "JPY");
  for (const auto& u : rules::availability()) {
    INFO(u.category + "/" + u.id);
    const auto listed = catalog::category_to_json(c, u.category);
    auto has = [&](const std::string& id) {
      return std::any_of(listed.begin(), listed.end(),
                         [&](const auto& p) { return p.value("id", "") == id; });
    };
    CHECK(has(u.id));
    CHECK(u.source.starts_with("https://"));
    if (!u.alternative.empty()) {
      CHECK(has(u.alternative));
      // The alternative is sold where the part is not.
      for (const auto& rid : u.regions) {
        CHECK(rules::unavailable(*rules::find_region(rid), u.category, u.alternative) == nullptr);
      }
    }
  }
  const rules::Region& cn = *rules::find_region("cn");
  CHECK(rules::unavailable(cn, "gpus", "rtx-4090")->alternative == "rtx-4090d");
  CHECK(rules::unavailable(cn, "gpus", "rtx-4090d") == nullptr);
  CHECK(rules::unavailable(*rules::find_region("us"), "gpus", "h20") != nullptr);
}

TEST_CASE("every CPU socket has a cooler, and an entry level exists", "[catalog][coverage]") {
  const catalog::Catalog& c = catalog::embedded_catalog();
  for (const auto& cpu : c.cpus) {
    INFO(cpu.id);
    const bool cooler = std::any_of(c.cpu_coolers.begin(), c.cpu_coolers.end(), [&](const auto& k) {
      return std::find(k.sockets.begin(), k.sockets.end(), cpu.socket) != k.sockets.end();
    });
    CHECK(cooler);
  }
  // The parts of a $1,500-2,500 single-GPU build (docs/catalog.md).
  for (const char* id : {"am5-b650-entry", "lga1700-b760-entry"}) CHECK(c.platform(id) != nullptr);
  for (const char* id : {"ryzen-5-7600", "ryzen-7-7700", "core-i5-14400", "core-i7-14700"}) {
    CHECK(c.cpu(id) != nullptr);
  }
  CHECK(c.memory_kit("ddr5-udimm-2x16-5600")->capacity_gb == 32);
  CHECK(c.storage_device("nvme-1tb-pcie4-entry")->capacity_tb == 1);
  CHECK(c.psu("atx-750w-gold")->efficiency == "80plus-gold");
  // Current cards the catalog once lacked.
  for (const char* id : {"rtx-5090", "rtx-pro-6000-ws", "rtx-pro-6000-server", "rtx-3090-used",
                         "h100-nvl", "h200-nvl", "b200-sxm", "mi325x", "rtx-4090d", "rtx-5090d-v2",
                         "h20", "h800-sxm", "a800-80gb-sxm", "l20"}) {
    CHECK(c.gpu(id) != nullptr);
  }
  CHECK(c.gpu("rtx-5090")->memory_gb == 32);
  CHECK(c.gpu("rtx-5090")->memory_bandwidth_gbs == 1792);
  CHECK(c.gpu("rtx-5090")->power_w == 575);
  CHECK(c.gpu("h20")->tensor_tflops_16bit == 148);
  CHECK(c.gpu("rtx-5090d-v2")->memory_gb == 24);
  CHECK(c.platform("hgx-b200-10u")->baseboard == c.gpu("b200-sxm")->baseboard);
}
