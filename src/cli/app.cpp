// The command tree: global options, every subcommand, `help` and `version`,
// and the introspection the man page and the completions are generated from.
#include <filesystem>
#include <functional>
#include <iostream>
#include <map>

#include <fmt/format.h>

#include "cli.hpp"
#include "gpuadvisor/core/suggest.hpp"
#include "gpuadvisor/rules/rule_set.hpp"

namespace gpuadvisor::cli {
namespace {

constexpr const char* kExamples = R"(
Examples:
  gpuadvisor recommend --budget 20000 --model-size 7B
  gpuadvisor estimate --model llama-3-8b --task lora --gpu rtx-4090
  gpuadvisor check examples/*.json --format sarif
  gpuadvisor verify examples/8xh100-hgx.json --from recorded/
  gpuadvisor catalog list --category gpu
  gpuadvisor rules
  gpuadvisor help recommend

Exit codes: 0 success, 1 the answer is "no" (a rule fails, nothing fits,
the job does not fit --gpu), 2 usage or input error.)";

/// Where the installed documents are: next to the binary's prefix
/// (PREFIX/bin/gpuadvisor -> PREFIX/share/doc/gpuadvisor), else the source tree.
std::string docs_text() {
  std::error_code ec;
  const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    const auto prefix = exe.parent_path().parent_path();
    const auto doc = prefix / "share/doc/gpuadvisor";
    if (std::filesystem::is_directory(doc, ec)) {
      return fmt::format(
          "\nDocs: 'man gpuadvisor' and {} (README.md, docs/); JSON Schemas and data in {};\n"
          "shell completions: 'gpuadvisor completion bash|zsh|fish'.",
          doc.string(), (prefix / "share/gpuadvisor").string());
    }
  }
  return "\nDocs: README.md and docs/ in the source tree; JSON Schemas in data/schema/;\n"
         "after 'cmake --install': 'man gpuadvisor', PREFIX/share/doc/gpuadvisor and\n"
         "PREFIX/share/gpuadvisor. Shell completions: 'gpuadvisor completion bash|zsh|fish'.";
}

using ChoiceFn = std::function<std::vector<std::string>()>;

std::map<const CLI::Option*, ChoiceFn>& choice_table() {
  static std::map<const CLI::Option*, ChoiceFn> table;
  return table;
}

}  // namespace

std::string global_options_text(const CLI::App& app, const std::vector<std::string>& formats) {
  std::string out = "\nGlobal options (before or after the command):\n";
  for (const CLI::Option* o : app.get_options()) {
    if (o == app.get_help_ptr()) continue;
    std::string name = o->get_name(false, true);
    if (!o->get_type_name().empty() && o->get_items_expected_max() > 0) {
      name += " " + o->get_type_name();
    }
    std::string help = o->get_description();
    if (o->check_name("--format") && formats.size() > 1) {
      const std::vector<std::string> middle(formats.begin() + 1, formats.end() - 1);
      help = fmt::format("Output format: {} (default){}{} or {}", formats.front(),
                         middle.empty() ? "" : ", ", fmt::join(middle, ", "), formats.back());
    }
    out += fmt::format("  {:<28}{}\n", name, help);
  }
  return out;
}

namespace {

void add_global_help(const CLI::App& app, CLI::App* cmd, const Registry& r) {
  for (const CLI::App* c : commands(cmd, true)) {
    auto* sub = const_cast<CLI::App*>(c);  // commands() hands out const views of our own tree
    std::vector<std::string> formats;
    for (const auto& [a, f] : r.formats) {
      if (a == sub) formats = f;
    }
    sub->footer(global_options_text(app, formats) + sub->get_footer());
    add_global_help(app, sub, r);
  }
}

/// `gpuadvisor help [COMMAND...]`: the help of that command.
ExitCode run_help(const CLI::App& app, const std::vector<std::string>& words) {
  const CLI::App* at = &app;
  for (const auto& w : words) {
    const CLI::App* next = nullptr;
    std::vector<std::string> names;
    for (const CLI::App* c : commands(at)) {
      names.push_back(c->get_name());
      if (c->get_name() == w) next = c;
    }
    if (next == nullptr) {
      throw InputError(Diagnostic{
          "", "",
          fmt::format("unknown command \"{}\"{}", w,
                      did_you_mean(w, names,
                                   fmt::format("; expected one of {}", fmt::join(names, ", "))))});
    }
    at = next;
  }
  // Not at->help(): CLI11 would describe the command being run (`help`).
  const std::string path = command_path(at);
  const std::string prev = path.substr(0, path.size() - at->get_name().size());
  std::cout << at->get_formatter()->make_help(at,
                                              prev.empty() ? at->get_name() : prev + at->get_name(),
                                              CLI::AppFormatMode::Normal)
            << std::flush;
  return ExitCode::ok;
}

}  // namespace

void set_choices(const CLI::Option* o, std::vector<std::string> values) {
  choice_table()[o] = [v = std::move(values)] { return v; };
}

void set_choices(const CLI::Option* o, ChoiceFn fn) { choice_table()[o] = std::move(fn); }

std::vector<std::string> choices(const CLI::Option* o) {
  auto it = choice_table().find(o);
  return it == choice_table().end() ? std::vector<std::string>{} : it->second();
}

std::vector<const CLI::Option*> all_options(const CLI::App* cmd) {
  std::vector<const CLI::Option*> out;
  for (const CLI::Option* o : cmd->get_options()) {
    if (o != cmd->get_help_ptr() && o != cmd->get_help_all_ptr()) out.push_back(o);
  }
  for (const CLI::App* sub : cmd->get_subcommands([](const CLI::App*) { return true; })) {
    if (!sub->get_name().empty()) continue;  // an option group has no name
    for (const CLI::Option* o : all_options(sub)) out.push_back(o);
  }
  return out;
}

std::vector<const CLI::App*> commands(const CLI::App* cmd, bool hidden) {
  std::vector<const CLI::App*> out;
  for (const CLI::App* sub : cmd->get_subcommands([](const CLI::App*) { return true; })) {
    if (sub->get_name().empty()) continue;
    if (!hidden && sub->get_group().empty()) continue;
    out.push_back(sub);
  }
  return out;
}

std::string command_path(const CLI::App* cmd) {
  std::string path = cmd->get_name();
  for (const CLI::App* p = cmd->get_parent(); p != nullptr; p = p->get_parent()) {
    path = p->get_name() + " " + path;
  }
  return path;
}

void build_app(CLI::App& app, Globals& g, Registry& r) {
  app.description("gpuadvisor: sizing advice for GPU training servers, offline and with sources.");
  app.name("gpuadvisor");
  // Repeated options: the last value wins, as in git, cargo and rg. Options
  // that collect values (--catalog, --category, spec files) keep them all.
  app.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  app.set_version_flag("-V,--version", "gpuadvisor " GPUADVISOR_VERSION,
                       "Print 'gpuadvisor VERSION' and exit");
  app.require_subcommand(1);
  app.fallthrough();  // global options may also follow the subcommand
  app.add_option("--catalog", g.catalogs,
                 "Layer a catalog file over the embedded one (repeatable; later files win)")
      ->type_name("FILE")
      ->check(non_empty("a catalog file"));
  set_choices(app.add_option("--format", g.format,
                             "Output format (default text; each command lists what it supports)")
                  ->type_name("FORMAT"),
              std::vector<std::string>{"text", "json", "junit", "sarif", "html"});
  app.add_option("--output", g.output,
                 "Write the result to FILE (atomically; '-' is stdout) instead of stdout")
      ->type_name("FILE")
      ->check(non_empty("a file name (or - for stdout)"));
  set_choices(app.add_option("--color", g.color_mode,
                             "Colour in text output: auto (default: on a terminal, unless "
                             "NO_COLOR is set or TERM=dumb), always or never")
                  ->type_name("WHEN"),
              std::vector<std::string>{"auto", "always", "never"});

  register_recommend(app, g, r);
  register_check(app, g, r);
  register_verify(app, g, r);
  register_estimate(app, g, r);
  register_plan(app, g, r);
  register_catalog(app, g, r);
  register_rules(app, g, r);
  register_completion(app, g, r);

  auto words = std::make_shared<std::vector<std::string>>();
  CLI::App* help =
      app.add_subcommand("help", "Show the help of a command: gpuadvisor help COMMAND");
  help->add_option("command", *words, "The command (and subcommand), e.g. 'catalog list'")
      ->type_name("COMMAND");
  r.add(help, [&app, words] { return run_help(app, *words); });
  CLI::App* version = app.add_subcommand("version", "Print 'gpuadvisor VERSION' (as --version)");
  r.add(version, [] {
    std::cout << "gpuadvisor " GPUADVISOR_VERSION "\n" << std::flush;
    return ExitCode::ok;
  });

  add_global_help(app, &app, r);
  // Last: subcommands inherit the footer of their parent when created.
  app.footer(std::string(kExamples) + docs_text());
}

}  // namespace gpuadvisor::cli
