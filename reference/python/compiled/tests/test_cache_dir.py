"""The compile cache a run reuses holds kernels for this process's target
only: Inductor's own keys miss the vector ISA, and kernels cached under
ATEN_CPU_CAPABILITY=avx2 gave an AVX-512 run wrong losses (and the other
way round), so a cache made for another target is emptied, with a warning."""

from __future__ import annotations

import pytest

from reference.python.compiled import toolchain
from reference.python.compiled.errors import BadInput


def _filled(folder, target, monkeypatch):
    monkeypatch.setattr(toolchain, "kernel_target", lambda: target)
    toolchain.fresh_cache_dir(folder)
    (folder / "fxgraph").mkdir()
    return folder


def test_a_reused_cache_of_the_same_target_is_kept(tmp_path, monkeypatch, capsys):
    cache = _filled(tmp_path / "c", "isa=avx512 torch=x", monkeypatch)
    assert toolchain.fresh_cache_dir(cache, reuse=True) is True
    assert (cache / "fxgraph").is_dir() and capsys.readouterr().err == ""


def test_a_reused_cache_of_another_target_is_emptied_with_a_warning(tmp_path, monkeypatch, capsys):
    cache = _filled(tmp_path / "c", "isa=avx512 torch=x", monkeypatch)
    monkeypatch.setattr(toolchain, "kernel_target", lambda: "isa=avx2 torch=x")
    assert toolchain.fresh_cache_dir(cache, reuse=True) is False
    assert not (cache / "fxgraph").exists()
    err = capsys.readouterr().err
    assert "made for isa=avx512 torch=x, not isa=avx2 torch=x: emptied" in err
    # Now it is this target's: the next reuse keeps it.
    (cache / "fxgraph").mkdir()
    assert toolchain.fresh_cache_dir(cache, reuse=True) is True and (cache / "fxgraph").is_dir()


def test_a_cache_without_a_recorded_target_is_emptied(tmp_path, monkeypatch, capsys):
    cache = _filled(tmp_path / "c", "isa=avx512 torch=x", monkeypatch)
    (cache / toolchain.MARKER).write_text("the FX graph cache of an earlier version\n")
    assert toolchain.fresh_cache_dir(cache, reuse=True) is False
    assert "an unrecorded target" in capsys.readouterr().err


def test_the_target_names_the_isa_inductor_picks_and_the_release():
    target = toolchain.kernel_target()
    assert target.startswith("isa=") and " torch=" in target


def test_a_foreign_folder_is_still_refused(tmp_path):
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "notes.txt").write_text("keep")
    with pytest.raises(BadInput, match="not a cache this module made"):
        toolchain.fresh_cache_dir(tmp_path / "mine", reuse=True)
    assert (tmp_path / "mine" / "notes.txt").read_text() == "keep"
