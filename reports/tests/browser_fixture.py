"""The headless Chromium the browser tests share (one per test module):
import `browser` into a test module to use it."""

from __future__ import annotations

import pytest

from reports.browser_check import BrowserMissing, open_browser


@pytest.fixture(scope="module")
def browser():
    try:
        with open_browser() as driver:
            yield driver
    except BrowserMissing as exc:
        pytest.fail(str(exc), pytrace=False)
