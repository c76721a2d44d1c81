"""Offline real data for the convergence suite (docs/convergence.md).

scikit-learn's wheel ships the handwritten digits (1797 8x8 images, 10
classes) inside the package, so nothing is downloaded. This module splits
them once, with a fixed seed and stratified by class, and writes them as one
JSON file that the C++ harness reads (harness/data/dataset_file.h):

    python -m reference.python.datasets digits OUT.json

Exit 0 with the file written; exit 2 with a one-line reason on stderr when
scikit-learn is missing or OUT cannot be written.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
import tempfile

FORMAT = "ampbench.dataset"
VERSION = 1
# The split: 360 validation images (20%, the size most digits examples
# hold out), stratified by class, from this seed.
SPLIT_SEED = 0
VALIDATION_SIZE = 360
# Pixels are integers 0..16; the harness divides by this.
PIXEL_SCALE = 16


class DatasetError(Exception):
    """A dataset that cannot be made here (the reason is the message)."""


def checksum(train: dict, validation: dict) -> str:
    """sha256 of the split as its canonical JSON (sorted keys, no spaces)."""
    canonical = json.dumps({"train": train, "validation": validation}, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode()).hexdigest()


def digits() -> dict:
    try:
        import sklearn
        from sklearn.datasets import load_digits
        from sklearn.model_selection import train_test_split
    except ImportError as e:
        raise DatasetError(f"scikit-learn is not installed in {sys.executable} ({e}); "
                           "install the pinned one: ci/bootstrap.sh (ci/requirements.txt)") from e
    data = load_digits()
    x = data.data.astype(int)
    y = data.target.astype(int)
    x_train, x_val, y_train, y_val = train_test_split(x, y, test_size=VALIDATION_SIZE, random_state=SPLIT_SEED,
                                                      stratify=y)
    train = {"x": x_train.tolist(), "y": y_train.tolist()}
    validation = {"x": x_val.tolist(), "y": y_val.tolist()}
    return {
        "format": FORMAT,
        "version": VERSION,
        "name": "digits",
        "source": f"sklearn.datasets.load_digits (scikit-learn {sklearn.__version__})",
        "split": {"seed": SPLIT_SEED, "validation": VALIDATION_SIZE, "stratified": True,
                  "how": "sklearn.model_selection.train_test_split"},
        "features": int(x.shape[1]),
        "image": [8, 8],
        "classes": 10,
        "pixel_scale": PIXEL_SCALE,
        "sha256": checksum(train, validation),
        "train": train,
        "validation": validation,
    }


DATASETS = {"digits": digits}


def write(name: str, out: str) -> dict:
    """Writes dataset `name` to `out` atomically (a reader never sees half a file)."""
    doc = DATASETS[name]()
    folder = os.path.dirname(os.path.abspath(out))
    try:
        os.makedirs(folder, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=".dataset-", suffix=".json")
        os.fchmod(fd, 0o644)
        with os.fdopen(fd, "w") as f:
            json.dump(doc, f, separators=(",", ":"))
        os.replace(tmp, out)
    except OSError as e:
        raise DatasetError(f"cannot write {out}: {e.strerror or e}") from e
    return doc


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m reference.python.datasets", description=__doc__.split("\n")[0])
    parser.add_argument("name", choices=sorted(DATASETS))
    parser.add_argument("out", help="the JSON file to write")
    args = parser.parse_args(argv)
    try:
        doc = write(args.name, args.out)
    except DatasetError as e:
        print(f"datasets: error: {e}", file=sys.stderr)
        return 2
    print(f"{args.out}: {args.name}, {len(doc['train']['y'])} train + {len(doc['validation']['y'])} validation, "
          f"sha256 {doc['sha256'][:16]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
