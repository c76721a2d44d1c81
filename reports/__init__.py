"""ampbench comparison reports: results.json files -> figures, HTML, Markdown.

    python -m reports RESULTS.json [MORE.json ...] --out DIR
"""

from .build import Report, build_report
from .output import OutputError
from .schema import ResultsError, load_results

__all__ = ["Report", "build_report", "load_results", "ResultsError", "OutputError"]
