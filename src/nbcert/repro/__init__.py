"""The reproduction of the paper's experiments, and the studies beyond it.

Stages (fetch, discretize, split/perturb, timed runs), the studies, figures, the report,
synthetic data and the benchmark.  Nothing in :mod:`nbcert` imports this package: its
dependencies (snakemake, kagglehub, matplotlib) are the ``[pipeline]`` extra.
"""
