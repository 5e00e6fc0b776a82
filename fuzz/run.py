"""Run both fuzzers for a bounded time, one after the other; non-zero exit on any crash.

    python fuzz/run.py                        # 300 s hypothesis (long profile), 300 s atheris
    python fuzz/run.py --hypothesis 60 --atheris 600
    python fuzz/run.py --only atheris --atheris 900 --target extract-bytes:web2text
    python fuzz/run.py --show fuzz/.work/crashes/crash-1234abcd   # what a crash input is

Defaults come from BOILERPLATE_FUZZ_HYPOTHESIS_SECONDS / BOILERPLATE_FUZZ_ATHERIS_SECONDS.
Everything it writes goes to fuzz/.work/ (git-ignored): the seed corpus and the inputs
atheris found interesting (corpus/), crash, timeout and out-of-memory inputs (crashes/),
and the logs (hypothesis.log, atheris.log). A hypothesis failure is printed with its
minimal example (and kept in .hypothesis/ so the next run replays it first).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
WORK = HERE / ".work"


def _tail(path: Path, lines: int = 40) -> str:
    text = path.read_text(errors="replace").splitlines()
    return "\n".join(text[-lines:])


def run_hypothesis(seconds: int) -> int:
    log = WORK / "hypothesis.log"
    env = {
        **os.environ,
        "BOILERPLATE_FUZZ_PROFILE": "long",
        "BOILERPLATE_FUZZ_SECONDS": str(seconds),
    }
    cmd = [
        sys.executable,
        "-m",
        "pytest",
        "-p",
        "no:cacheprovider",
        "-q",
        str(HERE / "hypothesis_fuzz.py"),
    ]
    print(f"[fuzz] hypothesis, {seconds} s: {' '.join(cmd)} (log {log})", flush=True)
    start = time.monotonic()
    with log.open("w") as out:
        rc = subprocess.call(cmd, cwd=REPO, env=env, stdout=out, stderr=subprocess.STDOUT)
    print(_tail(log, 60 if rc else 12))
    print(f"[fuzz] hypothesis: exit {rc} after {time.monotonic() - start:.0f} s", flush=True)
    return rc


def run_atheris(seconds: int, timeout: int, rss_mb: int, max_len: int, target: str | None) -> int:
    crashes = WORK / "crashes"
    crashes.mkdir(parents=True, exist_ok=True)
    corpus = WORK / "corpus"
    before = set(crashes.iterdir())
    log = WORK / "atheris.log"
    cmd = [
        sys.executable,
        str(HERE / "atheris_fuzz.py"),
        f"-max_total_time={seconds}",
        f"-timeout={timeout}",
        f"-rss_limit_mb={rss_mb}",
        f"-max_len={max_len}",
        f"-dict={HERE / 'html.dict'}",
        f"-artifact_prefix={crashes}/",
        "-print_final_stats=1",
    ]
    env = dict(os.environ)
    if target:
        env["BOILERPLATE_FUZZ_TARGET"] = target
    print(f"[fuzz] atheris, {seconds} s: {' '.join(cmd)} (log {log})", flush=True)
    start = time.monotonic()
    with log.open("w") as out:
        # no corpus argument: atheris_fuzz.py builds the seeds in fuzz/.work/corpus
        rc = subprocess.call(cmd, cwd=REPO, env=env, stdout=out, stderr=subprocess.STDOUT)
    lines = [
        line
        for line in log.read_text(errors="replace").splitlines()
        if not line.startswith("INFO: Instrumenting")
    ]
    print("\n".join(lines[-25:]))
    new = sorted(set(crashes.iterdir()) - before)
    for path in new:
        print(f"[fuzz] atheris found {path} ({describe(path)})")
    print(f"[fuzz] atheris: exit {rc} after {time.monotonic() - start:.0f} s, corpus {corpus}")
    return rc if rc else (1 if new else 0)


def describe(path: Path) -> str:
    """Which entry point a crash input reaches, and the page as a Python literal."""
    sys.path.insert(0, str(HERE))
    import seeds  # no atheris needed

    data = path.read_bytes()
    if len(data) < 3:
        return "too short to reach any entry point"
    names = _target_names()
    target = os.environ.get("BOILERPLATE_FUZZ_TARGET") or names[data[0] % seeds.N_TARGETS]
    return f"target {target}, bytes 1-2 {data[1]},{data[2]}, page {data[3:]!r}"


def _target_names() -> list[str]:
    # the same order as atheris_fuzz.TARGETS, without importing atheris
    sys.path.insert(0, str(HERE))
    import fuzz_contract as contract

    names = [n + ("+" if i == 1 else "") for i, (n, _) in enumerate(contract.EXTRACTORS)]
    return [
        *(f"extract-bytes:{n}" for n in names),
        *(f"extract-str:{n}" for n in names),
        "parse-bytes",
        "parse-str",
        "entities",
        "scrapy-html-response",
        "scrapy-text-response",
    ]


def main(argv: list[str] | None = None) -> int:
    env = os.environ.get
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--hypothesis",
        type=int,
        default=int(env("BOILERPLATE_FUZZ_HYPOTHESIS_SECONDS", "300")),
        help="seconds of hypothesis (long profile)",
    )
    parser.add_argument(
        "--atheris",
        type=int,
        default=int(env("BOILERPLATE_FUZZ_ATHERIS_SECONDS", "300")),
        help="seconds of atheris",
    )
    parser.add_argument("--only", choices=["hypothesis", "atheris"])
    parser.add_argument("--target", help="atheris: one entry point only (e.g. extract-bytes:cnr)")
    parser.add_argument("--timeout", type=int, default=20, help="atheris: seconds per input")
    parser.add_argument("--rss-limit-mb", type=int, default=3072)
    parser.add_argument("--max-len", type=int, default=65536, help="atheris: input size at most")
    parser.add_argument("--show", type=Path, help="describe one crash input and exit")
    args = parser.parse_args(argv)
    if args.show:
        print(describe(args.show))
        return 0
    if args.target and args.target not in _target_names():
        parser.error(f"--target: one of {_target_names()}")
    WORK.mkdir(parents=True, exist_ok=True)
    failed = []
    if (
        args.only in (None, "hypothesis")
        and args.hypothesis > 0
        and run_hypothesis(args.hypothesis)
    ):
        failed.append("hypothesis")
    if args.only in (None, "atheris") and args.atheris > 0:
        try:
            import atheris  # noqa: F401
        except ImportError:
            print("[fuzz] atheris is not installed (pip install atheris==2.3.0)")
            failed.append("atheris (not installed)")
        else:
            if run_atheris(
                args.atheris, args.timeout, args.rss_limit_mb, args.max_len, args.target
            ):
                failed.append("atheris")
    print(f"[fuzz] {'FAILED: ' + ', '.join(failed) if failed else 'no crash'}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
