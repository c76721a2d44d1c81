"""C++ against Python throughput, case by case.

    python -m reference.python.throughput_ratio CPP.json PY.json

CPP.json from `ampbench run`, PY.json from `python -m reference.python.bench`
(same suite, same machine, ideally the same thread count): prints, for every
case both measured, the median samples/s of each and the ratio C++ / Python,
then the geometric mean.  A C++ case replaying a CUDA graph (`.../adamw+fused+graph`)
is compared with Python's case of the same id without `+graph` (the reference does
not capture).  Exit 2 when a file is unreadable or not a valid results file
(reference/python/results_file.py names the problem), or they share no
measured case.
"""
from __future__ import annotations

import math
import sys

from .results_file import ResultsError, load_results


def medians(path) -> dict[str, float]:
    """{case id: median samples/s} of the cases the file timed."""
    return {c.id: c.throughput.median for c in load_results(path).cases if c.throughput}


def python_id(cpp_id: str) -> str:
    """The Python case a C++ case is measured against: itself, or for a
    CUDA-graph case the same case without "+graph"."""
    head, at, tag = cpp_id.partition("@")
    return head.replace("+graph", "") + at + tag


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    try:
        cpp, py = medians(argv[0]), medians(argv[1])
    except ResultsError as e:
        print(f"throughput_ratio: error: {e}", file=sys.stderr)
        return 2
    common = [i for i in cpp if python_id(i) in py]
    if not common:
        print("throughput_ratio: error: no case measured in both files", file=sys.stderr)
        return 2
    width = max(len(i) for i in common)
    print(f"{'case':<{width}}  {'C++ /s':>10}  {'Python /s':>10}  {'C++/Py':>6}")
    logs = []
    for i in common:
        ratio = cpp[i] / py[python_id(i)]
        logs.append(math.log(ratio))
        print(f"{i:<{width}}  {cpp[i]:10.1f}  {py[python_id(i)]:10.1f}  {ratio:6.2f}")
    print(f"geometric mean C++/Python over {len(common)} cases: {math.exp(sum(logs) / len(logs)):.2f}"
          f" (min {math.exp(min(logs)):.2f}, max {math.exp(max(logs)):.2f})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
