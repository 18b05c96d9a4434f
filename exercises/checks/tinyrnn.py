"""Checks of the capstone, TinyRNN (tiny_rnn.py): embed, tiny_rnn_forward, tiny_rnn_loss,
sgd_step and sample, and a short training run of the whole model.

The loss and its gradients are judged against the reference and, independently,
against centred finite differences of a loss computed here. Sampling inputs draw
each ``u[k]`` at least 1e-6 away from every partial sum of ``p`` along the path
(CONTRACT section 6 asks 1e-9; 1e-6 is safer still), so implementations that differ in the last bits of ``p``
still pick the same ids.
"""

from __future__ import annotations

import numpy as np

from grader.checks import Case, Fail, check, describe_case
from grader.checks.choices import builder, integers, lists, sampled_from
from grader.checks.compare import same
from . import data as D
from .inputs import VALUES, maybe_h0

EMBED, FORWARD, LOSS, STEP, SAMPLE = "embed", "tiny_rnn_forward", "tiny_rnn_loss", "sgd_step", "sample"
PARAMS = ("E", "W_x", "W_h", "b", "W_o", "b_o")
GRADS = tuple("d" + k for k in PARAMS)


# ------------------------------------------------------------------ inputs

def model(rng, V, d, H, scale=1.0, recurrent=0.9):
    return {"E": rng.normal(0, scale, size=(V, d)), "W_x": rng.normal(0, scale / np.sqrt(d), size=(d, H)),
            "W_h": rng.normal(0, recurrent / np.sqrt(H), size=(H, H)), "b": rng.normal(0, 0.5, size=H),
            "W_o": rng.normal(0, 1.5, size=(H, V)), "b_o": rng.normal(0, 0.5, size=V)}


def dims(params) -> dict:
    V, d = params["E"].shape
    return {"V": V, "d": d, "H": params["W_h"].shape[0]}


def token_ids(rng, B, T, V, repeat=True):
    ids = rng.integers(0, V, size=(B, T))
    if repeat and T >= 2:
        ids[0, -1] = ids[0, 0]   # one id twice in a row of every case: its embedding gradients add up
    return ids.astype(np.int64)


def label(B, T, model_params, **extra) -> str:
    size = dims(model_params)
    parts = ([f"B={B}"] if B is not None else []) + ([f"T={T}"] if T is not None else [])
    parts += [f"{k}={size[k]}" for k in ("V", "d", "H")] + [f"{k}={v}" for k, v in extra.items()]
    return ", ".join(parts)


def loss_case(rng, B, T, V, d, H, lens=None, with_h0=False, include_zero=False, params=None):
    params = params or model(rng, V, d, H)
    lens = D.lengths(rng, B, T, include_zero=include_zero) if lens is None else np.asarray(lens, dtype=np.int64)
    kwargs = {"h0": rng.uniform(-1, 1, size=(B, H))} if with_h0 else {}
    extra = {"lengths": list(map(int, lens)), **({"h0": "given"} if with_h0 else {})}
    return Case((token_ids(rng, B, T, V), token_ids(rng, B, T, V, repeat=False), lens, params), kwargs,
                label=label(B, T, params, **extra))


def forward_case(rng, B, T, V, d, H, with_h0=False, keyword=False):
    params = model(rng, V, d, H)
    tokens = token_ids(rng, B, T, V)
    kwargs = {"h0": rng.uniform(-1, 1, size=(B, H))} if with_h0 else {}
    if keyword:
        return Case((tokens,), {"params": params, **kwargs}, label=label(B, T, params, params="by keyword"))
    return Case((tokens, params), kwargs, label=label(B, T, params, **({"h0": "given"} if with_h0 else {})))


def values_only(got, expected):
    """The student's value as a value check sees it: a gradient with an extra or missing axis of size
    1 compared as the expected shape, generated ids as a list of ints; types_and_shapes judges those."""
    if isinstance(expected, float) and isinstance(got, np.ndarray) and got.shape == () and got.dtype.kind == "f":
        return float(got)
    if isinstance(expected, list) and isinstance(got, (list, tuple, np.ndarray)):
        try:
            return [int(x) if isinstance(x, (int, np.integer)) else x
                    for x in list(np.ravel(got) if isinstance(got, np.ndarray) else got)]
        except TypeError:
            return got
    if isinstance(expected, tuple) and isinstance(got, (tuple, list)) and len(got) == len(expected):
        return type(expected)(values_only(g, e) for g, e in zip(got, expected))
    if isinstance(expected, dict) and isinstance(got, dict):
        out = dict(got)
        for key, want in expected.items():
            have = got.get(key)
            if (isinstance(have, np.ndarray) and isinstance(want, np.ndarray) and have.shape != want.shape
                    and have.size == want.size
                    and tuple(n for n in have.shape if n != 1) == tuple(n for n in want.shape if n != 1)):
                out[key] = have.reshape(want.shape)
        return out
    return got


