"""Beyond the paper: poisoning k test points at once."""
