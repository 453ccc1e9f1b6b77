"""Exporter presets as data: one TOML file per exporter, each citing its documentation
(read by telemetry/prometheus/presets.py; shipped as package data)."""
