"""Check the RNN step equation for meaning, not spelling.

The student's text is tokenised and parsed by a small recursive-descent
parser (no ``eval``, no computer algebra) into a tiny expression tree, which
is then evaluated with NumPy on fixed random matrices for each accepted
convention:

* row vectors:     ``tanh(x_t W_x + h_{t-1} W_h + b)``  x (B,d), h (B,H), W_x (d,H)
* column vectors:  ``tanh(W_h h_{t-1} + W_x x_t + b)``  x (d,)/(d,1), h (H,)/(H,1), W_x (H,d)
* row vectors with column-shaped weights (the form in PyTorch's documentation):
  ``tanh(x_t W_x^T + h_{t-1} W_h^T + b)``  (switch off with ``ACCEPT_TRANSPOSED_FORM``)

Shapes use B=3, d=4, H=5 (so that shape errors show up) and a square d == H
case (so that swapped weights give numbers, not errors). The answer is right
when it matches one convention's reference in every trial.

When it is wrong, the verdict says why: by inspecting the symbols (``h_t`` on
the right, a missing term or bias, an unknown or ambiguous name) or by
"repairing" the tree (swap ``W_x``/``W_h``, drop transposes, flip the order of
some products, put ``tanh`` around everything) and checking whether the
repaired expression becomes right.

``check_equation`` never raises; every failure becomes a verdict whose
``message`` is a key of ``grader/locales/<lang>/quiz.yaml``.
"""

from __future__ import annotations

import itertools
import re
import unicodedata
from dataclasses import dataclass, field

import numpy as np

__all__ = ["EquationVerdict", "check_equation", "MAX_LENGTH", "MESSAGE_KEYS"]

MAX_LENGTH = 500        # characters of student text we look at
MAX_DEPTH = 40          # nesting depth of the parser
MAX_TOKENS = 300
MAX_FLIPS = 6           # products considered by the "mixed conventions" repair
ACCEPT_TRANSPOSED_FORM = True
_ECHO = 30              # characters of student text echoed in params

MESSAGE_KEYS = (
    "equation.ok",
    "equation.empty",
    "equation.not_text",
    "equation.too_long",
    "equation.unparsable",
    "equation.unknown_symbol",
    "equation.ambiguous_symbol",
    "equation.unknown_function",
    "equation.wrong_lhs",
    "equation.uses_h_t",
    "equation.missing_term",
    "equation.missing_bias",
    "equation.swapped_weights",
    "equation.transposed",
    "equation.mixed_conventions",
    "equation.wrong_activation",
    "equation.no_activation",
    "equation.activation_placement",
    "equation.shape_error",
    "equation.wrong",
)


@dataclass(frozen=True)
class EquationVerdict:
    ok: bool
    message: str
    params: dict = field(default_factory=dict)


class _ParseError(Exception):
    def __init__(self, pos: int, what: str = ""):
        super().__init__(what)
        self.pos = pos


def _echo(text: str, limit: int = _ECHO) -> str:
    text = str(text)
    return text if len(text) <= limit else text[: limit - 1] + "…"


# --------------------------------------------------------------------------
# 1. Normalisation of Unicode and LaTeX into a small plain-text dialect
# --------------------------------------------------------------------------

_SUBSCRIPT = dict(zip("₀₁₂₃₄₅₆₇₈₉₊₋₌₍₎ₐₑₒₓₕₖₗₘₙₚₛₜᵢⱼᵣᵤᵥ",
                      "0123456789+-=()aeoxhklmnpstijruv"))
_SUPERSCRIPT = dict(zip("⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁼⁽⁾ᵗᵀⁿⁱ",
                        "0123456789+-=()tTni"))

