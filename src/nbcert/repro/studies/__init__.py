"""Studies beyond the paper, one package each (its run, and its figure): many-point
poisoning, counting in practice, scaling, and which cells to clean."""
