"""``python -m benchmarks``: every method against its references (:func:`benchmarks.methods.main`)."""

from .methods import main

raise SystemExit(main())
