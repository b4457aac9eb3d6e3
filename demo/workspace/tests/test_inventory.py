from inventory import restock, total_value


def test_total_value() -> None:
    assert total_value({"bolt": (10, 0.5), "nut": (4, 0.25)}) == 6.0


def test_restock_adds() -> None:
    parts = {"bolt": (1, 0.5)}
    restock(parts, "bolt", 2)
    assert parts["bolt"] == (3, 0.5)