_CHAR_MAP = {
    "−": "-", "–": "-", "—": "-", "‐": "-", "‑": "-", "‒": "-", "﹣": "-",
    "·": "*", "⋅": "*", "∙": "*", "•": "*", "×": "*", "∗": "*", "✕": "*",
    "⊙": "⊙", "∘": "⊙",
    "←": "=", "≔": "=",
    "【": "[", "】": "]", "〔": "(", "〕": ")",
    "ϕ": "φ",
    "\u200b": "", "\ufeff": "",
}

_STYLE_CMDS = (r"mathbf|boldsymbol|bm|pmb|mathrm|mathit|mathsf|mathnormal|mathtt|"
               r"operatorname\*?|text|textbf|textrm|textit|textsf|textup|mbox|vb|"
               r"mathbfit|symbf|symit|symrm")
_STYLE_BRACE_RE = re.compile(r"\\(?:%s)\s*\{" % _STYLE_CMDS)
_STYLE_BARE_RE = re.compile(r"\\(?:%s)(?![A-Za-z])\s*" % _STYLE_CMDS)
_SIZE_RE = re.compile(r"\\(?:left|right|bigl|bigr|bigm|Bigl|Bigr|Bigm|biggl|biggr|"
                      r"Biggl|Biggr|big|Big|bigg|Bigg)(?![A-Za-z])\s*")
_PY_PREFIX_RE = re.compile(
    r"(?<![A-Za-z0-9_])(?:np|numpy|torch|math|jnp|jax|tf|nn|functional|F|special|scipy)\s*\.\s*(?=[A-Za-z])")


def _unicode_scripts(text: str) -> str:
    """Turn runs of sub/superscript characters into ``_{..}`` / ``^{..}``."""
    out = []
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch in _SUBSCRIPT:
            j = i
            while j < n and text[j] in _SUBSCRIPT:
                j += 1
            run = "".join(_SUBSCRIPT[c] for c in text[i:j])
            out.append(("{%s}" if out and out[-1].endswith("_") else "_{%s}") % run)
            i = j
        elif ch in _SUPERSCRIPT:
            j = i
            while j < n and text[j] in _SUPERSCRIPT:
                j += 1
            run = "".join(_SUPERSCRIPT[c] for c in text[i:j])
            out.append("^T" if run == "T" else "^{%s}" % run)
            i = j
        elif ch == "⊤":
            out.append("T" if out and out[-1].endswith("^") else "^T")
            i += 1
        else:
            out.append(ch)
            i += 1
    return "".join(out)


def _strip_style_commands(text: str) -> str:
    """``\\mathbf{W}_{x}`` -> ``W_{x}``; ``\\text{prev}`` -> ``prev``."""
    for _ in range(50):
        m = _STYLE_BRACE_RE.search(text)
        if not m:
            break
        start, k, depth = m.start(), m.end(), 1
        while k < len(text) and depth:
            if text[k] == "{":
                depth += 1
            elif text[k] == "}":
                depth -= 1
            k += 1
        if depth:  # unbalanced: drop the command, keep the brace
            text = text[:start] + text[m.end() - 1:]
            continue
        text = text[:start] + text[m.end():k - 1] + text[k:]
    return _STYLE_BARE_RE.sub("", text)


def _normalise(text: str) -> str:
    text = _unicode_scripts(text)
    text = unicodedata.normalize("NFKC", text)
    text = "".join(_CHAR_MAP.get(c, c) for c in text)
    text = text.replace(":=", "=").replace("$", "")
    text = text.replace("\\\\", " ")
    text = _strip_style_commands(text)
    text = re.sub(r"\\(?:left|right)\s*\.", " ", text)
    text = _SIZE_RE.sub("", text)
    text = re.sub(r"\\[,;:! ]", " ", text)
    text = re.sub(r"\\(?:quad|qquad)(?![A-Za-z])", " ", text)
    text = re.sub(r"\\(?:cdot|cdotp|times|ast|bullet)(?![A-Za-z])", "*", text)
    text = re.sub(r"\\(?:odot|circ)(?![A-Za-z])", "⊙", text)
    text = re.sub(r"\\(?:top|intercal|mathsf\{T\})(?![A-Za-z])", "T", text)
    text = re.sub(r"\\(?:varphi|phi)(?![A-Za-z])", " φ", text)
    text = re.sub(r"\\sigma(?![A-Za-z])", " σ", text)
    text = re.sub(r"\\[{]", "(", text)
    text = re.sub(r"\\[}]", ")", text)
    text = re.sub(r"\\[\[\]()]", " ", text)          # \[ \] \( \) math delimiters
    text = re.sub(r"\\([A-Za-z]+)", r" \1", text)     # \tanh, \exp, unknown commands
    text = text.replace("\\", " ").replace("&", " ").replace("~", " ")
    text = _PY_PREFIX_RE.sub("", text)
    text = _PY_PREFIX_RE.sub("", text)               # torch.nn.functional.
    return text


