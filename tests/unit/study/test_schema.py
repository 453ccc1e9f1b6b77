"""The published JSON Schema of study files: the committed copy is the generated one, every
example validates against it, and it lists exactly the tables and keys the loader takes."""

import json
import subprocess
import sys
import tomllib
from pathlib import Path

import jsonschema
import pytest

from dbstor.errors import UserError
from dbstor.study.events import KINDS
from dbstor.study.load import study_from_dict
from dbstor.study.schema import study_schema

ROOT = Path(__file__).resolve().parents[3]
EXAMPLES = sorted((ROOT / "examples").glob("*.toml"))


def test_the_committed_schema_is_the_generated_one():
    committed = json.loads((ROOT / "docs" / "study.schema.json").read_text())
    assert committed == study_schema(), "run: dbstor study --schema > docs/study.schema.json"


def test_dbstor_study_schema_prints_it():
    out = subprocess.run(
        [sys.executable, "-m", "dbstor", "study", "--schema"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert json.loads(out) == study_schema()


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda p: p.name)
def test_every_example_validates_against_the_schema(example):
    data = tomllib.loads(example.read_text())
    jsonschema.validate(data, study_schema())


def test_the_schema_refuses_what_the_loader_refuses():
    schema = study_schema()
    good = {"targets": [{"label": "A", "path": "/tmp"}], "capacity": {"drives": "48x800GB"}}
    jsonschema.validate(good, schema)
    for bad in (
        {**good, "capacty": {}},
        {**good, "capacity": {"drive": "48x800GB"}},
        {"targets": [{"label": "A", "path": "/tmp", "tco": {"servers": 4}}]},
        {"targets": []},
    ):
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate(bad, schema)


def _sections(schema):
    """table -> its keys, as the schema lists them ([[targets]] and the per-name tables
    by their item's keys)."""
    defs = schema["$defs"]
    out = {}
    for name, prop in schema["properties"].items():
        ref = json.dumps(prop)
        model = next(d for d in defs if f'"#/$defs/{d}"' in ref)
        out[name] = set(defs[model]["properties"])
    return out


def _unknown(data):
    """The loader's complaint about an unknown table or field, or None."""
    try:
        study_from_dict(data, source="s.toml", base_dir=Path("/tmp"))
    except UserError as exc:
        return str(exc) if "unknown field" in str(exc) else None
    return None


def test_every_table_and_key_of_the_schema_is_one_the_loader_takes():
    target = {"label": "A", "path": "/tmp"}
    for table, keys in _sections(study_schema()).items():
        if table == "events":
            continue  # each kind its own keys: test_the_events_keys_are_the_loaders
        for key in keys:
            if table == "databases" and key == "place":
                continue  # placement of named tables: the place helper's key
            if table == "targets":
                data = {"targets": [{**target, key: None}]}
            elif table == "databases":
                data = {"targets": [target], "databases": [{key: None}]}
            elif table == "profiles":
                data = {"targets": [target], "profiles": {"p": {key: None}}}
            else:
                data = {"targets": [target], table: {key: None}}
            assert _unknown(data) is None, (table, key, _unknown(data))
        # the loader refuses a key the schema does not list, and allows what it lists
        refusal = _unknown(_with_bogus(table, target))
        assert refusal is not None, table
        allowed = set(refusal.split("allowed: ", 1)[1].split(", "))
        assert allowed - {"place"} == keys - {"place"}, table


def test_the_events_keys_are_the_loaders():
    """[[events]]: each kind takes its own settings; together they are the schema's keys."""
    target, seen = {"label": "A", "path": "/tmp"}, set()
    for kind in KINDS:
        event = {"kind": kind, "at": "1s", "bogus_key": 1}
        refusal = _unknown({"targets": [target], "events": [event]})
        assert refusal is not None and "events[0]" in refusal, kind
        seen |= set(refusal.split("allowed: ", 1)[1].split(", "))
    assert seen == _sections(study_schema())["events"]


def test_the_top_level_tables_are_the_loaders():
    refusal = _unknown({"targets": [{"label": "A", "path": "/tmp"}], "bogus": {}})
    assert set(refusal.split("allowed: ", 1)[1].split(", ")) == set(study_schema()["properties"])


def _with_bogus(table, target):
    if table == "targets":
        return {"targets": [{**target, "bogus_key": 1}]}
    if table == "databases":
        return {"targets": [target], "databases": [{"bogus_key": 1}]}
    if table == "profiles":
        return {"targets": [target], "profiles": {"p": {"bogus_key": 1}}}
    return {"targets": [target], table: {"bogus_key": 1}}
