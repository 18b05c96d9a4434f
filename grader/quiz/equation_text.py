"""Read an equation written by a student: normalise, tokenise, parse.

Plain text, Unicode (sub- and superscripts, ``·``, ``−``) and LaTeX
(``\\tanh``, ``\\mathbf{W}_{h}``, ``h^{(t-1)}``) are first normalised into a
small plain dialect, then tokenised and parsed by a recursive-descent parser
(no ``eval``, no computer algebra) into a tree of tuples::

    ("num", v) ("sym", canon, raw) ("sum", [(sign, node)]) ("prod", [(op, node)])
    ("neg", node) ("T", node) ("call", fname, [args], raw)

Nothing here knows a course. What the names mean comes from the question's
``equation:`` mapping (grader/quiz/equation_spec.py): the lexer only asks whether a
spelling such as ``h(t-1)`` or ``ht-1`` is one of the course's names, and the
parser whether a name is a symbol or a function.
"""

from __future__ import annotations

import re
import unicodedata

MAX_DEPTH = 40          # nesting depth of the parser
MAX_TOKENS = 300
ECHO = 30               # characters of student text echoed in params


class ParseError(Exception):
    def __init__(self, pos: int, what: str = ""):
        super().__init__(what)
        self.pos = pos


def echo(text: str, limit: int = ECHO) -> str:
    text = str(text)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def canon(name: str) -> str:
    """The spelling-free form of a name: ``W_{hh}``, ``w_hh`` and ``Whh`` are one name."""
    return re.sub(r"[\s_{}()\[\]]", "", name.lower())





def clean(text: str) -> str:
    """Strip quotes, backticks and a final full stop around the student's text."""
    text = text.strip().strip("`'\"“”‘’ \t\r\n")
    text = re.sub(r"[\s.。;；,，]+$", "", text)
    return text.strip()


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


_GREEK = {"alpha": "α", "beta": "β", "gamma": "γ", "delta": "δ", "epsilon": "ε", "varepsilon": "ε",
          "zeta": "ζ", "eta": "η", "theta": "θ", "kappa": "κ", "lambda": "λ", "mu": "μ", "nu": "ν",
          "xi": "ξ", "pi": "π", "rho": "ρ", "sigma": "σ", "tau": "τ", "phi": "φ", "varphi": "φ",
          "chi": "χ", "psi": "ψ", "omega": "ω", "Sigma": "Σ", "Delta": "Δ", "Omega": "Ω"}
_GREEK_RE = re.compile(r"\\(%s)(?![A-Za-z])" % "|".join(sorted(_GREEK, key=len, reverse=True)))


_FRAC_RE = re.compile(r"\\[dt]?frac\s*\{")


def _expand_fractions(text: str) -> str:
    """``\\frac{a}{b}`` -> ``((a)/(b))``; an unbalanced one is left for the parser to refuse."""
    for _ in range(50):
        m = _FRAC_RE.search(text)
        if not m:
            break
        groups, k = [], m.end() - 1
        for _ in range(2):
            while k < len(text) and text[k].isspace():
                k += 1
            if k >= len(text) or text[k] != "{":
                return text
            depth, start = 0, k
            while k < len(text):
                depth += {"{": 1, "}": -1}.get(text[k], 0)
                k += 1
                if depth == 0:
                    break
            if depth:
                return text
            groups.append(text[start + 1:k - 1])
        text = text[:m.start()] + "((%s)/(%s))" % tuple(groups) + text[k:]
    return text


def normalise(text: str) -> str:
    text = _expand_fractions(text)
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
    text = _GREEK_RE.sub(lambda m: " " + _GREEK[m.group(1)], text)
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
                raise ParseError(k)
        elif c in ")]}":
            if c != stack[-1]:
                raise ParseError(k)
            stack.pop()
            if not stack:
                return k + 1
        k += 1
    raise ParseError(i)