# --------------------------------------------------------------------------
# 2. Tokeniser
# --------------------------------------------------------------------------

_TIME_RE = re.compile(r"^\s*(t\s*[-+]\s*1|t|prev|previous)\s*$")
_NUMBER_RE = re.compile(r"(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?")
_CLOSE = {"(": ")", "[": "]", "{": "}"}
_OPS = set("+-*@/⊙=,")


def _is_letter(c: str) -> bool:
    return ("a" <= c <= "z") or ("A" <= c <= "Z")


def _is_greek(c: str) -> bool:
    return "\u0370" <= c <= "\u03ff"


def _balanced(s: str, i: int) -> int:
    """s[i] is an opening bracket; return the index after its match."""
    stack = [_CLOSE[s[i]]]
    k = i + 1
    while k < len(s):
        c = s[k]
        if c in _CLOSE:
            stack.append(_CLOSE[c])
            if len(stack) > MAX_DEPTH:
                raise _ParseError(k)
        elif c in ")]}":
            if c != stack[-1]:
                raise _ParseError(k)
            stack.pop()
            if not stack:
                return k + 1
        k += 1
    raise _ParseError(i)


def _canon(name: str) -> str:
    return re.sub(r"[\s_{}()\[\]]", "", name.lower())


def _time_extension(s: str, j: int) -> int:
    """``h_t-1`` (no spaces) means h_{t-1}: return the end of ``-1``/``+1``."""
    if s[j:j + 2] in ("-1", "+1") and not (j + 2 < len(s) and (s[j + 2].isdigit() or s[j + 2] == ".")):
        return j + 2
    return j


def _lex_identifier(s: str, i: int):
    """Read a name with its subscript / time index; return (raw, canon, end)."""
    n = len(s)
    if _is_greek(s[i]):
        j = i + 1
    else:
        j = i
        while j < n and _is_letter(s[j]):
            j += 1
        while j < n and s[j].isdigit():
            j += 1
    base = s[i:j]
    sub = ""
    if j < n and s[j] == "_":
        k = j + 1
        if k < n and s[k] in "{([":
            end = _balanced(s, k)
            sub = s[k + 1:end - 1]
            j = end
        else:
            e = k
            while e < n and (s[e].isalnum() and s[e].isascii()):
                e += 1
            if e == k:
                raise _ParseError(j, "empty subscript")
            if e - k > 1 and e < n and s[e] == "_":
                e -= 1                      # x_tW_x: the W starts a new name
            elif s[k:e].lower() == "t":
                e = _time_extension(s, e)   # h_t-1
            sub = s[k:e]
            j = e
    elif base.lower() in ("h", "x") and j < n and s[j] in "([":
        end = _balanced(s, j)
        if _TIME_RE.match(s[j + 1:end - 1]):  # h(t-1), x[t]
            sub = s[j + 1:end - 1]
            j = end
    elif base.lower() in ("ht", "xt"):
        j = _time_extension(s, j)           # ht-1
        sub = s[i + len(base):j]
    # Goodfellow style h^{(t-1)}, h^{t-1}, h^(t)
    if j < n and s[j] == "^" and j + 1 < n and s[j + 1] in "{(":
        end = _balanced(s, j + 1)
        inner = s[j + 2:end - 1].strip()
        if inner[:1] == "(" and inner[-1:] == ")":
            inner = inner[1:-1]
        if _TIME_RE.match(inner):
            sub = (sub + inner) if sub else inner
            j = end
    raw = s[i:j]
    return raw, _canon(base + sub), j


