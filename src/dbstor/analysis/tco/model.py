"""The inputs of the consolidation cost case: one table of fields, read from a TOML file
and/or command-line flags (flags win), validated into TcoInputs.

Prices are inputs. `example_prices` fills the prices not given with documented example
values, each listed with its source in the output (docs/tco.md); nothing else is assumed
silently: every default used is listed too.
"""

from __future__ import annotations

import argparse
import math
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dbstor.analysis.tco.fields import BY_NAME, FIELDS, Field
from dbstor.analysis.tco.licences import get_model
from dbstor.errors import UserError
from dbstor.units import parse_percent
from dbstor.userfiles import STUDY_FILE_BYTES, read_text

MS_PRICE = "Microsoft SQL Server 2022 pricing page, list price"
ORA_PRICE = "Oracle Technology Global Price List, Database"
ILLUSTRATIVE = "illustrative only, not from a price list: replace with your own"

# field -> (value, source); licence prices per licence model
EXAMPLE_LICENCE = {
    "sqlserver-enterprise": (
        (7561.5, f"USD 15,123 per 2-core pack ({MS_PRICE})"),
        (25.0, "Software Assurance, 25% of the licence price a year (Microsoft volume licensing)"),
    ),
    "sqlserver-standard": (
        (1972.5, f"USD 3,945 per 2-core pack ({MS_PRICE})"),
        (25.0, "Software Assurance, 25% of the licence price a year (Microsoft volume licensing)"),
    ),
    "oracle-enterprise": (
        (47500.0, f"USD 47,500 per processor ({ORA_PRICE})"),
        (22.0, f"Software Update License & Support, 22% a year ({ORA_PRICE})"),
    ),
    "oracle-standard2": (
        (17500.0, f"USD 17,500 per processor (socket) ({ORA_PRICE})"),
        (22.0, f"Software Update License & Support, 22% a year ({ORA_PRICE})"),
    ),
}
EXAMPLE_SERVER = {
    "server_support": (1500.0, f"hardware maintenance of a 2-socket server a year; {ILLUSTRATIVE}"),
    "power": (630.0, "400 W average x 8,760 h x PUE 1.5 x USD 0.12/kWh"),
    "space": (300.0, f"2U of rack space a year; {ILLUSTRATIVE}"),
    "admin": (3000.0, f"one administrator (USD 120,000 a year) per 40 servers; {ILLUSTRATIVE}"),
}


@dataclass
class TcoInputs:
    values: dict[str, Any]
    sources: dict[str, str] = field(default_factory=dict)  # field -> where the value came from

    def __getattr__(self, name: str) -> Any:
        try:
            return self.__dict__["values"][name]
        except KeyError:
            raise AttributeError(name) from None


def read_toml(path: Path) -> dict[str, Any]:
    """Flatten a consolidation TOML file into field -> raw value, naming unknown keys."""
    try:
        data = tomllib.loads(read_text(path, "a consolidation TOML", STUDY_FILE_BYTES))
    except FileNotFoundError:
        raise UserError(
            f"{path}: no such file; give a consolidation TOML (see docs/tco.md)"
        ) from None
    except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError, RecursionError) as exc:
        raise UserError(f"{path}: not valid TOML ({type(exc).__name__}: {exc})"[:300]) from None
    by_toml = {f.toml: f for f in FIELDS}
    out: dict[str, Any] = {}
    for section, table in data.items():
        if not isinstance(table, dict):
            raise UserError(f"{path}: {section} must be a [section]; see docs/tco.md")
        for key, value in table.items():
            spec = by_toml.get(f"{section}.{key}")
            if spec is None:
                raise UserError(
                    f"{path}: unknown key {section}.{key}; known keys are listed in docs/tco.md"
                )
            out[spec.name] = value
    return out


# the largest value each kind of number may take: beyond these an input is a typing
# mistake, not a case (and floats beyond them lose whole units or overflow)
LIMITS = {
    "servers": 100_000,
    "sockets": 64,
    "cores": 4_096,
    "years": 30,
    "money": 1e12,
}


def _whole(raw: Any) -> int:
    """A whole number of 1 or more from a TOML value or a flag's text (ValueError if not)."""
    if isinstance(raw, bool) or not isinstance(raw, int | float | str):
        raise ValueError
    value = float(str(raw).replace(",", "").strip()) if isinstance(raw, str) else float(raw)
    if not math.isfinite(value) or value != int(value) or value < 1:
        raise ValueError
    return int(value)


