"""Synthetic categorical tables with planted Naive Bayes structure.

Labels are drawn from a random prior and each feature from a label-specific
categorical distribution (Dirichlet with small concentration, so labels differ), which
is exactly the Naive Bayes generative model: predictions on such data are meaningful.

``planted_model`` draws the model once; ``PlantedNB.sample`` then draws any number of
rows from it, so a training table and test points can come from the same model
(``synthetic_table``), and tables of different sizes share one model.
``synthetic_codes`` is the original one-call generator (model and rows from one seed).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


def _fill_column(out: np.ndarray, cdf: np.ndarray, bounds: np.ndarray, u: np.ndarray) -> None:
    """out[i] = the value of row i: the number of cdf[y_i] entries below u_i.

    Rows are grouped by label (``bounds``), so each label's block is one searchsorted
    against its own cdf: no (n, domain) temporary.
    """
    for l in range(len(bounds) - 1):
        a, b = bounds[l], bounds[l + 1]
        if b > a:
            out[a:b] = np.searchsorted(cdf[l], u[a:b], side="left")
    np.minimum(out, cdf.shape[1] - 1, out=out)


def _bounds(y: np.ndarray, labels: int) -> np.ndarray:
    bounds = np.zeros(labels + 1, np.intp)
    np.cumsum(np.bincount(y, minlength=labels), out=bounds[1:])
    return bounds


def synthetic_codes(n: int, d: int, domain: int = 5, labels: int = 3, seed=0, concentration: float = 0.5):
    """Return (X (n, d) intp local codes, y (n,) label codes).

    Every label and every value occurs (the first rows are set so).  The model is drawn
    from the same stream as the rows, so it depends on n; use ``planted_model`` for a
    model shared across sizes and with test points.
    """
    rng = np.random.default_rng(seed)
    prior = rng.dirichlet(np.full(labels, 5.0))
    y = np.sort(rng.choice(labels, size=n, p=prior))
    y[:labels] = np.arange(labels)  # every label occurs
    y.sort()
    bounds = _bounds(y, labels)
    X = np.empty((n, d), np.intp)
    col = np.empty(n, np.intp)
    for j in range(d):
        cdf = np.cumsum(rng.dirichlet(np.full(domain, concentration), size=labels), axis=1)
        _fill_column(col, cdf, bounds, rng.random(n))
        X[:, j] = col
        X[:domain, j] = np.arange(domain)  # every value occurs
    return X, y


@dataclass(frozen=True)
class PlantedNB:
    """A Naive Bayes generative model: label prior and per-label value distributions."""

    prior: np.ndarray  # (labels,)
    cdf: np.ndarray  # (d, labels, domain) cumulative value probabilities per feature and label

    @property
    def d(self) -> int:
        return self.cdf.shape[0]

    @property
    def labels(self) -> int:
        return self.cdf.shape[1]

    @property
    def domain(self) -> int:
        return self.cdf.shape[2]

    def sample(self, n: int, seed=None, *, cover: bool = True):
        """n rows (X (n, d) intp, y (n,)), rows sorted by label.

        With ``cover`` the first max(labels, domain) rows are set so that every label
        and every value of every feature occurs (needs n >= max(labels, domain)).
        """
        m, v = self.labels, self.domain
        if cover and n < max(m, v):
            raise ValueError(f"cover needs n >= max(labels, domain) = {max(m, v)}, got n={n}")
        rng = np.random.default_rng(seed)
        y = np.sort(rng.choice(m, size=n, p=self.prior))
        if cover:
            y[:m] = np.arange(m)
            y.sort()
        bounds = _bounds(y, m)
        X = np.empty((n, self.d), np.intp)
        col = np.empty(n, np.intp)
        for j in range(self.d):
            _fill_column(col, self.cdf[j], bounds, rng.random(n))
            X[:, j] = col
            if cover:
                X[:v, j] = np.arange(v)
        return X, y

    def predict(self, X: np.ndarray) -> np.ndarray:
        """The Bayes-optimal label of each row under the planted model."""
        prob = np.diff(self.cdf, axis=2, prepend=0.0)  # (d, labels, domain)
        with np.errstate(divide="ignore"):
            logp = np.log(self.prior)[None, :] + sum(np.log(prob[j][:, X[:, j]]).T for j in range(self.d))
        return logp.argmax(axis=1)


def planted_model(d: int, domain: int = 5, labels: int = 3, seed=0, concentration: float = 0.5) -> PlantedNB:
    """Draw a Naive Bayes model: a Dirichlet(5) prior and Dirichlet(concentration) features."""
    rng = np.random.default_rng(seed)
    prior = rng.dirichlet(np.full(labels, 5.0))
    cdf = np.cumsum(rng.dirichlet(np.full(domain, concentration), size=(d, labels)), axis=2)
    return PlantedNB(prior=prior, cdf=cdf)


def synthetic_table(n: int, d: int, domain: int = 5, labels: int = 3, seed=0, k: int = 0,
                    concentration: float = 0.5):
    """A training table and k test points from one planted model.

    Returns (model, X (n, d), y (n,), T (k, d), t_labels (k,)).  The model and the test
    points depend only on the seed (not on n), so tables of different sizes share both.
    """
    model_seed, test_seed, train_seed = np.random.SeedSequence(_entropy(seed)).spawn(3)
    model = planted_model(d, domain, labels, model_seed, concentration)
    T, t_labels = model.sample(k, test_seed, cover=False) if k else (np.empty((0, d), np.intp), np.empty(0, np.intp))
    if k:  # sample() sorts by label; shuffle the test points back into drawing order
        order = np.random.default_rng(test_seed.spawn(1)[0]).permutation(k)
        T, t_labels = T[order], t_labels[order]
    X, y = model.sample(n, np.random.SeedSequence([*train_seed.generate_state(4), n]))
    return model, X, y, T, t_labels


def _entropy(seed):
    """Seed material for SeedSequence from an int, a sequence of ints or a SeedSequence."""
    if isinstance(seed, np.random.SeedSequence):
        return seed.generate_state(4)
    return seed
