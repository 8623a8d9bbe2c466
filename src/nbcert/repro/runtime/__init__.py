"""How a pipeline job runs under Snakemake: its start and end (``job``), its outputs written
whole or not at all (``outputs``), and the workarounds for Snakemake's own behaviour, each
named in its module with the Snakemake version it was written against and a test that fails
once it is no longer needed or no longer works:

* ``scheduler``: Snakemake 9's scheduling loop arms one more wake-up timer per pass;
* ``parent``: a job outlives a Snakemake killed with ``kill -9``;
* ``job``: Snakemake's ``benchmark:`` directive samples a job from outside (jobs write
  their own benchmark files instead).
"""
