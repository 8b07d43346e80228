"""Elo against search budget, drawn with matplotlib (the optional extra [plot])."""

from __future__ import annotations

from solver.errors import SetupError


def plot_elo_by_budget(ratings, budgets: dict, path: str) -> None:
    """Write a PNG of each rating's Elo (with its 95% interval) against its spec's budget."""
    try:
        import matplotlib
    except ImportError:
        raise SetupError("--plot needs matplotlib: pip install 'district-noir-solver[plot]'") from None
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    points = sorted((budgets[r.name], r) for r in ratings)
    xs = [b for b, _ in points]
    ys = [r.elo for _, r in points]
    err = [[r.elo - r.low for _, r in points], [r.high - r.elo for _, r in points]]
    fig, ax = plt.subplots(figsize=(6, 4))
    ax.errorbar(xs, ys, yerr=err, marker="o", capsize=4)
    ax.set_xscale("log")
    ax.set_xlabel("search budget")
    ax.set_ylabel("Elo (Bradley-Terry, 95% interval)")
    ax.set_title("Strength against budget")
    ax.grid(True, alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
