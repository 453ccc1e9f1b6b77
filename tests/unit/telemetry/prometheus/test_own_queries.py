"""The user's own PromQL (--storage-query KEY=PROMQL, query = in a preset): keys, units,
kinds, the preset they build, and preflight's one line on Prometheus's own error."""

from __future__ import annotations

import argparse

import pytest

from dbstor.commands.telemetry_flags import add_telemetry_flags, telemetry_from_args
from dbstor.errors import UserError
from dbstor.study.telemetry import config_from_table
from dbstor.telemetry.config import Layers
from dbstor.telemetry.prometheus.client import PrometheusClient
from dbstor.telemetry.prometheus.own import (
    KEYS,
    other_kind_key,
    own_preset,
    split_query,
    with_own_queries,
)
from dbstor.telemetry.prometheus.presets import load_preset, parse_preset
from dbstor.telemetry.prometheus.selectors import plain_selector
from dbstor.telemetry.prometheus.source import PrometheusSource

SEL = '{instance="h:9100",device="sdb"}'


def test_key_and_query_split_at_the_first_equals_sign() -> None:
    key, query = split_query(f"read_ops_total=node_disk_reads_completed_total{SEL}", "--q")
    assert key == "read_ops_total"
    assert query == f"node_disk_reads_completed_total{SEL}"


@pytest.mark.parametrize("text", ["read_iops", "=rate(x[1m])", "read_iops=  "])
def test_a_flag_without_key_or_query_says_how_to_write_it(text: str) -> None:
    with pytest.raises(UserError, match=r"write KEY=PROMQL"):
        split_query(text, "--storage-query")


def test_an_unknown_unit_is_refused_with_the_nearest_key() -> None:
    with pytest.raises(UserError, match=r"'read_latency_xs'.*did you mean 'read_latency_s'"):
        split_query("read_latency_xs=avg(x)", "--storage-query")


@pytest.mark.parametrize(
    ("key", "kind", "unit", "factor"),
    [
        ("read_latency_us", "gauge", "us", 1e-3),
        ("read_latency_s", "gauge", "s", 1e3),
        ("write_latency_ms", "gauge", "ms", 1.0),
        ("read_iops", "gauge", "ops/s", 1.0),
        ("write_ops_total", "counter", "ops", 1.0),
        ("read_bytes_per_s", "gauge", "bytes/s", 1e-6),
        ("read_bytes_total", "counter", "bytes", 1e-6),
        ("cpu_util_fraction", "gauge", "fraction", 100.0),
    ],
)
def test_the_key_states_the_unit_and_whether_it_is_cumulative(
    key: str, kind: str, unit: str, factor: float
) -> None:
    preset = own_preset({key: "some_expression(x)"}, "storage", "--storage-query")
    (spec,) = preset.quantities.values()
    assert (spec.kind, spec.unit, spec.factor) == (kind, unit, factor)
    assert spec.query == "some_expression(x)" and spec.label == f"--storage-query {key}"
    assert preset.layers == ("storage",) and preset.name == "own-queries"


def test_cumulative_time_is_divided_by_the_cumulative_operations() -> None:
    preset = own_preset(
        {
            "read_latency_s_total": f"node_disk_read_time_seconds_total{SEL}",
            "read_ops_total": f"node_disk_reads_completed_total{SEL}",
        },
        "remote_device",
        "--db-host-query",
    )
    spec = preset.quantities["read_latency_ms"]
    assert spec.kind == "ratio" and spec.factor == 1e3
    assert spec.per_query == f"node_disk_reads_completed_total{SEL}"


def test_cumulative_time_without_its_operations_names_the_missing_key() -> None:
    with pytest.raises(UserError, match=r"give read_ops_total= too.*read_latency_us="):
        own_preset(
            {"read_latency_us_total": "x_total", "read_iops": "rate(y[1m])"}, "storage", "--q"
        )


def test_two_keys_for_one_quantity_are_refused() -> None:
    with pytest.raises(UserError, match=r"read_latency_us and read_latency_ms are both"):
        own_preset({"read_latency_us": "a", "read_latency_ms": "b"}, "storage", "--q")


def test_a_plain_selector_whose_name_says_another_unit_is_refused() -> None:
    with pytest.raises(UserError, match=r"read_latency_ms: .*_seconds_total.*not us"):
        own_preset(
            {"read_latency_us_total": "node_disk_read_time_seconds_total", "read_ops_total": "r"},
            "storage",
            "--q",
        )


def test_plain_selectors_are_told_from_expressions() -> None:
    assert plain_selector(f"node_disk_reads_completed_total{SEL}") == (
        "node_disk_reads_completed_total"
    )
    assert plain_selector(" up ") == "up"
    assert plain_selector(f"rate(node_disk_reads_completed_total{SEL}[5s])") is None
    assert plain_selector("a / b") is None


def test_own_queries_replace_a_presets_quantity_and_keep_the_rest() -> None:
    base = load_preset("purefa")
    preset = with_own_queries(base, {"read_latency_ms": "avg(my_latency)"}, "storage", "--q")
    assert preset.name == "purefa+own-queries"
    assert preset.quantities["read_latency_ms"].query == "avg(my_latency)"
    assert preset.quantities["read_iops"] == base.quantities["read_iops"]


