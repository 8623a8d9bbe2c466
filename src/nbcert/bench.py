"""``python -m nbcert.bench``: the benchmark lives in :mod:`nbcert.repro.bench` (needs the
``[pipeline]`` extra); this name is kept so the documented command stays the same."""

if __name__ == "__main__":
    from nbcert.repro.bench import main

    raise SystemExit(main())
