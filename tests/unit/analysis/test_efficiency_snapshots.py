"""Snapshot model against the seed reports' own figures, and the HTML section."""

import pytest

from dbstor.analysis.efficiency.snapshots import model, parse_per_role, parse_rate, parse_schedule
from dbstor.report.tools.efficiency import render_efficiency_section
from dbstor.units import parse_duration

TB = 1e12


def test_parse_schedule_rate_and_retention():
    assert parse_schedule("data=2h,log=15m") == {"data": 7200.0, "log": 900.0}
    assert parse_schedule("1h") == {"data": 3600.0}
    assert parse_rate("5%/h") == pytest.approx(0.05)
    assert parse_rate("24%/d") == pytest.approx(0.01)
    assert parse_per_role("24h", parse_duration, "retention", "24h") == {"*": 86400.0}
    for bad in ("data=", "data=2x", "x y", "data=2h,1h", "data=0h"):
        with pytest.raises(ValueError):
            parse_schedule(bad)
    for bad in ("5", "5%", "5%/fortnight", "five%/h"):
        with pytest.raises(ValueError):
            parse_rate(bad)


def test_tr4403_figures():
    # TR-4403: 11.2 TB logical, 7.3 TB after 1.5:1 compression, data snapshots every 2 h,
    # 5% of the data overwritten per hour, 16 copies ("up to 16x over 24 hours")
    r = model({"data": (11.2 * TB, 7.3 * TB)}, {"data": 7200.0}, {"*": 32 * 3600.0}, {"*": 0.05})
    role = r["roles"][0]
    assert role["copies"] == 16
    assert role["changed_per_snapshot_pct"] == pytest.approx(10.0)
    # each snapshot keeps 10% of 7.3 TB: 16 x 0.73 = 11.68 TB, against 16 x 7.3 = 116.8 TB
    assert r["snapshot_bytes"] == pytest.approx(11.68 * TB, rel=1e-6)
    assert r["full_copies_bytes"] == pytest.approx(116.8 * TB, rel=1e-6)
    assert r["savings_vs_full_copies"] == pytest.approx(10.0)  # the report's 10:1
    # the report's arithmetic: 117 TB saved / 11.2 TB = 10:1; (11.2 + 117) / 7.3 = 17:1
    seed = r["seed_style"]["as_tr4403"]
    assert seed["snapshot_ratio"] == pytest.approx(10.43, abs=0.01)
    assert seed["total_ratio"] == pytest.approx(17.53, abs=0.01)
    # logical presented 17 x 11.2 TB over 7.3 + 11.68 TB physical
    assert r["total_ratio_with_snapshots"] == pytest.approx(17 * 11.2 / 18.98, abs=0.001)


def test_tr4415_figures():
    # TR-4415: 2.1 TB logical at 1.8:1, hourly snapshots for 24 h, 5% hourly overwrites;
    # "the storage savings of each Snapshot copy would be 1TB ... 12:1"
    r = model({"data": (2.1 * TB, 2.1 / 1.8 * TB)}, {"data": 3600.0}, {"*": 86400.0}, {"*": 0.05})
    assert r["roles"][0]["copies"] == 24
    assert r["savings_vs_full_copies"] == pytest.approx(20.0)
    net = r["seed_style"]["net_of_snapshot_space"]
    # 24 x 0.95 x 1.167 TB = 26.6 TB saved, / 2.1 TB = 12.67 -> the report's 12:1
    assert net["snapshot_ratio"] == pytest.approx(12.67, abs=0.01)


def test_two_roles_and_missing_role():
    r = model(
        {"data": (100.0, 50.0), "log": (10.0, 10.0)},
        {"data": 7200.0, "log": 900.0, "temp": 900.0},
        {"*": 86400.0},
        {"*": 0.05, "log": 1.0},
    )
    by = {x["role"]: x for x in r["roles"]}
    assert by["log"]["copies"] == 96 and by["log"]["changed_per_snapshot_pct"] == 25.0
    assert by["log"]["snapshot_bytes"] == round(96 * 0.25 * 10)
    assert by["temp"]["snapshot_bytes"] == 0
    assert any("temp" in n for n in r["notes"])


def _result():
    return {
        "array": {"name": "ontap-adaptive", "description": "8K <groups>"},
        "compressor": "lz4",
        "mode": "sampled",
        "effective_sample_pct": 5.0,
        "bytes_scanned": 10 * 2**20,
        "zero_block_pct": 12.5,
        "dedup_ratio": 1.0,
        "dedup_ratio_ci95": [1.0, 1.0],
        "compression_ratio": 1.5,
        "compression_ratio_ci95": [1.4, 1.6],
        "total_ratio": 1.7,
        "total_ratio_ci95": [1.6, 1.8],
        "compression": [{"group": 8192, "compressor": "lz4", "ratio": 1.5, "ci95": [1.4, 1.6]}],
        "histogram": {
            "group": 8192,
            "bins": [{"from": i * 512, "to": (i + 1) * 512, "groups": i} for i in range(16)],
        },
        "per_file": [
            {
                "path": "/db/<script>.mdf",
                "role": "data",
                "bytes": 10,
                "zero_block_pct": 0.0,
                "compression_ratio": 1.5,
                "notes": ["changed"],
            }
        ],
        "notes": ["a & b"],
        "snapshots": {"savings_vs_full_copies": 10.0, "total_ratio_with_snapshots": 9.9},
    }


def test_html_section_renders_table_and_inline_svg():
    html = render_efficiency_section(_result())
    assert html.startswith('<section class="dbstor-efficiency"') and html.endswith("</section>")
    assert "<table" in html and "<svg" in html and html.count("<rect") == 16
    assert "1.50:1" in html and "10.00:1" in html
    assert "<script>" not in html and "&lt;script&gt;" in html and "a &amp; b" in html
    assert "http://" not in html.replace('xmlns="http://www.w3.org/2000/svg"', "")
    assert "https://" not in html


def test_html_section_from_a_real_scan(tmp_path):
    from dbstor.analysis.efficiency import estimate

    (tmp_path / "f.bin").write_bytes(b"abc" * 100_000)
    html = render_efficiency_section(estimate([str(tmp_path)], full=True, workers=1))
    assert "<svg" in html and "f.bin" in html


def test_copies_given_directly_tr4403():
    # TR-4403: "up to an additional 16x", data snapshots every 2 h: 16 copies given as such
    r = model({"data": (11.2 * TB, 7.3 * TB)}, {"data": 7200.0}, {}, {"*": 0.05}, copies={"*": 16})
    role = r["roles"][0]
    assert (role["copies"], role["copies_given"], role["retention_s"]) == (16, True, 16 * 7200)
    assert r["seed_style"]["as_tr4403"]["total_ratio"] == pytest.approx(17.53, abs=0.01)
    assert r["savings_vs_full_copies"] == pytest.approx(10.0)
    # per role: the log's copies given, the data's from retention
    r = model(
        {"data": (100.0, 50.0), "log": (10.0, 10.0)},
        {"data": 7200.0, "log": 900.0},
        {"*": 86400.0},
        {"*": 0.05},
        copies={"log": 4},
    )
    assert [x["copies"] for x in r["roles"]] == [12, 4]


def test_parse_copies():
    from dbstor.analysis.efficiency.snapshots import parse_copies

    assert parse_copies("16") == 16
    for bad in ("0", "-1", "1.5", "x", "100001"):
        with pytest.raises(ValueError, match="from 1 to 100,000"):
            parse_copies(bad)
