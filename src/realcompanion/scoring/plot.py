"""PNG figures of the reports, drawn with matplotlib's Agg canvas (no display needed)."""
from __future__ import annotations


def _figure():
    """An 8 x 4.5 inch figure on its own Agg canvas: no pyplot state, no display."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    figure = Figure(figsize=(8.0, 4.5), layout="constrained")
    FigureCanvasAgg(figure)
    return figure


def _save(figure, out) -> None:
    """Write `figure` to `out` as a PNG whatever the name ends with: matplotlib picks the format from the suffix and
    refused one it does not know (`--plot report.jsonl`) with a traceback, after the report was written."""
    from ..writing import Replacing

    with Replacing(out) as handle:
        figure.savefig(handle, dpi=120, format="png")


def _nothing_to_draw(figure, axes, title: str, what: str, out) -> None:
    """A population without items (a converted release with no memory-bearing row) draws no line; the figure says
    so, rather than show empty axes with made-up ticks that read like a result."""
    axes.set(title=title, xticks=[], yticks=[])
    axes.text(0.5, 0.5, f"no {what}: nothing to plot", ha="center", va="center", transform=axes.transAxes)
    _save(figure, out)


def per_participant(series: dict[str, dict[str, float]], title: str, ylabel: str, out, unit: str = "participant") -> None:
    """One line per series across participants (like Table 38's rows), or across a format's other unit (`unit`:
    groups, say)."""
    figure = _figure()
    axes = figure.add_subplot()
    participants = sorted({p for values in series.values() for p in values})
    if not participants:
        return _nothing_to_draw(figure, axes, title, f"{unit} with an item", out)
    for label, values in series.items():
        axes.plot(participants, [values.get(p, float("nan")) for p in participants], marker="o", label=label)
    axes.set(title=title, xlabel=unit, ylabel=ylabel)
    axes.set_ylim(bottom=0)
    axes.tick_params(axis="x", labelrotation=90 if len(participants) > 12 else 0)
    axes.legend(fontsize="small")
    _save(figure, out)


def coverage_by_budget(curves: dict[str, tuple[list, list]], marks, title: str, xlabel: str, out) -> None:
    """Share of probes covered against a token budget, one curve per reading (Figure 4)."""
    figure = _figure()
    axes = figure.add_subplot()
    if not any(budgets for budgets, _ in curves.values()):
        return _nothing_to_draw(figure, axes, title, "memory-bearing probe with a reference set", out)
    for label, (budgets, shares) in curves.items():
        axes.plot(budgets, shares, label=label)
    for budget in marks:
        axes.axvline(budget, color="grey", linewidth=0.5, linestyle=":")
    axes.set(title=title, xlabel=xlabel, ylabel="share of memory-bearing probes",
             xscale="log", ylim=(-0.02, 1.02))
    axes.legend()
    _save(figure, out)


def bars_by_cell(panels: dict[str, dict[str, dict[str, float]]], title: str, ylabel: str, out) -> None:
    """Grouped bars, one panel per key of `panels` (a language): a group per cell (level x dependency), a bar per
    series (a method), as Table 3 reads."""
    figure = _figure()
    axes_list = figure.subplots(1, len(panels), sharey=True, squeeze=False)[0]
    for axes, (panel, series) in zip(axes_list, panels.items()):
        cells = sorted({c for values in series.values() for c in values})
        width = 0.8 / max(len(series), 1)
        for n, (label, values) in enumerate(series.items()):
            axes.bar([i + n * width for i in range(len(cells))], [values.get(c, float("nan")) for c in cells],
                     width, label=label)
        axes.set_xticks([i + width * (len(series) - 1) / 2 for i in range(len(cells))], cells, rotation=45)
        axes.set(title=panel, ylim=(0, 1.05))
    axes_list[0].set_ylabel(ylabel)
    figure.legend(*axes_list[0].get_legend_handles_labels(), loc="outside lower center", ncols=len(series),
                  fontsize="small")
    figure.suptitle(title)
    _save(figure, out)
