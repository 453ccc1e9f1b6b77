"""Tags: the user's own KEY=VALUE words on a run (`--tag firmware=9.14`, `[study] tags =
{...}`), recorded in results.json, shown in reports, filtered on in `dbstor index`,
`dbstor compare --tag` and `dbstor check --baseline KEY=VALUE`."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

KEY = re.compile(r"[A-Za-z][A-Za-z0-9_.-]{0,63}")
MAX_VALUE = 200
MAX_TAGS = 32


def check_tag(key: Any, value: Any) -> tuple[str, str]:
    """A (key, value) pair, or ValueError saying what a tag may hold."""
    if not isinstance(key, str) or not KEY.fullmatch(key):
        raise ValueError(
            f"tag name {str(key)[:40]!r}: use a letter then letters, digits, '_', '.' or '-' "
            "(at most 64), e.g. firmware=9.14"
        )
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        raise ValueError(f"tag {key}: the value must be text or a number, e.g. {key}=9.14")
    text = str(value)
    if not text or len(text) > MAX_VALUE or not text.isprintable():
        raise ValueError(f"tag {key}: the value must be 1 to {MAX_VALUE} printable characters")
    return key, text


def parse_tag(text: str) -> tuple[str, str]:
    """KEY=VALUE from the command line."""
    key, sep, value = text.partition("=")
    if not sep:
        raise ValueError(f"{text[:40]!r}: give KEY=VALUE, e.g. --tag firmware=9.14")
    return check_tag(key.strip(), value.strip())


def flag_tags(texts: Iterable[str]) -> dict[str, str]:
    """--tag KEY=VALUE flags, each key once (a key given twice would keep one value of
    the two without a word)."""
    given = [parse_tag(t) for t in texts]
    keys = [key for key, _ in given]
    twice = next((k for k in keys if keys.count(k) > 1), None)
    if twice is not None:
        raise ValueError(f"tag {twice} is given twice: give each tag once")
    return tags_from(given)


def tags_from(pairs: Iterable[tuple[str, str]]) -> dict[str, str]:
    tags = dict(pairs)
    if len(tags) > MAX_TAGS:
        raise ValueError(f"{len(tags)} tags: at most {MAX_TAGS}")
    return tags


def tag_table(value: Any) -> dict[str, str]:
    """A study file's `tags = {...}`."""
    if not isinstance(value, Mapping):
        raise ValueError('must be a table of names and values, e.g. {firmware = "9.14"}')
    return tags_from(check_tag(k, v) for k, v in value.items())


def matches(tags: Mapping[str, str], wanted: Mapping[str, str]) -> bool:
    """Whether a run's tags hold every wanted KEY=VALUE."""
    return all(tags.get(k) == v for k, v in wanted.items())
