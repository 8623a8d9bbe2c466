"""Synthetic categorical tables with planted Naive Bayes structure.

Labels are drawn from a random prior and each feature from a label-specific
categorical distribution (Dirichlet with small concentration, so labels differ), which
is exactly the Naive Bayes generative model: predictions on such data are meaningful.
"""

from __future__ import annotations

import numpy as np


def synthetic_codes(n: int, d: int, domain: int = 5, labels: int = 3, seed=0, concentration: float = 0.5):
    """Return (X (n, d) intp local codes, y (n,) label codes)."""
    rng = np.random.default_rng(seed)
    prior = rng.dirichlet(np.full(labels, 5.0))
    y = np.sort(rng.choice(labels, size=n, p=prior))
    y[:labels] = np.arange(labels)  # every label occurs
    y.sort()
    X = np.empty((n, d), np.intp)
    for j in range(d):
        cdf = np.cumsum(rng.dirichlet(np.full(domain, concentration), size=labels), axis=1)
        X[:, j] = (rng.random(n)[:, None] > cdf[y]).sum(axis=1)
        X[:domain, j] = np.arange(domain)  # every value occurs
    return np.minimum(X, domain - 1), y
