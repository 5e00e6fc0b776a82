"""Training Web2Text's two networks offline (PyTorch) and exporting them to one ONNX file.

Needs the ``train`` extra (``pip install -e .[train]``: ``torch==2.13.0``, CPU build, and
``onnx``). Nothing here is imported at run time: inference is :mod:`.model`.

The recipe is the paper's (sections 3.3, 3.4 and 4.2):

- unary CNN: five 1-D convolutions over the block sequence, filters (50, 50, 50, 10, 2),
  kernels (1, 1, 3, 3, 3), stride 1, zero padding keeping the length, ReLU between layers,
  dropout 0.2, softmax output; pairwise CNN: the same over the edge sequence with filters
  (50, 50, 50, 10, 4);
- losses: cross-entropy of equation (1) (unary) and (2) (pairwise, the 4 classes of
  (l_i, l_{i+1})); L2 weight decay 1e-4 (Adam's ``weight_decay``: the gradient of
  1e-4 / 2 * ||w||^2, as TensorFlow's l2 regulariser of the authors' code);
- Adam, learning rate 1e-3, mini-batches of 128 excerpts of 9 consecutive blocks drawn at
  random from the training pages (a page drawn uniformly, then a start in it), 5,000
  iterations, the two networks trained separately;
  early stopping as the paper does it: the validation error (the share of misclassified
  validation blocks, or block pairs; cross-entropy breaks ties) is measured every
  ``eval_every`` iterations and the weights with the lowest one are kept ("we then pick the
  model corresponding to the lowest error on the validation set"); ``patience`` stops a run
  early after that many iterations without improvement (default: run all 5,000);
- several seeds (``train(seed=[0, 1, 2])``): each network keeps the seed whose best
  validation error is lowest;
- or, with ``ensemble``, every seed's networks kept and their softmax outputs averaged
  (the shipped ``cleaneval`` model, ten seeds: its 59 validation pages cannot rank its
  seeds, ``MODEL_CARD.md``; the default ``web2text`` model keeps one seed per network);
- features standardised with the mean and standard deviation of the training blocks
  (non-binary columns only), folded into the exported graph.

``recipe`` (:data:`RECIPES`) picks how dropout, initialisation and weight decay are done;
the default, ``"default"``, is the one above. The authors' TensorFlow code
(github.com/dalab/web2text, ``src/main/python/forward.py`` and ``main.py``) does these
three differently, and each can be switched to theirs (:class:`Recipe`):

- ``weight_dropout``: dropout on the convolution *weights* (DropConnect: ``tf.nn.dropout``
  on the kernel inside their ``conv()``, every layer including the logits one, one mask
  per step, kept weights scaled by 1 / (1 - rate), training only) at rate 0.2, instead of
  dropout on the activations between layers; the exported graph is plain ``Conv``;
- ``trunc_normal_init``: kernels drawn from a normal of deviation 0.1 truncated at two
  deviations (``tf.truncated_normal_initializer(stddev=0.1)``), biases zero, instead of
  PyTorch's default ``Conv1d`` initialisation;
- ``decay_weights_only``: the L2 weight decay 1e-4 on the kernels only (their
  ``l2_regularizer`` is not put on biases), instead of on every parameter.

Recipes: ``"authors"`` (all three), ``"authors-dropout"``, ``"authors-init"`` and
``"authors-decay"`` (one each). On the 59 CleanEval validation pages (the ``cleaneval``
model, seeds 0, 1, 2, the lowest validation error kept per network; block F1 of the kept
model from ``python benchmarks/web2text_valid.py``, Viterbi lambda 0.1 and unary argmax;
the best validation error of every seed from the training report), measured with
``python benchmarks/train_web2text.py --model cleaneval --recipe NAME --out ...``:

===============  ==========  ========  ========================  ===========================
recipe           F1 Viterbi  F1 unary  unary error, seeds 0/1/2  pairwise error, seeds 0/1/2
===============  ==========  ========  ========================  ===========================
default          0.9073      0.9082    0.0910 / 0.0926 / 0.0946  0.1453 / 0.1416 / 0.1444
authors          0.9030      0.9021    0.1155 / 0.0936 / 0.1042  0.1429 / 0.1405 / 0.1432
authors-dropout  0.9066      0.9023    0.0983 / 0.1046 / 0.1046  0.1444 / 0.1440 / 0.1402
authors-init     0.9081      0.9040    0.0979 / 0.0918 / 0.0927  0.1433 / 0.1378 / 0.1391
authors-decay    0.9019      0.9004    0.0966 / 0.0960 / 0.0975  0.1452 / 0.1428 / 0.1434
===============  ==========  ========  ========================  ===========================

None beats ours on validation, so the default stays: weight dropout raises the unary error
on every seed (means 0.104 and 0.103 against 0.093), decay on kernels only lowers F1 to
0.902 (unary error mean 0.097), and the authors' initialisation alone is level (Viterbi F1
+0.0008 but unary F1 -0.004; unary error mean 0.094, pairwise 0.140 against 0.144: within
what seeds move). (These comparisons hold picked models' scores on the pages that picked
them, and the validation pages cannot rank seeds well: ``MODEL_CARD.md``, *Ten seeds
averaged*.) The default recipe retrained with this code gives the shipped ``cleaneval``
report's errors exactly. (The authors' ``main.py`` keeps 0.75 of the unary
weights and 0.8 of the pairwise ones; the paper's rate 0.2 is used for both here.)
"""

