#include <iostream>
#include <memory>

#include "cli/command.h"
#include "env/env_fingerprint.h"

namespace ampbench::cli {

void add_env_command(CLI::App& app, Action& selected) {
  auto as_json = std::make_shared<bool>(false);
  CLI::App* sub = app.add_subcommand("env", "Print the environment fingerprint every results file carries");
  sub->add_flag("--json", *as_json, "Print JSON instead of text");
  sub->callback([as_json, &selected] {
    selected = [as_json] {
      const EnvFingerprint env = probe_environment();
      if (*as_json) {
        std::cout << to_json(env).dump(2) << "\n";
      } else {
        std::cout << to_text(env);
      }
      return kExitOk;
    };
  });
}

}  // namespace ampbench::cli
