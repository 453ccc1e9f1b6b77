#!/bin/sh
# Install the peers dbstor's benches run side by side (never part of dbstor, its tests or CI):
# HammerDB v6.0 (TPROC-C on PostgreSQL and MariaDB), pgbench, sysbench.
#
# Uses only Debian's packages and two source snapshots already on this machine, brought by
# the session's `fetch` tool (fetch github:flightaware/Pgtcl, fetch github:TPC-Council/HammerDB):
#   /work/.mirror/flightaware+Pgtcl/repo        Pgtcl 3.1 (Debian's libpgtcl 2.7 crashed Tcl
#                                               when HammerDB's virtual users ran together)
#   /work/.mirror/TPC-Council+HammerDB/repo     HammerDB, tag v6.0
# Idempotent: a step whose result is already there is skipped. Run as root.
#
#   sh bench/install_peers.sh [HAMMERDB_DIR]      (default /work/peers/hammerdb)
set -eu

HAMMERDB_DIR=${1:-/work/peers/hammerdb}
MIRRORS=${PEER_MIRRORS:-/work/.mirror}
PGTCL_GIT=$MIRRORS/flightaware+Pgtcl/repo
HAMMERDB_GIT=$MIRRORS/TPC-Council+HammerDB/repo
PGTCL_TAG=v3.1.0
HAMMERDB_TAG=v6.0

for snapshot in "$PGTCL_GIT" "$HAMMERDB_GIT"; do
    if [ ! -d "$snapshot" ]; then
        echo "install_peers: no snapshot at $snapshot; bring it with the session's fetch tool" \
            "(fetch github:flightaware/Pgtcl, fetch github:TPC-Council/HammerDB) and run again" >&2
        exit 2
    fi
done

# Tcl 8.6 and its libraries for HammerDB, libpq for Pgtcl, mysqltcl 3.052 for HammerDB's
# MariaDB driver, pgbench (postgresql-contrib / postgresql-15) and sysbench 1.0.20.
PACKAGES="tcl8.6 tcl8.6-dev tcllib tcl-thread libsqlite3-tcl libpq-dev autoconf make gcc
    mysqltcl sysbench postgresql-15 postgresql-contrib mariadb-server"
missing=""
for package in $PACKAGES; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "ok installed" ||
        missing="$missing $package"
done
if [ -n "$missing" ]; then
    echo "install_peers: apt-get install$missing"
    DEBIAN_FRONTEND=noninteractive apt-get install -y $missing
fi

# Pgtcl 3.1 into /usr/lib/pgtcl3.1 (HammerDB loads it as package Pgtcl).
if ! echo 'puts [package require Pgtcl]' | tclsh8.6 2>/dev/null | grep -q '^3\.'; then
    if ! git --git-dir="$PGTCL_GIT" rev-parse -q --verify "$PGTCL_TAG^{commit}" >/dev/null; then
        echo "install_peers: the Pgtcl snapshot has no tag $PGTCL_TAG; fetch it again" >&2
        exit 2
    fi
    build=$(mktemp -d /tmp/pgtcl-build.XXXXXX)
    # git archive reads the snapshot without touching it (no index, no work tree)
    git --git-dir="$PGTCL_GIT" archive "$PGTCL_TAG" | tar -x -C "$build"
    (
        cd "$build" && autoconf 2>/dev/null &&
            ./configure --with-tcl=/usr/lib/tcl8.6 \
                --with-postgres-include=/usr/include/postgresql \
                --with-postgres-lib=/usr/lib/x86_64-linux-gnu >/dev/null &&
            make >/dev/null && make install >/dev/null
    )
    rm -rf "$build"
    echo "install_peers: Pgtcl $(echo 'puts [package require Pgtcl]' | tclsh8.6) installed"
fi

# HammerDB v6.0's run-time files (bench/hammerdb_tprocc.py starts them with tclsh8.6).
if [ ! -f "$HAMMERDB_DIR/hammerdbcli" ]; then
    if ! git --git-dir="$HAMMERDB_GIT" rev-parse -q --verify "$HAMMERDB_TAG^{commit}" >/dev/null; then
        echo "install_peers: the HammerDB snapshot has no tag $HAMMERDB_TAG; fetch it again" >&2
        exit 2
    fi
    mkdir -p "$HAMMERDB_DIR"
    # a throw-away index: the snapshot's own index is left as it was (some of the
    # snapshot's large files are absent, so git archive of the whole tag would fail)
    index=$(mktemp -d /tmp/hammerdb-index.XXXXXX)
    GIT_INDEX_FILE=$index/index git --git-dir="$HAMMERDB_GIT" --work-tree="$HAMMERDB_DIR" \
        checkout "$HAMMERDB_TAG" -- hammerdbcli config modules src scripts agent
    rm -rf "$index"
    echo "install_peers: HammerDB $HAMMERDB_TAG in $HAMMERDB_DIR"
fi

echo 'puts "mysqltcl [package require mysqltcl]"' | tclsh8.6
echo 'puts "Pgtcl [package require Pgtcl]"' | tclsh8.6
pgbench --version
sysbench --version
echo "install_peers: done (HammerDB in $HAMMERDB_DIR)"
