import pytest

from dbstor.drivers.fio_text import fio_path, fio_value, job_line
from dbstor.errors import UserError


@pytest.mark.parametrize(
    ("value", "why"),
    [
        ("/d/userdb;1", "';' starts a comment"),
        ("/d/a#b", "'#' starts a comment"),
        ("/d/a\nexec_prerun=x", "ends an option"),
        ("/d/$ncpus", "substitute"),
        ("/d/a\\b", "escape character"),
        ("/d/a\x07", "control character"),
        ("/d/a ", "blanks"),
    ],
)
def test_what_fio_cannot_take_is_refused_in_one_line(value, why):
    with pytest.raises(UserError) as caught:
        fio_path(value, "target A: the path")
    message = str(caught.value)
    assert why in message and "target A: the path" in message and "\n" not in message


def test_a_colon_is_escaped_and_other_characters_pass_as_they_are():
    assert fio_path("/d/a:b", "x") == "/d/a\\:b"
    assert fio_value("/d/[a]=b c,-d", "x") == "/d/[a]=b c,-d"


def test_a_job_line_checks_its_value_and_its_key():
    assert job_line("random_distribution", "zipf:1.2") == "random_distribution=zipf:1.2"
    with pytest.raises(UserError):
        job_line("bs", "8k\nexec_prerun=touch /x")
    with pytest.raises(ValueError):
        job_line("bs\nexec_prerun", "1")
