// `ampbench run --nproc N`: starts N local ranks of the same command as
// child processes of /proc/self/exe, with torchrun's environment (RANK,
// WORLD_SIZE, LOCAL_RANK, MASTER_ADDR=127.0.0.1, MASTER_PORT,
// TORCHELASTIC_USE_AGENT_STORE=True: the launcher hosts the TCPStore on a
// free loopback port, as torchrun's agent does). Rank r's output goes to
// OUT/rank<r>.log; rank 0's is also echoed here. Rank 0 writes
// OUT/results.json.
//
// Failure handling: a rank that dies (a signal, or an exit code other than
// 0 = conforming / 1 = not conforming) or goes silent for
// rank_timeout seconds (no line in its log: each case prints one) ends the
// whole run: the other ranks are terminated and the message names the rank
// and its log. Results already written by rank 0 are kept (they are written
// after every case).
#pragma once

#include <string>
#include <vector>

namespace ampbench::distributed {

struct LaunchOptions {
  int nproc = 1;
  int rank_timeout_s = 120;
  std::string out_dir;
  // The ranks' command line; empty: this process's own (argv[0] is replaced
  // by /proc/self/exe either way).
  std::vector<std::string> args;
};

// Returns the run's exit code.
int launch_local_ranks(const LaunchOptions& options);

// The exit code of a rank that could not join its process group or lost its
// peers: kExitRendezvous (session/exit_codes.h), named here because the
// launcher reads it to blame the hung peer rather than the rank that waited.
inline constexpr int kExitLostPeers = 3;

// Environment variable through which the launcher tells its ranks the output
// directory it chose (so all ranks write under one directory).
inline constexpr const char* kRankOutDirEnv = "AMPBENCH_RANK_OUT_DIR";

}  // namespace ampbench::distributed
