"""ci/layers.py flags an include against the flow, and only that."""
import importlib.util
import pathlib

_SPEC = importlib.util.spec_from_file_location("layers", pathlib.Path(__file__).resolve().parent.parent / "layers.py")
layers = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(layers)


def tree(tmp_path, files):
    for rel, text in files.items():
        path = tmp_path / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    (tmp_path / "kernels").mkdir(exist_ok=True)
    return tmp_path


def test_an_upward_include_is_named_with_both_layers(tmp_path):
    root = tree(tmp_path, {"harness/runner/runner.cpp": '#include "check/checker.h"\n',
                           "harness/check/checker.h": "#pragma once\n"})
    found = layers.violations(root)
    assert len(found) == 1
    assert found[0].startswith("harness/runner/runner.cpp: includes check/")


def test_downward_and_same_layer_includes_pass(tmp_path):
    root = tree(tmp_path, {"harness/check/checker.cpp": '#include "runner/case_record.h"\n#include "check/x.h"\n',
                           "harness/data/d.h": '#include "models/model.h"\n'})
    assert layers.violations(root) == []


def test_tests_may_include_anything(tmp_path):
    root = tree(tmp_path, {"harness/core/x_test.cpp": '#include "cli/command.h"\n'})
    assert layers.violations(root) == []


def test_a_directory_outside_every_layer_is_reported(tmp_path):
    root = tree(tmp_path, {"harness/newdir/a.cpp": "\n"})
    assert "in no layer" in layers.violations(root)[0]


def test_this_repository_follows_its_layers():
    assert layers.violations(pathlib.Path(layers.__file__).resolve().parent.parent) == []
