#include "support/run.hpp"

#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <csignal>
#include <cstring>
#include <stdexcept>

extern char** environ;

namespace gpuadvisor::test {

std::string data(const std::string& name) { return std::string(GPUADVISOR_TEST_DATA) + "/" + name; }
std::string source(const std::string& relative) {
  return std::string(GPUADVISOR_SOURCE_DIR) + "/" + relative;
}

namespace {

RunResult spawn(const std::vector<std::string>& args, const std::string& stdin_text,
                const std::vector<std::string>& env, const std::string* stdout_path) {
  std::signal(SIGPIPE, SIG_IGN);  // the child may exit before reading stdin
  int in_pipe[2], out_pipe[2], err_pipe[2];
  if (pipe(in_pipe) != 0 || pipe(out_pipe) != 0 || pipe(err_pipe) != 0) {
    throw std::runtime_error("pipe failed");
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, in_pipe[0], 0);
  if (stdout_path == nullptr)
    posix_spawn_file_actions_adddup2(&actions, out_pipe[1], 1);
  else if (stdout_path->empty())
    posix_spawn_file_actions_addclose(&actions, 1);
  else
    posix_spawn_file_actions_addopen(&actions, 1, stdout_path->c_str(), O_WRONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, err_pipe[1], 2);
  for (int fd : {in_pipe[0], in_pipe[1], out_pipe[0], out_pipe[1], err_pipe[0], err_pipe[1]}) {
    posix_spawn_file_actions_addclose(&actions, fd);
  }
  posix_spawn_file_actions_addchdir_np(&actions, GPUADVISOR_SOURCE_DIR);

  std::vector<std::string> argv_s{GPUADVISOR_BIN};
  argv_s.insert(argv_s.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : argv_s) argv.push_back(a.data());
  argv.push_back(nullptr);

  // Inherit the environment minus NO_COLOR and COLUMNS, plus `env`.
  std::vector<std::string> env_s;
  for (char** e = environ; *e != nullptr; ++e) {
    if (std::strncmp(*e, "NO_COLOR=", 9) != 0 && std::strncmp(*e, "COLUMNS=", 8) != 0) {
      env_s.emplace_back(*e);
    }
  }
  env_s.insert(env_s.end(), env.begin(), env.end());
  std::vector<char*> envp;
  for (auto& e : env_s) envp.push_back(e.data());
  envp.push_back(nullptr);

  pid_t pid = 0;
  const int rc = posix_spawn(&pid, GPUADVISOR_BIN, &actions, nullptr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  close(in_pipe[0]);
  close(out_pipe[1]);
  close(err_pipe[1]);
  if (rc != 0) throw std::runtime_error(std::string("spawn failed: ") + std::strerror(rc));

  // Feed stdin and drain both outputs without deadlocking on full pipes.
  RunResult result;
  std::size_t written = 0;
  int in_fd = in_pipe[1];
  if (stdin_text.empty()) {
    close(in_fd);
    in_fd = -1;
  }
  std::array<pollfd, 3> fds{
      {{out_pipe[0], POLLIN, 0}, {err_pipe[0], POLLIN, 0}, {in_fd, POLLOUT, 0}}};
  int open_outputs = 2;
  char buf[65536];
  while (open_outputs > 0) {
    poll(fds.data(), fds.size(), -1);
    for (int i = 0; i < 2; ++i) {
      if (fds[static_cast<std::size_t>(i)].fd >= 0 &&
          fds[static_cast<std::size_t>(i)].revents != 0) {
        const ssize_t n = read(fds[static_cast<std::size_t>(i)].fd, buf, sizeof buf);
        if (n <= 0) {
          close(fds[static_cast<std::size_t>(i)].fd);
          fds[static_cast<std::size_t>(i)].fd = -1;
          --open_outputs;
        } else {
          (i == 0 ? result.out : result.err).append(buf, static_cast<std::size_t>(n));
        }
      }
    }
    if (fds[2].fd >= 0 && fds[2].revents != 0) {
      const ssize_t n = write(fds[2].fd, stdin_text.data() + written, stdin_text.size() - written);
      if (n > 0) written += static_cast<std::size_t>(n);
      if (n <= 0 || written == stdin_text.size()) {
        close(fds[2].fd);
        fds[2].fd = -1;
      }
    }
  }
  if (fds[2].fd >= 0) close(fds[2].fd);
  int status = 0;
  waitpid(pid, &status, 0);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return result;
}

}  // namespace

RunResult run(const std::vector<std::string>& args, const std::string& stdin_text,
              const std::vector<std::string>& env) {
  return spawn(args, stdin_text, env, nullptr);
}

RunResult run_with_stdout(const std::vector<std::string>& args, const std::string& stdout_path) {
  return spawn(args, "", {}, &stdout_path);
}

}  // namespace gpuadvisor::test
