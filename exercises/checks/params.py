"""Checks of ``count_rnn_params``: a plain RNN stack's parameter count."""

from __future__ import annotations

from grader.checks import Case, Fail, check, describe_case

F = "count_rnn_params"


def kw_case(**kwargs):
    return Case((), kwargs, label=", ".join(f"{k}={v}" for k, v in kwargs.items()))


def compare_cases(ctx, tag, cases):
    ctx.check_reference(tag, F, lambda rng: cases, "count")


@check("params", "chapter_examples")
def chapter_examples(ctx):
    compare_cases(ctx, "seed", [Case((3, 4), label="input_size=3, hidden_size=4"),
                                kw_case(input_size=3, hidden_size=4, output_size=2),
                                Case((10, 8, 5), label="input_size=10, hidden_size=8, output_size=5")])


@check("params", "double_bias")
def double_bias(ctx):
    compare_cases(ctx, "double", [kw_case(input_size=3, hidden_size=4, double_bias=True),
                                  kw_case(input_size=5, hidden_size=2, output_size=3, double_bias=True)])


@check("params", "multi_layer")
def multi_layer(ctx):
    compare_cases(ctx, "layers", [kw_case(input_size=3, hidden_size=4, num_layers=2),
                                  kw_case(input_size=7, hidden_size=5, num_layers=3, output_size=2)])


@check("params", "bidirectional")
def bidirectional(ctx):
    compare_cases(ctx, "bidirectional", [kw_case(input_size=3, hidden_size=4, bidirectional=True),
                                         kw_case(input_size=3, hidden_size=4, bidirectional=True, output_size=2),
                                         kw_case(input_size=5, hidden_size=3, num_layers=2, bidirectional=True)])


@check("params", "all_options")
def all_options(ctx):
    def build(rng):
        # Every option is drawn, but each combination of double_bias and bidirectional, with one
        # and with several layers, comes up once: whatever the seed, no option goes untested.
        cases = []
        for i in range(8):
            d, h = (int(v) for v in rng.integers(1, 9, size=2))
            output = 0 if i % 3 == 0 else 1 if i == 1 else int(rng.integers(2, 8))   # a head of 1 is a head
            cases.append(kw_case(input_size=d, hidden_size=h, output_size=output,
                                 num_layers=int(rng.integers(2, 5)) if i & 4 else 1,
                                 bidirectional=bool(i & 2), double_bias=bool(i & 1)))
        return [cases[i] for i in rng.permutation(len(cases))]
    def build_with_large(rng):
        # large layers: a count past 2**31 (hidden_size**2 alone is) must not overflow a fixed-width integer
        return build(rng) + [kw_case(input_size=int(rng.integers(50, 200)),
                                     hidden_size=int(rng.integers(47000, 60000))),
                             kw_case(input_size=int(rng.integers(2048, 8192)),
                                     hidden_size=int(rng.integers(6144, 10240)),
                                     num_layers=4, bidirectional=True)]
    ctx.check_reference("random", F, build_with_large, "count")


@check("params", "returns_int")
def returns_int(ctx):
    case = ctx.cached("int", lambda rng: kw_case(input_size=3, hidden_size=4, output_size=2, num_layers=2,
                                                  bidirectional=True))
    got = ctx.call(F, case)
    if type(got) is not int:
        raise Fail("prop.not_int", name=F, got=ctx.last_type, case=describe_case(case))