def _tokenise(s: str):
    toks = []
    i, n = 0, len(s)
    while i < n:
        c = s[i]
        if c.isspace():
            i += 1
            continue
        if len(toks) > MAX_TOKENS:
            raise _ParseError(i, "too many tokens")
        if _is_letter(c) or _is_greek(c):
            raw, canon, j = _lex_identifier(s, i)
            toks.append(("id", (raw, canon), i))
            i = j
        elif c.isdigit() or (c == "." and i + 1 < n and s[i + 1].isdigit()):
            m = _NUMBER_RE.match(s, i)
            if not m or len(m.group()) > 30:
                raise _ParseError(i)
            toks.append(("num", float(m.group()), i))
            i = m.end()
        elif c == "." and s[i + 1:i + 2] == "T" and not (i + 2 < n and (s[i + 2].isalnum() or s[i + 2] == "_")):
            toks.append(("T", None, i))
            i += 2
        elif c == "^":
            m = re.match(r"\^\s*(?:T|\{\s*T\s*\})(?![A-Za-z0-9_])", s[i:])
            if not m:
                raise _ParseError(i, "^")
            toks.append(("T", None, i))
            i += m.end()
        elif c in "([{":
            toks.append(("lp", c, i))
            i += 1
        elif c in ")]}":
            toks.append(("rp", c, i))
            i += 1
        elif c in _OPS:
            toks.append(("op", c, i))
            i += 1
        else:
            raise _ParseError(i, c)
    toks.append(("end", None, n))
    return toks


# --------------------------------------------------------------------------
# 3. Parser -> tree of tuples
#   ("num", v) ("sym", canon, raw) ("sum", [(sign, node)]) ("prod", [(op, node)])
#   ("neg", node) ("T", node) ("call", fname, [args], raw)
# --------------------------------------------------------------------------

_FUNCTIONS = {
    "tanh": "tanh", "φ": "tanh", "phi": "tanh", "varphi": "tanh",
    "sigmoid": "sigmoid", "σ": "sigmoid", "sigma": "sigmoid", "sigm": "sigmoid",
    "logistic": "sigmoid", "expit": "sigmoid",
    "relu": "relu", "exp": "exp", "softmax": "softmax",
    "dot": "matmul", "matmul": "matmul", "mm": "matmul",
}
_ACTIVATIONS = {"tanh", "sigmoid", "relu", "exp", "softmax"}


