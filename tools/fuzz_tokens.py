"""The token mutations the two fuzzers share (tools/fuzz_stn.py on .stn text, tools/fuzz_import.py on C
bytes): one place, so that a fix to one reaches the other.

Expects a token list (str or bytes tokens alike) and the fuzzer's own pools of replacement numbers,
names and insertions; guarantees the same draws from `rng` as the code it replaced, so that a
campaign's seed still names the same inputs.
"""

from __future__ import annotations

import random

SHARED_OPS = 6  # ops 0 .. SHARED_OPS - 1 are the shared ones


def shared_mutation(rng: random.Random, toks: list, i: int, op: int, numbers: list, names: list,
                    inserts: list) -> bool:
    """Apply op (0: delete token i, 1: repeat it, 2: swap it with the next, 3: a number replaced, 4: a
    name replaced, 5: an insertion before it) to `toks` in place; False when op is not a shared one (or is 2 at the last token: the caller's
    fallback mutation applies, as before)."""
    if op == 0:
        del toks[i]
    elif op == 1:
        toks.insert(i, toks[i])
    elif op == 2 and i + 1 < len(toks):
        toks[i], toks[i + 1] = toks[i + 1], toks[i]
    elif op == 3:
        nums = [k for k, t in enumerate(toks) if t[:1].isdigit()]
        if nums:
            toks[rng.choice(nums)] = rng.choice(numbers)
    elif op == 4:
        found = [k for k, t in enumerate(toks) if t[:1].isalpha() or t[:1] in ("_", b"_")]
        if found:
            toks[rng.choice(found)] = rng.choice(names)
    elif op == 5:
        toks.insert(i, rng.choice(inserts))
    else:
        return False
    return True
