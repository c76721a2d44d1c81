#include "env/env_fingerprint.h"
#include "amp/float32_math.h"
#include "core/build_info.h"

#include <ATen/Context.h>
#include <ATen/Version.h>
#include <ATen/detail/CUDAHooksInterface.h>
#include <torch/cuda.h>
#include <torch/headeronly/version.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <stdexcept>
#include <thread>

#include <sys/utsname.h>
#include <unistd.h>

#ifdef AMPBENCH_HAVE_CUDA
#include <ATen/cuda/CUDAContext.h>
#include <cuda_runtime_api.h>
#include <torch/csrc/cuda/nccl.h>
#endif

namespace ampbench {
namespace {

std::string trim(std::string s) {
  const auto first = s.find_first_not_of(" \t\r\n");
  if (first == std::string::npos) return "";
  const auto last = s.find_last_not_of(" \t\r\n");
  return s.substr(first, last - first + 1);
}

// Runs a shell command and returns its stdout, or "" when it fails.
std::string capture(const std::string& command) {
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen((command + " 2>/dev/null").c_str(), "r"), pclose);
  if (!pipe) return "";
  std::array<char, 512> buffer{};
  std::string out;
  while (fgets(buffer.data(), buffer.size(), pipe.get()) != nullptr) out += buffer.data();
  return trim(out);
}

std::string cpu_model() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  while (std::getline(cpuinfo, line)) {
    if (line.rfind("model name", 0) == 0) {
      const auto colon = line.find(':');
      if (colon != std::string::npos) return trim(line.substr(colon + 1));
    }
  }
  return "none";
}

std::string cpuinfo_text() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::ostringstream text;
  text << cpuinfo.rdbuf();
  return text.str();
}

std::string cpu_flags_line() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  while (std::getline(cpuinfo, line))
    if (line.rfind("flags", 0) == 0) return line;
  return "";
}

std::string host_name() {
  std::array<char, 256> name{};
  if (gethostname(name.data(), name.size()) != 0) return "none";
  return name.data();
}

std::string os_name() {
  utsname u{};
  if (uname(&u) != 0) return "none";
  return std::string(u.sysname) + " " + u.release + " " + u.machine;
}

// LibTorch reports its build switches as "KEY=VALUE, " pairs in show_config().
bool build_switch_on(const std::string& config, const std::string& key) {
  const auto pos = config.find(key + "=");
  if (pos == std::string::npos) return false;
  const auto value = config.substr(pos + key.size() + 1, 3);
  return value.rfind("ON", 0) == 0 || value.rfind("1", 0) == 0;
}

TorchBuild probe_torch_build() {
  const std::string config = at::show_config();
  TorchBuild build;
  build.cuda = build_switch_on(config, "USE_CUDA");
  build.gloo = build_switch_on(config, "USE_GLOO");
  build.nccl = build_switch_on(config, "USE_NCCL");
  // The wheel's LibTorch always ships c10d; Gloo or NCCL mean it was built in.
  build.distributed = build.gloo || build.nccl || build_switch_on(config, "USE_DISTRIBUTED");
  return build;
}

std::string version_triplet(long v, long major_div, long minor_div) {
  return std::to_string(v / major_div) + "." + std::to_string((v % major_div) / minor_div) + "." +
         std::to_string(v % minor_div);
}

void probe_cuda(EnvFingerprint& env) {
#ifdef AMPBENCH_HAVE_CUDA
  if (!torch::cuda::is_available()) return;
  env.device = "cuda";
  env.gpu_count = static_cast<int>(torch::cuda::device_count());
  const cudaDeviceProp* props = at::cuda::getDeviceProperties(0);
  env.gpu_name = props->name;
  env.compute_capability = std::to_string(props->major) + "." + std::to_string(props->minor);
  int driver = 0;
  if (cudaDriverGetVersion(&driver) == cudaSuccess)
    env.driver = std::to_string(driver / 1000) + "." + std::to_string((driver % 1000) / 10);
  int runtime = 0;
  if (cudaRuntimeGetVersion(&runtime) == cudaSuccess)
    env.cuda_runtime = std::to_string(runtime / 1000) + "." + std::to_string((runtime % 1000) / 10);
  try {
    env.cudnn = version_triplet(at::detail::getCUDAHooks().versionCuDNN(), 10000, 100);
  } catch (const std::exception&) {
  }
  try {
    env.nccl = nccl_version_from_torch(torch::cuda::nccl::version());
  } catch (const std::exception&) {
  }
  // The driver's own version string (e.g. 580.95.05) is more useful than the
  // CUDA API level when present.
  const std::string smi = capture("nvidia-smi --query-gpu=driver_version --format=csv,noheader -i 0");
  if (!smi.empty()) env.driver = smi;
#else
  (void)env;
#endif
}

void probe_git(EnvFingerprint& env) {
  const std::string dir = build_info::source_dir();
  const std::string commit = capture("git -C '" + dir + "' rev-parse --verify -q HEAD");
  if (commit.empty()) return;
  env.git_commit = commit;
  env.git_dirty = !capture("git -C '" + dir + "' status --porcelain --untracked-files=no").empty();
}

}  // namespace

