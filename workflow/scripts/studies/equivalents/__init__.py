"""Beyond the paper: the paper's baselines beside cheaper equivalents of them."""
