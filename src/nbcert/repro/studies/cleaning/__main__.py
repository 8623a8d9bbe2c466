"""``python -m nbcert.repro.studies.cleaning --dataset NAME``: time the cleaning study on
one data set as the pipeline runs it (:func:`main`)."""

from __future__ import annotations

import time

from .run import run


def main(argv=None) -> None:
    """Time the study on one data set as the pipeline runs it (``python -m
    nbcert.repro.studies.cleaning --dataset NAME``): the config's settings and seed, the
    discretized table from ``--data``; prints wall and CPU seconds and the peak resident set."""
    import argparse
    import resource

    import yaml

    from ...pipeline.settings import load
    from ...pipeline.tables import read_data

    p = argparse.ArgumentParser(
        prog="python -m nbcert.repro.studies.cleaning", description=main.__doc__
    )
    p.add_argument("--dataset", required=True)
    p.add_argument("--data", default="data/discretized", help="folder of the discretized tables")
    p.add_argument("--config", default="config.yaml")
    p.add_argument("--schema", default="workflow/schemas/config.schema.yaml")
    p.add_argument("--out", help="write the study's table (CSV) here")
    a = p.parse_args(argv)
    with open(a.config) as f:
        S = load(yaml.safe_load(f), a.schema)
    label = S.datasets[a.dataset].label
    df = read_data(f"{a.data}/{a.dataset}.csv", label)
    wall, cpu = time.perf_counter(), time.process_time()
    table = run(df, label, a.dataset, S.seed, S.cleaning, progress=lambda s: None)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"{a.dataset}: {wall:.1f} s wall, {cpu:.1f} s CPU, peak {peak:.0f} MB, {len(table)} rows")
    if a.out:
        table.to_csv(a.out, index=False)


if __name__ == "__main__":
    main()
