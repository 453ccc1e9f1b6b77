from pathlib import Path

import pytest

from dbstor.engines.mariadb_server import check_option_path
from dbstor.errors import UserError


@pytest.mark.parametrize(
    ("path", "why"),
    [
        ("/mnt/a#b", "'#' starts a comment"),
        ("/mnt/a;b", "';' starts a comment"),
        ("/mnt/a\\b", "escape character"),
        ("/mnt/it's", "quotes a value in my.cnf and in SQL"),
        ("/mnt/a\nplugin-load=x", "control character"),
    ],
)
def test_a_path_my_cnf_would_read_differently_is_refused(path, why):
    with pytest.raises(UserError) as caught:
        check_option_path(Path(path), "the data path")
    assert why in str(caught.value) and "\n" not in str(caught.value)


def test_a_plain_path_passes():
    check_option_path(Path("/mnt/lun 1/a-b_c.d:e"), "the data path")
