#include <iomanip>
#include <iostream>
#include <memory>
#include <string>

#include "cli/command.h"
#include "suite/suite.h"

namespace ampbench::cli {

void add_list_command(CLI::App& app, Action& selected) {
  auto suite = std::make_shared<std::string>("smoke");
  auto device = std::make_shared<std::string>("cpu");
  CLI::App* sub = app.add_subcommand("list", "List the cases a suite expands to");
  sub->add_option("--suite", *suite, "Suite name (suites/NAME.json) or path")->capture_default_str();
  sub->add_option("--device", *device, "Device the cases would run on")
      ->check(CLI::IsMember({"cpu", "cuda"}))
      ->capture_default_str();
  sub->callback([suite, device, &selected] {
    selected = [suite, device] {
      Suite s;
      try {
        s = load_suite(*suite, *parse_device_kind(*device));  // --device is checked to be one
      } catch (const SuiteError& e) {
        std::cerr << "ampbench list: error: " << e.what() << "\n";
        return kExitUsage;
      }
      std::cout << "suite " << s.name << " (" << s.path << "): " << s.cases.size() << " cases\n";
      for (const CaseSpec& c : s.cases) {
        std::cout << "  " << std::left << std::setw(56) << c.id << " expect=" << to_string(c.expect)
                  << (c.is_baseline() ? "  (fp32 baseline)" : "  vs " + c.baseline_id) << "\n";
      }
      return kExitOk;
    };
  });
}

}  // namespace ampbench::cli
