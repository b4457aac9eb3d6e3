"""Formats the inventory for people."""

from inventory import total_value


def render(parts: dict[str, tuple[int, float]]) -> str:
    lines = [f"{name}: {count} x {price:.2f}" for name, (count, price) in sorted(parts.items())]
    lines.append(f"total: {total_value(parts):.2f}")
    return "\n".join(lines)
