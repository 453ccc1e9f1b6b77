"""Run HammerDB v6.0 TPROC-C on PostgreSQL or MariaDB from bench_orders_hammerdb.py; one JSON line.

HammerDB is a peer run side by side, not part of dbstor. Installed here from Debian's
packages and two source snapshots (no HammerDB or Pgtcl code is in this repository);
bench/install_peers.sh does all of it, idempotently:

    apt-get install tcl8.6 tcl8.6-dev tcllib tcl-thread libsqlite3-tcl libpq-dev autoconf
    # Pgtcl 3.1 (github:flightaware/Pgtcl): Debian's libpgtcl (Pgtcl 2.7) ran the build
    # but its virtual users crashed Tcl ("alloc: invalid block") when they ran together
    git --git-dir=PGTCL --work-tree=SRC checkout HEAD -- . && cd SRC && autoconf
    ./configure --with-tcl=/usr/lib/tcl8.6 --with-postgres-include=/usr/include/postgresql \\
        --with-postgres-lib=/usr/lib/x86_64-linux-gnu && make && make install  # /usr/lib/pgtcl3.1
    # HammerDB v6.0's run-time files (github:TPC-Council/HammerDB, tag v6.0):
    git --git-dir=HAMMERDB --work-tree=/work/peers/hammerdb checkout v6.0 -- \\
        hammerdbcli config modules src scripts agent

v6.0 is written for Tcl 9 (its own tclsh9.0 with zipfs); Debian 12 has Tcl 8.6, so this
script starts tclsh8.6 with a stand-in `zipfs` (no mounts) and an empty `ticklecharts`
package (charts only), then sources hammerdbcli with a generated `auto` script. Pgtcl
lacks `pg_notice_handler`, which HammerDB calls to print server notices: a package of
ours (PgtclHdb) loads Pgtcl and adds a no-op one, and HammerDB is pointed at it. The
timed driver's own keep-alive wants whole minutes, so the script waits with HammerDB's
`_waittocomplete` instead.

MariaDB: HammerDB's MariaDB driver loads `mariatcl`, a renamed mysqltcl that Debian does not
package; Debian's mysqltcl 3.052 (apt-get install mysqltcl) has the same commands under
`mysql` names, so a package of ours named mariatcl loads mysqltcl and gives them the `maria`
names HammerDB calls (mariaconnect, maria::sel, the mariastatus array ...). It connects
over the server's Unix socket (--socket).

    hammerdb_tprocc.py --hammerdb-dir /work/peers/hammerdb [--engine mariadb --socket S] \\
        --host SOCKDIR --port P --superuser U --password PW --warehouses 4 \\
        --virtual-users 4 --ramp-seconds 30 --measured-seconds 60 [--replace | --skip-build]

Printed last: {"build_wall_s", "build_client_cpu_s", "nopm", "tpm", "measured_s",
"run_client_cpu_s"}: client CPU is HammerDB's process over its measured window only (from
"Rampup complete" to "Test complete"), as dbstor's client CPU is over its measured window.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

SHIM = """\
fconfigure stdout -buffering line
proc zipfs {args} {
    switch -- [lindex $args 0] { root { return "//zipfs:/" } default { return "" } }
}
package provide ticklecharts 3.2
set argv [list auto {SCRIPT}]
set argc 2
source {HAMMERDBCLI}
"""

# Debian's Pgtcl 2.7 lacks pg_notice_handler (HammerDB calls it to print notices): a
# package of our own loads Pgtcl and adds a no-op one; TCLLIBPATH makes it visible to
# the virtual users' threads too.
PGTCL_SHIM = """\
package require Pgtcl
if {[info commands pg_notice_handler] eq ""} { proc pg_notice_handler {args} {} }
package provide PgtclHdb 1.0
"""

# HammerDB's MariaDB driver calls mariatcl's commands; mysqltcl has each under its mysql name.
MARIATCL_SHIM = """\
package require mysqltcl
foreach name [info commands ::mysql*] {
    set tail [string range [namespace tail $name] 5 end]
    if {[info commands ::maria$tail] eq ""} { interp alias {} ::maria$tail {} $name }
}
namespace eval ::maria {}
foreach name [info commands ::mysql::*] {
    interp alias {} ::maria::[namespace tail $name] {} $name
}
upvar #0 mysqlstatus mariastatus
package provide mariatcl 3.052
"""

RESULT = re.compile(r"System achieved ([\d.]+) NOPM from ([\d.]+)")


def _cpu_s(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return sum(int(f) for f in fields[11:15]) / os.sysconf("SC_CLK_TCK")


def _settings(args: argparse.Namespace) -> str:
    if args.engine == "mariadb":
        return _maria_settings(args)
    pairs = {
        "connection pg_host": args.host,
        "connection pg_port": args.port,
        "connection pg_sslmode": "disable",
        "tpcc pg_superuser": args.superuser,
        "tpcc pg_superuserpass": args.password,
        "tpcc pg_defaultdbase": "postgres",
        "tpcc pg_user": "tpcc",
        "tpcc pg_pass": "tpcc",
        "tpcc pg_dbase": "tpcc",
        "tpcc pg_count_ware": args.warehouses,
        "tpcc pg_num_vu": args.build_users,
        "tpcc pg_storedprocs": "true",
        "tpcc pg_driver": "timed",
        "tpcc pg_rampup": args.ramp_seconds / 60,
        "tpcc pg_duration": args.measured_seconds / 60,
        "tpcc pg_allwarehouse": "false",
        "tpcc pg_timeprofile": "false",
        "tpcc pg_keyandthink": "false",
    }
    lines = ["dict set ::dbdict postgresql library PgtclHdb", "dbset db pg", "dbset bm TPC-C"]
    lines += [f"diset {key} {{{value}}}" for key, value in pairs.items()]
    return "\n".join(lines) + "\n"


def _maria_settings(args: argparse.Namespace) -> str:
    pairs = {
        "connection maria_host": "127.0.0.1",  # with a socket: HammerDB connects through it
        "connection maria_port": args.port,
        "connection maria_socket": args.socket,
        "connection maria_ssl": "false",
        "tpcc maria_user": args.superuser,
        "tpcc maria_pass": args.password,
        "tpcc maria_dbase": "tpcc",
        "tpcc maria_count_ware": args.warehouses,
        "tpcc maria_num_vu": args.build_users,
        "tpcc maria_storage_engine": "innodb",
        "tpcc maria_no_stored_procs": "false",
        "tpcc maria_driver": "timed",
        "tpcc maria_rampup": args.ramp_seconds / 60,
        "tpcc maria_duration": args.measured_seconds / 60,
        "tpcc maria_allwarehouse": "false",
        "tpcc maria_timeprofile": "false",
        "tpcc maria_keyandthink": "false",
    }
    lines = ["dbset db maria", "dbset bm TPC-C"]
    lines += [f"diset {key} {{{value}}}" for key, value in pairs.items()]
    return "\n".join(lines) + "\n"


def _hammerdb(
    hdb: Path, body: str, workdir: Path, on_line: Callable[[str, int], None] | None = None
) -> tuple[str, int]:
    """Run HammerDB's CLI on this auto script; its output and exit status."""
    script = workdir / "auto.tcl"
    script.write_text(body + "exit\n")
    shim = workdir / "shim.tcl"
    shim.write_text(
        SHIM.replace("SCRIPT", str(script)).replace("HAMMERDBCLI", str(hdb / "hammerdbcli"))
    )
    shim_pkg = workdir / "hdbshims"
    shim_pkg.mkdir(exist_ok=True)
    (shim_pkg / "pgtclhdb.tcl").write_text(PGTCL_SHIM)
    (shim_pkg / "mariatclhdb.tcl").write_text(MARIATCL_SHIM)
    (shim_pkg / "pkgIndex.tcl").write_text(
        "package ifneeded PgtclHdb 1.0 [list source [file join $dir pgtclhdb.tcl]]\n"
        "package ifneeded mariatcl 3.052 [list source [file join $dir mariatclhdb.tcl]]\n"
    )
    env = dict(os.environ, TMP=str(workdir), TMPDIR=str(workdir), TCLLIBPATH=str(shim_pkg))
    proc = subprocess.Popen(
        ["tclsh8.6", str(shim)], cwd=hdb, env=env, text=True,
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
    )  # fmt: skip
    out = []
    assert proc.stdout is not None
    for line in proc.stdout:
        out.append(line)
        if on_line:
            on_line(line, proc.pid)
    proc.wait()
    return "".join(out), proc.returncode


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hammerdb-dir", type=Path, default=Path("/work/peers/hammerdb"))
    parser.add_argument("--engine", choices=("postgresql", "mariadb"), default="postgresql")
    parser.add_argument("--socket", default="null", help="MariaDB: the server's Unix socket")
    parser.add_argument("--host", required=True)
    parser.add_argument("--port", required=True)
    parser.add_argument("--superuser", required=True)
    parser.add_argument("--password", required=True)
    parser.add_argument("--warehouses", type=int, default=4)
    parser.add_argument("--build-users", type=int, default=2)
    parser.add_argument("--virtual-users", type=int, default=4)
    parser.add_argument("--ramp-seconds", type=int, default=30)
    parser.add_argument("--measured-seconds", type=int, default=60)
    parser.add_argument("--replace", action="store_true", help="drop and rebuild tpcc")
    parser.add_argument("--skip-build", action="store_true")
    args = parser.parse_args()
    result: dict = {"build_wall_s": None, "build_client_cpu_s": None}
    with tempfile.TemporaryDirectory(prefix="hammerdb-") as tmp:
        workdir = Path(tmp)
        settings = _settings(args)
        if not args.skip_build:
            if args.replace:
                _drop(args)
            before = os.times()
            wall = time.monotonic()
            out, rc = _hammerdb(args.hammerdb_dir, settings + "buildschema\n", workdir)
            after = os.times()
            if rc or "TPCC SCHEMA COMPLETE" not in out:
                print(out[-3000:].replace(args.password, "***"), file=sys.stderr)
                return 1
            result["build_wall_s"] = time.monotonic() - wall
            result["build_client_cpu_s"] = (after.children_user + after.children_system) - (
                before.children_user + before.children_system
            )
        marks: dict[str, float] = {}

        def on_line(line: str, pid: int) -> None:
            if "Rampup complete" in line:
                marks["start"], marks["t0"] = _cpu_s(pid), time.monotonic()
            elif "Test complete" in line:
                marks["end"], marks["t1"] = _cpu_s(pid), time.monotonic()

        run = (
            settings
            + f"vuset vu {args.virtual_users}\nloadscript\nvucreate\nvurun\n_waittocomplete\nvudestroy\n"
        )
        out, rc = _hammerdb(args.hammerdb_dir, run, workdir, on_line)
        found = RESULT.search(out)
        if rc or not found or "end" not in marks:
            print(out[-3000:].replace(args.password, "***"), file=sys.stderr)
            return 1
        result.update(
            nopm=float(found.group(1)),
            tpm=float(found.group(2)),
            measured_s=args.measured_seconds,
            measured_wall_s=marks["t1"] - marks["t0"],
            run_client_cpu_s=marks["end"] - marks["start"],
        )
    print(json.dumps(result))
    return 0


def _drop(args: argparse.Namespace) -> None:
    if args.engine == "mariadb":
        try:  # whichever MySQL driver the venv has (PyMySQL, or mysqlclient's MySQLdb)
            import pymysql as driver
        except ImportError:
            import MySQLdb as driver  # type: ignore[no-redef]
        conn = driver.connect(unix_socket=args.socket, user=args.superuser, password=args.password)
        try:
            conn.cursor().execute("DROP DATABASE IF EXISTS tpcc")
        finally:
            conn.close()
        return
    import psycopg

    conninfo = (
        f"host={args.host} port={args.port} user={args.superuser} "
        f"password={args.password} dbname=postgres"
    )
    with psycopg.connect(conninfo, autocommit=True) as conn:
        conn.execute("DROP DATABASE IF EXISTS tpcc")
        conn.execute("DROP ROLE IF EXISTS tpcc")


if __name__ == "__main__":
    raise SystemExit(main())
