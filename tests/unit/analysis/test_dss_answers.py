import datetime
from decimal import Decimal

from dbstor.analysis.dss_answers import difference


def test_answers_compare_across_types_with_tolerance():
    duck = [("N", Decimal("1.10"), datetime.date(1995, 1, 2), 3)]
    pg = [("N  ", Decimal("1.100000001"), datetime.date(1995, 1, 2), Decimal("3"))]
    lite = [("N", 1.1, "1995-01-02", 3.0)]
    assert difference(duck, pg) is None and difference(duck, lite) is None
    assert "1 rows against 2" in difference(duck, duck * 2)
    assert "differs" in difference(duck, [("N", 1.2, "1995-01-02", 3)])
    assert "differs" in difference(duck, [("O", 1.1, "1995-01-02", 3)])
    ties = [("a", 1.0), ("b", 1.0)]
    assert difference(ties, list(reversed(ties))) is None  # ties may come in either order
