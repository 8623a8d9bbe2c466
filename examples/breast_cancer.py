"""Write the README's worked example: scikit-learn's breast-cancer table as an analyst's CSVs.

``python examples/breast_cancer.py [FOLDER]`` writes, into FOLDER (default: the current one):

* ``truth.csv``: 559 rows, 30 numeric features and the label ``diagnosis``, complete;
* ``train.csv``: the same rows with 10 % of the feature cells blank (drawn with seed 0);
* ``test.csv``: 10 other rows, with an ``id`` column and without the label.

No download: the table ships with scikit-learn.
"""

import sys
from pathlib import Path

import numpy as np
from sklearn.datasets import load_breast_cancer


def main(folder: str = ".") -> None:
    out = Path(folder)
    out.mkdir(parents=True, exist_ok=True)
    data = load_breast_cancer(as_frame=True)
    table = data.frame.rename(columns={"target": "diagnosis"})
    table["diagnosis"] = np.where(table["diagnosis"] == 1, "benign", "malignant")
    rng = np.random.default_rng(0)
    order = rng.permutation(len(table))
    test, truth = table.iloc[order[:10]], table.iloc[order[10:]]
    features = list(data.feature_names)
    dirty = truth.copy()
    dirty[features] = dirty[features].mask(rng.random((len(dirty), len(features))) < 0.10)
    truth.to_csv(out / "truth.csv", index=False)
    dirty.to_csv(out / "train.csv", index=False)
    test.drop(columns="diagnosis").assign(id=[f"p{i}" for i in order[:10]]).to_csv(
        out / "test.csv", index=False
    )


if __name__ == "__main__":
    main(*sys.argv[1:])
