#!/usr/bin/env python3
"""The seams of a split grader (remote.hpp), from the linker's view of its objects.

A seam is a function the trusted objects call and do not define, that the worker side defines:
the engine and the course's student-callable code (ENGINE: libraries and objects), or the lab
(any `labNN::` function). For each one this writes a stub for the trusted side (its definition,
sending the call) and an entry of the worker's table (receiving it), both from the demangled
signature; the return type comes from the declaration the headers give. A C function (the CUDA
runtime's, whose symbol carries no signature) takes its parameter types from its declaration in
the C header given (--c-header). A seam that is not a plain function (a variable, a
constructor, a member function) stops the build, naming it: such a call needs a stub by hand
(trusted.cpp) or a change in the trusted code.

usage: seams.py --lab lab01 --header lab01.h --trusted OBJ... --engine LIB...
                [--c-header cuda_runtime_api.h] --stubs OUT.cpp --table OUT.cpp
"""
import argparse
import re
import subprocess
import sys


def symbols(files, *flags):
    """{mangled: type letter} of nm's listing of files (objects or archives)."""
    out = subprocess.run(["nm", "--no-sort", *flags, *files], capture_output=True, text=True,
                         check=True).stdout
    found = {}
    for line in out.splitlines():
        parts = line.split()
        if len(parts) >= 2 and len(parts[-2]) == 1:
            found[parts[-1]] = parts[-2]
    return found


def demangle(names):
    out = subprocess.run(["c++filt"], input="\n".join(names), capture_output=True, text=True,
                         check=True).stdout
    return dict(zip(names, out.splitlines()))