def loss_only(got, expected):
    got = values_only(got, expected)
    return got[0] if isinstance(got, (tuple, list)) and len(got) == 2 else got


# ------------------------------------------------------------------ the model, computed here

def true_loss(tokens, targets, lengths, params, h0=None) -> float:
    """The token-level masked cross-entropy of the model, written out (for finite differences and to
    judge a training run independently of the student's own loss)."""
    tokens = np.asarray(tokens, dtype=int)
    B, T = tokens.shape
    H = params["W_h"].shape[0]
    mask = np.arange(T)[None, :] < np.asarray(lengths)[:, None]
    if not mask.any():
        return 0.0
    h = np.zeros((B, H)) if h0 is None else np.asarray(h0, dtype=float)
    total = 0.0
    for t in range(T):
        h = np.tanh(params["E"][tokens[:, t]] @ params["W_x"] + h @ params["W_h"] + params["b"])
        z = h @ params["W_o"] + params["b_o"]
        z = z - z.max(axis=-1, keepdims=True)
        log_p = z - np.log(np.exp(z).sum(axis=-1, keepdims=True))
        total -= float(np.sum(np.where(mask[:, t], log_p[np.arange(B), targets[:, t]], 0.0)))
    return total / int(mask.sum())


def finite_differences(case: Case, eps=1e-6) -> dict:
    tokens, targets, lengths, params = case.args
    work = {k: np.array(v, dtype=np.float64) for k, v in params.items()}
    grads = {}
    for key in PARAMS:
        array, grad = work[key], np.zeros_like(work[key])
        for index in np.ndindex(array.shape):
            keep = array[index]
            array[index] = keep + eps
            plus = true_loss(tokens, targets, lengths, work, case.kwargs.get("h0"))
            array[index] = keep - eps
            minus = true_loss(tokens, targets, lengths, work, case.kwargs.get("h0"))
            array[index] = keep
            grad[index] = (plus - minus) / (2 * eps)
        grads["d" + key] = grad
    return grads


def _softmax(z):
    z = z - z.max()
    e = np.exp(z)
    return e / e.sum()


def sample_path(params, prefix, n_max, stop_token, temperature, rng):
    """The ids the model generates and a ``u`` whose every entry lies at least 1e-6 from every partial
    sum of ``p`` along the path (``u`` is None at temperature 0)."""
    h = np.zeros(params["W_h"].shape[0])

    def step(token, h):
        return np.tanh(params["E"][token] @ params["W_x"] + h @ params["W_h"] + params["b"])

    for token in prefix:
        h = step(token, h)
    ids, u = [], []
    for _ in range(n_max):
        logits = h @ params["W_o"] + params["b_o"]
        if temperature == 0:
            nxt = int(np.argmax(logits))
        else:
            sums = np.cumsum(_softmax(logits / temperature))
            while True:
                draw = float(rng.uniform(0.0, 1.0))
                if np.min(np.abs(sums - draw)) > 1e-6:
                    break
            u.append(draw)
            nxt = min(int(np.searchsorted(sums, draw, side="right")), len(logits) - 1)
        ids.append(nxt)
        if nxt == stop_token:
            break
        h = step(nxt, h)
    u += [0.5] * (n_max - len(u))
    return ids, (np.array(u) if temperature != 0 else None)


def sample_case(rng, V, d, H, n_max, temperature, prefix_len=3, stop_token=None, scale=1.5, positional=False,
                params=None, note=""):
    # a strong recurrence: the state carried from step to step matters for the next id
    params = params or model(rng, V, d, H, scale=scale, recurrent=2.0)
    prefix = [int(t) for t in rng.integers(0, V, size=prefix_len)]
    stop = V - 1 if stop_token is None else stop_token
    _, u = sample_path(params, prefix, n_max, stop, temperature, rng)
    text = sample_label(params, prefix, n_max, stop, temperature) + (", u given" if u is not None else "") + note
    if positional:
        return Case((params, prefix, n_max, stop, temperature, u), label=text + " (all positional)")
    return Case((params, prefix, n_max, stop), {"temperature": temperature, **({"u": u} if u is not None else {})},
                label=text)


def stop_case(rng, V, d, H, n_max=8, temperature=0.0, stop_in_prefix=False):
    """A case whose path emits its stop token first at step 2 or later: what comes after the stop must
    not be generated, and the stop itself must be returned."""
    for _ in range(500):
        params = model(rng, V, d, H, scale=2.0, recurrent=2.0)
        prefix = [int(t) for t in rng.integers(0, V, size=3)]
        stop = int(rng.integers(0, V))
        if stop_in_prefix:
            prefix[1] = stop
        path, u = sample_path(params, prefix, n_max, -1, temperature, rng)
        if stop in path[2:] and stop not in path[:2]:
            note = ", the stop token also in the prefix" if stop_in_prefix else ""
            return _sample_call(params, prefix, n_max, stop, temperature, u, note)
    raise RuntimeError("no sampling path emits a new id late enough: change the sizes")


