"""Calibration: how an offline judge's raw signals become p(true), and a person's refit.

curves.py holds the built-in curves and the held-out figures measured of them
(agreement.json, written by `bench/calibrate.py --write`); fitting.py the fit and its honest
measure; profile.py calibration profiles fitted to a person's labels. The judges read these;
nothing here imports a judge.
"""
