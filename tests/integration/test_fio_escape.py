"""Nothing a user types reaches fio other than as dbstor checked it: hostile names in every
field that reaches a job file are either refused in one line before anything exists, or
read back by real fio (`fio --parse-only`) as exactly the files dbstor checked and exactly
the options dbstor wrote."""

from __future__ import annotations

import re
import subprocess
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from dbstor.errors import UserError
from dbstor.runs.io.fio_check import check_fio_jobs
from dbstor.study.load import study_from_dict
from dbstor.testfiles import planned_file_names

pytestmark = [pytest.mark.integration, pytest.mark.skip_without_fio]

# What fio reads specially in a job file, and what a shell or an option parser would.
HOSTILE = ";#$\\\n\r\t :=[]-,/'\"{}%*"
ESCAPABLE = " :=[]-,/'\"{}%*é&|<>()!?~`@^+ab1"  # fio has an escape for these, or needs none
NAME = st.one_of(
    st.text(alphabet=st.sampled_from(HOSTILE + "abcé1"), min_size=1, max_size=12),
    st.text(alphabet=st.sampled_from(ESCAPABLE), min_size=1, max_size=12),
)
INJECTED = ("exec_prerun", "exec_postrun", "ioscheduler", "filename_format", "directory")


def _mostly(valid: list[str], hostile: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    """A valid value 3 times in 4, so that most examples reach fio; else a hostile one."""
    return st.integers(0, 3).flatmap(lambda i: hostile if i == 0 else st.sampled_from(valid))


def _fio_reads(job_text: str) -> tuple[list[str], set[str], int]:
    """The files and option names real fio reads from job_text, and its exit status;
    parsed here from fio's debug output, independently of dbstor's own reader."""
    with tempfile.TemporaryDirectory() as scratch:
        job = Path(scratch) / "job.fio"
        job.write_text(job_text, encoding="utf-8")
        done = subprocess.run(
            ["fio", "--parse-only", "--debug=parse,file", str(job)],
            capture_output=True,
            text=True,
            errors="replace",
            check=False,
        )
    files = re.findall(r"^file\s+\d+\s+add file (.*)$", done.stdout, re.MULTILINE)
    options = set(re.findall(r"handle_option=([^,]*), ptr=", done.stdout))
    return list(dict.fromkeys(files)), options, done.returncode


def _jobs_dbstor_would_run(study, tmp: Path) -> list[tuple[str, tuple[Path, ...]]]:
    from dbstor.drivers.fio_job import PointSpec, build_layout_job, build_point_job

    jobs = []
    for target in study.targets:
        for profile in study.profiles:
            files = planned_file_names(target.paths, profile.name, profile.files)
            data = tuple(study.data.fio_options().items())
            jobs.append((build_layout_job(files, 1 << 20, True, data), files))
            spec = PointSpec(profile, files, 1 << 20, 4, 2, 1, 0, data_options=data)
            jobs.append((build_point_job(spec), files))
    return jobs


@settings(
    max_examples=80,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    directory=NAME,
    second=NAME,
    profile=_mostly(["p.1_x-y", "io-x", "9"], NAME),
    distribution=_mostly(["1.2", "0.8", "2"], NAME),
    data=_mostly(["1.8:1", "2:1,dedupe=20%"], NAME.map(lambda n: f"1.5:1,dedupe={n}")),
)
def test_hostile_names_are_refused_or_read_back_exactly(
    tmp_path, directory, profile, distribution, second, data
):
    study_toml = {
        "study": {"profiles": [profile], "data": data},
        "profiles": {profile: {"distribution": f"zipf:{distribution}", "files": 2}},
        "targets": [{"label": "A", "paths": [f"{directory}/x", f"{second}:y"]}],
    }
    try:
        study = study_from_dict(study_toml, source="s.toml", base_dir=tmp_path)
        check_fio_jobs(study)
    except UserError as exc:
        assert "\n" not in str(exc) and "\r" not in str(exc)  # one line, whatever the name
        event("refused")
        return
    event("read back by fio")
    for job_text, files in _jobs_dbstor_would_run(study, tmp_path):
        read_files, options, status = _fio_reads(job_text)
        assert status == 0, job_text
        assert read_files == [str(f) for f in files], job_text
        written = {ln.split("=", 1)[0] for ln in job_text.splitlines() if "=" in ln}
        assert options == written, job_text
        assert not options.intersection(INJECTED), job_text


def test_a_semicolon_in_a_target_is_refused_and_the_users_file_kept(dbstor, tmp_path):
    """The review's case: fio read 'userdb;1' as 'userdb' and overwrote the user's file."""
    (tmp_path / "userdb;1").mkdir()
    (tmp_path / "userdb").write_bytes(b"the user's database\n")
    proc = dbstor(
        "io", "--target", tmp_path / "userdb;1", "--size", "4MiB", "--duration", "1s",
        "--warmup", "0s", "--iodepth", "1", "--out", tmp_path / "out",
    )  # fmt: skip
    dbstor.assert_user_error(proc, "userdb;1", "';' starts a comment")
    assert (tmp_path / "userdb").read_bytes() == b"the user's database\n"
    assert not (tmp_path / "out").exists()
    assert list((tmp_path / "userdb;1").iterdir()) == []


def test_a_newline_in_a_profile_name_runs_nothing(dbstor, tmp_path):
    """A name that would add exec_prerun to the job: refused before any job exists."""
    (tmp_path / "t").mkdir()
    witness = tmp_path / "ran"
    study = tmp_path / "s.toml"
    study.write_text(
        f'[study]\nprofiles = ["p\\nexec_prerun=touch {witness}"]\nduration = "1s"\n'
        f'[profiles."p\\nexec_prerun=touch {witness}"]\nbased_on = "io-oltp"\n'
        '[[targets]]\nlabel = "A"\npath = "t"\n',
        encoding="utf-8",
    )
    proc = dbstor("run", study, "--out", tmp_path / "out")
    dbstor.assert_user_error(proc, "profile's name")
    assert not witness.exists() and not (tmp_path / "out").exists()


def test_a_distribution_fio_refuses_is_refused_before_the_run(dbstor, tmp_path):
    """zipf:1 passes dbstor's form check but fio refuses it: found by fio --parse-only in
    preflight, not at the first point."""
    (tmp_path / "t").mkdir()
    study = tmp_path / "s.toml"
    study.write_text(
        '[study]\nprofiles = ["z"]\nduration = "1s"\n[profiles.z]\ndistribution = "zipf:1"\n'
        '[[targets]]\nlabel = "A"\npath = "t"\n',
        encoding="utf-8",
    )
    proc = dbstor("run", study, "--out", tmp_path / "out")
    dbstor.assert_user_error(proc, "fio refuses", "zipf")
    assert not (tmp_path / "out").exists()
    assert list((tmp_path / "t").iterdir()) == []


def test_a_colon_in_a_target_is_escaped_and_fio_writes_there(dbstor, tmp_path):
    """':' has fio's escape: the run goes ahead and fio's files are where dbstor said."""
    target = tmp_path / "a:b"
    target.mkdir()
    (tmp_path / "a").write_bytes(b"keep\n")
    proc = dbstor(
        "io", "--target", f"T={target}", "--size", "4MiB", "--duration", "1s",
        "--warmup", "0s", "--iodepth", "1", "--out", tmp_path / "out", "--keep",
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert (target / "dbstor-io-oltp-0.dat").stat().st_size == 4 << 20
    assert (tmp_path / "a").read_bytes() == b"keep\n"
