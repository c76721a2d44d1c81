"""ampbench comparison reports: results.json files -> figures, HTML, Markdown.

    python -m reports RESULTS.json [MORE.json ...] --out DIR
"""

from reference.python.results_file import ResultsError, load_results

from .build import Report, build_report
from .output import OutputError

__all__ = ["Report", "build_report", "load_results", "ResultsError", "OutputError"]
