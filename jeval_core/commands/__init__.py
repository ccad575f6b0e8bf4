"""The commands wing: the `jeval` command line (score, run, runs, calibrate, profiles)."""
