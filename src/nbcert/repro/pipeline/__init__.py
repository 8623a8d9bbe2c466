"""The pipeline's stages, in the order a run meets them: fetch a data set (``fetch``),
discretize it (``discretize``), split and blank cells (``stages``, ``perturb``), time the
paper's methods (``stages``), check and join the run tables (``tables``, ``expect``) and
draw the paper's figures (``figures``); ``settings`` is the config, checked once, and
``provenance`` what the report says about the machine and the versions."""
