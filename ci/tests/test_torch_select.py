"""Choosing the torch release (ci/torch-env.sh, through bootstrap.sh,
build.sh and the ./ampbench launcher): the supported window, where each
version lives, the refusals, and the link rule. Nothing is downloaded: the
venvs here are folders with the few files the scripts read."""

from __future__ import annotations

import hashlib
import os
import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def window() -> dict[str, tuple[str, str, str]]:
    out = {}
    for line in (ROOT / "ci/torch-versions.txt").read_text().splitlines():
        fields = line.split("#")[0].split()
        if len(fields) == 4:
            out[fields[0]] = (fields[1], fields[2], fields[3])
    return out


def pins() -> dict[str, str]:
    out = {}
    for line in (ROOT / "ci/requirements.txt").read_text().splitlines():
        m = re.match(r"^([A-Za-z0-9_-]+)==([^\s#]+)", line)
        if m:
            out[m.group(1)] = m.group(2)
    return out


def run(cmd: list[str], home: Path, **env: str) -> subprocess.CompletedProcess:
    e = {k: v for k, v in os.environ.items() if not k.startswith("AMPBENCH_")}
    e.update(AMPBENCH_HOME=str(home), **env)
    return subprocess.run(cmd, cwd=ROOT, env=e, capture_output=True, text=True, timeout=60)


def selected(home: Path, version: str | None) -> dict[str, str]:
    script = 'ROOT="$PWD"; source ci/torch-env.sh; echo "$TORCH_VERSION|$VENV|$BUILD|$REQS"'
    p = run(["bash", "-c", script], home, **({"AMPBENCH_TORCH": version} if version else {}))
    assert p.returncode == 0, p.stderr
    v, venv, build, reqs = p.stdout.strip().split("|")
    return {"version": v, "venv": venv, "build": build, "reqs": reqs}


def fake_venv(venv: Path, torch_version: str, stamped: bool = True) -> None:
    pkg = venv / "lib/python3.11/site-packages/torch"
    pkg.mkdir(parents=True)
    (pkg / "version.py").write_text(f"__version__ = '{torch_version}+cu130'\n")
    (venv / "bin").mkdir()
    (venv / "bin/python").write_text("")
    if stamped:
        (venv / ".ampbench-requirements").write_text("0\n")


def test_the_default_pin_is_in_the_window_with_its_pairing():
    p = pins()
    assert p["torch"] in window(), "ci/requirements.txt pins a torch outside ci/torch-versions.txt"
    assert (p["torchvision"], p["transformers"], p["torchao"]) == window()[p["torch"]]


def test_the_default_has_its_release_venv_and_build_folder(tmp_path):
    s = selected(tmp_path, None)
    assert s["version"] == pins()["torch"]
    assert s["venv"] == str(tmp_path / f"torch-{pins()['torch']}/venv")
    assert s["build"] == str(ROOT / "build")
    assert s["reqs"] == str(ROOT / "ci/requirements.txt")


@pytest.mark.parametrize("version", sorted(set(window()) - {pins()["torch"]}))
def test_another_version_has_its_own_venv_build_folder_and_pins(tmp_path, version):
    s = selected(tmp_path, version)
    assert s["venv"] == str(tmp_path / f"torch-{version}/venv")
    assert s["build"] == str(ROOT / f"build-torch-{version}")
    reqs = Path(s["reqs"]).read_text().splitlines()
    default = (ROOT / "ci/requirements.txt").read_text().splitlines()
    vision, transformers, torchao = window()[version]
    expected = {"torch": version, "torchvision": vision, "transformers": transformers, "torchao": torchao}
    assert len(reqs) == len(default)
    for mine, theirs in zip(reqs, default):
        name = re.match(r"^([A-Za-z0-9_-]+)==", theirs)
        if name and name.group(1) in expected:
            assert mine.startswith(f"{name.group(1)}=={expected[name.group(1)]}"), mine
        else:
            assert mine == theirs  # everything else is the same on both sides of a comparison