def never_stop_case(rng, V, d, H, n_max):
    """A stop token the path never emits: n_max ids come back."""
    for _ in range(500):
        params = model(rng, V, d, H, scale=2.0)
        prefix = [int(t) for t in rng.integers(0, V, size=2)]
        path, _ = sample_path(params, prefix, n_max, -1, 0.0, rng)
        unused = [i for i in range(V) if i not in path]
        if unused:
            return _sample_call(params, prefix, n_max, unused[0], 0.0, None, " (the stop token is never generated)")
    raise RuntimeError("every id is generated: change the sizes")


def _sample_call(params, prefix, n_max, stop, temperature, u, note=""):
    text = sample_label(params, prefix, n_max, stop, temperature) + (", u given" if u is not None else "") + note
    return Case((params, prefix, n_max, stop), {"temperature": temperature, **({"u": u} if u is not None else {})},
                label=text)


def sample_label(params, prefix, n_max, stop, temperature) -> str:
    size = dims(params)
    return (f"V={size['V']}, d={size['d']}, H={size['H']}, prefix={prefix}, n_max={n_max}, stop_token={stop}, "
            f"temperature={temperature:g}")


# ------------------------------------------------------------------ shapes and types

def expect_grads(got, case: Case):
    params = case.args[3]
    if not isinstance(got, (tuple, list)) or len(got) != 2:
        raise Fail("cmp.type", where="(loss, grads)", expected="tuple of 2", got=type(got).__name__,
                   case=describe_case(case))
    loss, grads = got
    if not isinstance(loss, float):
        raise Fail("prop.not_float", name=LOSS, got=type(loss).__name__, case=describe_case(case))
    if not isinstance(grads, dict) or set(grads) != set(GRADS):
        have = list(grads) if isinstance(grads, dict) else []
        if not isinstance(grads, dict):
            raise Fail("cmp.type", where="grads", expected="dict", got=type(grads).__name__, case=describe_case(case))
        raise Fail("cmp.keys", where="grads", missing=", ".join(k for k in GRADS if k not in grads) or "-",
                   extra=", ".join(str(k) for k in have if k not in GRADS) or "-", case=describe_case(case))
    for key in PARAMS:
        D.expect_array(grads["d" + key], params[key].shape, case, what="d" + key)


# ------------------------------------------------------------------ checks

@check("tinyrnn", "embed_reference")
def embed_reference(ctx):
    def build(rng):
        def case(B, T, V, d):
            return Case((token_ids(rng, B, T, V), rng.normal(size=(V, d))), label=f"B={B}, T={T}, V={V}, d={d}")
        return [case(2, 4, 5, 3), case(1, 1, 1, 1), case(3, 2, 2, 1), case(2, 6, 3, 4)]
    ctx.check_reference("embed", EMBED, build, "embeddings")


FORWARD_SIZES = [dict(B=2, T=5, V=4, d=3, H=4), dict(B=1, T=1, V=2, d=1, H=1), dict(B=3, T=3, V=3, d=1, H=2),
                 dict(B=2, T=4, V=5, d=2, H=3, with_h0=True), dict(B=1, T=3, V=3, d=2, H=2, keyword=True)]


def random_sizes(rng) -> dict:
    return dict(zip(("B", "T", "V", "d", "H"), (int(n) for n in rng.integers([1, 1, 2, 1, 1], [5, 7, 7, 5, 6]))))


@check("tinyrnn", "forward_reference")
def forward_reference(ctx):
    # fixed sizes, then two drawn from the run's seed
    ctx.check_reference("forward", FORWARD, lambda rng: [forward_case(rng, **s) for s in FORWARD_SIZES]
                        + [forward_case(rng, **random_sizes(rng), with_h0=bool(i)) for i in range(2)],
                        "(logits, Hs)", values_only)


def LOSS_CASES(rng):
    # T == 1, d == 1 with B > 1, a length-0 row, h0 given, and all lengths full
    return [loss_case(rng, 3, 5, 4, 3, 4, include_zero=True), loss_case(rng, 2, 1, 3, 1, 2, lens=[1, 0]),
            loss_case(rng, 3, 4, 5, 1, 3, with_h0=True), loss_case(rng, 2, 3, 4, 2, 2, lens=[3, 3]),
            loss_case(rng, 1, 6, 6, 3, 5)] + [loss_case(rng, *random_sizes(rng).values(), with_h0=bool(i),
                                                        include_zero=True)
                                              for i in range(2)]


