"""Beyond the paper: poisoning test points together."""
