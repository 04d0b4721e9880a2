"""PNG charts of the benchmark tables (matplotlib, installed by
`scripts/bootstrap.sh bench`; without it the charts are skipped with a
note). docs/performance.md shows them."""

import os


def _pyplot():
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        return plt
    except ImportError:
        print("(no matplotlib: charts not written; scripts/bootstrap.sh "
              "bench installs it)")
        return None


def _slug(name):
    return "".join(c if c.isalnum() else "-" for c in name.lower()).strip("-")


def backends_chart(png_dir, title, times):
    """times: {backend label: {dtype: median seconds}}; one horizontal bar
    per backend and dtype, milliseconds, log scale. Returns the path."""
    plt = _pyplot()
    if plt is None:
        return None
    os.makedirs(png_dir, exist_ok=True)
    labels = [label for label, cells in times.items() if cells]
    dtypes = sorted({d for cells in times.values() for d in cells})
    fig, ax = plt.subplots(figsize=(8, 0.45 * len(labels) * len(dtypes) + 1.5))
    height = 0.8 / max(len(dtypes), 1)
    for k, dtype in enumerate(dtypes):
        ys = [i + k * height for i in range(len(labels))]
        ms = [times[label].get(dtype, 0) * 1e3 for label in labels]
        ax.barh(ys, ms, height=height, label=dtype)
    ax.set_yticks([i + height * (len(dtypes) - 1) / 2
                   for i in range(len(labels))])
    ax.set_yticklabels(labels)
    ax.invert_yaxis()
    ax.set_xscale("log")
    ax.set_xlabel("median time, ms (log scale; shorter is faster)")
    ax.set_title(title)
    ax.legend()
    fig.tight_layout()
    path = os.path.join(png_dir, f"bench-{_slug(title.split()[0])}.png")
    fig.savefig(path, dpi=90)
    plt.close(fig)
    return path


def dispatch_chart(png_dir, per_runtime):
    """per_runtime: {runtime: {case: microseconds per launch (3 arrays)}}."""
    plt = _pyplot()
    if plt is None:
        return None
    os.makedirs(png_dir, exist_ok=True)
    runtimes = list(per_runtime)
    cases = [c for c in next(iter(per_runtime.values()))
             if all(isinstance(per_runtime[r].get(c), float) for r in runtimes)]
    fig, ax = plt.subplots(figsize=(8, 0.5 * len(cases) * len(runtimes) + 1.5))
    height = 0.8 / len(runtimes)
    for k, runtime in enumerate(runtimes):
        ys = [i + k * height for i in range(len(cases))]
        ax.barh(ys, [per_runtime[runtime][c] for c in cases], height=height,
                label=runtime)
    ax.set_yticks([i + height * (len(runtimes) - 1) / 2
                   for i in range(len(cases))])
    ax.set_yticklabels(cases)
    ax.invert_yaxis()
    ax.set_xscale("log")
    ax.set_xlabel("microseconds per launch, 3 arrays (log scale)")
    ax.set_title("launch overhead of a tiny kernel")
    ax.legend()
    fig.tight_layout()
    path = os.path.join(png_dir, "bench-launch-overhead.png")
    fig.savefig(path, dpi=90)
    plt.close(fig)
    return path
