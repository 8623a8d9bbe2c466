"""Reading: a training table, wherever it is, into integer codes (the statistics are
``nbcert.stats``, which builds on this package; nothing here imports it).

* ``options`` -- the reading options, checked once (``Reading``, ``ReadingOptions``), and
  the test table's id column (``RowIds``).
* ``tables`` -- a question's tables read and normalised once each (``read_tables``):
  paths read, decimal marks, bins; ``truth`` -- the truth table of the cleaning questions.
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
