"""The database worker names the devices under its own data path when it prepares an
instance: on a cluster each host samples the device under the target on that host, which
the coordinator cannot know (cluster/database.py hands each host back its own)."""

from __future__ import annotations

from dbstor.runs.worker import make_worker
from dbstor.telemetry.disk import devices_for_path


def setup(folder) -> dict:
    return {
        "instance": 0,
        "engine": "sqlite",
        "paths": {"data": [str(folder)], "log": [], "temp": []},
        "dsn": None,
        "buffer_bytes": None,
        "memory_limit_bytes": None,
        "workload": "blocks",
        "scale": 50,
        "seed": 1,
        "options": {},
        "users": 1,
    }


def test_a_prepared_instance_reports_the_devices_under_its_data_path(tmp_path):
    worker = make_worker("database", {})
    try:
        facts = worker.prepare(setup(tmp_path))
    finally:
        worker.cleanup()
    assert facts["devices"] == devices_for_path(tmp_path)
