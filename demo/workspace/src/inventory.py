"""A small inventory of parts, used by the Foehn demo."""


def total_value(parts: dict[str, tuple[int, float]]) -> float:
    """Sum of count * unit price over every part."""
    return sum(count * price for count, price in parts.values())


def restock(parts: dict[str, tuple[int, float]], name: str, count: int) -> None:
    # TODO: refuse negative counts instead of silently accepting them
    current, price = parts.get(name, (0, 0.0))
    parts[name] = (current + count, price)
