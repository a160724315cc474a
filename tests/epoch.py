"""Cross-check against Epoch AI's "Machine Learning Hardware" dataset (CC-BY 4.0, Epoch AI).

A second opinion, never a source: :data:`MAPPING` pairs our ids with Epoch's hardware names
by hand (no fuzzy matching), :func:`differences` lists every figure that differs from ours
by more than :data:`TOLERANCE`, and ``tests/data/epoch-differences.csv`` holds that list with
a reason for each row: a dispute recorded in our record (another source states Epoch's
figure), or an Epoch estimate or error, or a different definition. ``tests/test_epoch.py``
fails when the list regenerated from the data differs from the committed one.

Regenerate after a data change (reasons of rows that stay are kept; new rows need one)::

    PYTHONPATH=. python -m tests.epoch --write

Epoch states its compute figures without sparsity ("Listed performance figures are without
sparsity"; for the L4 "we divide performance by 2 to convert it from performance over sparse
matrices to performance over dense"), so they are compared with our dense ``value``.
Columns compared (ours ↔ Epoch's):

- memory ↔ ``Memory (bytes)``; memory_bandwidth ↔ ``Memory bandwidth (byte/s)``;
- compute.FP8 ↔ ``FP8 performance (FLOP/s)``;
- compute.BF16 and compute.FP16 ↔ ``Tensor-FP16/BF16 performance (FLOP/s)`` (tensor or matrix
  throughput, as ours is). Epoch's ``FP16 (half precision)`` column is the non-tensor (vector)
  rate on GPUs, so it is not compared;
- power ↔ ``TDP (W)``.
"""

from __future__ import annotations

import csv
import io
import sys
from dataclasses import dataclass
from pathlib import Path

from computeatlas.catalog import Catalog, load
from computeatlas.core.claims import Claim, NumberFormat

HERE = Path(__file__).resolve().parent
EPOCH = HERE.parents[1] / "shared" / "reference" / "epoch_ml_hardware.csv"
"""Epoch's CSV in ``../shared/reference/`` beside the checkout (absent: the test skips)."""
COMMITTED = HERE / "data" / "epoch-differences.csv"
TOLERANCE = 0.02

