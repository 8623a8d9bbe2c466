"""Tables on a cluster: the statistics of a Dask DataFrame, partition by partition.

Each partition's partial statistics (``nbcert.reading.counts.partial_counts``: its local domains and
per-label counts, a few kilobytes) are computed where the partition lives; the client
merges them in partition order, so the answers equal the in-memory path's.  An input
error (a missing label) is caught on the worker and raised on the client with its row
counted over the partitions before it, so the message is the in-memory one.

Dask is the optional ``[dask]`` extra.  The CLI connects to a scheduler given by
``--scheduler ADDRESS`` or ``NBCERT_DASK_SCHEDULER``; a Parquet training file (or folder)
is then read by the workers with ``dask.dataframe.read_parquet``.
"""

from __future__ import annotations

import os

from ..errors import InputError
from ..stats import Stats
from .counts import Merger, partial_counts
from .encoding import check_columns

SCHEDULER_ENV = "NBCERT_DASK_SCHEDULER"


def _partial(df, label, missing, name, features):
    """Runs on a worker: (partial counts or None for an empty partition, rows, error)."""
    if len(df) == 0:
        return None, 0, None
    try:
        return (
            partial_counts(df, label, missing=missing, name=name, features=features),
            len(df),
            None,
        )
    except InputError as e:
        return None, len(df), e


def dask_stats(ddf, label: str, *, missing=None, name: str = "training table") -> Stats:
    """The statistics of a Dask DataFrame: partial counts per partition on the cluster,
    merged on the client in partition order."""
    import dask

    features = check_columns(list(ddf.columns), label, name)
    tokens = list(missing or [])
    tasks = [
        dask.delayed(_partial, pure=True)(part, label, tokens, name, features)
        for part in ddf.to_delayed()
    ]
    merger = Merger(features=features, name=name, label=label)
    for part, _rows, error in dask.compute(*tasks):
        if error is not None:
            raise error.shifted(merger.rows) if hasattr(error, "shifted") else error
        if part is not None:
            merger.add(part)
    return merger.finish()


def scheduler_address(option: str | None) -> str | None:
    """The scheduler to use: the option, else the environment variable, else None."""
    return option or os.environ.get(SCHEDULER_ENV) or None


def connect(address: str):
    """A distributed Client for the scheduler at ``address`` (a one-line error if it fails)."""
    try:
        from distributed import Client
    except ImportError:
        raise InputError("--scheduler needs Dask: pip install 'nbcert[dask]'") from None
    try:
        return Client(address, timeout="10s")
    except (OSError, TimeoutError, ValueError) as e:
        raise InputError(f"cannot reach the Dask scheduler at {address} ({e})") from None


def read_on_cluster(source, name: str):
    """The Dask DataFrame of a Parquet training file or folder (read by the workers)."""
    import dask.dataframe as dd

    if source.format != "parquet":
        raise InputError(
            f"{name}: with a Dask scheduler the training table must be Parquet (a .parquet file or "
            f"a folder of them) that the workers can read"
        )
    ddf = dd.read_parquet(os.fspath(source.path))
    return ddf.map_partitions(_as_text) if source.text else ddf


def _as_text(df):
    """Every non-string column as the text of its values (as the CSV test file holds them)."""
    import pandas as pd
    import pyarrow as pa

    out = {}
    for c in df.columns:
        col = df[c]
        if pd.api.types.is_string_dtype(col):
            out[c] = col
        else:
            out[c] = pd.Series(
                pa.array(col, from_pandas=True).cast(pa.string()).to_pandas(), index=df.index
            )
    return pd.DataFrame(out, index=df.index)
