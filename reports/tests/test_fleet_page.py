"""The fleet page in headless Chromium at 16 and at 256 machines
(reports/browser_check.py: images load, no console error, links resolve, no
table wider than the page), plus what a fleet that size needs: the machines
not accepted come first and rejected before investigated, a fleet-wide fault
folds instead of pushing the figure screens down, and the figure is shown
at its own size with a few pixels per machine (wider than the page: in a
strip that scrolls sideways, the page itself never does).

The machines are copies of one synthetic results document with their own
identities, fingerprints and throughput noise (reports/tests/
sample_fleet.py): no C++ runs. Never skipped: without the browser the test
fails and says how to get it, as reports/tests/test_browser.py does.
"""

from __future__ import annotations

import json

import pytest

from reports.browser_check import check_report
from reports.fleet import main
from reports.fleet_output import FIGURE, write_all
from reports.fleet_page import FLAGGED_SHOWN, render_html
from reports.tests.browser_fixture import browser  # noqa: F401 (a fixture)
from reports.tests.sample_fleet import SMALL, machine_doc, write_fleet
from reports.tests.sample_results import make_results

CORRUPT = {"plain/mlp/fp16/sgd"}


def _fleet(base, n, *, slow=(), corrupt=()) -> dict:
    docs = {}
    for i in range(n):
        m = f"gpu-node-{i:04d}"
        docs[m] = machine_doc(m, base=base, noise=0.02, seed=i, speed=0.5 if i in slow else 1.0,
                              corrupt=CORRUPT if i in corrupt else ())
    return docs


def _report(tmp_path_factory, name, docs):
    root = tmp_path_factory.mktemp(name)
    code = main([write_fleet(root / "fleet", docs), "--out", str(root / "out")])
    return code, root / "out"


@pytest.fixture(scope="module")
def fleet16(tmp_path_factory):
    return _report(tmp_path_factory, "fleet16", _fleet(make_results(**SMALL), 16, slow={3}, corrupt={9}))


@pytest.fixture(scope="module")
def fleet256(tmp_path_factory):
    """256 machines of two kinds, three corrupt and a rack of 48 slow (more
    than the page shows open), one of a kind of its own, one that wrote
    nothing."""
    a100 = make_results(**SMALL)
    docs = _fleet(a100, 256, slow=set(range(200, 248)), corrupt={7, 101, 250})
    h100 = make_results(gpu="NVIDIA H100 80GB HBM3", **SMALL)
    for i in range(11, 200, 4):
        docs[f"gpu-node-{i:04d}"] = machine_doc(f"gpu-node-{i:04d}", base=h100, noise=0.02, seed=i)
    docs["gpu-node-lonely"] = machine_doc("gpu-node-lonely", gpu="NVIDIA L40S")
    docs["gpu-node-empty"] = None
    return _report(tmp_path_factory, "fleet256", docs)


def _layout(browser):
    return browser.execute_script(
        "const img = document.querySelector('img');"
        "return {figure_top: img.getBoundingClientRect().top + window.scrollY,"
        " shown: img.getBoundingClientRect().width, natural: img.naturalWidth,"
        " natural_height: img.naturalHeight, folded: document.querySelectorAll('details:not([open])').length,"
        " page_overflow: document.documentElement.scrollWidth - document.documentElement.clientWidth,"
        " flagged: Array.from(document.querySelectorAll('table'))[1].innerText};")


def test_the_page_of_16_machines_opens_cleanly_naming_the_two(browser, fleet16):
    code, out = fleet16
    result = check_report(browser, out)
    assert code == 1 and result.problems == [] and result.images == 1 and result.tables == 2
    layout = _layout(browser)
    flagged = layout["flagged"]
    assert flagged.index("gpu-node-0009\treject") < flagged.index("gpu-node-0003\tinvestigate")
    assert flagged.count("gpu-node-") == 2 and layout["folded"] == 0 and layout["page_overflow"] == 0
    assert layout["shown"] >= 0.95 * layout["natural"]  # not shrunk to fit: the labels keep their size


def test_the_page_of_256_machines_opens_cleanly_and_stays_readable(browser, fleet256):
    code, out = fleet256
    result = check_report(browser, out)
    assert code == 1 and result.problems == [] and result.images == 1
    layout = _layout(browser)
    flagged = layout["flagged"]
    rejected = [flagged.index(f"gpu-node-{i:04d}\treject") for i in (7, 101, 250)]
    assert max(rejected) < flagged.index("\tinvestigate")  # suspects first
    assert flagged.count("gpu-node-") == FLAGGED_SHOWN and layout["folded"] == 1 and layout["page_overflow"] == 0
    # The figure starts within a few screens although 51 machines are named.
    assert layout["figure_top"] < 5 * 900
    assert layout["shown"] >= 0.95 * layout["natural"]
    assert layout["natural_height"] >= 258 * 8  # at least 8 pixels a machine: every label readable
    assert (out / FIGURE).is_file()


def test_a_suite_of_many_cases_scrolls_sideways_instead_of_shrinking(browser, fleet16, tmp_path):
    """The 16 machines' report with every case copied to 120 cases (a real
    suite's size): the figure is wider than the page."""
    report = json.loads((fleet16[1] / "fleet.json").read_text())
    for g in report["groups"]:
        for part in ("cases", "throughput"):
            g[part] = {f"{case}#{k}": v for case, v in g[part].items() for k in range(24)}
    write_all(report, tmp_path)
    result = check_report(browser, tmp_path)
    layout = _layout(browser)
    assert result.problems == [] and layout["page_overflow"] == 0
    assert layout["natural"] > 1280 and layout["shown"] == layout["natural"]


def test_every_machine_not_accepted_is_in_the_page_rejected_first():
    machines = [{"id": f"n{i:03d}", "verdict": "investigate" if i % 7 else "reject", "group": "g1",
                 "reasons": [f"reason {i}"]} for i in range(100)]
    report = {"suite": "smoke", "build": {"git_commit": "abc1234", "git_dirty": True},
              "counts": {"accept": 0, "investigate": 85, "reject": 15}, "machines": machines,
              "groups": [{"id": "g1", "key": {"device": "cuda"}, "machines": [m["id"] for m in machines]}],
              "rule": {"false_alarm": "the rule"}}
    page = render_html(report, FIGURE)
    open_part, folded = page.split("<details>")
    assert all(f"n{i:03d}" in open_part for i in range(0, 100, 7))  # all 15 rejected shown open
    assert open_part.count("<td>investigate</td>") == FLAGGED_SHOWN - 15
    assert folded.count("<td>investigate</td>") == 100 - FLAGGED_SHOWN
    assert "60 more machines not accepted (0 rejected)" in folded
    assert "<td>g1</td><td>100</td><td>0</td><td>85</td><td>15</td>" in page
    assert "uncommitted changes" in page
