"""The browser's twins of posenc functions (``static/twins.js``) against posenc, on seeded random inputs, in Node.

Every export of static/twins.js must have a parity case here (its name is the posenc function's, in camel case),
and every case must hold in float64 to a relative error of 1e-9 (a sum, to 1e-9 of its largest term's total).
"""

from __future__ import annotations

import json
import random
import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
from system_packages import require_system_packages

from posenc.absolute import sinusoid_dot_by_offset, sinusoid_inv_freq
from ui.limits import LIMITS

ROOT = Path(__file__).resolve().parents[1]
TWINS = ROOT / "static" / "twins.js"
NODE = shutil.which("node")


def twin(name: str, calls: list[list]) -> list[list[float]]:
    """``name`` from static/twins.js applied to each argument list of ``calls``, in Node (float64 arrays back)."""
    require_system_packages(nodejs=NODE is not None)
    source = (
        f"const twins = await import({json.dumps(TWINS.as_uri())});\n"
        "const chunks = []; for await (const chunk of process.stdin) chunks.push(chunk);\n"
        "const calls = JSON.parse(Buffer.concat(chunks).toString());\n"
        f"console.log(JSON.stringify(calls.map((args) => Array.from(twins.{name}(...args)))));"
    )
    done = subprocess.run([NODE, "--input-type=module", "-e", source], input=json.dumps(calls), capture_output=True,
                          text=True, timeout=120)  # fmt: skip
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def random_settings(seed: int, count: int = 40) -> list[tuple[int, float]]:
    """(dim, base) pairs a student can reach: any even dim, any base of the slider, and bases between them."""
    rng = random.Random(seed)
    dims = [rng.randrange(LIMITS.dim_min, LIMITS.dim_max + 1, 2) for _ in range(count)]
    bases = [rng.choice(LIMITS.base_options) if k % 2 else 10 ** rng.uniform(1.01, 6) for k in range(count)]
    return list(zip(dims, bases, strict=True))


PARITY = {  # twin (camel case of the posenc function) -> its case
    "sinusoidInvFreq": "test_sinusoid_inv_freq",
    "sinusoidDotByOffset": "test_sinusoid_dot_by_offset",
}


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_sinusoid_inv_freq(seed):
    settings = random_settings(seed)
    got = twin("sinusoidInvFreq", [[dim, base] for dim, base in settings])
    for (dim, base), omega in zip(settings, got, strict=True):
        np.testing.assert_allclose(omega, sinusoid_inv_freq(dim, base).numpy(), rtol=1e-9, atol=0)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_sinusoid_dot_by_offset(seed):
    rng = random.Random(seed)
    settings = random_settings(seed, count=12)
    offsets = [sorted(rng.sample(range(LIMITS.length_max), 64)) for _ in settings]
    got = twin("sinusoidDotByOffset", [[k, dim, base] for k, (dim, base) in zip(offsets, settings, strict=True)])
    for k, (dim, base), sums in zip(offsets, settings, got, strict=True):
        expected = sinusoid_dot_by_offset(k, dim, base).numpy()
        np.testing.assert_allclose(sums, expected, rtol=0, atol=1e-9 * dim / 2)  # s(0) = D/2: the scale of the sum


def test_every_twin_has_a_parity_case():
    exported = set(re.findall(r"^export function (\w+)", TWINS.read_text(), re.M))
    assert exported == set(PARITY), exported ^ set(PARITY)
    for case in PARITY.values():
        assert case in globals()
