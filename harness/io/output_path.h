// Output paths are checked before a run starts, not when its results are
// written: a run of an hour must not end with "cannot write" (or record every
// case as an error because --dump was unwritable). Existing targets that are
// not what we would write are refused: the atomic rename used to replace
// /dev/null (as root, /dev/full) with a regular file.
#pragma once

#include <string>

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

// Removes what a previous `ampbench run` wrote into `dir` (results.json and
// its .tmp, report/, ddp-ranks/, dump/): --overwrite. Other files stay.
void remove_previous_run(const std::string& dir);

}  // namespace ampbench::io
