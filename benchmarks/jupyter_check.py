"""How long a later ``check("step")`` takes in a real Jupyter kernel, as a ratio to a bare
``python -c "import numpy"`` on the same machine, measured in one run (issue 34: at most 1.5).

A kernel (ipykernel, through jupyter_client, as a notebook front end drives it) runs the setup
cell, the reference ``rnn_step`` and a first ``check("step")``, which starts the grading process
and its sandboxed worker; then, after an edit of ``rnn_step`` each time (a comment: the code
changes, so nothing cached answers), each later ``check("step")`` is timed from the execute request to
the kernel's reply (the result displayed), alternating with ``python -c "import numpy"`` runs so
both see the same machine load. Prints the medians and the ratio.

    python benchmarks/jupyter_check.py [--runs 7]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def import_numpy_seconds() -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", "import numpy"], check=True)
    return time.perf_counter() - start


def run_cell(client, code: str, timeout: float = 600) -> tuple[float, list]:
    """Seconds from the execute request to the reply, and the cell's outputs."""
    outputs = []
    start = time.perf_counter()
    reply = client.execute_interactive(code, timeout=timeout, output_hook=outputs.append)
    elapsed = time.perf_counter() - start
    if reply["content"]["status"] != "ok":
        raise SystemExit(f"cell failed: {code[:60]!r}: {reply['content'].get('evalue')}")
    return elapsed, outputs


def scored(outputs: list) -> str:
    for message in outputs:
        html = message.get("content", {}).get("data", {}).get("text/html", "")
        if "data-score" in html:
            return html.split("data-score='")[1].split("'")[0] + "/" + html.split("data-max-score='")[1].split("'")[0]
    raise SystemExit("no check result in the cell's output")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    from jupyter_client.manager import start_new_kernel

    manager, client = start_new_kernel(kernel_name="python3", cwd=str(ROOT))
    try:
        run_cell(client, "from grader.jupyter import check, check_all")
        run_cell(client, (ROOT / "solutions" / "reference" / "rnn_step.py").read_text(encoding="utf-8"))
        first, outputs = run_cell(client, 'check("step")')
        score = scored(outputs)
        later, bare = [], []
        reference = (ROOT / "solutions" / "reference" / "rnn_step.py").read_text(encoding="utf-8")
        for run in range(args.runs):
            bare.append(import_numpy_seconds())
            # an edit before each check, as a student makes: no answer cached for the same code
            run_cell(client, reference.replace("return np.tanh(", f"# edit {run}\n    return np.tanh(", 1))
            seconds, outputs = run_cell(client, 'check("step")')
            assert scored(outputs) == score
            later.append(seconds)
    finally:
        client.stop_channels()
        manager.shutdown_kernel(now=False)
    numpy_s, later_s = statistics.median(bare), statistics.median(later)
    print(f"first check(\"step\") (starts the grader and its worker): {first:.3f} s  score {score}")
    print(f"later check(\"step\"), median of {args.runs}:              {later_s:.3f} s")
    print(f"python -c \"import numpy\", median of {args.runs}:          {numpy_s:.3f} s")
    print(f"ratio later check / import numpy: {later_s / numpy_s:.2f} (target <= 1.5)")
    print(json.dumps({"first_check_s": round(first, 3), "later_check_s": round(later_s, 3),
                      "import_numpy_s": round(numpy_s, 3), "ratio": round(later_s / numpy_s, 2)}))


if __name__ == "__main__":
    main()