@check("tinyrnn", "loss_reference")
def loss_reference(ctx):
    for case, expected in ctx.cases_with_expected("loss", LOSS, LOSS_CASES):
        ctx.assert_close(loss_only(ctx.call(LOSS, case), expected), expected[0], case, "loss")


@check("tinyrnn", "grads_reference")
def grads_reference(ctx):
    pairs = ctx.cases_with_expected("loss", LOSS, LOSS_CASES)
    for case, expected in pairs:
        got = values_only(ctx.call(LOSS, case), expected)
        grads = got[1] if isinstance(got, (tuple, list)) and len(got) == 2 else got
        ctx.assert_close(grads, expected[1], case, "grads")


def relative_error(got, expected) -> float:
    return float(np.linalg.norm(got - expected) / max(np.linalg.norm(got) + np.linalg.norm(expected), 1e-12))


@check("tinyrnn", "finite_differences")
def finite_differences_check(ctx):
    def build(rng):
        case = loss_case(rng, 2, 4, 4, 2, 3, lens=[4, 2], with_h0=True)
        case.args[0][1, 0] = case.args[0][0, 1]    # one id in both rows too
        return case, finite_differences(case)
    case, numeric = ctx.cached("fd", build)
    got = ctx.call(LOSS, case)
    got = values_only(got, (0.0, numeric))
    if not isinstance(got, (tuple, list)) or len(got) != 2 or not isinstance(got[1], dict):
        expect_grads(got, case)
    for key in GRADS:
        have = got[1].get(key)
        if key not in got[1]:
            raise Fail("cmp.keys", where="grads", missing=key, extra="-", case=describe_case(case))
        if not isinstance(have, np.ndarray) or have.shape != numeric[key].shape:
            D.expect_array(have, numeric[key].shape, case, what=key)
        error = relative_error(np.asarray(have, dtype=np.float64), numeric[key])
        if not error <= 1e-6:
            raise Fail("tinyrnn.finite_differences", key=key, error=f"{error:.2e}", case=describe_case(case))


def step_case(rng, V, d, H, lr, max_norm=None, scale=1.0, keyword=False):
    params = model(rng, V, d, H)
    grads = {"d" + k: rng.normal(0, scale, size=v.shape) for k, v in params.items()}
    text = label(None, None, params, lr=lr) + (f", max_norm={max_norm:g}" if max_norm is not None else "")
    kwargs = {} if max_norm is None else {"max_norm": max_norm}
    if keyword:
        return Case((params, grads), {"lr": lr, **kwargs}, label=text + " (lr by keyword)")
    return Case((params, grads, lr), kwargs, label=text)


@check("tinyrnn", "sgd_step")
def sgd_step_check(ctx):
    ctx.check_reference("sgd", STEP, lambda rng: [step_case(rng, 4, 3, 2, 0.1), step_case(rng, 1, 1, 1, 0.5),
                                                  step_case(rng, 3, 2, 4, 1.0, keyword=True)],
                        "new params", values_only)


@check("tinyrnn", "sgd_clipped")
def sgd_clipped(ctx):
    # the global norm of these gradients is about 8: clipped to 1 and 3, kept under 100
    ctx.check_reference("sgd_clip", STEP, lambda rng: [step_case(rng, 4, 3, 2, 0.1, max_norm=1.0),
                                                       step_case(rng, 3, 2, 3, 0.5, max_norm=3.0, keyword=True),
                                                       step_case(rng, 2, 1, 2, 0.1, max_norm=100.0)],
                        "new params", values_only)


@check("tinyrnn", "sample_greedy")
def sample_greedy(ctx):
    def build(rng):
        tie = model(rng, 4, 2, 3)
        tie["W_o"] = np.zeros_like(tie["W_o"])
        tie["b_o"] = np.array([0.0, 1.0, 1.0, 0.5])        # ids 1 and 2 tie: the lowest id, 1
        ignored = sample_case(rng, 5, 3, 4, 6, 0.0)
        ignored.kwargs["u"] = rng.uniform(0, 1, size=6)     # u is ignored at temperature 0
        ignored.label += ", u given (ignored)"
        return [sample_case(rng, 5, 3, 4, 10, 0.0), sample_case(rng, 2, 1, 1, 4, 0.0, prefix_len=1), ignored,
                sample_case(rng, 4, 2, 3, 5, 0.0, params=tie, stop_token=3, note=", ids 1 and 2 tie")]
    ctx.check_reference("greedy", SAMPLE, build, "generated ids", values_only)


