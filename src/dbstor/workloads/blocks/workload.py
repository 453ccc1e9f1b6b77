"""BlocksWorkload: SLOB-like random single-row reads and updates, one table per user."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any, ClassVar

from dbstor.dialects import registry
from dbstor.engines.base import Engine
from dbstor.errors import UserError
from dbstor.workloads.base import LoadReport, Workload
from dbstor.workloads.blocks import load, schema, server, sql
from dbstor.workloads.blocks.options import DEFAULT_MIX, OPTIONS, parse_options
from dbstor.workloads.blocks.session import BlocksSession
from dbstor.workloads.script import Section


class BlocksWorkload(Workload):
    name: ClassVar[str] = "blocks"
    title: ClassVar[str] = "Blocks (SLOB-like random block I/O)"
    description: ClassVar[str] = (
        "One table per virtual user (user_1..user_N), about one row per 8K block, keyed by "
        "a primary key index; each user reads or updates random rows of its own table, one "
        "statement per transaction. The most physical I/O per client CPU second: at the "
        "storage, random 8K reads and, for updates, page writes and log writes."
    )
    source: ClassVar[str] = (
        "SLOB (Kevin Closson's Silly Little Oracle Benchmark: a schema per session, about one "
        "row per block, random single-block reads and updates), as NetApp TR-4415 ran SLOB2 on "
        "Oracle at 75% selects / 25% updates"
    )
    mix: ClassVar[dict[str, float]] = DEFAULT_MIX  # the instance's follows update_pct
    dialects: ClassVar[tuple[str, ...]] = registry.running("blocks")
    default_scale: ClassVar[int] = 10_000  # SLOB's default SCALE: 10,000 blocks per schema
    scale_unit: ClassVar[str] = "rows per user"
    options_help: ClassVar[dict[str, str]] = OPTIONS

    def __init__(self, scale: int, seed: int = 1, options: dict[str, Any] | None = None):
        super().__init__(scale, seed, options)
        self.settings = parse_options(self.options, scale)
        self.mix = self.settings.mix  # type: ignore[misc]  # the driver reads the instance's
        self.users = 1
        self.layout: dict[str, int | None] = {}  # the engine's row geometry, once built
        self.table_bytes: int | None = None
        self._sessions = 0
        self.dialect: str | None = None  # the engine's, once built

    def expect_users(self, users: int) -> None:
        """One table per user: the most users a point runs on this instance."""
        if isinstance(users, bool) or not isinstance(users, int) or users < 1:
            raise UserError(f"blocks needs at least one user (one table each), not {users!r}")
        self.users = users

    @property
    def tables(self) -> list[str]:
        return [schema.table_name(k) for k in range(1, self.users + 1)]

    def create(self, engine: Engine, say: Callable[[str], None]) -> LoadReport:
        if engine.dialect not in self.dialects:
            raise UserError(f"the blocks workload has no SQL for {engine.title} ({engine.dialect})")
        built = load.build(engine, load.Plan(self.users, self.scale, self.seed), say)
        self.layout = built.shape.describe()
        self.dialect = engine.dialect
        self.table_bytes = built.table_bytes
        return built.report

    @property
    def batch(self) -> int:
        """Rows visited a call on the engine built on (before create(): a server engine's)."""
        return self.settings.batch_for(self.dialect)

    def table_for(self, user: int) -> str:
        """User `user`'s (0-based) table; users beyond the tables built share them."""
        return schema.table_name(user % self.users + 1)

    def script(self, dialect: str) -> list[Section]:
        """User 1's table as load.build() makes it (one such table per user; InnoDB's
        default page size) and its transactions as the session runs them."""
        shape, table = schema.geometry(dialect), schema.table_name(1)
        key = schema.add_primary_key(shape, table)
        batch = self.settings.batch_for(dialect)
        if self.settings.uses_server_loop(dialect):
            calls, note = server.calls(dialect, table), "one call visits a batch in the database"
        else:
            read, update = (
                sql.read_sql(dialect, table, batch),
                sql.update_sql(dialect, table, batch),
            )
            calls, note = {"read": read, "update": update}, f"{batch} rows a statement"
        return [
            Section("tables", [schema.create_table(shape, table)], note="one per user"),
            Section("fill", [schema.fill(shape, table)], note="rows first..last a statement"),
            Section(
                "keys and statistics", [*([key] if key else []), schema.analyze(dialect, table)]
            ),
            Section(
                "routines",
                server.ddl(dialect, table) if self.settings.uses_server_loop(dialect) else [],
            ),
            Section("transactions", named=calls, note=note),
        ]

    def session(self, engine: Engine, connection: Any, user: int) -> BlocksSession:
        self._sessions += 1  # new random streams at every point
        rng = random.Random(f"{self.seed}:blocks:{user}:{self._sessions}")
        return BlocksSession(
            engine.dialect,
            connection,
            self.table_for(user),
            self.scale,
            self.settings.batch_for(engine.dialect),
            rng,
            server_loop=self.settings.server_loop,
        )

    def submits(self, dialect: str) -> bool:
        return bool(server.part(dialect).SUBMITS)

    def point_metrics(
        self,
        commits: dict[str, int],
        rollbacks: dict[str, int],
        seconds: float,
        latency_ms: Any = None,
    ) -> dict[str, float]:
        """Rows read and rows updated per second (transactions x batch); with the calls'
        latency statistics (LatencyStats or its dict), a visit's mean latency (the call's
        mean / batch)."""
        if seconds <= 0:
            return {}
        batch = self.batch
        out = {
            "rows_read_per_s": commits.get("read", 0) * batch / seconds,
            "rows_updated_per_s": commits.get("update", 0) * batch / seconds,
        }
        mean = (
            latency_ms.get("mean")
            if isinstance(latency_ms, dict)
            else (latency_ms.mean if latency_ms is not None else None)
        )
        if isinstance(mean, int | float) and batch > 1:
            out["visit_latency_ms_mean"] = mean / batch
        return out

    def describe(self) -> dict[str, Any]:
        info = super().describe()
        info["scale_unit"] = self.scale_unit
        info["options"] = {
            "update_pct": self.settings.update_pct,
            "batch": self.batch,
            "server_loop": self.settings.uses_server_loop(self.dialect),
        }
        info["latency_unit"] = (
            f"a call of {self.batch} row visits; a visit's mean is the call's / {self.batch}"
            if self.batch > 1
            else "a call of one row visit"
        )
        info["tables"] = self.users
        info["rows"] = self.users * self.scale
        if self.layout:
            info["layout"] = dict(self.layout)
        if self.table_bytes is not None:
            info["table_bytes"] = self.table_bytes
        return info
