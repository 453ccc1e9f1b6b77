"""Runs: the three run kinds (io, database, queries) and the study that strings them together.

Each run kind is three parts with one job each: a worker that prepares the target and
measures one load point from a plain description on the host it runs on (point.py,
prepare.py, worker.py), a summary that turns outcomes into point results (summary.py), and
the run loop that walks the load series and keeps the run folder and the terminal up to
date (run.py). The study (study.py) plans the runs, checks them before any load, runs them
in turn and compares them.
"""
