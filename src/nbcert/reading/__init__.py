"""Reading: a training table, wherever it is, into integer codes or the statistics.

* ``files`` -- CSV and Parquet through pyarrow (``TableSource``, ``read_csv``): one reader.
* ``encoding`` -- a table's columns as compact integer codes and its domains (``EncodedTable``).
* ``streaming`` -- the statistics of a file larger than memory, in one bounded pass.
* ``cluster`` -- the statistics of a Dask DataFrame, computed on its workers.
"""
