#!/usr/bin/env python3
"""tests/regress/check_house.py ROOT: the structure docs/DESIGN.md promises, checked.

- tools/ and bench/ include a module only through its public header <module>/<module>.h;
- a module includes another only through that one's public set (its umbrella header and the
  headers the umbrella includes);
- a module split into rooms (sub-folders <module>/<room>/ with a public <room>/<room>.h, as
  optimizer/) has a room include another only through that one's header, the rooms' includes
  form no circle (no include runs back up), and each room's header names every file of it;
- the top-level folders are exactly those of DESIGN.md's layout block;
- tools/ stays thin: under 2,000 lines;
- no function of the C sources (tests aside) is longer than 60 lines.
Prints each breach with file and line; exits 1 if there is any."""
import os
import re
import sys

ROOT = sys.argv[1] if len(sys.argv) > 1 else "."
MAX_FUNCTION_LINES = 60
MAX_TOOLS_LINES = 2000
failures = []


def sources(folder, exts=(".c", ".h")):
    base = os.path.join(ROOT, folder)
    for dirpath, dirnames, files in os.walk(base):
        dirnames[:] = [d for d in dirnames if not d.startswith(("build", "node_modules"))]
        for f in sorted(files):
            if f.endswith(exts):
                yield os.path.join(dirpath, f)


def layout_folders():
    text = open(os.path.join(ROOT, "docs/DESIGN.md")).read()
    block = text.split("## Layout", 1)[1].split("```")[1]
    return set(re.findall(r"(?:^|\s)([a-z]+)/\s{2,}", block, re.M))


def modules():
    return {d for d in os.listdir(ROOT) if os.path.exists(os.path.join(ROOT, d, d + ".h"))}


INCLUDE = re.compile(r'\s*#\s*include\s+"([a-z]+)/([a-z_0-9/]+)\.h"')


def check_public_includes(mods):
    for folder in ("tools", "bench"):
        for path in sources(folder):
            for n, line in enumerate(open(path), 1):
                m = INCLUDE.match(line)
                if m and m.group(1) in mods and m.group(2) != m.group(1):
                    failures.append(f"{path}:{n}: includes {m.group(1)}/{m.group(2)}.h, not the "
                                    f"public {m.group(1)}/{m.group(1)}.h")


def public_sets(mods):
    sets = {}
    for m in mods:
        text = open(os.path.join(ROOT, m, m + ".h")).read()
        sets[m] = set(re.findall(r'#include "(?:' + m + r'/)?([a-z_0-9/]+)\.h"', text)) | {m}
    return sets


def check_module_includes(mods):
    pub = public_sets(mods)
    for m in sorted(mods):
        for path in sources(m, (".c", ".h", ".cpp", ".inc")):
            for n, line in enumerate(open(path, errors="replace"), 1):
                g = INCLUDE.match(line)
                if g and g.group(1) != m and g.group(1) in pub and g.group(2) not in pub[g.group(1)]:
                    failures.append(f"{path}:{n}: includes {g.group(1)}/{g.group(2)}.h, private to "
                                    f"{g.group(1)}/ (its public set is what {g.group(1)}/{g.group(1)}.h includes)")


def rooms_of(mod):
    base = os.path.join(ROOT, mod)
    return sorted(d for d in os.listdir(base) if os.path.exists(os.path.join(base, d, d + ".h")))


def room_circle(edges):
    """A circle of rooms as a list (first == last), or None."""
    state = {}

    def visit(r, path):
        state[r] = 1
        for t in sorted(edges.get(r, ())):
            if state.get(t) == 1:
                return path[path.index(t):] + [t]
            if t not in state:
                found = visit(t, path + [t])
                if found:
                    return found
        state[r] = 2
        return None

    for r in sorted(edges):
        if r not in state:
            found = visit(r, [r])
            if found:
                return found
    return None


