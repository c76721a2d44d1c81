#include "distributed/stop_signals.h"

#include <sys/prctl.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

namespace ampbench::distributed {

namespace {

// A signal handler can only reach file-scope state; sig_atomic_t is the one
// type it may write. Only StopSignals installs the handler.
volatile sig_atomic_t g_stop_signal = 0;

void record(int signal) { g_stop_signal = signal; }

}  // namespace

StopSignals::StopSignals() {
  g_stop_signal = 0;
  struct sigaction sa {};
  sa.sa_handler = record;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGTERM, &sa, &old_term_);
  sigaction(SIGINT, &sa, &old_int_);
}

StopSignals::~StopSignals() {
  sigaction(SIGTERM, &old_term_, nullptr);
  sigaction(SIGINT, &old_int_, nullptr);
}

int StopSignals::received() const { return g_stop_signal; }

void die_with_parent(pid_t parent) {
  prctl(PR_SET_PDEATHSIG, SIGTERM);
  // The parent may have died before prctl: then we were re-parented.
  if (getppid() != parent) _exit(stopped_exit_code(SIGTERM));
}

void die_with_launcher() {
  const char* pid = std::getenv(kLauncherPidEnv);
  if (pid == nullptr) return;
  die_with_parent(static_cast<pid_t>(std::strtol(pid, nullptr, 10)));
}

}  // namespace ampbench::distributed