def test_a_preset_file_may_carry_queries_but_not_both_forms() -> None:
    table = {
        "layers": ["storage"],
        "quantities": {"read_latency_ms": {"kind": "gauge", "unit": "us", "query": "avg(x)"}},
    }
    assert parse_preset(table, "mine.toml").quantities["read_latency_ms"].query == "avg(x)"
    table["quantities"]["read_latency_ms"]["metric"] = "x"
    with pytest.raises(UserError, match=r"either 'metric'.*or 'query'"):
        parse_preset(table, "mine.toml")


def _args(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    add_telemetry_flags(parser)
    return parser.parse_args(list(argv))


def test_flags_build_the_config_and_refuse_a_key_given_twice() -> None:
    config = telemetry_from_args(
        _args("--prometheus", "http://p:9090", "--storage-query", "read_iops=sum(rate(x[5s]))")
    )
    assert config is not None and dict(config.storage_queries) == {"read_iops": "sum(rate(x[5s]))"}
    assert config.describe()["storage_queries"] == {"read_iops": "sum(rate(x[5s]))"}
    with pytest.raises(UserError, match=r"read_iops is given twice"):
        telemetry_from_args(
            _args(
                "--prometheus",
                "http://p",
                "--storage-query",
                "read_iops=a",
                "--storage-query",
                "read_iops=b",
            )
        )
    with pytest.raises(UserError, match=r"--storage-query needs --prometheus"):
        telemetry_from_args(_args("--storage-query", "read_iops=a"))
    with pytest.raises(UserError, match=r"write the labels into each query"):
        telemetry_from_args(
            _args(
                "--prometheus",
                "http://p",
                "--storage-query",
                "read_iops=a",
                "--storage-select",
                'a="b"',
            )
        )


def test_a_study_files_table_of_queries_becomes_the_layers_preset() -> None:
    config = config_from_table(
        {"prometheus": "http://p:9090", "db_host_queries": {"read_latency_us": "avg(x)"}}, "s.toml"
    )
    (source,) = Layers(config).sources
    assert source.layer == "remote_device" and source.name == "own-queries"
    assert "origin" not in config.describe()
    bad = config_from_table(
        {"prometheus": "http://p", "storage_queries": {"read_x": "a"}}, "s.toml"
    )
    with pytest.raises(UserError, match=r"^s.toml: telemetry.storage_queries 'read_x': not a"):
        Layers(bad)
    with pytest.raises(UserError, match=r"s.toml: telemetry.storage_queries: must be a table"):
        config_from_table({"prometheus": "http://p", "storage_queries": "avg(x)"}, "s.toml")


def test_preflight_gives_prometheus_own_word_on_bad_promql(fake_prometheus) -> None:
    def answer(path: str, params: dict[str, str], headers: dict[str, str]):
        error = 'invalid parameter "query": 1:6: parse error: unexpected <op:/>'
        return 400, {"status": "error", "errorType": "bad_data", "error": error}

    with fake_prometheus(answer) as (url, _):
        preset = own_preset({"read_iops": "rate(/x)"}, "storage", "--storage-query")
        source = PrometheusSource(PrometheusClient(url, env={}), preset, "", "storage")
        with pytest.raises(UserError) as info:
            source.preflight(10.0)
    message = str(info.value)
    assert message.startswith("--storage-query read_iops: rate(/x): ")
    assert "parse error" in message and message.endswith("fix the query")
    assert "\n" not in message


def test_preflight_says_an_expression_returned_nothing(fake_prometheus) -> None:
    def answer(path: str, params: dict[str, str], headers: dict[str, str]):
        return 200, {"status": "success", "data": {"resultType": "matrix", "result": []}}

    with fake_prometheus(answer) as (url, seen):
        preset = own_preset({"read_iops": "sum(rate(x[5s]))"}, "storage", "--storage-query")
        source = PrometheusSource(PrometheusClient(url, env={}), preset, "", "storage")
        with pytest.raises(UserError, match=r"returned no series .* check its labels"):
            source.preflight(10.0)
    assert seen[0]["path"] == "/api/v1/query_range" and seen[0]["query"] == "sum(rate(x[5s]))"


def test_each_key_names_its_twin_read_the_other_way() -> None:
    assert other_kind_key("read_iops") == "read_ops_total"
    assert other_kind_key("write_ops_total") == "write_iops"
    assert other_kind_key("read_mbps") == "read_bytes_total"
    assert other_kind_key("read_bytes_total") == "read_bytes_per_s"
    assert other_kind_key("read_latency_us") == "read_latency_us_total"
    assert other_kind_key("write_latency_ms_total") == "write_latency_ms"
    assert other_kind_key("cpu_util_pct") is None
    for key in KEYS:  # a twin is a key, of the same quantity, read the other way
        twin = other_kind_key(key)
        if twin is not None:
            assert KEYS[twin][0] == KEYS[key][0] and KEYS[twin][1] != KEYS[key][1]
