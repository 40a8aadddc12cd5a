"""What the analysis scripts share: writing a figure whole, and reading the training jobs of
ai-fabric-run results folders."""
import json
import os
import tempfile
from pathlib import Path

# A DGX H100's estimated 270,000 USD sale price over its 8 GPUs (SemiAnalysis, "AI Server
# Cost Analysis", 2023, as used by Epoch AI's training-cost-trends): the compute a fabric
# serves.  An assumption to override with --gpu-price.
DEFAULT_GPU_PRICE = 270000 / 8


def human_bytes(size: float) -> str:
    """SIZE in bytes as nccl-tests-style text: 1K, 4M, 1G (powers of 1024)."""
    for unit, scale in (("G", 1 << 30), ("M", 1 << 20), ("K", 1 << 10)):
        if size >= scale:
            return f"{size / scale:g}{unit}"
    return f"{size:g}"


def save_whole(fig, out: Path) -> None:
    """Write FIG to OUT via a temporary file in the same folder: whole or not at all."""
    fd, tmp = tempfile.mkstemp(suffix=out.suffix, dir=out.parent.resolve())
    os.close(fd)
    try:
        fig.savefig(tmp, dpi=120)
        os.replace(tmp, out)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)


def write_whole(text: str, out: Path) -> None:
    """Write TEXT to OUT whole or not at all."""
    fd, tmp = tempfile.mkstemp(suffix=out.suffix, dir=out.parent.resolve())
    try:
        with os.fdopen(fd, "w") as f:
            f.write(text)
        os.replace(tmp, out)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)


def save_table_and_figure(text: str, table, fig, out: Path) -> None:
    """Write TEXT to TABLE (if given) and FIG to OUT, both whole or neither: the table first,
    then the figure, the table taken back if the figure cannot be written."""
    if table:
        write_whole(text, table)
    try:
        save_whole(fig, out)
    except OSError:
        if table:
            table.unlink()
        raise


def job_rows(folder: Path) -> list:
    """One dict per training job of results FOLDER: the scenario's name, the job's figures and
    the fabric's bill-of-materials total.  Raises FileNotFoundError or ValueError if FOLDER is
    not a training results folder."""
    path = folder / "summary.json"
    if not path.is_file():
        raise FileNotFoundError(f"{path}: not found (is {folder} an ai-fabric-run results folder?)")
    summary = json.loads(path.read_text())
    if "training" not in summary:
        raise ValueError(f"{path}: no training section (the scenario ran no jobs)")
    rows = []
    for job in summary["training"]["jobs"]:
        if not job["finished"]:
            raise ValueError(f"{path}: job {job['name']} did not finish its iterations")
        rows.append({
            "folder": str(folder),
            "scenario": summary["name"],
            "job": job["name"],
            "gpus": job["ranks"],
            "placement": job["placement"],
            "iteration_ms": job["mean_iteration_s"] * 1e3,
            "ideal_ms": job["ideal_compute_s"] * 1e3,
            "utilization": job["utilization"],
            "samples_per_s": job.get("samples_per_s", float("nan")),
            "fabric_usd": summary["bom_total_usd"],
            "hosts": summary["hosts"],
        })
    return rows


# The three panels of the training plots: column, axis label.
PANELS = [("iteration_ms", "iteration time (ms)"),
          ("utilization", "utilization (ideal compute / iteration)"),
          ("used_gpus_per_musd", "GPUs of compute used per M USD")]


def add_cost_per_use(t, gpu_price: float) -> None:
    """Add used_gpus_per_musd to table T: utilization x GPUs per million USD of GPUs
    (GPU_PRICE each) plus the fabric's bill of materials."""
    t["used_gpus_per_musd"] = (t["utilization"] * t["gpus"]
                               / (t["gpus"] * gpu_price + t["fabric_usd"]) * 1e6)


def finish(fig, axes, title: str, t, columns, out: Path, csv) -> None:
    """Title and lay out FIG, write it and the table's COLUMNS (to CSV if given) whole, and
    print the table."""
    axes[1].set_ylim(0, 1.05)
    fig.suptitle(title)
    fig.tight_layout()
    save_whole(fig, out)
    if csv:
        write_whole(t[columns].to_csv(index=False), csv)
    print(t[columns].to_string(index=False))
    print(f"wrote {out}")
