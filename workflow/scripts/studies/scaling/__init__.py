"""Beyond the paper: every method on synthetic tables of growing size."""