class _Parser:
    def __init__(self, toks, symbols):
        self.toks = toks
        self.i = 0
        self.depth = 0
        self.symbols = symbols   # canon names that are symbols (known or ambiguous)

    def peek(self, k=0):
        return self.toks[min(self.i + k, len(self.toks) - 1)]

    def take(self):
        tok = self.toks[self.i]
        self.i += 1
        return tok

    def fail(self):
        raise _ParseError(self.peek()[2])

    def enter(self):
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise _ParseError(self.peek()[2], "too deep")

    def equation(self):
        first = self.expr()
        lhs = None
        if self.peek()[0] == "op" and self.peek()[1] == "=":
            self.take()
            lhs, first = first, self.expr()
        if self.peek()[0] != "end":
            self.fail()
        return lhs, first

    def expr(self):
        self.enter()
        terms = [(1, self.term())]
        while self.peek()[0] == "op" and self.peek()[1] in "+-":
            sign = 1 if self.take()[1] == "+" else -1
            terms.append((sign, self.term()))
        self.depth -= 1
        if len(terms) == 1:
            return terms[0][1]
        return ("sum", terms)

    def _starts_factor(self):
        kind = self.peek()[0]
        return kind in ("num", "id", "lp")

    def term(self):
        factors = [("mm", self.unary())]
        while True:
            kind, val, _ = self.peek()
            if kind == "op" and val in "*@/⊙":
                self.take()
                op = {"*": "mm", "@": "mm", "/": "div", "⊙": "had"}[val]
                factors.append((op, self.unary()))
            elif self._starts_factor():
                factors.append(("mm", self.postfix()))
            else:
                break
        if len(factors) == 1:
            return factors[0][1]
        return ("prod", factors)

    def unary(self):
        kind, val, _ = self.peek()
        if kind == "op" and val in "+-":
            self.take()
            self.enter()
            node = self.unary()
            self.depth -= 1
            return ("neg", node) if val == "-" else node
        return self.postfix()

    def postfix(self):
        node = self.primary()
        while self.peek()[0] == "T":
            self.take()
            node = ("T", node)
        return node

    def primary(self):
        self.enter()
        kind, val, pos = self.take()
        if kind == "num":
            node = ("num", val)
        elif kind == "lp":
            node = self.expr()
            close = self.take()
            if close[0] != "rp" or close[1] != _CLOSE[val]:
                raise _ParseError(close[2])
        elif kind == "id":
            raw, canon = val
            fname = _FUNCTIONS.get(canon)
            if fname is None and canon not in self.symbols:
                base = re.match(r"[A-Za-z]+|.", raw).group().lower()
                fname = _FUNCTIONS.get(base) if base != canon else None
            unknown_call = (fname is None and canon not in self.symbols
                            and self.peek()[0] == "lp" and self.peek()[1] == "("
                            and re.fullmatch(r"[a-z]+|[\u0370-\u03ff]", raw) is not None)
            if fname is not None or unknown_call:
                if self.peek()[0] != "lp":
                    self.fail()          # a function needs parentheses
                open_ = self.take()[1]
                args = [self.expr()]
                while self.peek()[0] == "op" and self.peek()[1] == ",":
                    self.take()
                    args.append(self.expr())
                close = self.take()
                if close[0] != "rp" or close[1] != _CLOSE[open_]:
                    raise _ParseError(close[2])
                node = ("call", fname or "?", args, raw)
            else:
                node = ("sym", canon, raw)
        else:
            raise _ParseError(pos)
        self.depth -= 1
        return node


# --------------------------------------------------------------------------
# 4. Symbols
# --------------------------------------------------------------------------

_X, _HP, _HT, _WX, _WH, _B, _BI, _BH = "x", "hp", "ht", "wx", "wh", "b", "bi", "bh"

_ROLE = {
    "x": _X, "xt": _X,
    "ht-1": _HP, "hprev": _HP, "hprevious": _HP, "htm1": _HP,
    "ht": _HT,
    "wx": _WX, "wxh": _WX, "wih": _WX, "whx": _WX, "win": _WX,
    "wh": _WH, "whh": _WH,
}
_BIAS_OTHER = {"b", "bh", "bhh", "bias"}
_BIAS_INPUT = {"bx", "bxh", "bih", "bi", "bin", "bhx"}
_AMBIGUOUS = {"w", "u", "v", "h", "hs", "ws"}
_LHS_OK = {"ht", "h", "hnew", "hnext", "ht+1"}
_SYMBOL_NAMES = set(_ROLE) | _BIAS_OTHER | _BIAS_INPUT | _AMBIGUOUS | _LHS_OK | {"xt+1"}

_DISPLAY = {_X: "x_t", _HP: "h_{t-1}", _WX: "W_x", _WH: "W_h"}


def _walk(node):
    yield node
    kind = node[0]
    if kind == "sum" or kind == "prod":
        for _, child in node[1]:
            yield from _walk(child)
    elif kind in ("neg", "T"):
        yield from _walk(node[1])
    elif kind == "call":
        for arg in node[2]:
            yield from _walk(arg)