def _time_extension(s: str, j: int) -> int:
    """``h_t-1`` (no spaces) means h_{t-1}: return the end of ``-1``/``+1``."""
    if s[j:j + 2] in ("-1", "+1") and not (j + 2 < len(s) and (s[j + 2].isdigit() or s[j + 2] == ".")):
        return j + 2
    return j


def _lex_identifier(s: str, i: int, names):
    """Read a name with its subscript / time index; return (raw, canon, end)."""
    n = len(s)
    if _is_greek(s[i]):
        j = i + 1
    else:
        j = i
        while j < n and _is_letter(s[j]):
            j += 1
        while j < n and unicodedata.category(s[j]) == "Mn":
            j += 1                          # x̄, ŷ: a combining accent belongs to its letter
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
                raise ParseError(j, "empty subscript")
            if e - k > 1 and e < n and s[e] == "_":
                e -= 1                      # x_tW_x: the W starts a new name
            elif s[k:e].lower() == "t":
                e = _time_extension(s, e)   # h_t-1
            sub = s[k:e]
            j = e
    elif j < n and s[j] in "([":
        end = _balanced(s, j)
        inner = s[j + 1:end - 1]
        if _TIME_RE.match(inner) and canon(base + inner) in names:  # h(t-1), x[t]
            sub = inner
            j = end
    elif base[-1:].lower() == "t" and canon(s[i:_time_extension(s, j)]) in names:
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
    return raw, canon(base + sub), j


def tokenise(s: str, names):
    toks = []
    i, n = 0, len(s)
    while i < n:
        c = s[i]
        if c.isspace():
            i += 1
            continue
        if len(toks) > MAX_TOKENS:
            raise ParseError(i, "too many tokens")
        if _is_letter(c) or _is_greek(c):
            raw, canon, j = _lex_identifier(s, i, names)
            toks.append(("id", (raw, canon), i))
            i = j
        elif c.isdigit() or (c == "." and i + 1 < n and s[i + 1].isdigit()):
            m = _NUMBER_RE.match(s, i)
            if not m or len(m.group()) > 30:
                raise ParseError(i)
            toks.append(("num", float(m.group()), i))
            i = m.end()
        elif c == "." and s[i + 1:i + 2] == "T" and not (i + 2 < n and (s[i + 2].isalnum() or s[i + 2] == "_")):
            toks.append(("T", None, i))
            i += 2
        elif c == "^":
            m = re.match(r"\^\s*(?:T|\{\s*T\s*\})(?![A-Za-z0-9_])", s[i:])
            if not m:
                raise ParseError(i, "^")
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
            raise ParseError(i, c)
    toks.append(("end", None, n))
    return toks



# --------------------------------------------------------------------------
# 3. Parser
# --------------------------------------------------------------------------

class Parser:
    def __init__(self, toks, symbols, functions):
        self.toks = toks
        self.i = 0
        self.depth = 0
        self.symbols = symbols       # canon names that are symbols (known or ambiguous)
        self.functions = functions   # canon name -> function of grader/quiz/equation_functions.py

    def peek(self, k=0):
        return self.toks[min(self.i + k, len(self.toks) - 1)]

    def take(self):
        tok = self.toks[self.i]
        self.i += 1
        return tok

    def fail(self):
        raise ParseError(self.peek()[2])

    def enter(self):
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise ParseError(self.peek()[2], "too deep")

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
                raise ParseError(close[2])
        elif kind == "id":
            raw, canon = val
            # a course's symbol wins over a function of the same name (σ may be a deviation)
            fname = None if canon in self.symbols else self.functions.get(canon)
            if fname is None and canon not in self.symbols:
                base = re.match(r"[A-Za-z]+|.", raw).group().lower()
                fname = self.functions.get(base) if base != canon else None
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
                    raise ParseError(close[2])
                node = ("call", fname or "?", args, raw)
            else:
                node = ("sym", canon, raw)
        else:
            raise ParseError(pos)
        self.depth -= 1
        return node


def parse(text: str, names, functions):
    """Normalised text -> (lhs or None, rhs); raises ParseError or RecursionError."""
    return Parser(tokenise(text, names), names, functions).equation()
