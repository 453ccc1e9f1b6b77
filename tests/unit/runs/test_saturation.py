"""The saturation decision of a closed-loop database point, from recorded figures only
(the figures of the issue's 256-user point on 2 cores, and a light point)."""

from dbstor.results.model import CpuStats, LatencyStats, Load, Point
from dbstor.runs.database.saturation import apply, saturation


def _point(users, tps, p99, util, server, client, queue=None, processes=1, other=None):
    return Point(
        load=Load(kind="users", value=users, jobs=users),
        duration_s=30,
        warmup_s=10,
        tps=tps,
        txn_lat_ms=LatencyStats(p99=p99),
        cpu=CpuStats(util_pct=util, server_pct=server, client_pct=client, other_pct=other),
        client={"processes": processes, "host_run_queue_mean": queue},
    )


def test_the_server_saturated_at_256_users_on_two_cores():
    before = _point(64, 2300, 60.0, 97, 88, 8, queue=9)
    after = _point(256, 900, 2500.0, 99, 92, 6, queue=70)
    found = saturation(after, before, cores=2)
    assert found["by"] == "server"
    assert found["users_ratio"] == 4 and round(found["tps_ratio"], 2) == 0.39
    assert "the database server, not the client, saturated" in found["reason"]
    assert "run queue 70.0 on 2 cores" in found["reason"]
    apply(after, before, cores=2)
    assert after.saturated and after.saturation_reason == found["reason"]
    assert after.saturation == found


def test_a_light_point_is_not_saturated():
    before = _point(1, 500, 3.0, 35, 20, 4, queue=1)
    after = _point(8, 2300, 6.0, 60, 45, 9, queue=2)
    apply(after, before, cores=2)
    assert not after.saturated and after.saturation_reason is None
    assert after.saturation["by"] is None
    assert after.saturation["reason"].startswith("not saturated: the host's CPU had room")


def test_a_busy_host_whose_throughput_still_rises_is_not_saturated():
    before = _point(8, 1000, 6.0, 95, 70, 10)
    after = _point(16, 1900, 8.0, 97, 80, 12)
    assert saturation(after, before, cores=2)["by"] is None


def test_a_client_on_a_whole_core_is_the_client():
    before = _point(64, 3000, 20.0, 98, 45, 46)
    after = _point(256, 3050, 90.0, 99, 48, 47)
    assert saturation(after, before, cores=2)["by"] == "client"


def test_latency_growing_faster_than_users_is_saturation_even_with_flat_tps_unknown():
    before = _point(64, 2000, 40.0, 99, 90, 5)
    after = _point(256, 2300, 400.0, 99, 92, 5)  # TPS +15%, p99 x10 for x4 users
    assert saturation(after, before, cores=2)["by"] == "server"


def test_other_work_on_the_host_is_the_host():
    before = _point(64, 2000, 40.0, 99, 30, 20)
    after = _point(256, 1500, 400.0, 99, 30, 25)
    assert saturation(after, before, cores=2)["by"] == "host"
    # the server well above the client, but other work took most of the host: the host's
    before = _point(4, 384, 39.0, 99.9, 9, 1.5, other=89.5)
    after = _point(128, 207, 4400.0, 99.9, 22, 1.3, queue=21.7, other=76)
    found = saturation(after, before, cores=2)
    assert found["by"] == "host" and "by other work" in found["reason"]


def test_the_first_point_and_open_loop_points_are_not_judged_here():
    first = _point(1, 500, 3.0, 99, 90, 5, queue=40)
    apply(first, None, cores=2)
    assert not first.saturated and first.saturation["users_ratio"] is None
    rate = _point(8, 500, 3.0, 99, 90, 5)
    rate.open_loop = {"finished_share": 1.0}
    apply(rate, first, cores=2)
    assert rate.saturation is None


def test_auto_client_processes_follow_the_users():
    from dbstor.drivers.processes import AUTO, processes_for

    assert processes_for(1000, 3) == 3, "asked for: as asked"
    assert [processes_for(u, AUTO, cores=2) for u in (1, 8, 256, 257, 1000)] == [1, 1, 1, 2, 2]
    assert processes_for(1000, AUTO, cores=8) == 4
    assert processes_for(8, AUTO, external=True, cores=4) == 4
    assert processes_for(2, AUTO, external=True, cores=4) == 2, "never more than the users"
    # users that keep no thread stay in one process on the server's host
    assert processes_for(1000, AUTO, cores=8, threaded=False) == 1
    assert processes_for(1000, AUTO, external=True, cores=4, threaded=False) == 4


def test_a_managed_postgresql_has_room_for_every_user():
    from dbstor.engines.base import EngineSettings
    from dbstor.engines.postgres import PostgresEngine

    assert PostgresEngine(EngineSettings(users=1000)).server_settings()["max_connections"] == 1064
    assert PostgresEngine(EngineSettings(users=8)).server_settings()["max_connections"] == 600


def test_recorded_1000_user_point_of_a_real_run_is_the_servers():
    """The figures a real `dbstor run --engine postgres --workload orders --scale 4 --users
    8,64,256,1000` recorded (2026-11-29, a shared host at load 30+): 256 users was the
    host's (other work 51% against the server's 47%), 1,000 users the server's (49% against
    other work's 49%, the client 2%); both said so with their figures."""
    at_64 = _point(64, 1152, 253.0, 99.95, 44.1, 3.1, queue=34.1, other=52.7)
    at_256 = _point(256, 616, 2885.3, 100.0, 47.3, 2.1, queue=55.3, other=50.6)
    at_1000 = _point(1000, 361, 6628.2, 100.0, 49.17, 1.97, queue=64.0, other=48.86)
    assert saturation(at_256, at_64, cores=2)["by"] == "host"
    apply(at_1000, at_256, cores=2)
    assert at_1000.saturated and at_1000.saturation["by"] == "server"
    reason = at_1000.saturation_reason
    assert reason.startswith("the database server, not the client, saturated")
    assert "server processes 49% of the host's CPU, the client's 2% and other work 49%" in reason
    assert "users x3.9 over the point before: TPS x0.59" in reason
