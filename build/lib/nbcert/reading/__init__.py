"""Reading: a training table, wherever it is, into integer codes (the statistics are
``nbcert.stats``, which builds on this package; nothing here imports it).

* ``files`` -- CSV and Parquet through pyarrow (``TableSource``, ``read_csv``): one reader;
  its CSV half is ``csvfile`` (pieces cut at record ends, parsed on every core), its
  Parquet half ``parquetfile``.
* ``encoding`` -- a table as compact integer codes and its domains (``EncodedTable``,
  ``encode``, ``from_codes``).
* ``columns`` -- one column's codes and domain, the label column's codes (``code_column``,
  ``code_labels``).
* ``buffers`` -- Arrow arrays read from their buffers: validity, values, integer
  dictionaries, text (``text_column``).
* ``arrow`` -- Arrow columns as codes for counting, read in place.
* ``streaming`` -- whether a file's table fits in memory.
* ``parallel`` -- columns worked on side by side.
* ``binning``, ``hints`` -- numeric columns into bins; warnings about the data.
"""
