"""Pipeline stage 2: numeric features into categorical bins (paper section 6.1).

The paper partitions every numerical feature into 5 segments of equal size with
scikit-learn's KBinsDiscretizer; categorical columns are kept as they are.
"""

from __future__ import annotations

from typing import Iterable

import numpy as np
import pandas as pd
from sklearn.preprocessing import KBinsDiscretizer

from ..encoding import InputError


def discretize(df: pd.DataFrame, label: str, *, n_bins: int = 5, strategy: str = "uniform",
               drop: Iterable[str] = (), name: str = "data set") -> pd.DataFrame:
    """Return a table of strings: numeric features binned ("bin0".."bin{n-1}"), others as is."""
    drop = list(drop)
    for col in [label, *drop]:
        if col not in df.columns:
            raise InputError(f"{name}: no column {col!r}")
    out = df.drop(columns=drop)
    features = [c for c in out.columns if c != label]
    numeric = [c for c in features if pd.api.types.is_numeric_dtype(out[c])]
    result = out.astype(object).astype(str).where(out.notna(), None)
    if numeric:
        kb = KBinsDiscretizer(n_bins=n_bins, encode="ordinal", strategy=strategy,
                              **({"quantile_method": "averaged_inverted_cdf"} if strategy == "quantile" else {}))
        bins = kb.fit_transform(out[numeric].to_numpy(dtype=float)).astype(int)
        for i, c in enumerate(numeric):
            result[c] = np.char.add("bin", bins[:, i].astype(str))
    return result
