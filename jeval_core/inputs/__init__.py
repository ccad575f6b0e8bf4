"""The inputs wing: what comes in from files and links (case files, datasets, evaluator files)."""
