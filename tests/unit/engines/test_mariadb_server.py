from pathlib import Path

from dbstor.engines.mariadb_server import lru_scan_depth, my_cnf


def test_a_managed_server_listens_on_loopback_and_its_own_socket_only():
    home = Path("/srv/dbstor-mariadb-0")
    conf = my_cnf(home / "data", Path("/run/x"), 3307, home, None, None, 32 << 20, ["mysqlx=OFF"])
    assert "bind-address=127.0.0.1" in conf and "port=3307" in conf
    assert "socket=/run/x/mysqld.sock" in conf
    assert f"tmpdir={home / 'data'}" in conf  # no temp path: the data directory
    assert not any(line.startswith("innodb_log_group_home_dir") for line in conf)
    assert conf[-1] == "mysqlx=OFF"


def test_redo_and_temp_go_where_asked():
    home = Path("/d/h")
    conf = my_cnf(home / "data", Path("/s"), 1, home, Path("/t/tmp"), Path("/l/redo"), 1 << 30, [])
    assert "tmpdir=/t/tmp" in conf and "innodb_log_group_home_dir=/l/redo" in conf


def test_lru_scan_depth_keeps_most_of_a_small_pool_for_data():
    assert lru_scan_depth(8 << 20) == 128  # InnoDB's floor
    assert lru_scan_depth(32 << 20) == 256  # an eighth of 2,048 pages
    assert lru_scan_depth(8 << 30) == 1536  # InnoDB's default for large pools
