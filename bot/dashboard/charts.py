"""Geometry of the server-rendered SVG charts; templates/charts.html draws them.

Only numbers are computed here; every piece of text goes into the SVG through the template, which
escapes it. Each series has a fill pattern and a marker shape of its own as well as a colour, so
nothing is told by colour alone, and every chart has a data table beside it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

WIDTH, HEIGHT = 720, 240
LEFT, RIGHT, TOP, BOTTOM = 44, 12, 12, 36


@dataclass
class Chart:
    width: int = WIDTH
    height: int = HEIGHT
    bars: list[dict] = field(default_factory=list)       # {"x", "w", "segments": [{"y", "h", "series", "label"}]}
    lines: list[dict] = field(default_factory=list)      # {"series", "points": [{"x", "y", "label"}], "path"}
    yticks: list[dict] = field(default_factory=list)     # {"y", "label"}
    xlabels: list[dict] = field(default_factory=list)    # {"x", "label"}

    @property
    def plot_left(self) -> int:
        return LEFT

    @property
    def plot_right(self) -> int:
        return self.width - RIGHT

    @property
    def plot_bottom(self) -> int:
        return self.height - BOTTOM


def nice_ceiling(value: float) -> float:
    """1, 2, 2.5 or 5 times a power of ten, at least `value` (axes read in round numbers)."""
    if value <= 0:
        return 1
    power = 10 ** math.floor(math.log10(value))
    for step in (1, 2, 2.5, 5, 10):
        if value <= step * power:
            return step * power
    return 10 * power


def stacked_bars(rows: list[dict], series: list[tuple[str, str]], label, *, every: int = 5) -> Chart:
    """One bar per row, its `series` keys stacked bottom-up; `label(row)` names the row.

    series: (key, name) pairs; a segment's label reads "<row>: <n> <name>".
    """
    chart = Chart()
    top = nice_ceiling(max((sum(r[k] for k, _ in series) for r in rows), default=0))
    _y_axis(chart, max(top, 4), lambda v: f"{v:g}", whole=True)
    top = max(top, 4)
    slot = (chart.plot_right - chart.plot_left) / max(len(rows), 1)
    height = chart.plot_bottom - TOP
    for i, row in enumerate(rows):
        x = chart.plot_left + i * slot + slot * 0.1
        base = chart.plot_bottom
        segments = []
        for key, name in series:
            h = row[key] / top * height
            if row[key]:
                segments.append({"y": round(base - h, 2), "h": round(h, 2), "series": key,
                                 "label": f"{label(row)}: {row[key]} {name}"})
            base -= h
        chart.bars.append({"x": round(x, 2), "w": round(slot * 0.8, 2), "segments": segments})
        if _labelled(i, len(rows), every):
            chart.xlabels.append({"x": round(x + slot * 0.4, 2), "label": label(row)})
    return chart


def bars(rows: list[dict], key: str, label, name: str, *, every: int = 4) -> Chart:
    return stacked_bars(rows, [(key, name)], label, every=every)


def lines(rows: list[dict], series: list[tuple[str, str]], label, *, every: int = 2) -> Chart:
    """Shares (0 to 1) over time: one line per series, a gap where a value is missing."""
    chart = Chart()
    _y_axis(chart, 1.0, lambda v: f"{v:.0%}")
    slot = (chart.plot_right - chart.plot_left) / max(len(rows), 1)
    height = chart.plot_bottom - TOP
    for key, name in series:
        points, path, pen_down = [], [], False
        for i, row in enumerate(rows):
            value = row[key]
            if value is None:
                pen_down = False
                continue
            x = round(chart.plot_left + (i + 0.5) * slot, 2)
            y = round(chart.plot_bottom - value * height, 2)
            points.append({"x": x, "y": y, "label": f"{label(row)}: {name} {value:.0%}"})
            path.append(f"{'L' if pen_down else 'M'}{x},{y}")
            pen_down = True
        chart.lines.append({"series": key, "points": points, "path": " ".join(path)})
    for i, row in enumerate(rows):
        if _labelled(i, len(rows), every):
            chart.xlabels.append({"x": round(chart.plot_left + (i + 0.5) * slot, 2), "label": label(row)})
    return chart


def _labelled(i: int, n: int, every: int) -> bool:
    """Every `every`th bar is named, and the last one when it is not crowding the one before."""
    return i % every == 0 or (i == n - 1 and i % every >= every / 2)


def _y_axis(chart: Chart, top: float, fmt, *, whole: bool = False) -> None:
    height = chart.plot_bottom - TOP
    for frac in (0, 0.25, 0.5, 0.75, 1):
        value = top * frac
        if whole and value != int(value):
            continue              # no "2.5 pastes"
        chart.yticks.append({"y": round(chart.plot_bottom - frac * height, 2), "label": fmt(value)})
