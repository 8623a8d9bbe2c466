"""Reading, the one way in: a question's tables, wherever they are, into integer codes and
their statistics (``nbcert.stats``'s types), for the questions, which read no file.

* ``asked`` -- a question's tables read, coded and checked once, in one direction
  (``ask``), into the typed record of what was asked (``Asked``).
* ``counts`` -- the statistics counted as a table is read: in one pass
  (``frame_stats``), or part by part and merged (``partial_counts``, ``Merger``);
  ``streamed`` -- a file batch by batch (``StreamedStats``); ``cluster`` -- a Dask
  DataFrame partition by partition.
* ``options`` -- the reading options, checked once (``reading_options``: ``Reading``,
  ``ReadingOptions``), and the test table's id column (``RowIds``).
* ``tables`` -- a question's tables read and normalised once each (``read_tables``):
  paths read, decimal marks, bins; ``truth`` -- the truth table of the cleaning questions.
* ``files`` -- CSV and Parquet through pyarrow (``TableSource``, ``read_csv``): one reader;
  its CSV half is ``csvfile`` (pieces cut at record ends, parsed on every core), its
  Parquet half ``parquetfile``.
* ``encoding`` -- a table as compact integer codes (``encode``, ``from_codes``: an
  ``EncodedTable``).
* ``columns`` -- one column's codes and domain, the label column's codes (``code_column``,
  ``code_labels``).
* ``buffers`` -- Arrow arrays read from their buffers: validity, values, integer
  dictionaries, text (``text_column``).
* ``arrow`` -- Arrow columns as codes for counting, read in place.
* ``streaming`` -- whether a file's table fits in memory.
* ``parallel`` -- columns worked on side by side.
* ``binning``, ``hints`` -- numeric columns into bins; warnings about the data.
"""
