"""The protocol every peer script follows (imported from the script's own folder; numpy only).

    python heat3d_TOOL.py --init U0.npy --steps S --check OUT.npy   # S steps from U0, save the result
    python heat3d_TOOL.py --init U0.npy --steps S --repeat R         # print {"seconds": [...], ...}

A script builds its kernel once, then calls `serve(args, run, info)`: `run(steps)` starts from
U0 each time and returns (the final grid, seconds of the time loop); `info` goes into the JSON.
"""

import argparse
import json

import numpy as np


def parse():
    ap = argparse.ArgumentParser()
    ap.add_argument("--init", required=True)
    ap.add_argument("--steps", type=int, required=True)
    ap.add_argument("--check")
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--alpha", type=float, default=0.1)
    a = ap.parse_args()
    return a, np.load(a.init)


def serve(a, run, info):
    if a.check:
        np.save(a.check, run(a.steps)[0])
    else:
        print(json.dumps(dict(info, seconds=[run(a.steps)[1] for _ in range(a.repeat)])))