std::string nccl_version_from_torch(std::uint64_t packed) {
  // Not NCCL's decimal code: torch packs NCCL_MAJOR/MINOR/PATCH into bit
  // fields (torch/csrc/cuda/nccl.cpp), which the decimal decoding read as
  // "859176.96.9" on the H200 (evidence env.json).
  if (packed == 0) return "none";  // LibTorch without NCCL
  return std::to_string(packed >> 32) + "." + std::to_string((packed >> 16) & 0xffff) + "." +
         std::to_string(packed & 0xffff);
}

std::string nccl_version_from_code(long code) {
  if (code < 100) throw std::invalid_argument("NCCL version code " + std::to_string(code) + " is below 100 (0.1.0)");
  // NCCL 2.9 widened the minor field (nccl.h: NCCL_VERSION(X,Y,Z)).
  return version_triplet(code, code >= 10000 ? 10000 : 1000, 100);
}

std::string cpu_id_of(const std::string& cpuinfo) {
  std::istringstream lines(cpuinfo);
  std::map<std::string, std::string> field;
  for (std::string line; std::getline(lines, line);) {
    if (trim(line).empty() && !field.empty()) break;  // the first processor's block only
    const auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    field.emplace(trim(line.substr(0, colon)), trim(line.substr(colon + 1)));
  }
  auto has = [&](const char* key) { return field.count(key) && !field[key].empty(); };
  if (has("vendor_id") && has("cpu family") && has("model"))
    return field["vendor_id"] + " family " + field["cpu family"] + " model " + field["model"];
  if (has("CPU implementer") && has("CPU part"))
    return "arm implementer " + field["CPU implementer"] + " part " + field["CPU part"];
  return "none";
}

std::vector<std::string> cpu_features_of(const std::string& flags_line) {
  std::istringstream words(flags_line);
  std::set<std::string> present;
  for (std::string w; words >> w;) present.insert(w);
  std::vector<std::string> out;
  for (const char* f : {"avx2", "avx512f", "avx512_bf16", "avx512_fp16", "amx_bf16", "amx_fp16"})
    if (present.count(f)) out.emplace_back(f);
  return out;
}

std::string cpu_kind_of(const std::vector<std::string>& features) {
  auto has = [&](const char* f) { return std::find(features.begin(), features.end(), f) != features.end(); };
  if (has("amx_bf16")) return "amx";
  if (has("avx512_bf16")) return "avx512_bf16";
  if (has("avx512f")) return "avx512";
  if (has("avx2")) return "avx2";
  return "other";
}

EnvFingerprint probe_environment() {
  EnvFingerprint env;
  env.host = host_name();
  env.os = os_name();
  env.cpu_model = cpu_model();
  env.cpu_id = cpu_id_of(cpuinfo_text());
  env.cpu_cores = static_cast<int>(std::thread::hardware_concurrency());
  env.cpu_features = cpu_features_of(cpu_flags_line());
  env.cpu_kind = cpu_kind_of(env.cpu_features);
  env.cpu_capability = at::get_cpu_capability();
  const char* isa = std::getenv("ONEDNN_MAX_CPU_ISA");
  env.onednn_max_cpu_isa = isa ? isa : "";
  env.libtorch_version = TORCH_VERSION;
  env.torch_build = probe_torch_build();
  env.compiler = build_info::compiler();
  probe_cuda(env);
  probe_git(env);
  try {
    env.float32_math = amp::float32_math_fingerprint();
  } catch (const std::exception& e) {
    env.float32_math = {{"error", e.what()}};
  }
  return env;
}

nlohmann::json to_json(const EnvFingerprint& env) {
  return {
      {"host", env.host},
      {"os", env.os},
      {"cpu_model", env.cpu_model},
      {"cpu_id", env.cpu_id},
      {"cpu_cores", env.cpu_cores},
      {"cpu_features", env.cpu_features},
      {"cpu_kind", env.cpu_kind},
      {"cpu_capability", env.cpu_capability},
      {"onednn_max_cpu_isa", env.onednn_max_cpu_isa},
      {"device", env.device},
      {"gpu_name", env.gpu_name},
      {"gpu_count", env.gpu_count},
      {"compute_capability", env.compute_capability},
      {"driver", env.driver},
      {"cuda_runtime", env.cuda_runtime},
      {"cudnn", env.cudnn},
      {"nccl", env.nccl},
      {"libtorch_version", env.libtorch_version},
      {"torch_build",
       {{"cuda", env.torch_build.cuda},
        {"distributed", env.torch_build.distributed},
        {"gloo", env.torch_build.gloo},
        {"nccl", env.torch_build.nccl}}},
      {"compiler", env.compiler},
      {"git_commit", env.git_commit},
      {"git_dirty", env.git_dirty},
      {"float32_math", env.float32_math},
  };
}

std::string to_text(const EnvFingerprint& env) {
  std::ostringstream out;
  const nlohmann::json j = to_json(env);
  for (const auto& [key, value] : j.items()) {
    if (value.is_object()) {
      out << key << ":";
      for (const auto& [k, v] : value.items()) {
        out << " " << k << "=";
        if (v.is_boolean()) out << (v.get<bool>() ? "on" : "off");
        else out << (v.is_string() ? v.get<std::string>() : v.dump());
      }
      out << "\n";
    } else {
      out << key << ": " << (value.is_string() ? value.get<std::string>() : value.dump()) << "\n";
    }
  }
  return out.str();
}

}  // namespace ampbench
