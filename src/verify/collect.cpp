// Running the vendor tools (posix_spawnp, no shell) and reading recordings.
#include "gpuadvisor/verify/collect.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include <fmt/format.h>

#include "gpuadvisor/core/json_input.hpp"

extern char** environ;

namespace gpuadvisor::verify {
namespace {

namespace fs = std::filesystem;

std::string command_line(const std::vector<std::string>& argv) {
  std::string s;
  for (const auto& a : argv) s += (s.empty() ? "" : " ") + a;
  return s;
}

/// Reads one recording; a missing optional file is "" with no error.
gpuadvisor::expected<std::string, Diagnostic> read_recording(const fs::path& p, bool required) {
  std::error_code ec;
  if (!fs::exists(p, ec)) {
    if (!required) return std::string();
    return gpuadvisor::unexpected(
        Diagnostic{p.string(), "",
                   fmt::format("not found (record 'nvidia-smi -q -x > {}' or, on AMD, 'rocm-smi "
                               "--showallinfo --json > {}'; docs/verify.md)",
                               kSmiFile, kRocmFile)});
  }
  return read_file(p.string(), kMaxToolOutput);
}

}  // namespace

gpuadvisor::expected<std::string, Diagnostic> run_tool(const std::vector<std::string>& argv,
                                                       std::chrono::milliseconds timeout,
                                                       std::size_t max_bytes) {
  const std::string cmd = command_line(argv);
  const auto fail = [&](std::string why) {
    return gpuadvisor::unexpected(Diagnostic{cmd, "", std::move(why)});
  };
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0)
    return fail(fmt::format("cannot create a pipe: {}", std::strerror(errno)));
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, fds[1], STDOUT_FILENO);
  posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&fa, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = 0;
  const int err = ::posix_spawnp(&pid, args[0], &fa, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  ::close(fds[1]);
  if (err != 0) {
    ::close(fds[0]);
    if (err != ENOENT) return fail(std::strerror(err));
    const bool vendor_tool = argv[0].ends_with("-smi");
    return fail(fmt::format("{} not found in PATH{}", argv[0],
                            vendor_tool ? " (is the GPU driver installed?)" : ""));
  }
  std::string out;
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  std::string problem;
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                          deadline - std::chrono::steady_clock::now())
                          .count();
    if (left <= 0) {
      problem = fmt::format("no answer within {} s; stopped it",
                            std::chrono::duration<double>(timeout).count());
      break;
    }
    pollfd p{fds[0], POLLIN, 0};
    const int n = ::poll(&p, 1, static_cast<int>(std::min<long long>(left, 1000)));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) continue;
    char buf[65536];
    const ssize_t got = ::read(fds[0], buf, sizeof buf);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) break;
    out.append(buf, static_cast<std::size_t>(got));
    if (out.size() > max_bytes) {
      problem = fmt::format("printed more than {} bytes; stopped it", max_bytes);
      break;
    }
  }
  ::close(fds[0]);
  if (!problem.empty()) ::kill(pid, SIGKILL);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (!problem.empty()) return fail(problem);
  if (WIFSIGNALED(status)) return fail(fmt::format("killed by signal {}", WTERMSIG(status)));
  if (WEXITSTATUS(status) != 0)
    return fail(fmt::format("exited with status {}", WEXITSTATUS(status)));
  return out;
}

