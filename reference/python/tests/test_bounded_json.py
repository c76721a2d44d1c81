"""The bounded JSON reader shared by reports/ and the reference."""
from __future__ import annotations

import pytest

from reference.python.bounded_json import JsonInputError, nesting_depth, parse_bounded_json, read_bounded_json


@pytest.mark.parametrize("text,depth", [
    ("1", 0), ("[]", 1), ('{"a": [[1]]}', 3), ('["[[[[", "\\"]"]', 1), ('{"k{": "v["}', 1),
])
def test_nesting_depth_ignores_brackets_in_strings(text, depth):
    assert nesting_depth(text) == depth


def test_depth_limit_is_inclusive():
    assert parse_bounded_json("[" * 64 + "]" * 64, "x.json") is not None
    with pytest.raises(JsonInputError, match="nested deeper than 64 levels"):
        parse_bounded_json("[" * 65 + "]" * 65, "x.json")


@pytest.mark.parametrize("path,reason", [
    ("/dev/zero", "not a regular file"), ("/no/such.json", "no such file"), ("/tmp", "is a directory"),
])
def test_unreadable_paths_are_named(path, reason):
    with pytest.raises(JsonInputError, match=reason) as info:
        read_bounded_json(path)
    assert info.value.path == path


def test_size_limit(tmp_path):
    path = tmp_path / "big.json"
    path.write_text("[" + " " * 2000 + "]")
    with pytest.raises(JsonInputError, match="too large: 2002 bytes"):
        read_bounded_json(path, max_bytes=1000)


def test_malformed_json_names_the_position(tmp_path):
    path = tmp_path / "bad.json"
    path.write_text('{"a": }')
    with pytest.raises(JsonInputError, match="not valid JSON: Expecting value at line 1 column 7"):
        read_bounded_json(path)
