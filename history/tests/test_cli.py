"""The C++ CLI reaches the history: `ampbench history ...` runs python -m
history, and `ampbench gate --history DB` is the gate against history."""

from __future__ import annotations

import subprocess

from history.tests.conftest import ampbench_binary


def ampbench(*args):
    return subprocess.run([ampbench_binary(), *map(str, args)], capture_output=True, text=True, timeout=120,
                          stdin=subprocess.DEVNULL)


def test_history_help_states_exit_codes():
    proc = ampbench("history", "--help")
    assert proc.returncode == 0 and "Exit status: 0" in proc.stdout and "{ingest,changes,gate,site}" in proc.stdout
    proc = ampbench("history", "gate", "--help")
    assert proc.returncode == 0 and "--current" in proc.stdout and "Exit status" in proc.stdout


def test_gate_with_history_flags_the_slowed_run(twenty, tmp_path):
    db = tmp_path / "h.db"
    assert ampbench("history", "ingest", *twenty[:11], "--db", db).returncode == 0
    assert ampbench("history", "ingest", *twenty[11:], "--db", db, "--rehearsal").returncode == 0
    md, xml = tmp_path / "gate.md", tmp_path / "gate.xml"
    slowed = ampbench("gate", "--history", db, "--current", twenty[-1], "--rehearsal",
                      "--markdown", md, "--junit", xml)
    assert slowed.returncode == 1, slowed.stderr
    assert slowed.stdout.count("regression ") == 2
    assert md.read_text().count("**regression**") == 2 and 'failures="2"' in xml.read_text()
    normal = ampbench("gate", "--history", db, "--current", twenty[10], "--min-effect", "0.05")
    assert normal.returncode == 0, normal.stderr
    refused = ampbench("gate", "--history", db, "--current", twenty[-1])
    assert refused.returncode == 2 and "test-only fault switch" in refused.stderr


def test_gate_history_refuses_flags_it_cannot_honour(twenty, tmp_path):
    for extra in (["--baseline", twenty[0]], ["--paired"]):
        proc = ampbench("gate", "--history", tmp_path / "h.db", "--current", twenty[0], *extra)
        assert proc.returncode == 2 and "--history" in proc.stderr, (extra, proc.stderr)
    several = ampbench("gate", "--history", tmp_path / "h.db", "--current", twenty[0], twenty[1])
    assert several.returncode == 2 and "one --current" in several.stderr
