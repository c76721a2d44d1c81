"""Ingest: idempotent by run id, all or nothing, and every refusal one line
with exit 2; on SQLite and on PostgreSQL alike."""

from __future__ import annotations

import json
import sqlite3

import pytest

from history.cli import main
from history.ingest import run_id_of
from history.store import StoreError, open_store
from history.tests.conftest import SLOW_FROM, ingest


def test_ingest_is_idempotent_and_marks_rehearsals(loaded, twenty, capsys):
    with open_store(loaded) as store:
        runs = store.runs()
        cases = store.cases()
    assert len(runs) == 20 and len(cases) == 40
    assert [r.run_id for r in runs] == [run_id_of(json.loads(p.read_text())) for p in twenty]
    assert [r.rehearsal for r in runs] == [0] * (SLOW_FROM - 1) + [1] * (21 - SLOW_FROM)
    assert all(r.injected == "injected_slowdown=0.2" for r in runs[SLOW_FROM - 1:])
    capsys.readouterr()
    assert ingest(loaded, twenty, "--rehearsal") == 0
    assert "0 run(s) added, 20 already there" in capsys.readouterr().out
    with open_store(loaded) as store:
        assert len(store.runs()) == 20 and len(store.cases()) == 40
        assert store.samples(runs[0].run_id, "plain/mlp/fp32/sgd") == \
            json.loads(twenty[0].read_text())["cases"][0]["throughput"]["samples_per_s"]


def _edited(tmp_path, source, name, edit):
    doc = json.loads(source.read_text())
    edit(doc)
    path = tmp_path / name
    path.write_text(json.dumps(doc))
    return path


BAD_FILES = {
    "incomplete": (lambda d: d.update(complete=False, finished_utc=None), "the run did not finish"),
    "schema-version": (lambda d: d.update(schema_version=99), ".schema_version: is 99"),
    "injected": (lambda d: d["env"].update(injected_slowdown=0.2),
                 "test-only fault switch (injected_slowdown=0.2)"),
    "injected-bitflip": (lambda d: d["env"].update(injected_bitflip_step=3),
                         "test-only fault switch (injected_bitflip_step=3)"),
}


@pytest.mark.parametrize("kind", sorted(BAD_FILES))
def test_refused_file_exit_2_one_line_nothing_written(db, twenty, tmp_path, capsys, kind):
    edit, message = BAD_FILES[kind]
    bad = _edited(tmp_path, twenty[0], f"{kind}.json", edit)
    # The good file before it is not stored either: an ingest is all or nothing.
    assert ingest(db, [twenty[1], bad]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and str(bad) in err and message in err, err
    with pytest.raises(StoreError, match="history database"):
        open_store(db)  # every file is checked before the database is created


def test_not_json_and_missing_file(db, tmp_path, capsys):
    (tmp_path / "not.json").write_text("{ this is not json")
    assert ingest(db, [tmp_path / "not.json"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "not.json" in err
    assert ingest(db, [tmp_path / "absent.json"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "absent.json: no such file" in err


def test_rehearsal_flag_is_needed_for_every_injected_run(db, twenty, capsys):
    assert ingest(db, twenty[SLOW_FROM - 1:SLOW_FROM]) == 2
    assert "pass --rehearsal" in capsys.readouterr().err


def test_unusable_database_exit_2(twenty, tmp_path, capsys, request):
    (tmp_path / "file").write_text("x")
    assert ingest(str(tmp_path / "file" / "history.db"), twenty[:1]) == 2  # its folder is a file
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "cannot open" in err
    (tmp_path / "text.db").write_text("not a database, but long enough to be read as one's header" * 20)
    assert ingest(str(tmp_path / "text.db"), twenty[:1]) == 2
    assert "text.db" in capsys.readouterr().err
    assert main(["changes", "--db", str(tmp_path / "absent.db")]) == 2
    assert "no such history database" in capsys.readouterr().err


def test_unreachable_postgresql_exit_2(twenty, tmp_path, capsys):
    url = f"postgresql:///none?host={tmp_path}&port=1&user=postgres"
    assert ingest(url, twenty[:1]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "cannot connect" in err


def test_history_of_another_schema_version_is_refused(db, twenty, capsys):
    assert ingest(db, twenty[:1]) == 0
    if db.startswith("postgresql"):
        import psycopg
        with psycopg.connect(db, autocommit=True) as conn:
            conn.execute("UPDATE history_schema SET version = 99")
    else:
        with sqlite3.connect(db) as conn:
            conn.execute("UPDATE history_schema SET version = 99")
    capsys.readouterr()
    assert ingest(db, twenty[1:2]) == 2
    assert "history schema version [99], this ampbench reads version 1 only" in capsys.readouterr().err