@check("tinyrnn", "sample_temperature")
def sample_temperature(ctx):
    def build(rng):
        sharp = model(rng, 5, 2, 3, recurrent=2.0)
        sharp["b_o"] = rng.uniform(4.0, 8.0, size=5) * rng.choice([-1.0, 1.0], size=5)
        sharp["b_o"][int(rng.integers(5))] = 9.0            # logits / 0.005 beyond 1e3, exp(.) beyond float range
        return [sample_case(rng, 5, 3, 4, 10, 1.0), sample_case(rng, 4, 2, 3, 8, 0.5, positional=True),
                sample_case(rng, 6, 3, 4, 8, 2.0),
                sample_case(rng, 5, 2, 3, 6, 0.005, params=sharp, note=" (logits / temperature of size 1e3)")]
    ctx.check_reference("temperature", SAMPLE, build, "generated ids", values_only)


CORPUS = "hello world, hello there. the world is here. "


def training_setup(rng):
    chars = sorted(set(CORPUS))
    ids = np.array([chars.index(c) for c in CORPUS], dtype=np.int64)
    T = 10
    starts = [0, 13, 26]
    tokens = np.stack([ids[s:s + T] for s in starts])
    targets = np.stack([ids[s + 1:s + T + 1] for s in starts])
    lengths = np.array([T, T, 7], dtype=np.int64)
    tokens[2, 7:], targets[2, 7:] = 0, 0       # padding holds valid ids
    params = model(rng, len(chars), 4, 8, scale=0.3)
    params["W_o"] *= 0.2
    return tokens, targets, lengths, params


STEPS, LR, MAX_NORM = 12, 1.0, 5.0


def _close(got: dict, want: dict) -> bool:
    """Equal to the reference run's values (arrays of the same shapes) within a tight tolerance."""
    return all(same(got[k], want[k], 1e-9, 1e-11) for k in want)


@check("tinyrnn", "training")
def training(ctx):
    """The student's own loss and step, each step from the parameters their step returned. While
    their results equal the reference's (within the tolerance), the calls are the reference run's
    own, so they are planned and sent in one request; from the first step where they differ, the
    run goes on with the student's values alone."""
    def build(rng):
        tokens, targets, lengths, params = training_setup(rng)
        text = f"{STEPS} steps, lr={LR:g}, max_norm={MAX_NORM:g}, B=3, T=10, V={params['E'].shape[0]}"
        loss, step = ctx.reference(LOSS), ctx.reference(STEP)
        path, current = [], params
        for _ in range(STEPS):
            loss_call = Case((tokens, targets, lengths, current), label=text)
            grads = loss(tokens, targets, lengths, current)[1]
            nxt = step(current, grads, LR, MAX_NORM)
            path.append((loss_call, grads, Case((current, grads, LR), {"max_norm": MAX_NORM}, label=text), nxt))
            current = nxt
        return path, true_loss(tokens, targets, lengths, params), true_loss(tokens, targets, lengths, current), text
    path, start, reference_end, text = ctx.cached("training", build)
    tokens, targets, lengths, params = path[0][0].args
    own = None        # None: the parameters are still the reference run's
    for loss_call, reference_grads, step_call, reference_next in path:
        case = loss_call if own is None else Case((tokens, targets, lengths, own), label=text)
        got = ctx.call(LOSS, case)
        if not isinstance(got, (tuple, list)) or len(got) != 2 or not isinstance(got[1], dict):
            expect_grads(got, case)
        grads = values_only(got[1], {"d" + k: params[k] for k in PARAMS})
        on_path = own is None and set(grads) >= set(GRADS) and _shaped_like(grads, reference_grads) \
            and _close(grads, reference_grads)
        if not on_path:
            own = loss_call.args[3] if own is None else own
            step_call = Case((own, grads, LR), {"max_norm": MAX_NORM}, label=text)
        new = ctx.call(STEP, step_call)
        if not isinstance(new, dict) or set(new) != set(PARAMS):
            raise Fail("cmp.type", where="sgd_step", expected="dict with keys " + ", ".join(PARAMS),
                       got=type(new).__name__, case=text)
        try:
            new = {k: np.asarray(new[k], dtype=np.float64).reshape(params[k].shape) for k in PARAMS}
        except (TypeError, ValueError):
            raise Fail("cmp.type", where="sgd_step", expected="arrays of the parameters' shapes",
                       got="other shapes", case=text) from None
        own = None if on_path and _close(new, reference_next) else new
    end = reference_end if own is None else true_loss(tokens, targets, lengths, own)
    if not np.isfinite(end) or end > reference_end + 0.1 * (start - reference_end):
        raise Fail("tinyrnn.not_trained", steps=STEPS, got=f"{end:.4g}", start=f"{start:.4g}",
                   expected=f"{reference_end:.4g}", case=text)


def _shaped_like(got: dict, want: dict) -> bool:
    return all(isinstance(got[k], np.ndarray) and got[k].shape == want[k].shape for k in want)