def _map(node, fn):
    """Rebuild the tree bottom-up, applying fn to every node."""
    kind = node[0]
    if kind in ("sum", "prod"):
        node = (kind, [(op, _map(child, fn)) for op, child in node[1]])
    elif kind in ("neg", "T"):
        node = (kind, _map(node[1], fn))
    elif kind == "call":
        node = ("call", node[1], [_map(a, fn) for a in node[2]], node[3])
    return fn(node)


def _resolve(rhs, lhs_canon):
    """Replace sym canon names by roles; return (tree, problem or None)."""
    names = {n[1] for n in _walk(rhs) if n[0] == "sym"}
    roles = dict(_ROLE)
    if lhs_canon == "ht+1":
        roles.update({"ht": _HP, "ht+1": _HT, "xt+1": _X})
    if lhs_canon in ("h", "hnew", "hnext"):
        roles["h"] = _HP
    two_biases = bool(names & _BIAS_INPUT) and bool(names & _BIAS_OTHER)
    for name in _BIAS_OTHER:
        roles[name] = _BH if two_biases else _B
    for name in _BIAS_INPUT:
        roles[name] = _BI if two_biases else _B

    for node in _walk(rhs):
        if node[0] == "call" and node[1] == "?":
            return None, ("equation.unknown_function", {"name": _echo(node[3])})
    for node in _walk(rhs):
        if node[0] == "sym" and node[1] not in roles:
            key = "equation.ambiguous_symbol" if node[1] in _AMBIGUOUS else "equation.unknown_symbol"
            return None, (key, {"symbol": _echo(node[2])})

    def fn(node):
        if node[0] == "sym":
            return ("sym", roles[node[1]], node[2])
        return node

    return _map(rhs, fn), None


# --------------------------------------------------------------------------
# 5. Numeric evaluation
# --------------------------------------------------------------------------

def _sigmoid(z):
    return 1.0 / (1.0 + np.exp(-z))


def _softmax(z):
    z = z - np.max(z, axis=-1, keepdims=True)
    e = np.exp(z)
    return e / np.sum(e, axis=-1, keepdims=True)


_UNARY = {"tanh": np.tanh, "sigmoid": _sigmoid, "relu": lambda z: np.maximum(z, 0.0),
          "exp": np.exp, "softmax": _softmax}


def _mm(a, b):
    if a.ndim == 0 or b.ndim == 0:
        return a * b
    return np.matmul(a, b)


def _eval(node, env):
    kind = node[0]
    if kind == "num":
        return np.asarray(node[1], dtype=float)
    if kind == "sym":
        return env[node[1]]
    if kind == "sum":
        acc = None
        for sign, child in node[1]:
            v = _eval(child, env)
            v = v if sign > 0 else -v
            acc = v if acc is None else acc + v
        return acc
    if kind == "prod":
        acc = None
        for op, child in node[1]:
            v = _eval(child, env)
            if acc is None:
                acc = v
            elif op == "mm":
                acc = _mm(acc, v)
            elif op == "had":
                acc = acc * v
            else:
                acc = acc / v
        return acc
    if kind == "neg":
        return -_eval(node[1], env)
    if kind == "T":
        v = _eval(node[1], env)
        return np.swapaxes(v, -1, -2) if v.ndim >= 2 else v
    if kind == "call":
        args = [_eval(a, env) for a in node[2]]
        if node[1] == "matmul":
            if len(args) != 2:
                raise ValueError("matmul takes two arguments")
            return _mm(args[0], args[1])
        if len(args) != 1:
            raise ValueError("one argument expected")
        return _UNARY[node[1]](args[0])
    raise ValueError(kind)


