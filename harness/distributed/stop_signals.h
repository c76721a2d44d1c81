// Stopping a run that has child processes (DDP ranks, the report): a SIGTERM
// or SIGINT to the launcher must stop every child too, and a child must not
// outlive a launcher that was killed outright (SIGKILL). Without this the
// ranks finished their cases unseen and the run still ended "complete".
#pragma once

#include <signal.h>

namespace ampbench::distributed {

// Set by the launcher in each rank's environment: its own pid.
inline constexpr const char* kLauncherPidEnv = "AMPBENCH_LAUNCHER_PID";

// While alive, SIGTERM and SIGINT are recorded instead of killing this
// process, so the launcher can stop its ranks first; the previous handlers
// come back on destruction. One at a time (the recording is process-wide,
// as signal delivery is).
class StopSignals {
 public:
  StopSignals();
  ~StopSignals();
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;

  // The signal received since construction, 0 if none.
  int received() const;

 private:
  struct sigaction old_term_ {};
  struct sigaction old_int_ {};
};

// Exit status of a run stopped by `signal`, as a shell reports it.
inline int stopped_exit_code(int signal) { return 128 + signal; }

// In a rank: asks the kernel to send SIGTERM when the launcher dies, and
// exits at once if it already has. No-op outside a launched rank.
void die_with_launcher();

// In a child just forked (before exec): the same for any parent.
void die_with_parent(pid_t parent);

}  // namespace ampbench::distributed