@pytest.mark.parametrize("version", ["2.10.0", "9.0.0", "2.14", "latest", "2.14.1; rm -rf /"])
@pytest.mark.parametrize("command", [["ci/bootstrap.sh"], ["ci/build.sh"], ["./ampbench", "list"]])
def test_a_version_outside_the_window_is_refused_with_exit_2(tmp_path, version, command):
    p = run(command, tmp_path, AMPBENCH_TORCH=version)
    assert p.returncode == 2, p.stderr
    assert "supported" in p.stderr
    assert not (tmp_path / f"torch-{version}").exists()


def test_the_launcher_flag_is_the_same_as_the_variable(tmp_path):
    p = run(["./ampbench", "--torch", "2.10.0", "list"], tmp_path)
    assert p.returncode == 2 and "outside the supported window" in p.stderr
    p = run(["./ampbench", "--torch"], tmp_path)
    assert p.returncode == 2 and "--torch needs a version" in p.stderr


@pytest.mark.parametrize("flag", [["--torch", ""], ["--torch="]])
def test_an_empty_torch_flag_is_refused_not_taken_for_the_default(tmp_path, flag):
    p = run(["./ampbench", *flag, "list"], tmp_path)
    assert p.returncode == 2 and p.stderr == "ampbench: error: --torch needs a version, got ''\n", p.stderr
    assert not list(tmp_path.iterdir())  # nothing provisioned


# bash -c sourcing torch-env.sh is the case the scripts share, and never
# provisions, whatever the outcome.
SOURCES_TORCH_ENV = ["bash", "-c", 'ROOT="$PWD"; source ci/torch-env.sh; echo "$TORCH_VERSION"']


@pytest.mark.parametrize("command", [SOURCES_TORCH_ENV, ["ci/bootstrap.sh"], ["ci/build.sh"], ["./ampbench", "list"]])
def test_an_empty_torch_variable_is_refused_not_taken_for_the_default(tmp_path, command):
    p = run(command, tmp_path, AMPBENCH_TORCH="")
    assert p.returncode == 2, p.stderr
    assert "AMPBENCH_TORCH is set but empty: name a release (supported: " in p.stderr
    assert f"or unset it for the default, {pins()['torch']}" in p.stderr
    assert not list(tmp_path.iterdir())


def test_torch_before_upgrade_is_refused(tmp_path):
    """upgrade picks its two versions itself: --torch there would be ignored."""
    p = run(["./ampbench", "--torch", other_version(), "upgrade", "--from", "2.11.0", "--to", "2.15.0"], tmp_path)
    assert p.returncode == 2 and "--torch does not apply to upgrade" in p.stderr, p.stderr
    assert not list(tmp_path.iterdir())


def other_version() -> str:
    return sorted(set(window()) - {pins()["torch"]})[0]


def test_a_half_provisioned_venv_is_refused(tmp_path):
    v = other_version()
    fake_venv(tmp_path / f"torch-{v}/venv", v, stamped=False)
    p = run(["ci/build.sh"], tmp_path, AMPBENCH_TORCH=v, AMPBENCH_BUILD_DIR=str(tmp_path / "b"))
    assert p.returncode == 2 and "not provisioned" in p.stderr, p.stderr
    assert not (tmp_path / "b").exists()


def test_a_venv_holding_another_torch_is_refused(tmp_path):
    v = other_version()
    fake_venv(tmp_path / f"torch-{v}/venv", pins()["torch"])  # someone pip-installed another torch into it
    p = run(["ci/build.sh"], tmp_path, AMPBENCH_TORCH=v, AMPBENCH_BUILD_DIR=str(tmp_path / "b"))
    assert p.returncode == 2 and f"holds torch {pins()['torch']}, not {v}" in p.stderr, p.stderr


