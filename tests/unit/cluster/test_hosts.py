"""Naming hosts: Ray nodes by their dbstor-host resource, else their hostname."""

import pytest

from dbstor.cluster.hosts import discover, parse_host_list, select
from dbstor.errors import UserError


def node(node_id, resources, alive=True, hostname="vm", ip="10.0.0.1"):
    return {
        "NodeID": node_id,
        "Alive": alive,
        "NodeManagerHostname": hostname,
        "NodeManagerAddress": ip,
        "Resources": {"CPU": 4.0, "memory": 8e9, **resources},
    }


def test_hosts_are_named_by_resource_else_hostname_and_dead_nodes_are_left_out():
    hosts = discover(
        [
            node("n1", {"dbstor-host:db2": 1}),
            node("n2", {}, hostname="client7", ip="10.0.0.7"),
            node("n3", {"dbstor-host:db1": 1}),
            node("n4", {"dbstor-host:db9": 1}, alive=False),
        ]
    )
    assert [(h.name, h.node_id, h.named_by) for h in hosts] == [
        ("client7", "n2", "hostname"),
        ("db1", "n3", "resource"),
        ("db2", "n1", "resource"),
    ]
    assert hosts[0].cpus == 4.0 and hosts[0].address == "10.0.0.7"


def test_two_nodes_with_one_name_are_one_clear_error():
    nodes = [node("n1", {"dbstor-host:db1": 1}), node("n2", {"dbstor-host:db1": 1}, ip="10.0.0.2")]
    with pytest.raises(UserError, match="two Ray nodes are both named host db1"):
        discover(nodes)


def test_one_node_with_two_names_is_an_error():
    with pytest.raises(UserError, match="several host names"):
        discover([node("n1", {"dbstor-host:a": 1, "dbstor-host:b": 1})])


def test_host_list_parsing():
    assert parse_host_list("db1, db2") == ["db1", "db2"]
    with pytest.raises(UserError, match="host db1 is named twice"):
        parse_host_list("db1,db2,db1")
    with pytest.raises(UserError, match="empty name"):
        parse_host_list("db1,,db2")


def test_select_keeps_the_order_asked_and_names_an_unknown_host():
    hosts = discover([node("n1", {"dbstor-host:a": 1}), node("n2", {"dbstor-host:b": 1})])
    assert [h.name for h in select(hosts, ["b", "a"])] == ["b", "a"]
    with pytest.raises(UserError, match=r"host c is not in the Ray cluster \(hosts seen: a, b\)"):
        select(hosts, ["a", "c"])
