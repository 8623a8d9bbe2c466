"""Studies beyond the paper, one package each: cheaper equivalents of the paper's baselines,
poisoning test points together, counting in practice, scaling, which cells to clean, and
CPClean's benchmark spaces.  Each has ``run`` (the experiment, a table: it only runs),
``report`` (its section of results/report.md, every sentence computed from the table) and,
but the equivalents, ``figure``; what a report and a figure both read of a table is in the
study's own module (``summary``, ``slopes``)."""
