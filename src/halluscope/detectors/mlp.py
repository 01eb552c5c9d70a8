"""MLP detectors (NAME-Bench Table 8): DHCP and HALP, in torch, seeded and deterministic on CPU.

>>> import numpy as np
>>> rng = np.random.default_rng(0)
>>> y = np.repeat([0, 1], 64)
>>> x = rng.normal(size=(128, 2, 2, 36)).astype(np.float32); x[:, 0, 0, 0] += 3 * y
>>> d = DHCP(epochs=5, hidden=(16, 8)).fit({"dhcp_attention": x}, y)
>>> s = d.score({"dhcp_attention": x})
>>> bool(s[y == 1].mean() > s[y == 0].mean())
True

Both use Adam (learning rate 1e-3; torch's fused implementation) and binary cross-entropy on
one logit; the score is that logit (float64), not its sigmoid: the sigmoid is monotone, so the
ranking and the calibrated flags are the same, but in float32 it rounds every logit above about
17 to exactly 1.0, and confident hallucinations would then tie at the threshold.
- DHCP: input = attention to the 6x6-pooled image grid of every layer and head, flattened
  (L*H*36); standardised with fit-set mean and standard deviation; MLP 512-128 with ReLU;
  100 epochs of batches of 1024 drawn by class-balanced sampling (each epoch draws n mentions
  with replacement, each class with probability 1/2).
- HALP: input = the hidden state of the last prompt token, last layer (one per caption; each
  mention row carries its caption's vector); MLP 512-256-128, each hidden layer Linear, batch
  norm, ReLU, dropout 0.3; 50 epochs of shuffled batches of 32 (a final batch of one mention is
  dropped, since batch norm cannot train on it). Not standardised (the paper standardises DHCP
  only); plain shuffling, since Table 8 gives no class balancing for HALP.
Precision: `precision="fp32"` (default) trains and scores in float32. `precision="bf16"` is
mixed precision: the standardised inputs are stored in bfloat16 and every Linear runs under
`torch.autocast` in bfloat16 (weights, Adam state and the loss stay float32; when scoring, the
output layer runs in float32 so that logits do not tie on bfloat16's 8-bit mantissa). On CPUs with AMX
(Sapphire Rapids and later) this is about 2.5x faster for DHCP's 36,864-wide first layer and halves
its input memory; on GPUs it is the usual mixed-precision training. Scores differ from float32 by
bfloat16 rounding (about 3 significant digits), so results are comparable only within one precision.
Determinism: the initial weights, the sampling and the dropout masks come from a generator
seeded with `seed`; torch's CPU kernels are deterministic for a fixed thread count, so reruns
with the same seed give identical scores. torch is imported on first use.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from halluscope.detectors.base import FeatureTable, binary_labels, flat_matrix
from halluscope.errors import ConfigError


def _torch() -> Any:
    try:
        import torch
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ConfigError("DHCP and HALP need torch") from exc
    return torch


def _adam(torch: Any, parameters: Any, lr: float) -> Any:
    """Adam, fused where torch supports it: the same update, about twice as fast on CPU
    (the per-parameter loop of the default implementation dominates small-batch steps)."""
    parameters = list(parameters)
    try:
        return torch.optim.Adam(parameters, lr=lr, fused=True)
    except (RuntimeError, TypeError):  # pragma: no cover - older torch or unsupported device
        return torch.optim.Adam(parameters, lr=lr)


PRECISIONS: tuple[str, ...] = ("fp32", "bf16")


def _autocast(torch: Any, device: str, precision: str) -> Any:
    """bfloat16 autocast for `precision="bf16"`, a no-op context otherwise."""
    kind = torch.device(device).type
    return torch.autocast(kind, dtype=torch.bfloat16, enabled=precision == "bf16")


class _MLPDetector:
    trained = True
    standardize = False
    balanced = False
    batch_norm = False
    dropout = 0.0

    def __init__(self, name: str, columns: Sequence[str], hidden: Sequence[int], epochs: int,
                 batch_size: int, lr: float = 1e-3, seed: int = 0, device: str = "cpu",
                 precision: str = "fp32"):
        if precision not in PRECISIONS:
            raise ConfigError(f"detector {name!r}: precision must be one of "
                              f"{', '.join(PRECISIONS)}, not {precision!r}")
        self.precision = precision
        self.name = name
        self.columns = tuple(columns)
        self.hidden = tuple(hidden)
        self.epochs = epochs
        self.batch_size = batch_size
        self.lr = lr
        self.seed = seed
        self.device = device
        self._net: Any = None
        self._mean: np.ndarray | None = None
        self._std: np.ndarray | None = None

    def _network(self, n_in: int) -> Any:
        torch = _torch()
        layers: list[Any] = []
        width = n_in
        for size in self.hidden:
            layers.append(torch.nn.Linear(width, size))
            if self.batch_norm:
                layers.append(torch.nn.BatchNorm1d(size))
            layers.append(torch.nn.ReLU())
            if self.dropout:
                layers.append(torch.nn.Dropout(self.dropout))
            width = size
        layers.append(torch.nn.Linear(width, 1))
        return torch.nn.Sequential(*layers)

    def _prepare(self, features: FeatureTable) -> np.ndarray:
        x = flat_matrix(features, self.columns, self.name)
        if self._mean is not None:
            x = x - self._mean
            x /= self._std
        return x

    def _batches(self, y: np.ndarray, generator: Any) -> list[Any]:
        """Index batches for one epoch."""
        torch = _torch()
        n = len(y)
        if self.balanced:
            counts = np.bincount(y, minlength=2)
            weights = torch.as_tensor((1.0 / counts)[y], dtype=torch.float64)
            order = torch.multinomial(weights, n, replacement=True, generator=generator)
        else:
            order = torch.randperm(n, generator=generator)
        batches = list(torch.split(order, self.batch_size))
        if self.batch_norm and len(batches) > 1 and len(batches[-1]) == 1:
            batches.pop()
        return batches

    def fit(self, features: FeatureTable, labels: np.ndarray) -> "_MLPDetector":
        torch = _torch()
        x = flat_matrix(features, self.columns, self.name)
        y = binary_labels(labels, len(x), self.name)
        if self.standardize:
            self._mean = x.mean(axis=0, dtype=np.float64).astype(np.float32)
            std = x.std(axis=0, dtype=np.float64).astype(np.float32)
            self._std = np.where(std > 0, std, 1.0).astype(np.float32)  # constant inputs stay 0
            x = x - self._mean  # a new array: the caller's features are never modified
            x /= self._std
        else:
            self._mean = self._std = None
        generator = torch.Generator().manual_seed(self.seed)
        with torch.random.fork_rng(devices=[]):
            # Weight initialisation and dropout use the global generator: seed it locally.
            torch.manual_seed(self.seed)
            net = self._network(x.shape[1]).to(self.device)
            optimizer = _adam(torch, net.parameters(), self.lr)
            loss_fn = torch.nn.BCEWithLogitsLoss()
            xt = torch.from_numpy(np.ascontiguousarray(x))
            if self.precision == "bf16":  # cast once, not per batch; half the memory
                xt = xt.to(torch.bfloat16)
            xt = xt.to(self.device)
            yt = torch.from_numpy(y.astype(np.float32)).to(self.device)
            net.train()
            for _ in range(self.epochs):
                for batch in self._batches(y, generator):
                    batch = batch.to(self.device)
                    optimizer.zero_grad(set_to_none=True)
                    with _autocast(torch, self.device, self.precision):
                        logits = net(xt[batch]).squeeze(1)
                    loss = loss_fn(logits.float(), yt[batch])
                    loss.backward()
                    optimizer.step()
        net.eval()
        self._net = net
        return self

    def score(self, features: FeatureTable, batch_size: int = 8192) -> np.ndarray:
        torch = _torch()
        if self._net is None:
            raise ConfigError(f"detector {self.name!r} is not fitted; call fit first")
        x = self._prepare(features)
        out = []
        body, head = self._net[:-1], self._net[-1]
        with torch.no_grad():
            for start in range(0, len(x), batch_size):
                chunk = torch.from_numpy(np.ascontiguousarray(x[start:start + batch_size]))
                with _autocast(torch, self.device, self.precision):
                    hidden = body(chunk.to(self.device))
                # The logit itself, its last layer in float32 even under bf16 (a bf16 logit
                # keeps 8 bits and would tie); a float32 sigmoid saturates to 1.0 above ~17.
                out.append(head(hidden.float()).squeeze(1).cpu())
        return torch.cat(out).double().numpy() if out else np.zeros(0)

    def __repr__(self) -> str:
        return (f"{type(self).__name__}(name={self.name!r}, columns={self.columns!r}, "
                f"hidden={self.hidden}, epochs={self.epochs}, batch_size={self.batch_size}, "
                f"precision={self.precision!r})")


class DHCP(_MLPDetector):
    """MLP 512-128 on standardised pooled cross-modal attention, class-balanced batches.

    >>> rng = np.random.default_rng(0); y = np.array([0, 0, 0, 1] * 8)
    >>> x = {"dhcp_attention": (rng.normal(size=(32, 6)) + 2 * y[:, None]).astype(np.float32)}
    >>> s = DHCP(hidden=(16,), epochs=20).fit(x, y).score(x); bool(s[y == 1].mean() > s[y == 0].mean())
    True
    """

    standardize = True
    balanced = True

    def __init__(self, name: str = "dhcp", columns: Sequence[str] = ("dhcp_attention",),
                 hidden: Sequence[int] = (512, 128), epochs: int = 100, batch_size: int = 1024,
                 lr: float = 1e-3, seed: int = 0, device: str = "cpu",
                 precision: str = "fp32"):
        super().__init__(name, columns, hidden, epochs, batch_size, lr, seed, device, precision)


class HALP(_MLPDetector):
    """MLP 512-256-128 with batch norm and dropout 0.3 on the last prompt token's hidden state.

    >>> rng = np.random.default_rng(0); y = np.array([0, 1] * 16)
    >>> x = {"halp_hidden": (rng.normal(size=(32, 8)) + 3 * y[:, None]).astype(np.float32)}
    >>> s = HALP(hidden=(16,), epochs=20).fit(x, y).score(x); bool(s[y == 1].mean() > s[y == 0].mean())
    True
    """

    batch_norm = True
    dropout = 0.3

    def __init__(self, name: str = "halp", columns: Sequence[str] = ("halp_hidden",),
                 hidden: Sequence[int] = (512, 256, 128), epochs: int = 50, batch_size: int = 32,
                 lr: float = 1e-3, seed: int = 0, device: str = "cpu",
                 precision: str = "fp32"):
        super().__init__(name, columns, hidden, epochs, batch_size, lr, seed, device, precision)
