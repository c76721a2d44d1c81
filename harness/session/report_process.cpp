// The report step of `ampbench run` and `ampbench qualify`: Python
// (reports/), run as a child that dies with this process; and that way of
// running a child, shared with `ampbench autocast-ops` (child_process.h).
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include "session/child_process.h"
#include "session/run_session.h"
#include "core/build_info.h"
#include "distributed/stop_signals.h"

namespace ampbench {

// Runs argv[0] (no shell: a shell would fork the real program as a
// grandchild, which PR_SET_PDEATHSIG does not reach) in `cwd`, as a child
// that dies with this process: a report must not go on being built for a
// run that was stopped. Returns its exit status, -1 if it did not exit.
int run_dying_with_us(const std::vector<std::string>& argv, const std::string& cwd, const std::string& stderr_path) {
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  std::cout << std::flush;
  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid < 0) return -1;
  if (pid == 0) {
    distributed::die_with_parent(parent);
    if (::chdir(cwd.c_str()) != 0) _exit(127);
    if (!stderr_path.empty()) {
      const int fd = ::open(stderr_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
      if (fd < 0 || ::dup2(fd, STDERR_FILENO) < 0) _exit(127);
    }
    execvp(args[0], args.data());
    _exit(127);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return -1;
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

std::string python_interpreter() {
  const char* python = std::getenv("AMPBENCH_PYTHON");
  return python ? python : build_info::default_python();
}

// A failure there never loses the results.
bool make_report(const std::vector<std::string>& results_paths, const std::string& report_dir) {
  std::vector<std::string> argv = {python_interpreter(), "-m", "reports"};
  for (const std::string& p : results_paths) argv.push_back(std::filesystem::absolute(p).string());
  argv.insert(argv.end(), {"--out", std::filesystem::absolute(report_dir).string()});
  std::string cmd;  // for the message
  for (const std::string& a : argv) cmd += (cmd.empty() ? "" : " ") + a;
  if (run_dying_with_us(argv, build_info::source_dir()) == 0) {
    std::cout << "report:  " << report_dir << "/index.html\n";
    return true;
  }
  std::cerr << "ampbench: warning: the report step failed (results are intact): " << cmd << "\n";
  return false;
}

}  // namespace ampbench
