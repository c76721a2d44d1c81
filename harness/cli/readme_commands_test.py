"""Every command is discoverable: `ampbench --help` lists the same commands
as the README's CLI block, and each command's own --help works and states
its exit codes, whichever language implements it.

Usage: readme_commands_test.py AMPBENCH README
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path


def fail(why: str) -> None:
    sys.exit(f"readme_commands: error: {why}")


def help_text(ampbench: str, *args: str) -> str:
    proc = subprocess.run([ampbench, *args, "--help"], capture_output=True, text=True, timeout=120,
                          stdin=subprocess.DEVNULL)
    if proc.returncode != 0:
        fail(f"`ampbench {' '.join(args)} --help` exited {proc.returncode}: {proc.stderr.strip()[:300]}")
    return proc.stdout


def listed_commands(top_help: str) -> set[str]:
    section = top_help.split("Subcommands:", 1)
    if len(section) != 2:
        fail("`ampbench --help` has no Subcommands section")
    return set(re.findall(r"^  ([a-z][a-z0-9-]*)\s", section[1], re.M))


def readme_commands(readme: str) -> set[str]:
    block = readme.split("## CLI", 1)[1].split("```", 2)[1]
    return set(re.findall(r"^(?:\./)?ampbench ([a-z][a-z0-9-]*)", block, re.M))


def main(ampbench: str, readme_path: str) -> None:
    listed = listed_commands(help_text(ampbench))
    documented = readme_commands(Path(readme_path).read_text())
    for must in ("upgrade", "fleet"):
        if must not in listed:
            fail(f"`ampbench --help` does not list {must}")
    if listed != documented:
        fail(f"`ampbench --help` lists {sorted(listed - documented)} that the README's CLI block lacks, "
             f"and the block has {sorted(documented - listed)} that the help lacks")
    for command in sorted(listed):
        text = help_text(ampbench, command)
        if not re.search(r"exit", text, re.I):
            fail(f"`ampbench {command} --help` states no exit codes")
    print(f"readme_commands: ok ({len(listed)} commands: {', '.join(sorted(listed))})")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(*sys.argv[1:])
