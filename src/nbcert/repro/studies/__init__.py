"""Studies beyond the paper: many-point poisoning, counting in practice, scaling."""
