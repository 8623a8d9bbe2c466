"""Studies beyond the paper, one package each: poisoning test points together, counting in practice,
scaling, and which cells to clean.  Each has ``run`` (the experiment, a table), ``figure``
and ``report`` (its section of results/report.md, every sentence computed from the table)."""
