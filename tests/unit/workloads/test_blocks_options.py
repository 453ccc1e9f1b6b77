"""The blocks workload's options, its mix and what it tells the runner."""

import pytest

from dbstor.errors import UserError
from dbstor.workloads.blocks import DEFAULT_MIX, BlocksWorkload
from dbstor.workloads.registry import workload_class


def test_registered_with_slob_defaults():
    assert workload_class("blocks") is BlocksWorkload
    assert BlocksWorkload.default_scale == 10_000  # SLOB's SCALE: 10,000 blocks per schema
    assert BlocksWorkload.scale_unit == "rows per user"
    assert set(BlocksWorkload.dialects) >= {"sqlite", "postgres", "mysql", "oracle", "tsql"}


def test_class_mix_is_75_25_and_instance_mix_follows_update_pct():
    assert BlocksWorkload.mix == DEFAULT_MIX == {"read": 75.0, "update": 25.0}
    assert BlocksWorkload(100).mix == {"read": 75.0, "update": 25.0}
    w = BlocksWorkload(100, options={"update_pct": 10})
    assert w.mix == {"read": 90.0, "update": 10.0}
    assert sum(w.mix.values()) == pytest.approx(100.0)
    assert BlocksWorkload.mix == {"read": 75.0, "update": 25.0}  # the class default stays
    assert BlocksWorkload(100, options={"update_pct": 0}).mix == {"read": 100.0, "update": 0.0}
    assert BlocksWorkload(100, options={"update_pct": 100}).mix["read"] == 0.0


def test_options_parse_numbers_and_strings():
    w = BlocksWorkload(500, options={"update_pct": "12.5", "batch": "8"})
    assert (w.settings.update_pct, w.settings.batch) == (12.5, 8)
    assert BlocksWorkload(500, options={"batch": 4.0}).settings.batch == 4
    defaults = BlocksWorkload(500).settings
    assert (defaults.update_pct, defaults.batch, defaults.server_loop) == (25.0, None, True)
    # the batch not given: 4 visits a call on every engine and path
    assert [defaults.batch_for(d) for d in ("postgres", "mysql", "sqlite", None)] == [4] * 4
    client = BlocksWorkload(500, options={"server_loop": "false"}).settings
    assert [client.batch_for(d) for d in ("postgres", "sqlite")] == [4, 4]
    assert BlocksWorkload(2).settings.batch_for("postgres") == 2  # never more than the rows
    assert BlocksWorkload(500, options={"batch": 9}).settings.batch_for("sqlite") == 9


@pytest.mark.parametrize(
    ("options", "words"),
    [
        ({"update_pct": -1}, "between 0 and 100"),
        ({"update_pct": 101}, "between 0 and 100"),
        ({"update_pct": "lots"}, "update_pct must be a number"),
        ({"update_pct": float("nan")}, "update_pct must be a number"),
        ({"update_pct": True}, "update_pct must be a number"),
        ({"batch": 0}, "between 1 and 1000"),
        ({"batch": 1001}, "between 1 and 1000"),
        ({"batch": 2.5}, "batch must be a whole number"),
        ({"batch": None}, "batch must be a whole number"),
        ({"batch": 600}, "exceeds the rows per user table (500)"),
        ({"server_loop": "maybe"}, "server_loop must be true or false"),
        ({"hot_pct": 5}, "unknown blocks option(s) hot_pct; known: update_pct, batch, server_loop"),
    ],
)
def test_bad_options_are_one_line_user_errors(options, words):
    with pytest.raises(UserError) as info:
        BlocksWorkload(500, options=options)
    message = str(info.value)
    assert words in message and "\n" not in message


@pytest.mark.parametrize("scale", [0, -5, 2**31, 1.5, True])
def test_bad_scale(scale):
    with pytest.raises(UserError, match="scale") as info:
        BlocksWorkload(scale)
    assert "rows per user" in str(info.value) and "\n" not in str(info.value)


def test_options_help_lists_every_option_with_its_default():
    assert set(BlocksWorkload.options_help) == {"update_pct", "batch", "server_loop"}
    assert "default 25" in BlocksWorkload.options_help["update_pct"]
    assert "default 4" in BlocksWorkload.options_help["batch"]
    assert "true (default)" in BlocksWorkload.options_help["server_loop"]
    for name in BlocksWorkload.options_help:  # every listed option is accepted
        BlocksWorkload(100, options={name: 1})


def test_one_table_per_expected_user():
    w = BlocksWorkload(100)
    assert w.tables == ["user_1"]  # expect_users never called: one table
    w.expect_users(4)
    assert w.tables == ["user_1", "user_2", "user_3", "user_4"]
    assert [w.table_for(u) for u in range(4)] == w.tables
    assert w.table_for(5) == "user_2"  # more users than tables: they share, round-robin
    for bad in (0, -1, 2.0):
        with pytest.raises(UserError, match="at least one user"):
            w.expect_users(bad)


def test_describe_and_point_metrics():
    w = BlocksWorkload(2000, seed=3, options={"update_pct": 40, "batch": 4})
    w.expect_users(3)
    info = w.describe()
    assert info["name"] == "blocks" and info["scale"] == 2000 and info["seed"] == 3
    assert info["mix"] == {"read": 60.0, "update": 40.0}
    assert info["options"] == {"update_pct": 40.0, "batch": 4, "server_loop": True}
    assert info["latency_unit"] == "a call of 4 row visits; a visit's mean is the call's / 4"
    assert (info["tables"], info["rows"]) == (3, 6000)
    metrics = w.point_metrics({"read": 600, "update": 400}, {}, 10.0)
    assert metrics == {"rows_read_per_s": 240.0, "rows_updated_per_s": 160.0}
    timed = w.point_metrics({"read": 600}, {}, 10.0, latency_ms={"mean": 2.0})
    assert timed["visit_latency_ms_mean"] == 0.5  # the call's mean / batch
    assert w.point_metrics({"read": 1}, {}, 0.0) == {}
