"""The fleet's launch templates (ci/fleet/): each node runs one
deterministic qualification into its own folder of the shared one, named
after the node, which is what reports.fleet groups and tells apart."""
import os
import pathlib
import subprocess

import yaml

ROOT = pathlib.Path(__file__).resolve().parents[2]


def test_the_slurm_array_task_runs_one_deterministic_qualification_named_after_its_node(tmp_path):
    fake = tmp_path / "ampbench"
    fake.write_text('#!/bin/sh\necho "id=$AMPBENCH_MACHINE_ID" > "$RECORD"\nfor a in "$@"; do echo "$a" >> "$RECORD"; done\n')
    fake.chmod(0o755)
    env = {"PATH": os.environ["PATH"], "AMPBENCH": str(fake), "RECORD": str(tmp_path / "record"),
           "AMPBENCH_FLEET_DIR": str(tmp_path / "fleet"), "SLURMD_NODENAME": "gpu-node-07"}
    subprocess.run([ROOT / "ci/fleet/qualify.sbatch", "--suite", "smoke"], env=env, check=True)
    record = (tmp_path / "record").read_text().splitlines()
    assert record[0] == "id=gpu-node-07"
    args = record[1:]
    assert args[:2] == ["run", "--deterministic"] and args[-2:] == ["--suite", "smoke"]
    assert args[args.index("--out") + 1] == str(tmp_path / "fleet/gpu-node-07")


def test_the_slurm_task_refuses_to_run_without_a_shared_folder(tmp_path):
    env = {"PATH": os.environ["PATH"], "AMPBENCH": "/bin/false", "SLURMD_NODENAME": "n1"}
    p = subprocess.run([ROOT / "ci/fleet/qualify.sbatch"], env=env, capture_output=True, text=True)
    assert p.returncode != 0 and "AMPBENCH_FLEET_DIR" in p.stderr


def test_the_kubernetes_job_is_indexed_one_pod_a_node_and_names_the_machine_after_the_node():
    job = yaml.safe_load((ROOT / "ci/fleet/qualify-job.yaml").read_text())
    spec = job["spec"]
    assert job["kind"] == "Job" and spec["completionMode"] == "Indexed"
    assert spec["completions"] == spec["parallelism"]
    pod = spec["template"]["spec"]
    anti = pod["affinity"]["podAntiAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"][0]
    assert anti["topologyKey"] == "kubernetes.io/hostname"
    assert anti["labelSelector"]["matchLabels"].items() <= spec["template"]["metadata"]["labels"].items()
    container = pod["containers"][0]
    env = {e["name"]: e for e in container["env"]}
    assert env["NODE_NAME"]["valueFrom"]["fieldRef"]["fieldPath"] == "spec.nodeName"
    script = " ".join(container["args"])
    assert 'AMPBENCH_MACHINE_ID="$NODE_NAME"' in script and "--deterministic" in script
    assert '--out "/fleet/$AMPBENCH_MACHINE_ID"' in script
    mounts = {m["name"]: m["mountPath"] for m in container["volumeMounts"]}
    assert mounts["fleet"] == "/fleet" and pod["volumes"][0]["persistentVolumeClaim"]["claimName"]
