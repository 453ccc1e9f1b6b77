"""[[events]] and --event: parsed, and refused in one line before anything runs."""

from __future__ import annotations

from pathlib import Path

import pytest

from dbstor.errors import UserError
from dbstor.study.events import EventSpec, event_from_flag, event_from_table
from dbstor.study.load import study_from_dict


def study(events: list[dict], duration: str = "10s", path: str = "/tmp") -> dict:
    return {"study": {"duration": duration}, "targets": [{"path": path}], "events": events}


def load(data: dict):
    return study_from_dict(data, source="s.toml", base_dir=Path("/tmp"))


def refusal(data: dict) -> str:
    with pytest.raises(UserError) as caught:
        load(data)
    message = str(caught.value)
    assert "\n" not in message
    return message


def test_a_flag_and_a_table_give_the_same_event():
    flag = event_from_flag("throttle@10s,for=5s,mbps=20,direction=write")
    table = event_from_table(
        {"kind": "throttle", "at": "10s", "for": "5s", "mbps": 20, "direction": "write"}, "e"
    )
    assert (flag.kind, flag.at_s, flag.for_s, flag.settings) == (
        table.kind, table.at_s, table.for_s, table.settings,
    )  # fmt: skip
    assert flag.settings == {"mbps": 20.0, "direction": "write"}


def test_a_command_is_an_argument_list_never_a_shell_line():
    event = event_from_flag("command@2s,timeout=5s,argv=/bin/echo 'a; b' c,d")
    assert event.settings == {"argv": ["/bin/echo", "a; b", "c,d"], "timeout_s": 5.0}


def test_every_and_for_give_the_occurrences_inside_the_window():
    event = EventSpec("throttle", 2.0, every_s=5.0, for_s=2.0)
    assert event.times(15.0) == [2.0, 7.0, 12.0]
    assert EventSpec("drop-caches", 3.0).times(15.0) == [3.0]


def test_a_study_keeps_its_events_and_describes_them():
    loaded = load(study([{"kind": "drop-caches", "at": "3s"}]))
    assert [e.kind for e in loaded.events] == ["drop-caches"]
    assert loaded.describe()["events"][0]["at_s"] == 3.0


@pytest.mark.parametrize(
    ("event", "needle"),
    [
        ({"kind": "throttle", "at": "12s", "for": "1s", "iops": 5}, "outside the point"),
        ({"kind": "throttle", "at": "8s", "for": "5s", "iops": 5}, "ends after"),
        ({"kind": "reboot", "at": "1s"}, "unknown event kind 'reboot'"),
        ({"kind": "crash", "at": "1s"}, "fio points have none"),
        ({"kind": "checkpoint", "at": "1s", "for": "2s"}, "leave out for"),
        ({"kind": "snapshot", "at": "1s"}, "cannot take a snapshot"),
        ({"kind": "command", "at": "1s", "argv": ["no-such-prog-x"]}, "does not exist"),
        ({"kind": "command", "at": "1s", "argv": []}, "needs argv"),
        ({"kind": "throttle", "at": "1s", "for": "1s"}, "one of iops"),
        ({"kind": "throttle", "at": "1s", "for": "1s", "iops": 0}, "above 0"),
        ({"kind": "throttle", "at": "1s", "iops": 5}, "needs for"),
        ({"kind": "drop-caches"}, "needs at"),
        ({"kind": "fstrim", "at": "1s", "iops": 3}, "unknown field 'iops'"),
        ({"kind": "throttle", "at": "1s", "for": "3s", "every": "2s", "iops": 5}, "every"),
    ],
)
def test_bad_events_are_refused_in_one_line(event, needle):
    message = refusal(study([event]))
    assert needle in message and message.startswith("s.toml: events[0]"), message


def test_events_with_a_cluster_are_refused():
    data = study([{"kind": "drop-caches", "at": "1s"}])
    data["cluster"] = {"address": "127.0.0.1:6379"}
    data["targets"][0]["hosts"] = ["a"]
    assert "this host only" in refusal(data)


def test_two_throttles_at_once_are_refused():
    first = {"kind": "throttle", "at": "1s", "for": "4s", "iops": 5}
    second = {"kind": "throttle", "at": "3s", "for": "1s", "mbps": 5}
    assert "one throttle at a time" in refusal(study([first, second]))
    assert "one throttle at a time" in refusal(study([first, first]))  # the same span twice
    again = {"kind": "throttle", "at": "1s", "for": "2s", "every": "3s", "iops": 5}
    assert [e.kind for e in load(study([again, second | {"at": "9s"}])).events] == ["throttle"] * 2
