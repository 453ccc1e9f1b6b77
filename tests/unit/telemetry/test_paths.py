"""Path facts (FC ports, iSCSI sessions, multipath maps, network links) read from /sys
trees laid out as the kernel lays them out: this machine has no FC HBA, no iSCSI session
and no multipath map to read, so the trees are the test's (as test_system.py's dm/md)."""

from __future__ import annotations

from pathlib import Path

from dbstor.telemetry.paths import fc_speed_mbps, path_facts
from dbstor.telemetry.system import target_system


def write(root: Path, rel: str, text: str) -> None:
    (root / rel).parent.mkdir(parents=True, exist_ok=True)
    (root / rel).write_text(text + "\n")


def scsi_disk(root: Path, name: str, device_dir: str) -> None:
    """/sys/block/<name>/device -> the SCSI device's directory under /sys/devices."""
    real = root / "devices" / device_dir
    real.mkdir(parents=True, exist_ok=True)
    (root / "block" / name).mkdir(parents=True, exist_ok=True)
    (root / "block" / name / "device").symlink_to(real)


def fc_host(root: Path, host: str, speed: str, state: str) -> None:
    write(root, f"class/fc_host/{host}/speed", speed)
    write(root, f"class/fc_host/{host}/port_state", state)
    write(root, f"class/fc_host/{host}/port_name", "0x21000024ff3c5a1" + host[-1])
    write(root, f"class/fc_host/{host}/supported_speeds", "4 Gbit, 8 Gbit, 16 Gbit")


def nic(root: Path, name: str, speed: str, state: str = "up", physical: bool = True) -> None:
    write(root, f"class/net/{name}/speed", speed)
    write(root, f"class/net/{name}/operstate", state)
    if physical:
        (root / "class" / "net" / name / "device").mkdir()


def multipath_over_two_fc_ports(root: Path, second_state: str = "Online") -> None:
    pci = "pci0000:00/0000:00:05.0"
    scsi_disk(root, "sdb", f"{pci}/host3/rport-3:0-0/target3:0:0/3:0:0:1")
    scsi_disk(root, "sdc", f"{pci}/host4/rport-4:0-0/target4:0:0/4:0:0:1")
    fc_host(root, "host3", "8 Gbit", "Online")
    fc_host(root, "host4", "8 Gbit", second_state)
    write(root, "block/dm-3/dm/name", "mpatha")
    write(root, "block/dm-3/dm/uuid", "mpath-3600a098038303053")
    for below in ("sdb", "sdc"):
        (root / "block" / "dm-3" / "slaves" / below).mkdir(parents=True)
    nic(root, "eth0", "10000")
    nic(root, "lo", "-1", state="unknown", physical=False)


def test_a_multipath_map_over_two_fc_ports_has_both_ports_bandwidth(tmp_path):
    multipath_over_two_fc_ports(tmp_path)
    facts = path_facts(["dm-3", "sdb", "sdc"], tmp_path)
    assert facts["multipath"] == {"mpatha": ["sdb", "sdc"]}
    ports = {p["host"]: p for p in facts["fc_ports"]}
    assert set(ports) == {"host3", "host4"}
    assert ports["host3"]["speed"] == "8 Gbit" and ports["host3"]["port_state"] == "Online"
    assert ports["host3"]["speed_mbps"] == 800.0
    assert facts["link_mbps"] == 1600.0 and facts["link"] == "FC host3 8 Gbit, host4 8 Gbit"
    assert [n["nic"] for n in facts["network_links"]] == ["eth0"], "lo is no path"


def test_a_port_that_is_down_carries_nothing(tmp_path):
    multipath_over_two_fc_ports(tmp_path, second_state="Linkdown")
    facts = path_facts(["dm-3", "sdb", "sdc"], tmp_path)
    assert facts["link_mbps"] == 800.0 and "host4" not in facts["link"]


def test_an_iscsi_session_over_one_link_takes_its_speed(tmp_path):
    scsi_disk(tmp_path, "sdd", "platform/host5/session1/target5:0:0/5:0:0:0")
    write(tmp_path, "class/iscsi_session/session1/targetname", "iqn.1992-08.com.netapp:sn.1")
    write(tmp_path, "class/iscsi_session/session1/state", "LOGGED_IN")
    write(tmp_path, "class/iscsi_connection/connection1:0/persistent_address", "10.0.0.5")
    write(tmp_path, "class/iscsi_connection/connection1:0/persistent_port", "3260")
    write(tmp_path, "class/iscsi_connection/connection2:0/persistent_address", "10.0.0.9")
    nic(tmp_path, "eth0", "10000")
    nic(tmp_path, "eth1", "1000", state="down")
    facts = path_facts(["sdd"], tmp_path)
    assert facts["iscsi_sessions"] == [
        {
            "session": "session1",
            "target": "iqn.1992-08.com.netapp:sn.1",
            "state": "LOGGED_IN",
            "portals": ["10.0.0.5:3260"],
        }
    ]
    assert facts["link_mbps"] == 1250.0 and "eth0" in facts["link"]
    assert "fc_ports" not in facts and "multipath" not in facts


def test_iscsi_with_two_links_up_states_no_speed_and_says_why(tmp_path):
    scsi_disk(tmp_path, "sdd", "platform/host5/session1/target5:0:0/5:0:0:0")
    write(tmp_path, "class/iscsi_session/session1/state", "LOGGED_IN")
    nic(tmp_path, "eth0", "10000")
    nic(tmp_path, "eth1", "25000")
    facts = path_facts(["sdd"], tmp_path)
    assert "link_mbps" not in facts
    assert "2 network links up" in facts["link_reason"]


def test_a_local_disk_has_no_path_bandwidth(tmp_path):
    scsi_disk(tmp_path, "sda", "pci0000:00/0000:00:1f.2/ata1/host0/target0:0:0/0:0:0:0")
    facts = path_facts(["sda"], tmp_path)
    assert facts == {}, "host0 is not an FC host: no port, no link"


def test_fc_speeds_are_fcs_nominal_rates():
    assert fc_speed_mbps("16 Gbit") == 1600.0 and fc_speed_mbps("unknown") is None
    assert fc_speed_mbps(None) is None


def test_this_hosts_target_has_no_fc_or_iscsi_path():
    """On this machine's real /sys: a virtio disk, no FC, iSCSI or multipath."""
    system = target_system(["vda"] if Path("/sys/block/vda").exists() else [])
    paths = system.get("paths", {})
    assert "fc_ports" not in paths and "iscsi_sessions" not in paths
    assert "link_mbps" not in paths


def test_the_bill_of_materials_names_the_ports_maps_and_bandwidth(tmp_path):
    from dbstor.report.document.configuration import configuration_body
    from dbstor.results.model import Run

    multipath_over_two_fc_ports(tmp_path)
    paths = path_facts(["dm-3", "sdb", "sdc"], tmp_path)
    target = {"label": "fc", "system": {"devices": {}, "paths": paths}}
    plain = {"label": "local", "system": {"devices": {}}}
    runs = [Run(n, "0", {}, t, {}, {}, {}, {}, "now") for n, t in (("a", target), ("b", plain))]
    html = configuration_body(runs, ["fc", "local"])
    assert "host3 8 Gbit, Online; host4 8 Gbit, Online" in html
    assert "mpatha over sdb, sdc" in html
    assert "1,600 MB/s (FC host3 8 Gbit, host4 8 Gbit)" in html
    assert "eth0 10,000 Mb/s" in html