def test_a_build_folder_of_another_version_is_refused_untouched(tmp_path):
    v = other_version()
    fake_venv(tmp_path / f"torch-{v}/venv", v)
    build = tmp_path / "b"
    build.mkdir()
    cache = build / "CMakeCache.txt"
    cache.write_text(f"AMPBENCH_TORCH_VERSION:INTERNAL={pins()['torch']}\n")
    p = run(["ci/build.sh"], tmp_path, AMPBENCH_TORCH=v, AMPBENCH_BUILD_DIR=str(build))
    assert p.returncode == 2 and f"configured against torch {pins()['torch']}, not {v}" in p.stderr, p.stderr
    assert cache.read_text() == f"AMPBENCH_TORCH_VERSION:INTERNAL={pins()['torch']}\n"
    assert sorted(x.name for x in build.iterdir()) == ["CMakeCache.txt"]


def provisioned_fake_venv(home: Path, venv: Path, version: str) -> None:
    """A fake venv whose stamp matches `version`'s requirements, so that
    bootstrap.sh has nothing to install."""
    reqs = Path(selected(home, version)["reqs"])
    fake_venv(venv, version)
    (venv / "bin/python").chmod(0o755)
    (venv / ".ampbench-requirements").write_text(hashlib.sha256(reqs.read_bytes()).hexdigest() + "\n")


@pytest.mark.parametrize("which", ["pin", "other"])
def test_an_unversioned_venv_moves_to_its_release_and_the_pin_is_linked(tmp_path, which):
    v = pins()["torch"] if which == "pin" else other_version()
    provisioned_fake_venv(tmp_path, tmp_path / "venv", v)
    p = run(["ci/bootstrap.sh"], tmp_path, **({} if which == "pin" else {"AMPBENCH_TORCH": v}))
    assert p.returncode == 0, p.stderr
    assert (tmp_path / f"torch-{v}/venv/.ampbench-requirements").is_file()
    assert f"moved the torch {v} venv" in p.stderr
    if which == "pin":
        assert os.readlink(tmp_path / "venv") == f"torch-{v}/venv"
    else:
        assert not (tmp_path / "venv").exists()  # the link names the pin's venv only


def test_an_unversioned_venv_of_an_unsupported_torch_is_left_alone(tmp_path):
    fake_venv(tmp_path / "venv", "2.10.0")
    p = run(["ci/bootstrap.sh"], tmp_path)
    assert p.returncode == 1 and "holding torch 2.10.0" in p.stderr, p.stderr
    assert (tmp_path / "venv/lib/python3.11/site-packages/torch/version.py").is_file()
    assert not list(tmp_path.glob("torch-*/venv"))


BINARY = os.environ.get("AMPBENCH_BINARY", "")


@pytest.mark.skipif(not BINARY or not Path(BINARY).exists(), reason="AMPBENCH_BINARY names no built ampbench")
def test_the_binary_loads_the_wheels_cuda_libraries_not_the_systems():
    """ldd resolves every library the wheel ships (NCCL, cuDNN, cuBLAS, the
    CUDA runtime) from the venv's site-packages/nvidia, never from the
    system's toolkit, though the system has its own NCCL and CUDA runtime."""
    out = subprocess.run(["ldd", BINARY], capture_output=True, text=True, timeout=60).stdout
    resolved = dict(re.findall(r"^\s*(\S+) => (\S+)", out, re.M))
    if "libtorch_cuda.so" not in resolved:
        pytest.skip("a CPU-only torch: no CUDA library is linked")
    shipped = {lib.name for lib in Path(resolved["libtorch_cuda.so"]).parents[2].glob("nvidia/*/lib/*.so*")}
    linked = {name: path for name, path in resolved.items() if name in shipped}
    assert "libnccl.so.2" in linked, out
    wheel = Path(resolved["libtorch_cuda.so"]).resolve().parents[2] / "nvidia"
    for name, path in linked.items():
        assert Path(path).resolve().is_relative_to(wheel), f"{name} resolves to {path}, not the wheel's ({wheel})"
