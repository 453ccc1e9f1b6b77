"""The arms of bench_mariadb_floor.py: one closed loop per user through each candidate
driver (the same calls, drawn up front), and dbstor's own sessions as dbstor drives them."""

from __future__ import annotations

import asyncio
import bisect
import json
import os
import random
import select
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

NAMES = ["New-Order", "Payment", "Order-Status", "Delivery", "Stock-Level"]
CUMULATIVE = [45, 88, 92, 96, 100]  # TPC-C's mix, as orders' default
PRE_DRAWN = 2000
ARMS = ["pymysql", "mariadb", "mysqlclient", "mysqlclient-loop", "asyncmy"]
POINT = "SELECT c FROM sbtest1 WHERE id = %s"


def _pick(rng: random.Random) -> str:
    return NAMES[bisect.bisect_right(CUMULATIVE, rng.random() * 100, 0, 4)]


def orders_calls(engine: Any, workload: Any, users: int) -> list[list[tuple[str, tuple]]]:
    """For each user, PRE_DRAWN (CALL text, parameters) of the orders mix, drawn by the
    user's own orders session (its home warehouse, as dbstor's terminals have)."""
    rng, out = random.Random(3), []
    for user in range(users):
        session = workload.session(engine, engine.connect(), user)
        drawn = []
        for _ in range(PRE_DRAWN):
            name, params = session.server._call(session.draw(_pick(rng)))
            drawn.append((session.server.part.CALLS[name], params))
        session.conn.close()
        out.append(drawn)
    return out


def point_calls(rows: int) -> list[tuple[str, tuple]]:
    rng = random.Random(5)
    drawn = [(POINT, (rng.randint(1, rows),)) for _ in range(PRE_DRAWN)]
    return [drawn] * 1000


def _connect(way: str, engine: Any) -> Any:
    sock = str(engine.sockdir / "mysqld.sock")
    if way == "pymysql":
        import pymysql

        return pymysql.connect(
            unix_socket=sock, user="root", password="", database=engine.database, autocommit=True
        )
    if way == "mariadb":
        import mariadb

        return mariadb.connect(
            unix_socket=sock, user="root", password="", database=engine.database, autocommit=True
        )
    import MySQLdb

    return MySQLdb.connect(
        unix_socket=sock, user="root", passwd="", db=engine.database, autocommit=True
    )


def _cursor_loop(way: str, engine: Any, calls: list, deadline: float, done: list) -> None:
    """One user's closed loop through a driver's cursor (calls: the user's own)."""
    conn = _connect(way, engine)
    cur, rng, n = conn.cursor(), random.Random(), 0
    while time.monotonic() < deadline:
        text, params = calls[rng.randrange(PRE_DRAWN)]
        cur.execute(text, params)
        cur.fetchone()
        while cur.nextset():
            pass
        n += 1
    done.append(n)
    conn.close()


def _timed(body: Callable[[float, list], None], seconds: float) -> dict[str, float]:
    done: list[int] = []
    before, start = os.times(), time.monotonic()
    body(start + seconds, done)
    after, elapsed = os.times(), time.monotonic() - start
    total = sum(done)
    cpu = (after.user - before.user) + (after.system - before.system)
    return {"tps": total / elapsed, "us": cpu * 1e6 / total}


def _threads(way: str, engine: Any, calls: list, users: int, seconds: float) -> dict:
    def body(deadline: float, done: list) -> None:
        threads = [
            threading.Thread(target=_cursor_loop, args=(way, engine, calls[u], deadline, done))
            for u in range(users)
        ]
        for t in threads:
            t.start()
        for t in threads:
            t.join()

    return _timed(body, seconds)


def _mysqlclient_loop(engine: Any, calls: list, users: int, seconds: float) -> dict:
    conns = [_connect("mysqlclient", engine) for _ in range(users)]
    rng = random.Random()
    own = {id(conn): calls[u] for u, conn in enumerate(conns)}

    def send(conn: Any) -> None:
        text, params = own[id(conn)][rng.randrange(PRE_DRAWN)]
        conn.send_query(_text(conn, text, params))

    def body(deadline: float, done: list) -> None:
        epoll, by_fd, n = select.epoll(), {}, 0
        for conn in conns:
            send(conn)
            epoll.register(conn.fileno(), select.EPOLLIN)
            by_fd[conn.fileno()] = conn
        while time.monotonic() < deadline:
            for fd, _ in epoll.poll(0.2):
                conn = by_fd[fd]
                _read_all(conn)
                n += 1
                send(conn)
        for conn in conns:
            _read_all(conn)
        epoll.close()
        done.append(n)

    try:
        return _timed(body, seconds)
    finally:
        for conn in conns:
            conn.close()


def _text(conn: Any, text: str, params: tuple) -> bytes:
    return text.encode() % tuple(conn.literal(p) for p in params)


def _read_all(conn: Any) -> Any:
    conn.read_query_result()
    result = conn.store_result()
    row = result.fetch_row() if result is not None else None
    while conn.next_result() == 0:
        conn.store_result()
    return row


def _asyncmy(engine: Any, calls: list, users: int, seconds: float) -> dict:
    import asyncmy

    sock = str(engine.sockdir / "mysqld.sock")

    async def user(deadline: float, calls: list) -> int:
        conn = await asyncmy.connect(
            unix_socket=sock, user="root", password="", database=engine.database, autocommit=True
        )
        rng, n = random.Random(), 0
        async with conn.cursor() as cur:
            while time.monotonic() < deadline:
                text, params = calls[rng.randrange(PRE_DRAWN)]
                await cur.execute(text, params)
                await cur.fetchone()
                while await cur.nextset():
                    pass
                n += 1
        conn.close()
        return n

    async def all_users(deadline: float) -> list[int]:
        return list(await asyncio.gather(*(user(deadline, calls[u]) for u in range(users))))

    def body(deadline: float, done: list) -> None:
        done.extend(asyncio.run(all_users(deadline)))

    return _timed(body, seconds)


def run_dbstor(src: Path, engine: Any, mode: str, users: int, seconds: float, scale: int) -> dict:
    """dbstor's own sessions from the tree `src` (its src folder first on the path), in
    their own process (mariadb_dbstor_arm.py)."""
    socket = str(engine.sockdir / "mysqld.sock")
    size = ["--warehouses", str(scale)] if mode == "orders" else ["--rows", str(scale)]
    cmd = [sys.executable, str(Path(__file__).with_name("mariadb_dbstor_arm.py"))]
    cmd += ["--socket", socket, "--mode", mode, "--users", str(users)]
    cmd += ["--seconds", str(seconds), *size]
    env = {**os.environ, "PYTHONPATH": str(src)}
    out = subprocess.run(cmd, capture_output=True, text=True, env=env, check=False)
    if out.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed: {out.stderr[-2000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def run_arm(way: str, engine: Any, calls: list, users: int, seconds: float) -> dict:
    if way == "mysqlclient-loop":
        return _mysqlclient_loop(engine, calls, users, seconds)
    if way == "asyncmy":
        return _asyncmy(engine, calls, users, seconds)
    return _threads(way, engine, calls, users, seconds)