def _make_trials():
    rng = np.random.default_rng(20240531)

    def r(*shape):
        return rng.normal(0.0, 0.6, shape)

    conventions = {}
    row = []
    for B, d, H in ((3, 4, 5), (3, 5, 5)):
        bi, bh = r(H), r(H)
        env = {_X: r(B, d), _HP: r(B, H), _HT: r(B, H), _WX: r(d, H), _WH: r(H, H),
               _BI: bi, _BH: bh, _B: bi + bh}
        ref = np.tanh(env[_X] @ env[_WX] + env[_HP] @ env[_WH] + env[_B])
        row.append((env, ref))
    conventions["row"] = row

    col = []
    for d, H, two_d in ((4, 5, False), (5, 5, False), (4, 5, True)):
        vec = (lambda n: r(n, 1)) if two_d else (lambda n: r(n))
        bi, bh = vec(H), vec(H)
        env = {_X: vec(d), _HP: vec(H), _HT: vec(H), _WX: r(H, d), _WH: r(H, H),
               _BI: bi, _BH: bh, _B: bi + bh}
        ref = np.tanh(env[_WH] @ env[_HP] + env[_WX] @ env[_X] + env[_B])
        col.append((env, ref))
    conventions["column"] = col

    if ACCEPT_TRANSPOSED_FORM:
        tr = []
        for B, d, H in ((3, 4, 5), (3, 5, 5)):
            bi, bh = r(H), r(H)
            env = {_X: r(B, d), _HP: r(B, H), _HT: r(B, H), _WX: r(H, d), _WH: r(H, H),
                   _BI: bi, _BH: bh, _B: bi + bh}
            ref = np.tanh(env[_X] @ env[_WX].T + env[_HP] @ env[_WH].T + env[_B])
            tr.append((env, ref))
        conventions["transposed"] = tr
    return conventions


_TRIALS = _make_trials()


def _status(tree):
    """{convention: 'match' | 'value' | 'shape'} for a resolved tree."""
    result = {}
    with np.errstate(all="ignore"):
        for name, trials in _TRIALS.items():
            status = "match"
            for env, ref in trials:
                try:
                    out = np.asarray(_eval(tree, env), dtype=float)
                except Exception:
                    status = "shape"
                    break
                if out.shape != ref.shape:
                    status = "shape"
                    break
                if not (np.all(np.isfinite(out)) and np.allclose(out, ref, rtol=1e-7, atol=1e-9)):
                    status = "value"
            result[name] = status
    return result


def _matches(tree) -> str | None:
    for name, status in _status(tree).items():
        if status == "match":
            return name
    return None


# --------------------------------------------------------------------------
# 6. Repairs used for the diagnosis
# --------------------------------------------------------------------------

def _swap_weights(tree):
    swap = {_WX: _WH, _WH: _WX}
    return _map(tree, lambda n: ("sym", swap.get(n[1], n[1]), n[2]) if n[0] == "sym" else n)


def _drop_transposes(tree):
    return _map(tree, lambda n: n[1] if n[0] == "T" else n)


def _strip_activations(tree):
    def fn(n):
        if n[0] == "call" and n[1] in _ACTIVATIONS and len(n[2]) == 1:
            return n[2][0]
        return n
    return ("call", "tanh", [_map(tree, fn)], "tanh")


def _flippable(node):
    return (node[0] == "prod" and all(op == "mm" for op, _ in node[1])
            and not any(child[0] == "num" for _, child in node[1]))


def _flip_variants(tree):
    count = sum(1 for n in _walk(tree) if _flippable(n))
    if count == 0 or count > MAX_FLIPS:
        return []
    variants = []
    for size in range(1, count if count > 1 else 2):   # proper subsets when count > 1
        for chosen in itertools.combinations(range(count), size):
            counter = [0]
            chosen_set = set(chosen)

            def fn(n, chosen_set=chosen_set, counter=counter):
                if _flippable(n):
                    index = counter[0]
                    counter[0] += 1
                    if index in chosen_set:
                        return ("prod", [("mm", child) for _, child in reversed(n[1])])
                return n
            # _map is bottom-up; number products in that same order
            variants.append(_map(tree, fn))
    return variants


