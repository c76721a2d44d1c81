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
    build = tmp_path / "b"
    build.mkdir()
    (build / "ampbench").write_text("#!/bin/sh\n")
    (build / "ampbench").chmod(0o755)
    assert corpus.main([str(build), str(mine), "--models", "gpt2"]) == 2
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