gpuadvisor::expected<Machine, Diagnostics> collect_live() {
  Machine m;
  m.source = "this machine";
  Diagnostics errs;
  auto x = run_tool({"nvidia-smi", "-q", "-x"});
  if (x) {
    if (auto inv = parse_nvidia_smi_xml(*x, "nvidia-smi -q -x"))
      m.gpus = std::move(*inv);
    else
      errs.push_back(inv.error());
    if (auto t = run_tool({"nvidia-smi", "topo", "-m"})) {
      if (auto topo = parse_topology(*t, "nvidia-smi topo -m"))
        m.topology = std::move(*topo);
      else
        errs.push_back(topo.error());
    } else {
      errs.push_back(t.error());
    }
  } else if (auto r = run_tool({"rocm-smi", "--showallinfo", "--json"})) {
    // No NVIDIA tool: an AMD machine answers to rocm-smi.
    if (auto inv = parse_rocm_smi_json(*r, "rocm-smi --showallinfo --json"))
      m.gpus = std::move(*inv);
    else
      errs.push_back(inv.error());
  } else {
    errs.push_back(x.error());
    errs.push_back(r.error());
  }
  for (const auto& [path, parse] :
       {std::pair{"/proc/cpuinfo", &parse_cpuinfo}, std::pair{"/proc/meminfo", &parse_meminfo}}) {
    auto text = read_file(path, kMaxToolOutput);
    if (!text)
      errs.push_back(text.error());
    else if (auto d = parse(*text, path, m.host))
      errs.push_back(*d);
  }
  if (auto l = run_tool({"lsblk", "-J", "-b", "-o", "NAME,TYPE,SIZE,ROTA,TRAN,MODEL"})) {
    if (auto d = parse_lsblk(*l, "lsblk -J", m.host)) errs.push_back(*d);
  } else {
    errs.push_back(l.error());
  }
  // The cpufreq policy straight from sysfs, in the recorded format.
  std::string listing;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator("/sys/devices/system/cpu", ec)) {
    for (const char* f : {"scaling_governor", "energy_performance_preference"}) {
      const fs::path p = e.path() / "cpufreq" / f;
      if (!fs::exists(p, ec)) continue;
      if (auto v = read_file(p.string(), 4096)) listing += p.string() + ":" + *v;
    }
  }
  if (!listing.empty()) {
    if (auto d = parse_cpufreq(listing, "/sys/devices/system/cpu/*/cpufreq", m.host))
      errs.push_back(*d);
  }
  if (!errs.empty()) return gpuadvisor::unexpected(std::move(errs));
  return m;
}

gpuadvisor::expected<Machine, Diagnostics> collect_from(const std::string& dir) {
  Machine m;
  m.source = dir;
  Diagnostics errs;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) {
    return gpuadvisor::unexpected(
        Diagnostics{{"--from", "", fmt::format("\"{}\" is not a directory of recordings", dir)}});
  }
  const fs::path d(dir);
  if (fs::exists(d / kSmiFile, ec) || !fs::exists(d / kRocmFile, ec)) {
    auto smi = read_recording(d / kSmiFile, true);
    if (!smi) {
      errs.push_back(smi.error());
    } else if (auto inv = parse_nvidia_smi_xml(*smi, (d / kSmiFile).string())) {
      m.gpus = std::move(*inv);
    } else {
      errs.push_back(inv.error());
    }
  } else if (auto rocm = read_recording(d / kRocmFile, true); !rocm) {
    errs.push_back(rocm.error());
  } else if (auto inv = parse_rocm_smi_json(*rocm, (d / kRocmFile).string())) {
    m.gpus = std::move(*inv);
  } else {
    errs.push_back(inv.error());
  }
  auto topo = read_recording(d / kTopoFile, false);
  if (!topo)
    errs.push_back(topo.error());
  else if (fs::exists(d / kTopoFile, ec)) {
    if (auto t = parse_topology(*topo, (d / kTopoFile).string()))
      m.topology = std::move(*t);
    else
      errs.push_back(t.error());
  }
  using HostParser = std::optional<Diagnostic> (*)(std::string_view, const std::string&, HostObs&);
  const std::pair<const char*, HostParser> host[] = {{kCpuinfoFile, &parse_cpuinfo},
                                                     {kMeminfoFile, &parse_meminfo},
                                                     {kLsblkFile, &parse_lsblk},
                                                     {kCpufreqFile, &parse_cpufreq}};
  for (const auto& [name, parse] : host) {
    const fs::path p = d / name;
    auto text = read_recording(p, false);
    if (!text)
      errs.push_back(text.error());
    else if (fs::exists(p, ec)) {
      if (auto e = parse(*text, p.string(), m.host)) errs.push_back(*e);
    }
  }
  if (!errs.empty()) return gpuadvisor::unexpected(std::move(errs));
  return m;
}

}  // namespace gpuadvisor::verify