def _convert(spec: Field, raw: Any, where: str) -> Any:
    label = f"{where}{spec.toml if where.endswith(': ') else spec.flag}"
    try:
        if spec.kind == "int":
            value = _whole(raw)
            limit = LIMITS.get(spec.name)
            if limit is not None and value > limit:
                raise UserError(f"{label} {value:,} is more than {limit:,}; give 1 to {limit:,}")
            return value
        if spec.kind == "pct":
            if isinstance(raw, bool) or not isinstance(raw, int | float | str):
                raise ValueError(f"{raw!r} is not a percentage")
            return parse_percent(raw)
        if spec.kind in ("money", "float"):
            if isinstance(raw, bool) or not isinstance(raw, int | float | str):
                raise ValueError
            value = float(str(raw).replace(",", "").replace("$", "").strip())
            if value != value:
                raise ValueError
            if value < 0:
                raise UserError(
                    f"{label} must not be negative (got {raw}); prices and factors are 0 or more"
                )
            limit = LIMITS["money"] if spec.kind == "money" else 1e6
            if value > limit:
                raise UserError(
                    f"{label} {_short(raw)} is more than {limit:,.0f}; give 0 to {limit:,.0f}"
                )
            return value
        if spec.kind == "bool":
            if isinstance(raw, bool):
                return raw
            if str(raw).lower() in ("true", "yes", "1", "false", "no", "0"):
                return str(raw).lower() in ("true", "yes", "1")
            raise ValueError
        if not isinstance(raw, str | int | float) or isinstance(raw, bool):
            raise ValueError
        if spec.kind == "path":
            return Path(str(raw))
        text = str(raw)
        if len(text) > 100 or not text.isprintable():
            raise UserError(f"{label}: give a short printable name (at most 100 characters)")
        return text
    except (ValueError, OverflowError) as exc:
        if spec.kind == "pct" and str(exc):
            raise UserError(f"{label}: {exc}; give a percentage 0..100, e.g. 40%") from None
        hint = {
            "int": f"a whole number from 1 to {LIMITS.get(spec.name, 10**9):,}",
            "bool": "true or false",
            "str": "a name",
            "path": "a folder",
        }.get(spec.kind, "a number")
        raise UserError(f"{label}: {_short(raw)} is not {hint}") from None


def _short(raw: Any) -> str:
    text = repr(raw)
    return text if len(text) <= 40 else text[:37] + "..."


def resolve(toml_path: Path | None, args: argparse.Namespace) -> TcoInputs:
    """TOML values, overridden by flags, converted and checked; defaults filled and noted."""
    raw: dict[str, tuple[Any, str]] = {}
    if toml_path is not None:
        for name, value in read_toml(toml_path).items():
            raw[name] = (value, f"{toml_path}: ")
    for spec in FIELDS:
        value = getattr(args, spec.name, None)
        if value is not None and value is not False:
            raw[spec.name] = (value, "")
    values: dict[str, Any] = {}
    sources: dict[str, str] = {}
    for spec in FIELDS:
        if spec.name in raw:
            value, where = raw[spec.name]
            values[spec.name] = _convert(spec, value, where)
            sources[spec.name] = f"from {toml_path}" if where else "given"
        else:
            values[spec.name] = spec.default
            if spec.default is not None:
                sources[spec.name] = "default"
    inputs = TcoInputs(values, sources)
    _check(inputs)
    _fill_prices(inputs)
    return inputs


def _check(inputs: TcoInputs) -> None:
    v = inputs.values
    for name in ("servers", "cores", "licence"):
        if v[name] is None:
            raise UserError(
                f"{BY_NAME[name].flag} is required (or {BY_NAME[name].toml} in "
                "the TOML file); see dbstor tco --help"
            )
    model = get_model(v["licence"])
    v["licence"] = model.name
    if v["cores"] % v["sockets"]:
        raise UserError(
            f"--cores-per-server {v['cores']} is not a multiple of --sockets "
            f"{v['sockets']}; give the total physical cores of one server"
        )
    if not 0 < v["core_factor"] <= 1:
        raise UserError(
            f"--core-factor {v['core_factor']:g} is outside (0, 1]; Oracle's "
            "table uses 0.25, 0.5, 0.75 or 1.0"
        )
    if v["ceiling"] <= 0:
        raise UserError("--ceiling must be above 0%, e.g. 70%")
    if v["years"] > 30:
        raise UserError(f"--years {v['years']} is more than 30; give the analysis period")


def _fill_prices(inputs: TcoInputs) -> None:
    v, src = inputs.values, inputs.sources
    example = v["example_prices"]
    prices = {}
    if v["licence"] in EXAMPLE_LICENCE:
        price, rate = EXAMPLE_LICENCE[v["licence"]]
        prices.update({"licence_price": price, "support_rate": rate})
    prices.update(EXAMPLE_SERVER)
    for name in (
        "licence_price",
        "support_rate",
        "server_support",
        "power",
        "space",
        "admin",
        "storage_price",
        "storage_support",
        "legacy_support",
        "migration",
    ):
        if v[name] is not None:
            continue
        if example and name in prices:
            v[name], source = prices[name]
            src[name] = f"example: {source}"
        else:
            v[name] = 0.0
            src[name] = "not given, taken as 0"
