// Output paths are checked before a run starts, not when its results are
// written: a run of an hour must not end with "cannot write" (or record every
// case as an error because --dump was unwritable). Existing targets that are
// not what we would write are refused: the atomic rename used to replace
// /dev/null (as root, /dev/full) with a regular file.
#pragma once

#include <string>
#include <vector>

namespace ampbench::io {

// FILE flags (--junit, --markdown): an existing regular file is replaced;
// anything else existing (directory, device, FIFO) is refused; a missing file
// needs its nearest existing ancestor to be a writable directory.
// Throws std::invalid_argument("FLAG PATH: reason").
void check_output_file(const std::string& flag, const std::string& path);

// DIR flags (--out, --dump): created now (so an unwritable place fails
// before any work). When `refuse_non_empty`, an existing folder holding
// anything is refused: a rerun must not silently replace a previous run.
void prepare_output_dir(const std::string& flag, const std::string& path, bool refuse_non_empty);
// The refusals of prepare_output_dir without creating anything: a command
// with several output folders checks them all before it creates the first,
// so a refused one leaves no trace of the others.
void check_output_dir(const std::string& flag, const std::string& path, bool refuse_non_empty);

// --overwrite may replace only what ampbench wrote: a folder holding files
// is accepted when it carries the marker mark_run_dir leaves (or, from
// before the marker, results.json of the ampbench schema). Throws
// std::invalid_argument naming the folder otherwise.
inline constexpr const char* kRunMarker = ".ampbench-run";
void check_replaceable(const std::string& flag, const std::string& dir);
void mark_run_dir(const std::string& dir, const std::string& command, const std::string& flag = "--out");

// One path a command reads or writes, with the flag that named it.
struct PathUse {
  std::string flag;
  std::string path;
};

// Before anything runs: refuses (std::invalid_argument naming both flags) an
// output file that is one of the inputs or another output file, and an input
// or output file inside one of the output folders. Symbolic and hard links
// to the same file count as the same file.
void check_distinct_paths(const std::vector<PathUse>& inputs, const std::vector<PathUse>& output_files,
                          const std::vector<PathUse>& output_dirs);

// --overwrite never destroys the previous run before the new one has
// completed: the new run is written into staging_dir(dir), created empty
// here (a stopped run's leftovers there are removed), and replaces the
// previous run only through promote_staged_run once complete.
inline constexpr const char* kStagingName = ".ampbench-incoming";
std::string staging_dir(const std::string& dir);
void prepare_staging_dir(const std::string& dir);

// When staging_dir(dir)/results.json says "complete": true, replaces each
// entry of `dir` the staged run also wrote, plus the previous run's
// results.json, report/, ddp-ranks/ and dump/, with the staged ones (other
// files stay) and removes the staging folder; returns true. Otherwise
// changes nothing and returns false: the previous run stays whole, the
// stopped one stays readable in the staging folder. Throws
// std::invalid_argument naming what could not be moved.
bool promote_staged_run(const std::string& dir);

}  // namespace ampbench::io
