"""Every mutant of ci/mutants.txt still applies: its text is found exactly
once in its file. ci/mutants.sh runs by hand and refuses the whole list at
the first stale mutant, so a refactoring that moves a mutated line must
fail here, where it is made, not at the next mutation run."""
import importlib.util
import pathlib

ROOT = pathlib.Path(__file__).resolve().parent.parent.parent
_SPEC = importlib.util.spec_from_file_location("mutants", ROOT / "ci" / "mutants.py")
mutants = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(mutants)


def test_every_mutant_text_is_found_once_in_its_file():
    listed = mutants.read_mutants(ROOT / "ci" / "mutants.txt")
    assert listed, "ci/mutants.txt lists no mutant"
    stale = [f"{m['name']}: found {(ROOT / m['file']).read_text().count(m['old'])} times in {m['file']}"
             for m in listed if (ROOT / m["file"]).read_text().count(m["old"]) != 1]
    assert not stale, "stale mutants:\n" + "\n".join(stale)

