"""Beyond the paper: counting possible worlds in practice, exact against Monte Carlo."""
