"""A command event's environment holds no secret of dbstor's (its output is kept)."""

from __future__ import annotations

from dbstor.events.actions import command_env


def test_secrets_stay_out_of_a_commands_environment(monkeypatch):
    monkeypatch.setenv("DBSTOR_DSN", "postgresql://u:hunter2@h/db")
    monkeypatch.setenv("PGPASSWORD", "hunter2")
    monkeypatch.setenv("MYSQL_PWD", "hunter2")
    monkeypatch.setenv("LANG", "C.UTF-8")
    env = command_env()
    assert "hunter2" not in "".join(env.values())
    assert env["LANG"] == "C.UTF-8" and "PATH" in env
