"""The corpus of public models (reference/corpus.py,
reference/corpus_models.py): its refusals, and that each transformers model
is built as the corpus says: logits out, dropout at its config's default."""

from __future__ import annotations

import pytest
import torch
from torch import nn

from reference import corpus, corpus_models


def test_bad_arguments_exit_2_and_touch_nothing(tmp_path, capsys):
    (tmp_path / "build").mkdir()
    assert corpus.main([str(tmp_path / "build"), str(tmp_path / "out"), "--models", "nope"]) == 2
    assert "unknown model(s) nope" in capsys.readouterr().err
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "keep.txt").write_text("a user's file")
    assert corpus.main([str(_fake_build(tmp_path)), str(mine), "--models", "gpt2"]) == 2
    assert "not made by reference.corpus" in capsys.readouterr().err
    assert (mine / "keep.txt").read_text() == "a user's file"


def test_the_corpus_holds_at_least_twelve_models():
    assert len(corpus.CORPUS) >= 12


@pytest.mark.parametrize("factory,out_dims", [("gpt2", 3), ("bert", 2), ("distilbert", 2), ("t5_encoder", 2),
                                              ("llama", 3)])
def test_a_transformers_model_gives_logits_with_its_default_dropout(factory, out_dims):
    torch.manual_seed(0)
    module = getattr(corpus_models, factory)()
    out = module(torch.randint(1, 100, (2, 12)))
    assert isinstance(out, torch.Tensor) and out.dim() == out_dims
    config = module.model.config
    # Dropout stays at the config's default (Llama's is 0 by default).
    defaults = type(config)()
    for key in ("resid_pdrop", "hidden_dropout_prob", "dropout", "dropout_rate", "attention_dropout"):
        if hasattr(config, key):
            assert getattr(config, key) == getattr(defaults, key), key
    if factory != "llama":
        assert any(isinstance(m, nn.Dropout) and m.p > 0 for m in module.modules())


def _fake_build(tmp_path):
    build = tmp_path / "b"
    build.mkdir()
    (build / "ampbench").write_text("#!/bin/sh\n")
    (build / "ampbench").chmod(0o755)
    return build


def test_jobs_write_the_table_in_the_corpus_order_and_keep_finished_rows(tmp_path, monkeypatch, capsys):
    """Side by side, rows finish in any order; the table keeps the corpus's,
    a model that does not conform makes exit 1, one that cannot run exit 2
    without losing the others' rows."""
    import threading
    import time as _time
    first_may_finish = threading.Event()

    def fake_row(name, build, out, steps, batch, py):
        if name == "gpt2":  # finishes last although it started first
            first_may_finish.wait(5)
        else:
            _time.sleep(0.05)
            first_may_finish.set()
        if name == "llama":
            raise RuntimeError("llama: the export failed (exit 1): boom")
        return f"| {name} |", name != "bert"

    monkeypatch.setattr(corpus, "row", fake_row)
    build = _fake_build(tmp_path)
    assert corpus.main([str(build), str(tmp_path / "a"), "--models", "gpt2,vit", "--jobs", "2"]) == 0
    assert (tmp_path / "a" / "corpus.md").read_text().splitlines()[2:] == ["| gpt2 |", "| vit |"]
    first_may_finish.clear()
    assert corpus.main([str(build), str(tmp_path / "b1"), "--models", "gpt2,bert", "--jobs", "2"]) == 1
    first_may_finish.clear()
    assert corpus.main([str(build), str(tmp_path / "c"), "--models", "gpt2,llama,vit", "--jobs", "2"]) == 2
    assert "llama: the export failed" in capsys.readouterr().err
    assert (tmp_path / "c" / "corpus.md").read_text().splitlines()[2:] == ["| gpt2 |", "| vit |"]
    assert corpus.main([str(build), str(tmp_path / "d"), "--jobs", "0"]) == 2
    assert "--jobs positive" in capsys.readouterr().err


FAKE_COMPILED_RUN = r"""#!/bin/sh
# ampbench run ... --out DIR: writes DIR/results.json and a verdict line, exits $FAKE_RC
while [ $# -gt 0 ]; do [ "$1" = --out ] && out="$2"; shift; done
mkdir -p "$out"
cat > "$out/results.json" <<'JSON'
{"cases": [{"id": "plain/m/fp32/sgd"},
           {"id": "plain/m/bf16/sgd", "compiled": {"graphs": 2, "graph_break_count": 1, "fullgraph": {"ok": false}}},
           {"id": "plain/m/fp32/sgd#compiled", "compiled": {"graphs": 1, "graph_break_count": 0, "fullgraph": {"ok": true}}}]}
JSON
echo "verdicts: 3 correct cases passed; 0 skipped"
exit $FAKE_RC
"""


@pytest.mark.parametrize("rc, good", [(0, True), (1, False)])
def test_a_compiled_row_gives_the_verdict_and_how_torch_compile_took_the_module(tmp_path, monkeypatch, rc, good):
    build = _fake_build(tmp_path)
    (build / "ampbench").write_text(FAKE_COMPILED_RUN)
    monkeypatch.setenv("FAKE_RC", str(rc))
    monkeypatch.setattr(corpus, "export", lambda py, name, out, steps, batch: out / "m.suite.json")
    line, ok = corpus.compiled_row("vit", build, tmp_path, 8, 8, "python")
    assert ok is good
    assert line == ("| vit | quick, 8 steps, batch 8, compiled | 3 correct cases passed; 0 skipped | 2 cases "
                    "compiled: graphs 1/2, 1 graph breaks, fullgraph in 1 of 2 |")


def test_a_compiled_run_that_could_not_be_done_is_an_error_not_a_row(tmp_path, monkeypatch):
    build = _fake_build(tmp_path)
    (build / "ampbench").write_text(FAKE_COMPILED_RUN)
    monkeypatch.setenv("FAKE_RC", "2")
    monkeypatch.setattr(corpus, "export", lambda py, name, out, steps, batch: out / "m.suite.json")
    with pytest.raises(RuntimeError, match="vit: the compiled run could not be done"):
        corpus.compiled_row("vit", build, tmp_path, 8, 8, "python")


def test_the_implementation_picks_the_row_and_the_table_says_which(tmp_path, monkeypatch):
    monkeypatch.setattr(corpus, "compiled_row", lambda *a: ("| gpt2 | compiled |", True))
    monkeypatch.setattr(corpus, "row", lambda *a: pytest.fail("the eager row ran for a compiled corpus"))
    assert corpus.main([str(_fake_build(tmp_path)), str(tmp_path / "o"), "--models", "gpt2",
                        "--implementation", "compiled"]) == 0
    table = (tmp_path / "o" / "corpus.md").read_text().splitlines()
    assert table[0].endswith("| torch.compile |") and table[2] == "| gpt2 | compiled |"
