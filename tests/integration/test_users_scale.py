"""Many users on a managed PostgreSQL: memory per user as the client tree's peak over the
point, the saturation decision recorded with its figures, client processes chosen per point."""

from __future__ import annotations

import pytest
from needs import usable

pytestmark = pytest.mark.integration


def test_memory_over_the_point_and_the_saturation_figures(dbstor, tmp_path, server_dir):
    usable("postgres")
    target = server_dir / "lun"
    target.mkdir()
    proc = dbstor(
        "run", "--engine", "postgres", "--workload", "orders", "--scale", "1",
        "--target", target, "--users", "2,64", "--duration", "3", "--warmup", "1",
        "--out", "out",
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    data = dbstor.results(dbstor.only_run_folder(tmp_path / "out"))
    assert data["workload"]["client_processes_auto"] is True
    assert data["workload"]["client_processes"] == 1
    first, second = data["points"]
    for point in (first, second):
        assert point["status"] == "ok" and point["errors"] == 0
        client = point["client"]
        assert client["processes"] == 1, "auto: one process up to 256 users"
        assert "Pss" in client["memory_basis"] and "peak over the point" in client["memory_basis"]
        grown = client["memory_peak_kib"] - client["memory_base_kib"]
        assert grown > 0, "the users' connections and sessions take memory"
        assert client["rss_per_user_kib"] == pytest.approx(grown / client["users"])
        assert client["connected_rss_per_user_kib"] is not None
        assert client["host_run_queue_mean"] >= 1 and client["host_run_queue_max"] >= 1
        found = point["saturation"]
        assert found["by"] in (None, "server", "client", "host")
        assert found["cores"] >= 1 and found["reason"]
        # the flag follows the decision, and its reason is the decision's
        assert point["saturated"] == (found["by"] is not None)
        if point["saturated"]:
            assert point["saturation_reason"] == found["reason"]
    assert first["saturation"]["users_ratio"] is None, "the first point has none before it"
    assert second["saturation"]["users_ratio"] == 32
    assert second["saturation"]["tps_ratio"] == pytest.approx(second["tps"] / first["tps"])
    assert list(target.iterdir()) == []
