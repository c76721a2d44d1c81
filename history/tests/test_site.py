"""The site: one folder with the latest verdict per series, the trend
figures with the change point marked, the regressions, a page per run
linking its report; opened in headless Chromium as the report is (never
skipped: without the browser the test fails and says how to get it)."""

from __future__ import annotations

import json
import re

import pytest

from history.cli import main
from history.ingest import run_id_of
from history.site_out import MARKER
from history.tests.conftest import ingest
from reports.browser_check import check_report
from reports.tests.browser_fixture import browser  # noqa: F401 (a fixture)


def site(db, out):
    return main(["site", "--db", db, "--out", str(out)])


def test_site_files(loaded, tmp_path):
    out = tmp_path / "site"
    assert site(loaded, out) == 0
    page = (out / "index.html").read_text()
    assert len(list((out / "figures").glob("*.png"))) == 2
    assert len(list((out / "runs").glob("*/index.html"))) == 20
    latest = page.split('id="latest"')[1].split('id="regressions"')[0]
    assert latest.count("throughput regression -16.") + latest.count("throughput regression -17.") == 2
    regressions = page.split('id="regressions"')[1].split('id="trends"')[0]
    assert regressions.count("REHEARSAL: injected fault") == 2
    assert "9 of 20 runs were made with a test-only fault switch" in page
    assert page.count("REHEARSAL (injected_slowdown=0.2)") == 9
    run_page = next((out / "runs").glob("*/index.html")).read_text()
    assert "No report was written beside this run's results" in run_page


def test_site_replaces_its_own_folder_only(loaded, tmp_path, capsys):
    out = tmp_path / "site"
    assert site(loaded, out) == 0 and site(loaded, out) == 0
    assert (out / MARKER).is_file() and not list(tmp_path.glob(".site.*"))
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "notes.txt").write_text("keep")
    capsys.readouterr()
    assert site(loaded, tmp_path / "mine") == 2
    assert "holds files ampbench did not write" in capsys.readouterr().err
    assert (tmp_path / "mine" / "notes.txt").read_text() == "keep"


def test_site_opens_in_chromium_with_trend_and_change_point(loaded, tmp_path, browser):
    out = tmp_path / "site"
    assert site(loaded, out) == 0
    result = check_report(browser, out)
    assert result.problems == []
    assert result.images == 2 and result.tables == 3 and result.links >= 20 + 2 * 2
    text = browser.find_element("tag name", "body").text
    assert "Latest verdict per series" in text and "Rehearsal data" in text
    assert len(re.findall(r"throughput regression -1[67]\.\d% since run 12", text)) == 2
    run = next((out / "runs").iterdir())
    assert check_report(browser, run).problems == []


def test_run_page_carries_its_report(real_run, tmp_path, browser):
    db = str(tmp_path / "h.db")
    assert ingest(db, [real_run]) == 0
    assert site(db, tmp_path / "site") == 0
    run = tmp_path / "site" / "runs" / run_id_of(json.loads(real_run.read_text()))
    assert (run / "report" / "index.html").is_file()
    assert 'href="report/index.html"' in (run / "index.html").read_text()
    assert check_report(browser, run).problems == []
    assert check_report(browser, run / "report").problems == []