def check_room_includes(mod, rooms, edges):
    for room in rooms:
        for path in sources(os.path.join(mod, room), (".c", ".h", ".cpp", ".cu")):
            for n, line in enumerate(open(path, errors="replace"), 1):
                g = INCLUDE.match(line)
                if not g or g.group(1) != mod:
                    continue
                other, _, name = g.group(2).partition("/")
                if other == mod or not name:
                    failures.append(f"{path}:{n}: includes {mod}/{g.group(2)}.h: a room of {mod}/ "
                                    f"includes only the rooms below it, never the module's umbrella")
                elif other != room and (other not in rooms or name != other):
                    failures.append(f"{path}:{n}: includes {mod}/{g.group(2)}.h, not the public "
                                    f"{mod}/{other}/{other}.h")
                elif other != room:
                    edges.setdefault(room, set()).add(other)


def check_room_contents(mod, room):
    header = os.path.join(ROOT, mod, room, room + ".h")
    text = open(header, errors="replace").read()
    for f in sorted(os.listdir(os.path.dirname(header))):
        stem, ext = os.path.splitext(f)
        if ext in (".c", ".h", ".cpp", ".cu") and f != room + ".h" and not re.search(r"\b" + stem + r"\b", text):
            failures.append(f"{header}: does not name {f} (a room's header lists every file of it)")


def check_rooms(mods):
    for mod in sorted(mods):
        rooms = rooms_of(mod)
        edges = {}
        check_room_includes(mod, rooms, edges)
        for room in rooms:
            check_room_contents(mod, room)
        circle = room_circle(edges)
        if circle:
            failures.append(f"{mod}/: its rooms include each other in a circle: {' -> '.join(circle)}")


def check_layout():
    want = layout_folders()
    have = {d for d in os.listdir(ROOT) if os.path.isdir(os.path.join(ROOT, d))
            and not d.startswith((".", "build")) and d not in ("node_modules",)}
    for d in sorted(have - want):
        failures.append(f"{d}/: a folder docs/DESIGN.md's layout does not list")
    for d in sorted(want - have):
        failures.append(f"docs/DESIGN.md: the layout lists {d}/, which does not exist")


def strip(code):
    """Comments, strings and character literals blanked, newlines kept."""
    out, i, n = [], 0, len(code)
    while i < n:
        c = code[i]
        if code.startswith("/*", i):
            j = code.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", code[i:j]))
            i = j
        elif code.startswith("//", i):
            j = code.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif c in "\"'":
            j = i + 1
            while j < n and code[j] != c:
                j += 2 if code[j] == "\\" else 1
            out.append(c + re.sub(r"[^\n]", " ", code[i + 1:j]) + c)
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def check_function_lengths():
    for folder in sorted(os.listdir(ROOT)):
        if folder.startswith((".", "build")) or folder in ("tests", "models", "scripts"):
            continue
        if not os.path.isdir(os.path.join(ROOT, folder)):
            continue
        for path in sources(folder, (".c", ".inc")):
            lines = strip(open(path, errors="replace").read()).split("\n")
            depth, start, head, directive = 0, None, "", False
            for n, line in enumerate(lines, 1):
                in_directive = directive or line.lstrip().startswith("#")
                directive = in_directive and line.rstrip().endswith("\\")
                if in_directive:
                    continue
                if depth == 0:
                    if line.strip() and start is None:
                        start, head = n, ""
                    head += line
                for ch in line:
                    if ch == "{":
                        depth += 1
                    elif ch == "}":
                        depth -= 1
                if depth == 0 and start is not None and (line.rstrip().endswith(("}", ";"))):
                    is_function = "(" in head.split("{")[0] and "{" in head and "=" not in head.split("{")[0]
                    if is_function and n - start + 1 > MAX_FUNCTION_LINES:
                        name = re.findall(r"(\w+)\s*\(", head.split("{")[0])
                        failures.append(f"{path}:{start}: {name[0] if name else '?'} is {n - start + 1} lines "
                                        f"(at most {MAX_FUNCTION_LINES}: split it into named steps)")
                    start = None


def check_tools_size():
    total = sum(sum(1 for _ in open(p)) for p in sources("tools"))
    if total >= MAX_TOOLS_LINES:
        failures.append(f"tools/: {total} lines (under {MAX_TOOLS_LINES}: logic belongs in modules)")


check_public_includes(modules())
check_module_includes(modules())
check_rooms(modules())
check_layout()
check_tools_size()
check_function_lengths()
for f in failures:
    print(f)
print(f"check_house: {len(failures)} breaches")
sys.exit(1 if failures else 0)
