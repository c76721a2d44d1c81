"""Open a built report in headless Chromium and check what a reader gets.

- every image loads (complete, natural width > 0);
- the console has no error;
- every internal link resolves: "#id" to an element of the page, a relative
  link to a file beside index.html;
- no table is wider than the page at 1280 px;
and a full-page screenshot (screenshot.png) plus the first screen
(screenshot-top.png) are saved beside the report.

Uses Debian's chromium and chromium-driver (ci/bootstrap.sh installs them)
driven by Selenium; nothing is downloaded.

    python -m reports.browser_check REPORT_DIR
"""

from __future__ import annotations

import base64
import contextlib
import os
import shutil
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

WIDTH, HEIGHT = 1280, 900
CHROMEDRIVER = "/usr/bin/chromedriver"
CHROMIUM = "/usr/bin/chromium"
MISSING = "run ci/bootstrap.sh (it installs Debian's chromium and chromium-driver and the venv's selenium)"


class BrowserMissing(RuntimeError):
    pass


@dataclass
class PageCheck:
    images: int = 0
    links: int = 0
    tables: int = 0
    problems: list = field(default_factory=list)


@contextlib.contextmanager
def open_browser():
    """A headless Chromium at 1280 x 900 that records console messages, quit
    and cleaned up on leaving. It runs with a temporary folder of its own as
    TMPDIR, removed afterwards: Chromium leaves its singleton socket's folder
    (org.chromium.Chromium.*) in TMPDIR each time chromedriver ends it, one
    more in /tmp for every report checked. The folder's name is short: the
    socket's path must fit a Unix socket address (108 bytes)."""
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
    except ImportError as exc:
        raise BrowserMissing(f"selenium is not installed ({exc}): {MISSING}") from None
    driver_path = shutil.which("chromedriver") or CHROMEDRIVER
    browser_path = shutil.which("chromium") or CHROMIUM
    if not Path(driver_path).exists() or not Path(browser_path).exists():
        raise BrowserMissing(f"no {browser_path} or {driver_path}: {MISSING}")
    options = webdriver.ChromeOptions()
    options.binary_location = browser_path
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                f"--window-size={WIDTH},{HEIGHT}", "--hide-scrollbars"):
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    with tempfile.TemporaryDirectory(prefix="chr-") as tmp:
        # An explicit driver path: Selenium Manager would otherwise try the network.
        service = Service(executable_path=driver_path, env={**os.environ, "TMPDIR": tmp})
        driver = webdriver.Chrome(service=service, options=options)
        try:
            yield driver
        finally:
            driver.quit()


def check_report(driver, report_dir) -> PageCheck:
    report_dir = Path(report_dir).absolute()
    index = report_dir / "index.html"
    driver.get(index.as_uri())
    driver.execute_script("return document.readyState")  # get() already waited for load
    result = PageCheck()
    _check_images(driver, result)
    _check_links(driver, report_dir, result)
    _check_tables(driver, result)
    _check_console(driver, result)
    _screenshots(driver, report_dir)
    return result


def _check_images(driver, result) -> None:
    images = driver.execute_script(
        "return Array.from(document.images).map(i => [i.getAttribute('src').slice(0, 80),"
        " i.complete, i.naturalWidth]);")
    result.images = len(images)
    result.problems += [f"image {src} did not load (complete={done}, naturalWidth={width})"
                        for src, done, width in images if not done or width <= 0]


def _check_links(driver, report_dir, result) -> None:
    links = driver.execute_script(
        "return Array.from(document.querySelectorAll('a[href]')).map(a => a.getAttribute('href'));")
    result.links = len(links)
    for href in links:
        if href.startswith("#"):
            found = driver.execute_script("return document.getElementById(arguments[0]) !== null;", href[1:])
            if not found:
                result.problems.append(f"link {href} points to no element")
        elif "://" in href or href.startswith(("data:", "mailto:", "/")):
            result.problems.append(f"link {href[:80]} leaves the report")
        elif not (report_dir / href.split("#")[0]).is_file():
            result.problems.append(f"link {href} points to no file beside index.html")


def _check_tables(driver, result) -> None:
    widths = driver.execute_script(
        "const page = document.documentElement.clientWidth;"
        "return [page, Array.from(document.querySelectorAll('table')).map("
        " t => [t.getBoundingClientRect().right, t.scrollWidth, t.rows[0] ? t.rows[0].innerText.slice(0, 60) : ''])];")
    page, tables = widths
    result.tables = len(tables)
    result.problems += [f"table '{head}' is {right:.0f} px wide (scroll {scroll}) on a {page} px page"
                        for right, scroll, head in tables if right > page + 0.5 or scroll > page]


def _check_console(driver, result) -> None:
    result.problems += [f"console {e['level']}: {e['message']}" for e in driver.get_log("browser")
                        if e["level"] == "SEVERE"]


def _screenshots(driver, report_dir) -> None:
    driver.save_screenshot(str(report_dir / "screenshot-top.png"))
    size = driver.execute_script(
        "return [document.documentElement.scrollWidth, document.documentElement.scrollHeight];")
    shot = driver.execute_cdp_cmd("Page.captureScreenshot", {
        "format": "png", "captureBeyondViewport": True,
        "clip": {"x": 0, "y": 0, "width": size[0], "height": size[1], "scale": 1}})
    (report_dir / "screenshot.png").write_bytes(base64.b64decode(shot["data"]))


def main(argv=None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print("usage: python -m reports.browser_check REPORT_DIR", file=sys.stderr)
        return 2
    try:
        with open_browser() as driver:
            result = check_report(driver, args[0])
    except BrowserMissing as exc:
        print(f"browser_check: error: {exc}", file=sys.stderr)
        return 2
    for problem in result.problems:
        print(f"browser_check: {problem}", file=sys.stderr)
    print(f"browser_check: {result.images} images, {result.links} links, {result.tables} tables, "
          f"{len(result.problems)} problems; screenshots beside index.html")
    return 1 if result.problems else 0


if __name__ == "__main__":
    sys.exit(main())
