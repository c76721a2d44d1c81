"""The report in a real browser: headless Chromium (Debian's chromium and
chromium-driver, installed by ci/bootstrap.sh) driven by Selenium.

Never skipped: without the browser the test fails and says how to get it.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import pytest

from reports import build_report
from reports.browser_check import check_report, open_browser
from reports.tests.browser_fixture import browser  # noqa: F401 (a fixture)
from reports.tests.sample_results import make_results, write_results


@pytest.fixture(scope="module")
def reports_built(tmp_path_factory, single, pair):
    """Copies of the session's reports (the screenshots must not land in the
    folders other tests compare with the figure list), plus a single-file one."""
    base = tmp_path_factory.mktemp("browser")
    built = {"smoke": base / "smoke", "comparison": base / "comparison", "single-file": base / "single"}
    shutil.copytree(single[1], built["smoke"])
    shutil.copytree(pair[1], built["comparison"])
    small = make_results(workloads=("plain", "clip_norm"), models=("mlp",))
    report = build_report([write_results(base / "r.json", small)], built["single-file"], single_file=True)
    figures = {kind: len(list(path.glob("*.png"))) for kind, path in built.items()}
    figures["single-file"] = len(report.figures)
    return built, figures


@pytest.mark.parametrize("kind", ["smoke", "comparison", "single-file"])
def test_report_opens_cleanly_in_chromium(browser, reports_built, kind):
    built, figures = reports_built
    report = built[kind]
    result = check_report(browser, report)
    assert result.problems == []
    assert result.images == figures[kind] >= 5 and result.tables >= 5 and result.links >= 5
    for shot in ("screenshot.png", "screenshot-top.png"):
        assert (report / shot).read_bytes()[:4] == b"\x89PNG", shot


def test_the_check_sees_a_broken_image_a_dead_link_and_a_wide_table(browser, tmp_path, reports_built):
    """The checks have teeth: a report with one of each fault fails each."""
    broken = tmp_path / "broken"
    shutil.copytree(reports_built[0]["smoke"], broken)
    page = (reports_built[0]["smoke"] / "index.html").read_text(encoding="utf-8")
    page = page.replace('src="run1_throughput.png"', 'src="missing.png"', 1)
    page = page.replace("</body>", '<a href="#nowhere">x</a><table><tr><td style="white-space:nowrap">'
                        + "wide " * 400 + "</td></tr></table></body>")
    (broken / "index.html").write_text(page, encoding="utf-8")
    problems = "\n".join(check_report(browser, broken).problems)
    assert "missing.png did not load" in problems
    assert "#nowhere points to no element" in problems
    assert "px wide" in problems
    assert "console SEVERE" in problems  # the failed image load is a console error too


def test_single_file_report_is_one_file(reports_built):
    built, figures = reports_built
    report = built["single-file"]
    assert [p.name for p in report.iterdir() if not p.name.startswith("screenshot")] == ["index.html"]
    page = (report / "index.html").read_text(encoding="utf-8")
    assert page.count('src="data:image/png;base64,') == figures["single-file"] and '.png"' not in page


def test_a_browser_leaves_nothing_in_tmpdir(monkeypatch):
    # Chromium leaves its singleton socket's folder in TMPDIR when
    # chromedriver ends it: a CI machine gathered one per report checked. A
    # short TMPDIR, not tmp_path: the socket's path must fit 108 bytes.
    outer = Path(tempfile.mkdtemp(prefix="t"))
    try:
        monkeypatch.setenv("TMPDIR", str(outer))
        monkeypatch.setattr(tempfile, "tempdir", None)
        with open_browser() as driver:
            driver.get("about:blank")
            assert list(outer.iterdir()), "the browser's own folder should be in TMPDIR while it runs"
        assert not list(outer.iterdir()), f"left in TMPDIR: {sorted(p.name for p in outer.iterdir())}"
    finally:
        shutil.rmtree(outer)