def split_top(text):
    """Splits a parameter list at its top-level commas."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch in "<([":
            depth += 1
        elif ch in ">)]":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(text[start:i].strip())
            start = i + 1
    if text.strip():
        parts.append(text[start:].strip())
    return parts


def parse(signature):
    """(qualified name, [parameter types]) of a demangled function signature, or None."""
    if signature.endswith(" const") or "(anonymous namespace)" in signature:
        return None
    depth = 0
    for i in range(len(signature) - 1, -1, -1):
        ch = signature[i]
        if ch == ")":
            depth += 1
        elif ch == "(":
            depth -= 1
            if depth == 0:
                name, params = signature[:i], signature[i + 1:-1]
                break
    else:
        return None
    if not re.fullmatch(r"[A-Za-z_][\w:]*", name):
        return None
    parts = name.split("::")
    if len(parts) >= 2 and parts[-1] == parts[-2]:
        return None  # a constructor
    params = split_top(params)
    if params == ["void"]:
        params = []
    return name, params


def c_declarations(header):
    """{name: [parameter types]} of the functions a C header declares (`... CUDARTAPI name(...)`),
    comments and default arguments (`__dv(0)`) left out, parameter names dropped."""
    if not header:
        return {}
    with open(header, errors="replace") as f:
        text = f.read()
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    text = re.sub(r"//[^\n]*", " ", text)
    found = {}
    for m in re.finditer(r"\bCUDARTAPI\s+(\w+)\s*\(([^;{]*?)\)\s*;", text):
        name, params = m.group(1), split_top(re.sub(r"__dv\([^)]*\)", "", m.group(2)))
        types = []
        for p in params:
            p = " ".join(p.split())
            named = re.fullmatch(r"(.*?[\s*&])\s*[A-Za-z_]\w*", p)
            types.append(re.sub(r"\s*([*&])", r"\1", (named.group(1) if named else p).strip()))
        found.setdefault(name, [] if types == ["void"] else types)
    return found


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--lab", required=True)
    ap.add_argument("--header", required=True)
    ap.add_argument("--trusted", nargs="+", required=True)
    ap.add_argument("--engine", nargs="+", required=True)
    ap.add_argument("--c-header", default="")
    ap.add_argument("--stubs", required=True)
    ap.add_argument("--table", required=True)
    a = ap.parse_args()

    undefined = symbols(a.trusted, "--undefined-only")
    defined = symbols(a.trusted, "--defined-only")
    engine = symbols(a.engine, "--defined-only")
    wanted = sorted(s for s in undefined if s not in defined)
    names = demangle(wanted)
    c_functions = c_declarations(a.c_header)
    lab_prefix = a.lab + "::"
    seams, refused = [], []
    for mangled in wanted:
        text = names[mangled]
        kind = engine.get(mangled)
        if kind is None and not text.startswith(lab_prefix):
            continue  # the system's libraries: the C and C++ libraries, Catch2
        parsed = parse(text) if kind is None or kind in "TtWw" else None
        if parsed is None and kind in ("T", "W") and mangled in c_functions:
            # A C function: its key and parameters as its header declares them.
            params = c_functions[mangled]
            parsed = (mangled, params)
            text = f"{mangled}({', '.join(params)})"
        if parsed is None:
            refused.append(text)
        else:
            seams.append((text, *parsed))
    if refused:
        sys.exit("seams.py: the trusted side of " + a.lab + " calls what cannot cross to the "
                 "worker:\n  " + "\n  ".join(refused) +
                 "\n(variables, constructors and member functions need a stub in "
                 "grading/worker/trusted.cpp, or the trusted code a change)")

    includes = f'#include "declarations.hpp"\n#include "{a.header}"\n\n#include <utility>\n'
    head = "// Generated by grading/worker/seams.py for " + a.lab + ": do not edit.\n"
    stubs, table, functions = [], [], []
    for i, (key, name, params) in enumerate(seams):
        typed = [f"histo_remote::type<{p}>" for p in params]
        result = f"R{i}"
        pointer = f"static_cast<{result} (*)({', '.join(typed)})>(&{name})"
        declvals = ", ".join(f"std::declval<{t}>()" for t in typed)
        formals = ", ".join(f"{t} a{j}" for j, t in enumerate(typed))
        using = f"using {result} = decltype({name}({declvals}));"
        call_args = "".join(f", a{j}" for j in range(len(params)))
        # A lab's helper of values only (no pointer, no reference): its replies are remembered.
        pure = name.startswith(lab_prefix) and not any(c in p for p in params for c in "*&")
        stubs.append(f"{using}\n{result} {name}({formals}) {{\n"
                     f"  return histo_remote::call<{pointer}{', true' if pure else ''}>"
                     f"(\"{key}\"{call_args});\n}}\n")
        table.append(f"{using}\n")
        functions.append((key, pointer))
    with open(a.stubs, "w") as f:
        f.write(head + includes + "\n" + "\n".join(stubs))
        f.write("\nnamespace histo_remote {\n")
        f.write("const std::unordered_map<void (*)(), const char*>& generated_keys() {\n"
                "  static const std::unordered_map<void (*)(), const char*> keys = {\n")
        for key, pointer in functions:
            f.write(f"      {{reinterpret_cast<void (*)()>({pointer}), \"{key}\"}},\n")
        f.write("  };\n  return keys;\n}\n}  // namespace histo_remote\n")
    with open(a.table, "w") as f:
        f.write(head + includes + "\n" + "".join(table))
        f.write("\nnamespace histo_remote {\n"
                "const std::unordered_map<std::string, Handler>& generated_handlers() {\n"
                "  static const std::unordered_map<std::string, Handler> table = {\n")
        for key, pointer in functions:
            f.write(f"      {{\"{key}\", serve<{pointer}>}},\n")
        f.write("  };\n  return table;\n}\n\n"
                "const std::unordered_map<std::string, void (*)()>& generated_functions() {\n"
                "  static const std::unordered_map<std::string, void (*)()> table = {\n")
        for key, pointer in functions:
            f.write(f"      {{\"{key}\", reinterpret_cast<void (*)()>({pointer})}},\n")
        f.write("  };\n  return table;\n}\n}  // namespace histo_remote\n")


if __name__ == "__main__":
    main()