MAPPING: dict[str, str] = {
    "amd-instinct-mi250x": "AMD Radeon Instinct MI250X",
    "amd-instinct-mi300a": "AMD Instinct MI300A",
    "amd-instinct-mi300x": "AMD Instinct MI300X",
    "amd-instinct-mi325x": "AMD Instinct MI325X",
    "amd-instinct-mi350x": "AMD Instinct MI350X",
    "amd-instinct-mi355x": "AMD Instinct MI355X",
    "amd-radeon-rx-7900-xtx": "AMD Radeon RX 7900 XTX",
    "aws-inferentia-2": "AWS Inferentia2",
    "aws-trainium": "Amazon Trainium1",
    "aws-trainium-2": "Amazon Trainium2",
    "aws-trainium-3": "Amazon Trainium3",
    "biren-br100": "Biren BR100",
    "cambricon-mlu290-m5": "Cambricon MLU290-M5",
    "cambricon-mlu370-x8": "Cambricon MLU370-X8",
    "google-tpu-v2": "Google TPU v2",
    "google-tpu-v3": "Google TPU v3",
    "google-tpu-v4": "Google TPU v4",
    "google-tpu-v4i": "Google TPU v4i",
    "google-tpu-v5e": "Google TPU v5e",
    "google-tpu-v5p": "Google TPU v5p",
    "google-tpu-v6e": "Google TPU v6e Trillium",
    "google-tpu-v7": "Google TPU v7 Ironwood",
    "groq-lpu": "GroqChip LPU v1",
    "huawei-ascend-910": "Huawei Ascend 910",
    "huawei-ascend-910b2": "Huawei Ascend 910B2",
    "huawei-ascend-910c": "Huawei Ascend 910C",
    "huawei-ascend-950dt": "Huawei Ascend 950DT",
    "intel-data-center-gpu-max-1100": "Intel Data Center GPU Max 1100",
    "intel-data-center-gpu-max-1350": "Intel Data Center GPU Max 1350",
    "intel-data-center-gpu-max-1550": "Intel Data Center GPU Max 1550",
    "intel-gaudi": "Intel Habana GAUDI HL-205",
    "intel-gaudi-2": "Intel Habana Gaudi2",
    "intel-gaudi-3": "Intel Habana Gaudi3",
    "kunlunxin-k200": "Baidu Kunlun K200",
    "meta-mtia-v1": "Meta MTIA v1",
    "meta-mtia-v2": "Meta MTIA v2",
    "metax-xisi-n100": "MetaX MXN100",
    "microsoft-maia-100": "Maia 100 (M100)",
    "moore-threads-mtt-s4000": "MTT S4000",
    "nvidia-a100-pcie-40gb": "NVIDIA A100 PCIe",
    "nvidia-a100-sxm-40gb": "NVIDIA A100 SXM4 40 GB",
    "nvidia-a100-sxm-80gb": "NVIDIA A100 SXM4 80 GB",
    "nvidia-a10g": "NVIDIA A10G",
    "nvidia-a40": "NVIDIA A40 PCIe",
    "nvidia-a800-sxm-80gb": "NVIDIA A800 SXM",
    "nvidia-b100": "NVIDIA B100",
    "nvidia-b200": "NVIDIA B200",
    "nvidia-b300": "NVIDIA B300 (Blackwell Ultra)",
    "nvidia-gb200": "NVIDIA GB200",
    "nvidia-geforce-rtx-3090": "NVIDIA GeForce RTX 3090",
    "nvidia-geforce-rtx-4090": "NVIDIA GeForce RTX 4090",
    "nvidia-h100-pcie": "NVIDIA H100 PCIe",
    "nvidia-h100-sxm": "NVIDIA H100 SXM5 80GB",
    "nvidia-h20": "NVIDIA HGX H20",
    "nvidia-h200-sxm": "NVIDIA H200 SXM",
    "nvidia-h800-sxm": "NVIDIA H800 SXM5",
    "nvidia-l2": "NVIDIA L2 PCle",
    "nvidia-l20": "NVIDIA L20 PCle",
    "nvidia-l4": "NVIDIA L4",
    "nvidia-l40": "NVIDIA L40",
    "nvidia-rtx-a4000": "NVIDIA RTX A4000",
    "nvidia-rtx-a5000": "NVIDIA RTX A5000",
    "nvidia-rtx-a6000": "NVIDIA RTX A6000",
    "nvidia-t4": "NVIDIA Tesla T4",
    "nvidia-tesla-p100-sxm2": "NVIDIA Tesla P100 SXM2",
    "nvidia-tesla-p4": "NVIDIA Tesla P4",
    "nvidia-tesla-p40": "NVIDIA P40",
    "nvidia-v100-pcie-16gb": "NVIDIA Tesla V100 PCIe 16 GB",
    "tesla-dojo-d1": "Tesla D1 Dojo",
}
"""Our id → Epoch's ``Hardware name``, by hand. Parts Epoch lacks (MI100, MI210, MI250, MI455X,
Inferentia, WSE-3, Maia 200, A100 PCIe 80GB, L40S, H200 NVL, RTX 5090, RTX 4000 Ada, A16, A2,
Zhenwu 810E, Radeon PRO V620/V710, Flex 140/170, MTT S3000/S5000, Ascend 950PR) are not listed,
nor is the Iluvatar CoreX Big Island: Epoch's "Tiangai 100 (BI-V100)" row may be the same part, but
no source we read says so. The Cambricon MLU270 chip is not paired with Epoch's MLU270-S4 and F4
cards, nor the A800 80GB PCIe with Epoch's row of that name (its 250 W against the 300 W we read
for the A800 PCIe card is unresolved; no NVIDIA datasheet was readable)."""