from __future__ import annotations

import json
import logging
import os
import time
import warnings
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from scrapy_boilerplate.extractors.web2text.model import FEATURE_VERSION

logger = logging.getLogger(__name__)

UNARY_FILTERS = (50, 50, 50, 10, 2)
PAIRWISE_FILTERS = (50, 50, 50, 10, 4)
KERNELS = (1, 1, 3, 3, 3)
DROPOUT = 0.2
WEIGHT_DECAY = 1e-4
LEARNING_RATE = 1e-3
BATCH = 128
EXCERPT = 9
ITERATIONS = 5000
#: The authors' initialisation: a normal of this deviation truncated at two deviations.
INIT_STDDEV = 0.1


@dataclass(frozen=True)
class Recipe:
    """Which of the authors' training choices to use (module docstring); all off: ours."""

    weight_dropout: bool = False
    trunc_normal_init: bool = False
    decay_weights_only: bool = False


#: The named recipes ``train(recipe=...)`` and ``train_web2text.py --recipe`` accept.
RECIPES: dict[str, Recipe] = {
    "default": Recipe(),
    "authors": Recipe(weight_dropout=True, trunc_normal_init=True, decay_weights_only=True),
    "authors-dropout": Recipe(weight_dropout=True),
    "authors-init": Recipe(trunc_normal_init=True),
    "authors-decay": Recipe(decay_weights_only=True),
}
DEFAULT_RECIPE = "default"


@dataclass
class PageData:
    """One training page: raw features and block labels (1 = content)."""

    name: str
    blocks: np.ndarray  # (n, 128) float32
    edges: np.ndarray  # (n - 1, 25) float32
    labels: np.ndarray  # (n,) int64


@dataclass
class TrainResult:
    """What :func:`train` made and measured."""

    path: Path
    metadata: dict[str, Any] = field(default_factory=dict)


#: The suffix of a model file; its training report is the same name with ``.json``.
MODEL_SUFFIX = ".onnx"
#: The key of a training report that names the model file it was written with.
REPORT_MODEL_KEY = "model_file"
_REPORT_READ_LIMIT = 64 * 1024 * 1024


def report_path(out: Path | str) -> Path:
    """The training report written beside the model ``out``: ``my.onnx`` -> ``my.json``."""
    return Path(out).with_suffix(".json")


def check_outputs(out: Path | str, force: bool = False) -> tuple[Path, Path]:
    """The model file and the training report a run writing ``out`` makes, checked before
    training so that no run ends by failing to write or by overwriting another file.

    ``out`` must end in ``.onnx`` (the report's name is derived from it, and a model named
    ``.json`` would be its own report) and go into an existing, writable folder; ``out``
    itself, named by the caller, may be replaced. The report (``out`` with ``.json``) is
    replaced only if a previous training run wrote it for this same model name, or with
    ``force``: any other file of that name is somebody else's.

    :raises ValueError: ``out`` does not end in ``.onnx``.
    :raises OSError: the folder is missing or not writable, ``out`` is a folder or not
        writable, or the report's name is taken (``FileExistsError``).
    """
    out = Path(out)
    if out.suffix.lower() != MODEL_SUFFIX:
        raise ValueError(f"the model file must end in {MODEL_SUFFIX}, got {out}")
    report = report_path(out)
    folder = out.parent
    if not folder.is_dir():
        raise FileNotFoundError(f"no such folder: {folder}")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise PermissionError(f"folder not writable: {folder}")
    for path in (out, report):
        if path.is_dir():
            raise IsADirectoryError(f"is a folder: {path}")
        if path.exists() and not os.access(path, os.W_OK):
            raise PermissionError(f"not writable: {path}")
    if report.exists() and not force and not _own_report(report, out):
        raise FileExistsError(
            f"{report} exists and was not written by training {out.name}: the training "
            "report goes there (give another --out, move the file, or --force to replace it)"
        )
    return out, report