@check("tinyrnn", "repeated_tokens")
def repeated_tokens(ctx):
    def build(rng):
        same = loss_case(rng, 2, 5, 4, 2, 3, lens=[5, 5])
        same.args[0][:] = 2                                      # one id everywhere
        same.label += ", every token the same id"
        few = loss_case(rng, 3, 6, 6, 3, 2, lens=[6, 6, 6])
        few.args[0][:] = rng.integers(0, 2, size=few.args[0].shape)   # ids 0 and 1 only; 2 to 5 unused
        few.label += ", tokens from ids 0 and 1 only"
        return [same, few]
    pairs = ctx.cases_with_expected("repeated", LOSS, build)
    for case, expected in pairs:
        got = values_only(ctx.call(LOSS, case), expected)
        grads = got[1] if isinstance(got, (tuple, list)) and len(got) == 2 and isinstance(got[1], dict) else got
        ctx.assert_close(grads.get("dE") if isinstance(grads, dict) else grads, expected[1]["dE"], case, "dE")


@check("tinyrnn", "padding_ignored")
def padding_ignored(ctx):
    """Other ids at the padded positions give the same loss and gradients as the student's own
    result on the original batch (whatever those are: wrong values are other checks' business);
    a batch with no valid position gives 0.0 and zero gradients."""
    def build(rng):
        base = loss_case(rng, 3, 6, 5, 3, 4, lens=[6, 2, 4])
        # The last padded position takes, in the changed batch only, the token of the last valid one:
        # a gradient written into dE (not added) then loses that position's gradient, whatever the draw.
        last_valid = int(base.args[0][2, 3])
        base.args[0][2, 4:] = (last_valid + 1) % 5
        other_tokens, other_targets = base.args[0].copy(), base.args[1].copy()
        for i, n in enumerate(base.args[2]):
            other_tokens[i, n:] = (base.args[0][i, n:] + 1 + rng.integers(0, 4, size=6 - n)) % 5
            other_targets[i, n:] = (base.args[1][i, n:] + 1 + rng.integers(0, 4, size=6 - n)) % 5
        other_tokens[2, 5] = last_valid
        changed = Case((other_tokens, other_targets, *base.args[2:]), label=base.label + ", other ids at padding")
        empty = loss_case(rng, 2, 3, 4, 2, 3, lens=[0, 0])
        empty.label += " (no valid position)"
        return base, changed, empty
    base, changed, empty = ctx.cached("padding", build)
    first = ctx.call(LOSS, base)
    ctx.assert_close(values_only(ctx.call(LOSS, changed), first), first, changed, "(loss, grads)")
    expected = ctx.expected_for(LOSS, empty)
    ctx.assert_close(values_only(ctx.call(LOSS, empty), expected), expected, empty, "(loss, grads)")


@check("tinyrnn", "forward_extreme")
def forward_extreme(ctx):
    def build(rng):
        case = forward_case(rng, 3, 4, 4, 3, 4)
        params = case.args[1]
        params["E"] *= 300.0                     # pre-activations of several hundreds
        column = params["W_x"][:, int(rng.integers(params["W_x"].shape[1]))]
        params["E"][0] = 1500.0 * column / float(column @ column)    # beyond +1000 and -1000
        params["E"][1] = -params["E"][0]
        case.args[0][0, :], case.args[0][1, :] = 0, 1
        case.label += ", pre-activations beyond +-1000"
        loss = loss_case(rng, 2, 3, 4, 3, 4, params=params, lens=[3, 3])
        loss.args[0][0, :], loss.args[0][1, :] = 0, 1
        loss.label += ", pre-activations beyond +-1000"
        return [("forward", case), ("loss", loss)]
    (_, forward), (_, loss) = ctx.cached("extreme", build)
    expected = ctx.expected_for(FORWARD, forward)
    ctx.assert_close(values_only(ctx.call(FORWARD, forward), expected), expected, forward, "(logits, Hs)")
    expected = ctx.expected_for(LOSS, loss)
    got = values_only(ctx.call(LOSS, loss), expected)
    ctx.assert_close(loss_only(got, expected), expected[0], loss, "loss")
    grads = got[1] if isinstance(got, (tuple, list)) and len(got) == 2 and isinstance(got[1], dict) else {}
    for key, value in grads.items():   # their values are grads_reference's business; here: finite
        with np.errstate(all="ignore"):
            finite = isinstance(value, np.ndarray) and value.dtype.kind == "f" and bool(np.isfinite(value).all())
        if not finite:
            raise Fail("tinyrnn.not_finite", key=str(key)[:40], case=describe_case(loss))


