"""ci/layers.py flags an include against the flow, a loop of folders that
include each other, and a loop of Python modules that import each other, and
only those."""
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
                           "harness/models/m.cpp": '#include "data/synthetic_data.h"\n',
                           "harness/amp/a.h": '#include "io/json_file.h"\n'})
    assert layers.violations(root) == []


def test_tests_may_include_anything(tmp_path):
    root = tree(tmp_path, {"harness/core/x_test.cpp": '#include "cli/command.h"\n'})
    assert layers.violations(root) == []


def test_a_directory_outside_every_layer_is_reported(tmp_path):
    root = tree(tmp_path, {"harness/newdir/a.cpp": "\n"})
    assert "in no layer" in layers.violations(root)[0]


def test_this_repository_follows_its_layers():
    assert layers.violations(pathlib.Path(layers.__file__).resolve().parent.parent) == []


def test_data_sits_below_models():
    """A batch is described by spec/ alone: data/ may not reach into models/."""
    assert layers.layer_of("data") < layers.layer_of("models")


def test_folders_including_each_other_in_one_layer_are_a_cycle(tmp_path):
    root = tree(tmp_path, {"harness/amp/a.cpp": '#include "io/b.h"\n',
                           "harness/io/b.cpp": '#include "amp/a.h"\n',
                           "harness/io/b.h": "#pragma once\n", "harness/amp/a.h": "#pragma once\n"})
    assert layers.violations(root) == []  # one layer: the layering alone lets it pass
    found = layers.folder_cycles(root)
    assert found == ["folder include cycle amp, io: amp -> io (harness/amp/a.cpp); io -> amp (harness/io/b.cpp)"]


def test_a_test_closing_the_loop_is_no_folder_cycle(tmp_path):
    root = tree(tmp_path, {"harness/amp/a.cpp": '#include "io/b.h"\n',
                           "harness/io/b_test.cpp": '#include "amp/a.h"\n'})
    assert layers.folder_cycles(root) == []


def python_tree(tmp_path, modules):
    return tree(tmp_path, {f"reference/python/{name}.py": text for name, text in modules.items()})


def test_a_python_import_loop_through_three_modules_is_named(tmp_path):
    root = python_tree(tmp_path, {"a": "from .b import x\n", "b": "from reference.python.c import y\n",
                                  "c": "def f():\n    from . import a\n", "d": "from .a import z\n"})
    found = layers.import_cycles(root)
    assert len(found) == 1 and found[0].startswith("python import cycle a, b, c: ")
    assert "c -> a (reference/python/c.py)" in found[0]  # the lazy import inside f() counts
    assert "d" not in found[0].split(":")[0]  # d imports into the loop but is not part of it


def test_python_imports_one_way_pass(tmp_path):
    root = python_tree(tmp_path, {"a": "from .b import x\nimport torch\n", "b": "from .c import y\n",
                                  "c": "import json\nfrom .. import elsewhere\n"})
    assert layers.import_cycles(root) == []


def test_this_repository_has_no_folder_or_import_cycle():
    root = pathlib.Path(layers.__file__).resolve().parent.parent
    assert layers.folder_cycles(root) == []
    assert layers.import_cycles(root) == []
