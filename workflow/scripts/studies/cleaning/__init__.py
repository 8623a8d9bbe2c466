"""Beyond the paper: which cells to clean, on the real data sets."""