COLUMNS: dict[str, str] = {
    "memory": "Memory (bytes)",
    "memory_bandwidth": "Memory bandwidth (byte/s)",
    "compute.FP8": "FP8 performance (FLOP/s)",
    "compute.BF16": "Tensor-FP16/BF16 performance (FLOP/s)",
    "compute.FP16": "Tensor-FP16/BF16 performance (FLOP/s)",
    "power": "TDP (W)",
}
"""Our field → Epoch's column."""

EXPLANATIONS = ("dispute", "epoch estimate", "epoch error", "definition")
"""Why a row differs: ``dispute`` (our record keeps another source's claim at Epoch's
figure), ``epoch estimate`` (Epoch's own estimate, per its notes), ``epoch error`` (Epoch's
figure is not what the maker states), ``definition`` (Epoch counts another thing)."""

HEADER = ["accelerator", "epoch_name", "field", "ours", "epoch", "difference", "explanation", "reason"]


@dataclass(frozen=True)
class Difference:
    """One figure where Epoch differs from our primary claim by more than :data:`TOLERANCE`."""

    accelerator: str
    epoch_name: str
    field: str
    ours: str  # as our record states it
    epoch: str  # Epoch's number, as in its file
    difference: str  # (Epoch − ours) ÷ ours, as a signed percentage

    @property
    def key(self) -> tuple[str, str]:
        """``(accelerator, field)``."""
        return self.accelerator, self.field


def claim_at(catalog: Catalog, ident: str, field: str) -> Claim | None:
    """Our claim for ``field`` (``"compute.FP8"``) of accelerator ``ident``."""
    acc = catalog.accelerator(ident)
    if field.startswith("compute."):
        return acc.compute(NumberFormat(field.split(".", 1)[1]))
    return getattr(acc.specs, field)


def epoch_rows(path: Path = EPOCH) -> dict[str, dict[str, str]]:
    """Epoch's rows by hardware name."""
    with path.open(encoding="utf-8", newline="") as handle:
        return {row["Hardware name"]: row for row in csv.DictReader(handle)}


def differences(catalog: Catalog, rows: dict[str, dict[str, str]]) -> list[Difference]:
    """Every compared figure that differs by more than :data:`TOLERANCE`, in mapping and field order."""
    out = []
    for ident, name in MAPPING.items():
        row = rows[name]
        for field, column in COLUMNS.items():
            claim = claim_at(catalog, ident, field)
            text = (row.get(column) or "").strip()
            if claim is None or not claim.comparable or claim.figure is None or not text:
                continue
            ours, theirs = claim.figure.amount, float(text)
            if abs(theirs - ours) > TOLERANCE * ours:
                out.append(Difference(ident, name, field, claim.value or "", text, f"{(theirs - ours) / ours * 100:+.1f}%"))
    return out


def read_committed(path: Path = COMMITTED) -> list[dict[str, str]]:
    """The committed list, one dict per row."""
    with path.open(encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle))


def render(found: list[Difference], reasons: dict[tuple[str, str], tuple[str, str]]) -> str:
    """The CSV text of ``found``, each row with its (explanation, reason) from ``reasons`` (empty when new)."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(HEADER)
    for d in found:
        explanation, reason = reasons.get(d.key, ("", ""))
        writer.writerow([d.accelerator, d.epoch_name, d.field, d.ours, d.epoch, d.difference, explanation, reason])
    return buffer.getvalue()


def main(argv: list[str]) -> int:
    """``--write``: rewrite the committed list from the data, keeping known reasons."""
    found = differences(load(), epoch_rows())
    reasons = {(r["accelerator"], r["field"]): (r["explanation"], r["reason"]) for r in read_committed()} if COMMITTED.exists() else {}
    text = render(found, reasons)
    if "--write" in argv:
        COMMITTED.write_text(text, encoding="utf-8")
    sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