@check("tinyrnn", "types_and_shapes")
def types_and_shapes(ctx):
    def build(rng):
        return {"loss": [loss_case(rng, 2, 3, 4, 2, 3), loss_case(rng, 1, 1, 1, 1, 1, lens=[1])],
                "forward": [forward_case(rng, 2, 3, 4, 2, 3), forward_case(rng, 1, 1, 1, 1, 1)],
                "step": [step_case(rng, 3, 2, 1, 0.1), step_case(rng, 1, 1, 1, 0.1, max_norm=0.5)],
                "sample": [sample_case(rng, 3, 2, 2, 4, 0.0), sample_case(rng, 3, 2, 2, 4, 1.0)]}
    cases = ctx.cached("types", build)
    for case in cases["loss"]:
        expect_grads(ctx.call(LOSS, case), case)
    for case in cases["forward"]:
        got = D.expect_pair(ctx.call(FORWARD, case), case, "(logits, Hs)")
        B, T = case.args[0].shape
        size = dims(case.args[1])
        D.expect_array(got[0], (B, T, size["V"]), case, what="logits")
        D.expect_array(got[1], (B, T, size["H"]), case, what="Hs")
    for case in cases["step"]:
        got = ctx.call(STEP, case)
        if not isinstance(got, dict):
            raise Fail("cmp.type", where="sgd_step", expected="dict", got=type(got).__name__, case=describe_case(case))
        if set(got) != set(PARAMS):
            raise Fail("cmp.keys", where="sgd_step", missing=", ".join(k for k in PARAMS if k not in got) or "-",
                       extra=", ".join(str(k) for k in got if k not in PARAMS) or "-", case=describe_case(case))
        for key in PARAMS:
            D.expect_array(got[key], case.args[0][key].shape, case, what=key)
    for case in cases["sample"]:
        got = ctx.call(SAMPLE, case)
        if not isinstance(got, list):
            raise Fail("prop.not_list", name=SAMPLE, got=type(got).__name__, case=describe_case(case))
        if any(isinstance(x, (bool, np.bool_)) or not isinstance(x, (int, np.integer)) for x in got):
            raise Fail("tinyrnn.not_int_items", name=SAMPLE, case=describe_case(case))


@check("tinyrnn", "sample_stop")
def sample_stop(ctx):
    def build(rng):
        never = never_stop_case(rng, 6, 3, 4, 7)
        zero = sample_case(rng, 4, 2, 3, 0, 1.0, note=" (n_max = 0)")
        return [stop_case(rng, 6, 3, 4), stop_case(rng, 6, 3, 4, stop_in_prefix=True),
                stop_case(rng, 5, 2, 3, temperature=1.0), never, zero]
    ctx.check_reference("stop", SAMPLE, build, "generated ids", values_only)


@check("tinyrnn", "sample_fresh_u")
def sample_fresh_u(ctx):
    # u=None at temperature 1: whatever is drawn, a list of valid ids. Not the stop rule, nor the
    # length (a prefix returned, the stop token left out): whether a draw meets the stop token is
    # chance, and the checks on given u judge those rules
    def build(rng):
        case = sample_case(rng, 4, 2, 3, 12, 1.0, stop_token=3)
        return Case(case.args, {"temperature": 1.0}, label=case.label.replace(", u given", "") + ", u=None")
    case = ctx.cached("fresh", build)
    got = values_only(ctx.call(SAMPLE, case), [])
    V = case.args[0]["E"].shape[0]
    bad = not isinstance(got, list) or any(not isinstance(x, int) or not 0 <= x < V for x in got)
    if bad:
        raise Fail("tinyrnn.fresh_u", name=SAMPLE, got=str(got)[:120], case=describe_case(case))


@check("tinyrnn", "inputs_unchanged")
def inputs_unchanged(ctx):
    cases = ctx.cached("unchanged", lambda rng: [(LOSS, loss_case(rng, 2, 4, 4, 2, 3, with_h0=True)),
                                                 (FORWARD, forward_case(rng, 2, 3, 3, 2, 2, with_h0=True)),
                                                 (STEP, step_case(rng, 3, 2, 2, 0.1, max_norm=1.0)),
                                                 (STEP, step_case(rng, 3, 2, 2, 0.1)),
                                                 (SAMPLE, sample_case(rng, 4, 2, 3, 5, 1.0))])
    for func, case in cases:
        ctx.check_unchanged(func, case)


@check("tinyrnn", "no_state")
def no_state(ctx):
    # shapes no other check uses: a cache keyed on shapes starts empty here
    a, b = ctx.cached("state", lambda rng: (loss_case(rng, 2, 7, 7, 2, 5, lens=[7, 5]),
                                            loss_case(rng, 2, 7, 7, 2, 5, lens=[7, 5])))
    ctx.check_no_state(LOSS, a, b, "(loss, grads)")


# ------------------------------------------------------------------ counterexample search

