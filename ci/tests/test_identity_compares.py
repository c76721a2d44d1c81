"""ci/identity-compares.py: an identity compared with a string literal is
found wherever it is written, names come from where the harness defines
them, and the files that parse or print names are left alone."""
import importlib.util
import pathlib
import shutil

ROOT = pathlib.Path(__file__).resolve().parent.parent.parent
SCRIPT = ROOT / "ci" / "identity-compares.py"
spec = importlib.util.spec_from_file_location("identity_compares", SCRIPT)
identity_compares = importlib.util.module_from_spec(spec)
spec.loader.exec_module(identity_compares)


def tree(tmp_path):
    """A copy of the files the names are read from, and nothing else."""
    for where, _ in identity_compares.SOURCES:
        src = ROOT / where
        dst = tmp_path / where
        if src.is_dir():
            shutil.copytree(src, dst)
        else:
            dst.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(src, dst)
    return tmp_path


def write(root, rel, text):
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def test_the_repository_compares_no_identity_as_a_string(capsys):
    assert identity_compares.main(["x", str(ROOT)]) == 0
    assert "no identity is compared as a string" in capsys.readouterr().out


def test_each_kind_of_identity_is_found_on_either_side(tmp_path, capsys):
    root = tree(tmp_path)
    write(root, "harness/runner/bad.cpp", "\n".join([
        'if (spec.model->name == "decoder") {}',
        'if ("cuda" != device) {}',
        'if (c.status == "skipped") {}',
        'if (v == "rank_disagreement") {}',
        'if (o == "adamw") {}',
        'if (p == "bf16") {}',
        'if (w == "dataparallel") {}',
        'if (key == "workload") {}',  # a JSON key, not an identity
    ]))
    assert identity_compares.main(["x", str(root)]) == 1
    out = capsys.readouterr().out.splitlines()
    assert [line.split(":")[1] for line in out] == ["1", "2", "3", "4", "5", "6", "7"]


def test_tests_and_parsers_may_name_identities(tmp_path):
    root = tree(tmp_path)
    write(root, "harness/runner/bad_test.cpp", 'EXPECT_TRUE(x == "mlp");\n')
    write(root, "harness/gate/test_util.h", 'bool s = status == "pass";\n')
    assert identity_compares.main(["x", str(root)]) == 0


def test_a_source_without_names_is_an_error_not_a_silent_pass(tmp_path):
    root = tree(tmp_path)
    (root / "harness/spec/control.cpp").write_text("// emptied\n")
    try:
        identity_compares.main(["x", str(root)])
    except SystemExit as e:
        assert "harness/spec/control.cpp" in str(e.code)
    else:
        raise AssertionError("no error for a source without names")
