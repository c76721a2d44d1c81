#include "distributed/launcher.h"
#include "distributed/stop_signals.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <torch/csrc/distributed/c10d/TCPStore.hpp>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <optional>
#include <sstream>
#include <thread>
#include <vector>

extern char** environ;

namespace ampbench::distributed {
namespace {

using Clock = std::chrono::steady_clock;

std::vector<std::string> own_argv() {
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  std::vector<std::string> args;
  std::string arg;
  while (std::getline(in, arg, '\0')) args.push_back(arg);
  return args;
}

struct Rank {
  int rank = 0;
  pid_t pid = -1;
  std::string log;
  bool running = true;
  int status = 0;
  std::uintmax_t last_size = 0;
  Clock::time_point last_progress = Clock::now();
};

std::string describe_exit(int status) {
  if (WIFSIGNALED(status)) {
    const int sig = WTERMSIG(status);
    return std::string("was killed by signal ") + std::to_string(sig) + " (" + strsignal(sig) + ")";
  }
  return "exited with code " + std::to_string(WEXITSTATUS(status));
}

bool normal_exit(int status) {
  return WIFEXITED(status) && (WEXITSTATUS(status) == 0 || WEXITSTATUS(status) == 1);
}

void terminate_all(std::vector<Rank>& ranks) {
  for (Rank& r : ranks)
    if (r.running) kill(r.pid, SIGTERM);
  const auto deadline = Clock::now() + std::chrono::seconds(5);
  for (;;) {
    bool any = false;
    for (Rank& r : ranks) {
      if (!r.running) continue;
      if (waitpid(r.pid, &r.status, WNOHANG) == r.pid) {
        r.running = false;
      } else {
        any = true;
      }
    }
    if (!any) return;
    if (Clock::now() > deadline) {
      for (Rank& r : ranks)
        if (r.running) kill(r.pid, SIGKILL);
      for (Rank& r : ranks)
        if (r.running) {
          waitpid(r.pid, &r.status, 0);
          r.running = false;
        }
      return;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

// Copies what rank 0 appended to its log since the last call.
void echo(const std::string& path, std::streamoff& offset) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return;
  in.seekg(offset);
  std::string chunk((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  offset += static_cast<std::streamoff>(chunk.size());
  std::cout << chunk << std::flush;
}


// The environment of rank `r`: this process's, minus any launch variables it
// was itself given, plus the rank's own.
std::vector<std::string> rank_environment(int r, const LaunchOptions& options, int port, const std::string& out_dir) {
  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string kv = *e;
    const std::string key = kv.substr(0, kv.find('='));
    if (key == "RANK" || key == "WORLD_SIZE" || key == "LOCAL_RANK" || key == "MASTER_ADDR" || key == "MASTER_PORT" ||
        key == "TORCHELASTIC_USE_AGENT_STORE" || key == kRankOutDirEnv || key == kLauncherPidEnv)
      continue;
    env.push_back(kv);
  }
  // As torchrun: ranks sharing a host must not each start an OpenMP team
  // as wide as the host (they would spin against each other).
  if (std::getenv("OMP_NUM_THREADS") == nullptr) {
    const long cores = std::max(1L, sysconf(_SC_NPROCESSORS_ONLN));
    env.push_back("OMP_NUM_THREADS=" + std::to_string(std::max(1L, cores / options.nproc)));
  }
  env.push_back("RANK=" + std::to_string(r));
  env.push_back("WORLD_SIZE=" + std::to_string(options.nproc));
  env.push_back("LOCAL_RANK=" + std::to_string(r));
  env.push_back("MASTER_ADDR=127.0.0.1");
  env.push_back("MASTER_PORT=" + std::to_string(port));
  env.push_back("TORCHELASTIC_USE_AGENT_STORE=True");
  env.push_back(std::string(kRankOutDirEnv) + "=" + out_dir);
  env.push_back(std::string(kLauncherPidEnv) + "=" + std::to_string(getpid()));
  return env;
}

// Starts this executable as `rank`, its output in rank.log; errno on failure.
int spawn_rank(Rank& rank, const std::vector<std::string>& args, const std::vector<std::string>& env) {
  std::vector<char*> argv, envp;
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  for (const std::string& e : env) envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, rank.log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  const int rc = posix_spawn(&rank.pid, "/proc/self/exe", &actions, nullptr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  return rc;
}

long seconds_since(Clock::time_point t) {
  return static_cast<long>(std::chrono::duration_cast<std::chrono::seconds>(Clock::now() - t).count());
}

// Reaps the ranks that exited; the failure to report when one died. Reap
// first, then blame: a rank killed by a signal is the cause, a rank that
// exited because it lost its peers only a consequence, and then the culprit
// is the running rank silent longest (hung, e.g. in a deadlock).
std::optional<std::string> reap_and_blame(std::vector<Rank>& ranks) {
  const Rank* died = nullptr;
  for (Rank& r : ranks) {
    if (r.running && waitpid(r.pid, &r.status, WNOHANG) == r.pid) {
      r.running = false;
      const bool worse = died == nullptr || (WIFSIGNALED(r.status) && !WIFSIGNALED(died->status));
      if (!normal_exit(r.status) && worse) died = &r;
    }
  }
  if (died == nullptr) return std::nullopt;
  const Rank* silent = nullptr;
  for (const Rank& r : ranks)
    if (r.running && (silent == nullptr || r.last_progress < silent->last_progress)) silent = &r;
  if (WIFEXITED(died->status) && WEXITSTATUS(died->status) == kExitLostPeers && silent != nullptr)
    return "rank " + std::to_string(silent->rank) + " (pid " + std::to_string(silent->pid) +
           ") appears hung: silent for " + std::to_string(seconds_since(silent->last_progress)) + " s while rank " +
           std::to_string(died->rank) + " timed out waiting for it (exited with code " +
           std::to_string(kExitLostPeers) + "); see its log: " + silent->log;
  return "rank " + std::to_string(died->rank) + " (pid " + std::to_string(died->pid) + ") " +
         describe_exit(died->status) + "; see its log: " + died->log;
}

// Notes each running rank's progress (its log grew); the failure to report
// when one has been silent past `limit`.
std::optional<std::string> find_stalled_rank(std::vector<Rank>& ranks, std::chrono::seconds limit,
                                             int rank_timeout_s) {
  for (Rank& r : ranks) {
    if (!r.running) continue;
    std::error_code ec;
    const auto size = std::filesystem::file_size(r.log, ec);
    if (!ec && size != r.last_size) {
      r.last_size = size;
      r.last_progress = Clock::now();
    } else if (Clock::now() - r.last_progress > limit) {
      return "rank " + std::to_string(r.rank) + " (pid " + std::to_string(r.pid) + ") made no progress for " +
             std::to_string(limit.count()) + " s (--rank-timeout " + std::to_string(rank_timeout_s) +
             " s plus grace); see its log: " + r.log;
    }
  }
  return std::nullopt;
}

// Every rank's state, for the post-mortem.
std::string rank_states(const std::vector<Rank>& ranks) {
  std::ostringstream states;
  for (const Rank& r : ranks) {
    states << "\n  rank " << r.rank << " (pid " << r.pid << "): ";
    if (r.running) {
      states << "running, silent for " << seconds_since(r.last_progress) << " s";
    } else {
      states << describe_exit(r.status);
    }
    states << "; log " << r.log;
  }
  return states.str();
}

bool any_running(const std::vector<Rank>& ranks) {
  return std::any_of(ranks.begin(), ranks.end(), [](const Rank& r) { return r.running; });
}

// Echoes rank 0 and watches every rank until all have exited, one failed or
// stalled, or a stop signal came. Returns the launcher's exit code.
int watch_ranks(std::vector<Rank>& ranks, const StopSignals& stop, const LaunchOptions& options,
                const std::string& out_dir) {
  // The watchdog allows a little more than the process-group timeout, so a
  // rank stuck in a collective with a hung peer reports its own timeout
  // first and the silent rank is the one named.
  const auto silence_limit = std::chrono::seconds(options.rank_timeout_s + std::max(5, options.rank_timeout_s / 2));
  std::streamoff echoed = 0;
  std::optional<std::string> failure;
  while (!failure && any_running(ranks)) {
    echo(ranks[0].log, echoed);
    if (const int sig = stop.received()) {
      // Stopped: every rank gets SIGTERM (then SIGKILL after 5 s); what
      // rank 0 wrote stays, marked incomplete, and no report is made.
      terminate_all(ranks);
      echo(ranks[0].log, echoed);
      std::cerr << "ampbench run: error: stopped by signal " << sig << " (" << strsignal(sig)
                << "); the ranks were stopped; results written so far (incomplete): " << out_dir << "/results.json\n";
      return stopped_exit_code(sig);
    }
    failure = reap_and_blame(ranks);
    if (!failure) failure = find_stalled_rank(ranks, silence_limit, options.rank_timeout_s);
    if (!failure && any_running(ranks)) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  if (failure) {
    const std::string states = rank_states(ranks);
    terminate_all(ranks);
    echo(ranks[0].log, echoed);
    std::cerr << "ampbench run: error: " << *failure << states
              << "\nthe other ranks were stopped; results written so far: " << out_dir << "/results.json\n";
    return 1;
  }
  echo(ranks[0].log, echoed);
  int code = 0;
  for (const Rank& r : ranks) {
    const int c = WEXITSTATUS(r.status);
    if (c != 0) std::cerr << "ampbench run: rank " << r.rank << " exited with code " << c << " (log: " << r.log << ")\n";
    code = std::max(code, c);
  }
  return code;
}

}  // namespace

int launch_local_ranks(const LaunchOptions& options) {
  namespace fs = std::filesystem;
  fs::create_directories(options.out_dir);
  const std::string out_dir = fs::absolute(options.out_dir).string();

  // The agent store: bound to a free port chosen by the kernel, kept open by
  // this process for the whole run (no port race between picking and use).
  c10d::TCPStoreOptions store_options;
  store_options.port = 0;
  store_options.isServer = true;
  store_options.numWorkers = static_cast<std::size_t>(options.nproc);
  store_options.waitWorkers = false;
  store_options.timeout = std::chrono::seconds(options.rank_timeout_s);
  auto store = c10::make_intrusive<c10d::TCPStore>("127.0.0.1", store_options);
  const int port = store->getPort();
  const std::vector<std::string> args = options.args.empty() ? own_argv() : options.args;

  std::cout << "launching " << options.nproc << " ranks (store 127.0.0.1:" << port << ", logs " << out_dir
            << "/rank<N>.log, --rank-timeout " << options.rank_timeout_s << " s)" << std::endl;
  const StopSignals stop;  // forwarded to the ranks below, never lost
  std::vector<Rank> ranks(static_cast<size_t>(options.nproc));
  for (int r = 0; r < options.nproc; ++r) {
    Rank& rank = ranks[static_cast<size_t>(r)];
    rank.rank = r;
    rank.log = out_dir + "/rank" + std::to_string(r) + ".log";
    if (const int rc = spawn_rank(rank, args, rank_environment(r, options, port, out_dir)); rc != 0) {
      std::cerr << "ampbench run: error: cannot start rank " << r << ": " << std::strerror(rc) << "\n";
      ranks.resize(static_cast<size_t>(r));
      terminate_all(ranks);
      return 1;
    }
  }
  return watch_ranks(ranks, stop, options, out_dir);
}

}  // namespace ampbench::distributed
