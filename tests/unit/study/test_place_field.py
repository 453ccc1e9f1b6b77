"""[databases] place and a target's fast path in study files, and --place / --target
fast= on the command line: read as written, bad values one line naming file and field."""

from __future__ import annotations

import pytest

from dbstor.commands.target_flags import parse_place_flags, parse_target
from dbstor.errors import UserError
from dbstor.study.load import load_study

STUDY = """
[[targets]]
label = "after"
path = "slow"
fast = "flash"

[[databases]]
engine = "postgres"
users = [1, 2]
place = {{ {place} }}
"""


def test_place_and_fast_are_read(tmp_path):
    path = tmp_path / "s.toml"
    path.write_text(STUDY.format(place='"trade_history" = "fast", "i_trade_*" = "fast"'))
    study = load_study(path)
    assert study.targets[0].fast == (tmp_path / "flash",)
    assert study.targets[0].roles["fast"] == [tmp_path / "flash"]
    assert study.databases[0].place == {"trade_history": "fast", "i_trade_*": "fast"}
    assert study.describe()["databases"][0]["place"] == {
        "trade_history": "fast",
        "i_trade_*": "fast",
    }


@pytest.mark.parametrize(
    ("place", "message"),
    [
        (
            '"trade" = "flash"',
            "databases[0].place: 'flash' is not a target role: give one of data, log, temp, fast",
        ),
        ('"trade;drop" = "fast"', "databases[0].place: 'trade;drop' is not a table or index name"),
        ("", "databases[0].place: must be a table of names and roles"),
    ],
)
def test_bad_place_names_file_and_field(tmp_path, place, message):
    path = tmp_path / "s.toml"
    path.write_text(STUDY.format(place=place))
    with pytest.raises(UserError) as err:
        load_study(path)
    assert str(err.value) == f"{path}: {message}" or message in str(err.value)


def test_place_and_target_flags():
    assert parse_place_flags(["trade_history=fast", "i_*=fast"]) == {
        "trade_history": "fast",
        "i_*": "fast",
    }
    target = parse_target(["/mnt/hdd", "fast=/mnt/flash"], None)
    assert target.fast[0].as_posix() == "/mnt/flash" and target.roles["fast"]
    with pytest.raises(UserError, match="--place 'trade': give NAME=ROLE"):
        parse_place_flags(["trade"])
    with pytest.raises(UserError, match="--place: 'ssd' is not a target role"):
        parse_place_flags(["trade=ssd"])
    with pytest.raises(UserError, match="the role must be data, log, temp or fast"):
        parse_target(["/mnt/hdd", "flash=/mnt/flash"], None)