def _activation_key(tree):
    acts = [n[1] for n in _walk(tree) if n[0] == "call" and n[1] in _ACTIVATIONS]
    if not acts:
        return "equation.no_activation"
    if any(a != "tanh" for a in acts):
        return "equation.wrong_activation"
    return "equation.activation_placement"


def _diagnose(tree):
    roles = {n[1] for n in _walk(tree) if n[0] == "sym"}
    if _HT in roles:
        return "equation.uses_h_t", {}
    missing = [_DISPLAY[r] for r in (_X, _HP, _WX, _WH) if r not in roles]
    if missing:
        return "equation.missing_term", {"missing": ", ".join(missing)}
    if not roles & {_B, _BI, _BH}:
        return "equation.missing_bias", {}

    # Each family maps a tree to the repaired trees it proposes.
    families = [
        ("equation.swapped_weights", lambda t: [_swap_weights(t)]),
        ("equation.transposed",
         lambda t: [_drop_transposes(t)] if any(n[0] == "T" for n in _walk(t)) else []),
        ("equation.mixed_conventions", _flip_variants),
        (_activation_key(tree), lambda t: [_strip_activations(t)]),
    ]
    for key, repair in families:
        if any(_matches(v) for v in repair(tree)):
            return key, {}
    # two repairs together: report the first (higher-priority) one
    for (key, first), (_, second) in itertools.combinations(families, 2):
        for v1 in first(tree):
            if any(_matches(v2) for v2 in second(v1)):
                return key, {}
    if all(s == "shape" for s in _status(tree).values()):
        return "equation.shape_error", {}
    return "equation.wrong", {}


# --------------------------------------------------------------------------
# 7. Entry point
# --------------------------------------------------------------------------

def _clean(text: str) -> str:
    text = text.strip().strip("`'\"“”‘’ \t\r\n")
    text = re.sub(r"[\s.。;；,，]+$", "", text)
    return text.strip()


def check_equation(text) -> EquationVerdict:
    try:
        return _check(text)
    except Exception:  # never raise: the student's text is hostile by default
        return EquationVerdict(False, "equation.unparsable", {"near": ""})


def _check(text) -> EquationVerdict:
    if not isinstance(text, str):
        return EquationVerdict(False, "equation.not_text", {})
    if len(text) > 4 * MAX_LENGTH:
        return EquationVerdict(False, "equation.too_long", {"limit": MAX_LENGTH})
    text = _clean(text)
    if not text:
        return EquationVerdict(False, "equation.empty", {})
    if len(text) > MAX_LENGTH:
        return EquationVerdict(False, "equation.too_long", {"limit": MAX_LENGTH})

    s = _normalise(text)
    try:
        toks = _tokenise(s)
        lhs, rhs = _Parser(toks, _SYMBOL_NAMES).equation()
    except (_ParseError, RecursionError) as err:
        pos = getattr(err, "pos", 0)
        return EquationVerdict(False, "equation.unparsable", {"near": _echo(s[pos:pos + 20].strip() or s[-20:], 20)})

    lhs_canon = None
    if lhs is not None:
        if lhs[0] != "sym" or lhs[1] not in _LHS_OK:
            shown = lhs[2] if lhs[0] == "sym" else text.split("=")[0].strip()
            return EquationVerdict(False, "equation.wrong_lhs", {"lhs": _echo(shown)})
        lhs_canon = lhs[1]

    tree, problem = _resolve(rhs, lhs_canon)
    if problem:
        return EquationVerdict(False, problem[0], problem[1])

    convention = _matches(tree)
    if convention:
        return EquationVerdict(True, "equation.ok", {"convention": convention})
    key, params = _diagnose(tree)
    return EquationVerdict(False, key, params)