def _array(draw, *shape):
    n = int(np.prod(shape)) if shape else 1
    return np.array(draw(lists(sampled_from(VALUES), min_size=n, max_size=n)), dtype=np.float64).reshape(shape)


def _ids(draw, B, T, V):
    return np.array(draw(lists(integers(0, V - 1), min_size=B * T, max_size=B * T)), dtype=np.int64).reshape(B, T)


def _model(draw, V, d, H):
    return {"E": _array(draw, V, d), "W_x": _array(draw, d, H), "W_h": _array(draw, H, H), "b": _array(draw, H),
            "W_o": _array(draw, H, V), "b_o": _array(draw, V)}


def _sizes(draw):
    return {k: draw(integers(lo, hi)) for k, (lo, hi) in {"B": (1, 2), "T": (1, 3), "V": (2, 3), "d": (1, 2),
                                                          "H": (1, 2)}.items()}


@builder
def embed_builder(draw):
    n = _sizes(draw)
    return Case((_ids(draw, n["B"], n["T"], n["V"]), _array(draw, n["V"], n["d"])))


@builder
def forward_builder(draw):
    n = _sizes(draw)
    # h0 last: a start state given or not (CONTRACT: h0=None means zeros), so a model that
    # ignores or mishandles it can be shown on a small case.
    return Case((_ids(draw, n["B"], n["T"], n["V"]), _model(draw, n["V"], n["d"], n["H"])),
                maybe_h0(draw, n["B"], n["H"]))


@builder
def loss_builder(draw):
    n = _sizes(draw)
    B, T, V = n["B"], n["T"], n["V"]
    lengths = np.array(draw(lists(integers(0, T), min_size=B, max_size=B)), dtype=np.int64)
    return Case((_ids(draw, B, T, V), _ids(draw, B, T, V), lengths, _model(draw, V, n["d"], n["H"])),
                maybe_h0(draw, B, n["H"]))


@builder
def step_builder(draw):
    n = _sizes(draw)
    params = _model(draw, n["V"], n["d"], n["H"])
    grads = {"d" + k: _array(draw, *v.shape) for k, v in params.items()}
    max_norm = draw(sampled_from((None, 1.0, 0.5)))
    return Case((params, grads, draw(sampled_from((1.0, 0.5)))), {} if max_norm is None else {"max_norm": max_norm})


def _u_along(params, prefix, n_max, stop, temperature, picks):
    """A ``u`` under which the reference samples ``picks`` (step by step, an id whose
    probability is under 1e-3 gives way to the most likely one): each ``u[k]`` is the middle
    of its id's interval of the cumulative ``p``, at least half that probability from every
    partial sum, so implementations that differ in the last bits of ``p`` pick the same ids."""
    h = np.zeros(params["W_h"].shape[0])

    def step(token, h):
        return np.tanh(params["E"][token] @ params["W_x"] + h @ params["W_h"] + params["b"])

    for token in prefix:
        h = step(token, h)
    u = []
    for pick in picks:
        p = _softmax((h @ params["W_o"] + params["b_o"]) / temperature)
        pick = pick if p[pick] >= 1e-3 else int(np.argmax(p))
        sums = np.cumsum(p)
        u.append(float((sums[pick] + (sums[pick - 1] if pick else 0.0)) / 2))
        if pick == stop:
            break
        h = step(pick, h)
    return np.array(u + [0.5] * (n_max - len(u)))


@builder
def sample_builder(draw):
    """Greedy sampling first (temperature 0, the simplest), then above it with a ``u`` that
    picks ids drawn like any other choice."""
    n = _sizes(draw)
    V = n["V"]
    params = _model(draw, V, n["d"], n["H"])
    prefix = draw(lists(integers(0, V - 1), min_size=1, max_size=2))
    n_max, stop = draw(integers(0, 3)), draw(integers(0, V - 1))
    temperature = draw(sampled_from((0.0, 1.0, 0.5, 2.0)))
    if temperature == 0:
        return Case((params, prefix, n_max, stop), {"temperature": 0.0})
    picks = draw(lists(integers(0, V - 1), min_size=n_max, max_size=n_max))
    return Case((params, prefix, n_max, stop),
                {"temperature": temperature, "u": _u_along(params, prefix, n_max, stop, temperature, picks)})


BUILDERS = {EMBED: embed_builder(), FORWARD: forward_builder(), LOSS: loss_builder(), STEP: step_builder(),
            SAMPLE: sample_builder()}
ARG_NAMES = {EMBED: ("tokens", "E"), FORWARD: ("tokens", "params"), LOSS: ("tokens", "targets", "lengths", "params"),
             STEP: ("params", "grads", "lr"), SAMPLE: ("params", "prefix", "n_max", "stop_token")}
RESULT_NAMES = {FORWARD: "(logits, Hs)", LOSS: "(loss, grads)"}
