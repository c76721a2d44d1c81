// The exit codes of every ampbench command (the README's table).
#pragma once

namespace ampbench {

// Exit codes shared by every subcommand (the README's table). Every
// non-zero exit prints its reason on stderr ("... error: ...").
//   0        everything conforms / no regression
//   1        the run worked and found a problem: a case does not conform or
//            errored, a regression, a rank crashed or hung
//   2        unusable input: arguments, flags, suite/results/ceilings files,
//            output paths; nothing ran (or nothing more ran)
//   3        a DDP rank could not join its process group or lost its peers
//            (rendezvous timeout, unreachable MASTER_ADDR)
//   128+N    stopped by signal N (130 SIGINT, 143 SIGTERM): results so far
//            stay in results.json, marked incomplete, with no report
inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1;
inline constexpr int kExitUsage = 2;
inline constexpr int kExitRendezvous = 3;  // = distributed::kExitLostPeers

// The table above as every command's --help ends with it.
inline constexpr const char* kExitCodesHelp =
    "Exit status: 0 everything conforms / no regression; 1 the command worked and found a problem (a case\n"
    "that does not conform or errored, a regression, a rank that crashed or hung); 2 unusable input, nothing\n"
    "ran; 3 a DDP rank lost its process group; 128+N stopped by signal N (results so far kept, incomplete).";

}  // namespace ampbench
