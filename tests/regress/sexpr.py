"""tests/regress/sexpr.py: one s-expression (rule text's term, a TENSAT side) as nested lists of
atoms, for the exchange checks (exchange_expressible.py, tensat_check.py)."""
import re


def parse(text):
    """Nested lists of atoms; ValueError unless text is exactly one term."""
    stack = [[]]
    for t in re.findall(r"\(|\)|[^\s()]+", text):
        if t == "(":
            stack.append([])
        elif t == ")":
            if len(stack) < 2:
                raise ValueError("unbalanced ')'")
            done = stack.pop()
            stack[-1].append(done)
        else:
            stack[-1].append(t)
    if len(stack) != 1 or len(stack[0]) != 1:
        raise ValueError("not one term")
    return stack[0][0]
