"""The efficiency section shows the seeds' own snapshot arithmetic beside the array
model's, each labelled (TR-4415's 12:1 is the seed's count, the model says 20:1)."""

from html import unescape

from dbstor.report.document.efficiency import efficiency_body


def test_the_seed_style_ratios_sit_beside_the_array_models_labelled():
    snapshots = {
        "savings_vs_full_copies": 20.0,
        "total_ratio_with_snapshots": 9.5,
        "seed_style": {
            "as_tr4403": {"snapshot_ratio": 11.86, "total_ratio": 26.02},
            "net_of_snapshot_space": {"snapshot_ratio": 11.27, "total_ratio": 24.9},
        },
    }
    result = {"array": {"name": "ontap-adaptive"}, "total_ratio": 2.1, "snapshots": snapshots}
    html = unescape(efficiency_body({"efficiency": {"FLASH": result}}))
    assert "snapshots vs full copies, array model" in html and "20:1" in html
    assert "snapshot savings, counted as TR-4403 does" in html and "11.86:1" in html
    assert "total with snapshots, counted as TR-4403 does" in html and "26.02:1" in html
    assert "net of the snapshots' own space" in html and "24.9:1" in html


def test_no_seed_rows_without_seed_style_figures():
    result = {"array": {"name": "x"}, "snapshots": {"savings_vs_full_copies": 20.0}}
    html = efficiency_body({"efficiency": {"A": result}})
    assert "counted as TR-4403" not in html