def _own_report(report: Path, out: Path) -> bool:
    """Whether ``report`` is a training report written for a model named ``out.name``."""
    try:
        if not report.is_file() or report.stat().st_size > _REPORT_READ_LIMIT:
            return False
        data = json.loads(report.read_bytes())
    except (OSError, ValueError, RecursionError):
        return False
    return isinstance(data, dict) and data.get(REPORT_MODEL_KEY) == out.name


def _torch() -> Any:
    try:
        import torch
    except ImportError as exc:
        raise SystemExit(
            "training needs PyTorch: pip install -e '.[train]' (torch==2.13.0, the CPU build)"
        ) from exc
    return torch


def _recipe(recipe: str | Recipe) -> Recipe:
    if isinstance(recipe, Recipe):
        return recipe
    try:
        return RECIPES[recipe]
    except KeyError:
        raise ValueError(
            f"unknown training recipe {recipe!r}; one of {', '.join(RECIPES)}"
        ) from None


def build_cnn(
    in_features: int, filters: Sequence[int], recipe: str | Recipe = DEFAULT_RECIPE
) -> Any:
    """One of the paper's CNNs: Conv1d layers with ReLU between them (logits out).

    Dropout (rate :data:`DROPOUT`) is on the activations between layers, or with
    ``recipe.weight_dropout`` on every layer's kernel (DropConnect, training only);
    ``recipe.trunc_normal_init`` draws the kernels as the authors' code does (biases zero).
    """
    torch = _torch()
    nn: Any = torch.nn  # (declared Any: mypy then takes a base class from it)
    recipe = _recipe(recipe)

    class WeightDropoutConv1d(nn.Conv1d):
        """Conv1d whose kernel gets dropout in training (the authors' ``conv()``)."""

        def forward(self, x: Any) -> Any:
            if not self.training:
                return super().forward(x)
            weight = nn.functional.dropout(self.weight, DROPOUT, training=True)
            return self._conv_forward(x, weight, self.bias)

    conv = WeightDropoutConv1d if recipe.weight_dropout else nn.Conv1d
    layers: list[Any] = []
    channels = in_features
    for i, (out, k) in enumerate(zip(filters, KERNELS, strict=True)):
        layer = conv(channels, out, k, stride=1, padding=k // 2)
        if recipe.trunc_normal_init:
            bound = 2 * INIT_STDDEV
            nn.init.trunc_normal_(layer.weight, std=INIT_STDDEV, a=-bound, b=bound)
            nn.init.zeros_(layer.bias)
        layers.append(layer)
        if i < len(filters) - 1:
            layers.append(nn.ReLU())
            if not recipe.weight_dropout:
                layers.append(nn.Dropout(DROPOUT))
        channels = out
    return nn.Sequential(*layers)


def standardisation(
    pages: Sequence[PageData], binary_blocks: np.ndarray, binary_edges: np.ndarray
) -> dict[str, list[float]]:
    """Mean and standard deviation of every column over the training rows (binary: 0 and 1)."""
    stats: dict[str, list[float]] = {}
    for key, mask, attr in (
        ("blocks", binary_blocks, "blocks"),
        ("edges", binary_edges, "edges"),
    ):
        rows = [getattr(p, attr) for p in pages if len(getattr(p, attr))]
        data = np.concatenate(rows).astype(np.float64)
        mean = data.mean(axis=0)
        std = data.std(axis=0)
        std[std < 1e-6] = 1.0
        mean[mask] = 0.0
        std[mask] = 1.0
        stats[f"{key}_mean"] = mean.tolist()
        stats[f"{key}_std"] = std.tolist()
    return stats


def _excerpts(
    pages: Sequence[PageData],
    rng: np.random.Generator,
    count: int,
    edges: bool,
    pad: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """``count`` random excerpts of :data:`EXCERPT` blocks (or their edges) and labels.

    Each excerpt comes from a page drawn uniformly, then a start drawn uniformly in it (the
    paper does not say how excerpts are drawn): every page weighs the same, as it does in
    the per-page scores, instead of a 4,000-block listing weighing a hundred articles
    (drawing pages by their block count gave a higher validation error, 0.176 against
    0.168, and lower text F1 on wcxb-dev and google-trends). Pages shorter than an
    excerpt are padded with ``pad`` (the training mean: zero once standardised, as the
    convolutions' own zero padding at a page's edges at inference); padded positions get
    label -100 (ignored by the loss).
    """
    width = EXCERPT - 1 if edges else EXCERPT
    dim = pages[0].edges.shape[1] if edges else pages[0].blocks.shape[1]
    x = np.empty((count, dim, width), np.float32)
    x[:] = np.asarray(pad, np.float32)[None, :, None]
    y = np.full((count, width), -100, np.int64)
    chosen = rng.choice(len(pages), size=count)
    for row, index in enumerate(chosen):
        page = pages[index]
        n = len(page.labels)
        start = int(rng.integers(0, max(1, n - EXCERPT + 1)))
        stop = min(n, start + EXCERPT)
        if edges:
            feats = page.edges[start : stop - 1]
            labels = 2 * page.labels[start : stop - 1] + page.labels[start + 1 : stop]
        else:
            feats = page.blocks[start:stop]
            labels = page.labels[start:stop]
        x[row, :, : len(feats)] = feats.T
        y[row, : len(labels)] = labels
    return x, y


def _full_page_tensors(pages: Sequence[PageData], edges: bool) -> list[tuple[Any, Any]]:
    torch = _torch()
    out = []
    for page in pages:
        if edges:
            if len(page.edges) == 0:
                continue
            x = page.edges
            y = 2 * page.labels[:-1] + page.labels[1:]
        else:
            x, y = page.blocks, page.labels
        out.append((torch.from_numpy(x.T[None].copy()), torch.from_numpy(y.astype(np.int64))))
    return out


def _train_one(
    name: str,
    net: Any,
    train: Sequence[PageData],
    valid: Sequence[PageData],
    mean: np.ndarray,
    std: np.ndarray,
    edges: bool,
    iterations: int,
    eval_every: int,
    patience: int | None,
    seed: int,
    recipe: Recipe = RECIPES[DEFAULT_RECIPE],
) -> dict[str, Any]:
    torch = _torch()
    rng = np.random.default_rng(seed)
    torch.manual_seed(seed)
    if recipe.decay_weights_only:
        # The authors' l2_regularizer on kernels only: wd / 2 * ||w||^2 in the loss has the
        # gradient wd * w, which is what Adam's weight_decay adds.
        params = [
            {"params": [p for n, p in net.named_parameters() if n.endswith("weight")]},
            {
                "params": [p for n, p in net.named_parameters() if not n.endswith("weight")],
                "weight_decay": 0.0,
            },
        ]
    else:
        params = [{"params": list(net.parameters())}]
    optimiser = torch.optim.Adam(params, lr=LEARNING_RATE, weight_decay=WEIGHT_DECAY)
    loss_fn = torch.nn.CrossEntropyLoss(ignore_index=-100)
    mean_t = torch.from_numpy(mean.astype(np.float32))[None, :, None]
    std_t = torch.from_numpy(std.astype(np.float32))[None, :, None]
    valid_t = _full_page_tensors(valid, edges)

    def validate() -> tuple[float, float]:
        """The validation error (share of misclassified blocks, or block pairs) and the
        mean cross-entropy (the tie-breaker)."""
        net.eval()
        wrong = total = 0
        loss_sum = 0.0
        with torch.no_grad():
            for x, y in valid_t:
                logits = net((x - mean_t) / std_t)[0].T
                wrong += int((logits.argmax(1) != y).sum().item())
                total += len(y)
                ce = torch.nn.functional.cross_entropy(logits, y, reduction="sum")
                loss_sum += float(ce.item())
        net.train()
        return (wrong / total, loss_sum / total) if total else (0.0, 0.0)

    best: tuple[tuple[float, float], int, Any] = ((float("inf"), float("inf")), 0, None)
    history = []
    started = time.perf_counter()
    for step in range(1, iterations + 1):
        x, y = _excerpts(train, rng, BATCH, edges, mean)
        xt = (torch.from_numpy(x) - mean_t) / std_t
        logits = net(xt)  # (batch, classes, width)
        loss = loss_fn(logits, torch.from_numpy(y))
        optimiser.zero_grad()
        loss.backward()
        optimiser.step()
        if step % eval_every == 0 or step == iterations:
            error, v = validate()
            history.append((step, round(float(loss.item()), 5), round(error, 5), round(v, 5)))
            if (error, v) < best[0]:
                state = {k: t.detach().clone() for k, t in net.state_dict().items()}
                best = ((error, v), step, state)
            logger.info(
                "%s step %d: train loss %.4f, valid error %.4f loss %.4f",
                name,
                step,
                loss.item(),
                error,
                v,
            )
            if patience and step - best[1] >= patience:
                break
    if best[2] is not None:
        net.load_state_dict(best[2])
    net.eval()
    return {
        "best_step": best[1],
        "best_valid_error": round(best[0][0], 5),
        "best_valid_loss": round(best[0][1], 5),
        "steps_run": history[-1][0] if history else 0,
        "seconds": round(time.perf_counter() - started, 1),
        "parameters": int(sum(p.numel() for p in net.parameters())),
        "history": history,
    }


def export_onnx(
    unary: Any,
    pairwise: Any,
    stats: dict[str, list[float]],
    path: Path,
    metadata: dict[str, Any],
) -> None:
    """Write both networks, standardisation and softmax included, to one ONNX file.

    ``unary`` and ``pairwise`` may each be a list of networks (an ensemble, see
    :func:`train`): the file then gives the mean of their softmax outputs.
    """
    torch: Any = _torch()  # (declared Any: mypy then takes a base class from it)
    unaries = list(unary) if isinstance(unary, (list, tuple)) else [unary]
    pairwises = list(pairwise) if isinstance(pairwise, (list, tuple)) else [pairwise]

    class Both(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.unary = torch.nn.ModuleList(unaries)
            self.pairwise = torch.nn.ModuleList(pairwises)
            for key in ("blocks_mean", "blocks_std", "edges_mean", "edges_std"):
                value = torch.tensor(stats[key], dtype=torch.float32)[None, :, None]
                self.register_buffer(key, value)

        def forward(self, blocks: Any, edges: Any) -> tuple[Any, Any]:
            b = (blocks - self.blocks_mean) / self.blocks_std
            e = (edges - self.edges_mean) / self.edges_std
            return _mean_softmax(self.unary, b), _mean_softmax(self.pairwise, e)

    def _mean_softmax(nets: Any, x: Any) -> Any:
        """The networks' softmax outputs on ``x``, averaged (one network: its own, with no
        extra operations in the graph)."""
        if len(nets) == 1:
            return torch.softmax(nets[0](x), dim=1)
        return torch.stack([torch.softmax(net(x), dim=1) for net in nets]).mean(0)

    model = Both().eval()
    n_block = len(stats["blocks_mean"])
    n_edge = len(stats["edges_mean"])
    path.parent.mkdir(parents=True, exist_ok=True)
    # The TorchScript exporter (dynamo=False) needs no onnxscript; its deprecation
    # warning says nothing about this model.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        torch.onnx.export(
            model,
            (torch.zeros(1, n_block, 12), torch.zeros(1, n_edge, 11)),
            str(path),
            input_names=["blocks", "edges"],
            output_names=["unary", "pairwise"],
            dynamic_axes={
                "blocks": {2: "n"},
                "edges": {2: "m"},
                "unary": {2: "n"},
                "pairwise": {2: "m"},
            },
            opset_version=17,
            dynamo=False,
        )
    import onnx

    proto = onnx.load(str(path))
    for key, value in metadata.items():
        entry = proto.metadata_props.add()
        entry.key = key
        entry.value = value if isinstance(value, str) else json.dumps(value)
    onnx.save(proto, str(path))


def train(
    train_pages: Sequence[PageData],
    valid_pages: Sequence[PageData],
    out: Path,
    *,
    iterations: int = ITERATIONS,
    eval_every: int = 50,
    patience: int | None = None,
    seed: int | Sequence[int] = 0,
    recipe: str | Recipe = DEFAULT_RECIPE,
    ensemble: bool = False,
    metadata: dict[str, Any] | None = None,
    per_seed_dir: Path | None = None,
) -> TrainResult:
    """Train both networks on ``train_pages`` (early stopping on ``valid_pages``), export.

    ``seed`` may list several seeds: each network is then trained once per seed and the
    run with the lowest validation error is kept (model selection on the validation pages
    only; the report lists every run's error); with ``ensemble``, every seed's network is
    kept and the model gives the mean of their probabilities. ``recipe``: a name of
    :data:`RECIPES` or a :class:`Recipe` (module docstring). ``per_seed_dir``: also write
    every seed's own model there (``seed<s>.onnx``: that seed's unary and pairwise
    networks), to measure how much the seed alone moves a score; the chosen model is
    written to ``out`` as always.
    """
    from scrapy_boilerplate.extractors.web2text.features import (
        BLOCK_BINARY,
        EDGE_BINARY,
        N_BLOCK,
        N_EDGE,
    )

    out = Path(out)
    if out.suffix.lower() != MODEL_SUFFIX:  # (its report, out with .json, would replace it)
        raise ValueError(f"the model file must end in {MODEL_SUFFIX}, got {out}")
    torch = _torch()
    torch.set_num_threads(max(1, torch.get_num_threads()))
    chosen_recipe = _recipe(recipe)
    seeds = [seed] if isinstance(seed, int) else list(seed)
    if not seeds:
        raise ValueError("training needs at least one seed")
    train_pages = [p for p in train_pages if len(p.labels)]
    valid_pages = [p for p in valid_pages if len(p.labels)]
    if not train_pages or not valid_pages:
        raise ValueError(
            "training needs pages with blocks in both the training and validation sets"
        )
    stats = standardisation(train_pages, BLOCK_BINARY, EDGE_BINARY)
    report: dict[str, Any] = {}
    chosen: dict[str, Any] = {}
    nets: dict[str, list[Any]] = {}
    for name, dim, filters, edges, key in (
        ("unary", N_BLOCK, UNARY_FILTERS, False, "blocks"),
        ("pairwise", N_EDGE, PAIRWISE_FILTERS, True, "edges"),
    ):
        runs = []
        for s in seeds:
            torch.manual_seed(s)
            net = build_cnn(dim, filters, chosen_recipe)
            run = _train_one(
                name,
                net,
                train_pages,
                valid_pages,
                np.asarray(stats[f"{key}_mean"]),
                np.asarray(stats[f"{key}_std"]),
                edges,
                iterations,
                eval_every,
                patience,
                s,
                chosen_recipe,
            )
            runs.append(((run["best_valid_error"], run["best_valid_loss"]), s, net, run))
        nets[name] = [r[2] for r in runs]
        _score, best_seed, chosen[name], run = min(runs, key=lambda r: (r[0], r[1]))
        report[name] = {
            **run,
            "seed": best_seed,
            "valid_error_by_seed": {str(r[1]): r[0][0] for r in runs},
        }
        if ensemble:
            chosen[name] = nets[name]
            report[name]["ensemble_seeds"] = [r[1] for r in runs]
    unary, pairwise = chosen["unary"], chosen["pairwise"]
    if per_seed_dir is not None:
        for k, s in enumerate(seeds):
            export_onnx(
                nets["unary"][k],
                nets["pairwise"][k],
                stats,
                Path(per_seed_dir) / f"seed{s}.onnx",
                {"feature_version": FEATURE_VERSION, "seed": s, **(metadata or {})},
            )
    meta = {
        "feature_version": FEATURE_VERSION,
        "train_pages": len(train_pages),
        "valid_pages": len(valid_pages),
        "train_blocks": int(sum(len(p.labels) for p in train_pages)),
        "content_share": round(float(np.mean(np.concatenate([p.labels for p in train_pages]))), 4),
        "recipe": recipe if isinstance(recipe, str) else asdict(recipe),
        "ensemble": len(seeds) if ensemble else 1,
        "training": {
            k: {kk: vv for kk, vv in v.items() if kk != "history"} for k, v in report.items()
        },
        **(metadata or {}),
    }
    export_onnx(unary, pairwise, stats, out, meta)
    report_path(out).write_text(
        json.dumps(
            {
                **meta,
                "history": {k: v["history"] for k, v in report.items()},
                REPORT_MODEL_KEY: out.name,  # (check_outputs: a report this run may replace)
            },
            indent=1,
        )
    )
    return TrainResult(out, meta)
