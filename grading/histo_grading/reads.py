"""What a submission may read at compile time, and what a student sees of a failed build.

The compiler itself lists the files it opened (its dependency output, so an #include through a
macro or behind __has_include counts): the submission, its lab's headers, common/include/histo/,
sim/include/, and system or CUDA Toolkit headers. Anything else (another lab's file, the build
tree, a file outside the course) fails as "includes a file it may not: <name>" before the real
build, so no compiler message can quote it. Embedding a file (.incbin in inline assembly, #embed)
fails the same way.
"""
import codecs
import json
import os
import re
import shlex
import shutil
import subprocess
from pathlib import Path

from .common import ROOT, within

HEADER_SUFFIXES = {".h", ".hpp", ".cuh"}
PREPROCESS_TIMEOUT = 120  # seconds for the preprocessor alone
PREPROCESS_MEMORY = 8 << 30  # bytes of address space for it
_system_dirs_cache = {}


def system_include_dirs(compiler):
    """The directories `compiler` searches for <...> headers (resolved)."""
    if compiler not in _system_dirs_cache:
        dirs = []
        try:
            out = subprocess.run([compiler, "-E", "-x", "c++", "-", "-v"], input="", capture_output=True,
                                 text=True, timeout=60).stderr
            inside = False
            for line in out.splitlines():
                if line.startswith("#include <...> search starts here"):
                    inside = True
                elif line.startswith("End of search list"):
                    inside = False
                elif inside and line.strip():
                    dirs.append(Path(line.split(" (framework")[0].strip()).resolve())
        except (OSError, subprocess.TimeoutExpired):
            pass
        _system_dirs_cache[compiler] = dirs
    return _system_dirs_cache[compiler]


class ReadPolicy:
    """Which files the build of one submission may read, and how to name a file to a student."""

    def __init__(self, tree, folder, out, source):
        self.tree = tree.resolve()
        self.folder = folder
        self.out = out.resolve()
        self.submission = (self.tree / folder / (folder + ".cu"))
        self.source = source  # the Source, for its name
        self.extra_allowed = set()  # the build's own files that compile the source (sim wrappers)
        self.system = []

    def add_compiler(self, args):
        """System directories of the compile command `args` (its compiler's, the CUDA Toolkit's,
        and its -I/-isystem folders outside the course tree)."""
        compiler = args[0]
        resolved = Path(shutil.which(compiler) or compiler).resolve()
        if resolved.name.startswith("nvcc"):
            self.system.append(resolved.parent.parent)  # the toolkit: include/, targets/*/include
            host = next((a.split("=", 1)[1] for a in args if a.startswith("-ccbin=")), None)
            if host is None and "-ccbin" in args:
                host = args[args.index("-ccbin") + 1]
            self.system += system_include_dirs(host or "g++")
        else:
            self.system += system_include_dirs(compiler)
        for i, a in enumerate(args):
            for flag in ("-isystem", "-I"):
                if a.startswith(flag):
                    d = a[len(flag):] or (args[i + 1] if i + 1 < len(args) else "")
                    d = Path(d).resolve()
                    if d.is_dir() and not self.in_course(d):
                        self.system.append(d)

    def in_course(self, p):
        return within(p, self.tree) or within(p, ROOT) or within(p, self.out)

    def allowed(self, p):
        p = Path(p).resolve()
        if p == self.submission or p in self.extra_allowed:
            return True
        if within(p, self.tree):
            rel = p.relative_to(self.tree)
            return ((rel.parent == Path(self.folder) and p.suffix in HEADER_SUFFIXES)
                    or within(rel, Path("common/include/histo")) or within(rel, Path("sim/include")))
        if self.in_course(p):
            return False
        return any(within(p, d) for d in self.system)

    def name(self, p):
        """A file as the student may see it named: never a path of the grader's slots."""
        resolved = Path(p).resolve()
        if resolved == self.submission:
            return self.source.name
        for base in (self.tree, ROOT, self.out):
            if within(resolved, base):
                return str(resolved.relative_to(base))
        return os.path.normpath(p)


# What the build of the submission's own library reads in its slot besides the system's
# folders: its lab's folder, the course's common code and simulator, the CMake modules, the build
# folder. Everything else of the slot (grading/, its private tests, the other labs) is hidden
# from it (sandbox.Sandbox.run's `hide`), and only the graders' build, after the code check, sees
# it.
BUILD_READS = ("common", "sim", "cmake", "build")


def hidden_from_build(tree, folder, build):
    """The files of the slot `tree` that the build of lab folder `folder`'s library may not
    read. The files the build checks to decide whether to configure again (build.ninja's
    inputs, CMake's own files) stay visible, so that it does not."""
    tree = Path(tree)
    kept = set()
    try:
        manifest = (Path(build) / "build.ninja").read_text(errors="replace").replace("$\n", " ")
        for line in manifest.splitlines():
            if line.startswith("build build.ninja:") and "RERUN_CMAKE" in line:
                kept |= {Path(p.replace("$ ", " ")) for p in re.findall(r"(?:\$ |[^\s|])+", line)}
    except OSError:
        pass
    hidden = []
    for top in sorted(tree.iterdir()):
        if top.name in BUILD_READS or top.name == folder or not top.is_dir() or top.is_symlink():
            continue
        for dirpath, _, filenames in os.walk(top):
            for name in filenames:
                p = Path(dirpath) / name
                if p in kept or name == "CMakeLists.txt" or name.endswith(".cmake") or p.is_symlink():
                    continue
                hidden.append(p)
    return hidden


def string_literals(text):
    """The contents of the C string literals in `text`, escapes decoded and adjacent literals
    joined (as the compiler joins "a" "b"); comments and character literals are skipped."""
    token = re.compile(r"//[^\n]*|/\*.*?\*/|'(?:\\.|[^'\\\n])*'|"
                       r'(?:\bu8|\bu|\bU|\bL)?R"([^()\\\s]{0,16})\((.*?)\)\1"|"((?:\\.|[^"\\\n])*)"', re.S)
    runs, current, last_end = [], None, None
    for m in token.finditer(text):
        if m.group(2) is None and m.group(3) is None:
            continue  # a comment or a character literal
        body = m.group(2)
        if body is None:
            try:
                body = codecs.decode(m.group(3).encode("latin-1", "backslashreplace"), "unicode_escape")
            except (UnicodeDecodeError, ValueError):
                body = m.group(3)
        if current is not None and text[last_end:m.start()].strip() == "":
            current += body
        else:
            if current is not None:
                runs.append(current)
            current = body
        last_end = m.end()
    if current is not None:
        runs.append(current)
    return runs


def embedding(text):
    """(file, how) when a source embeds a file's bytes: #embed, or .incbin (or .include) in
    inline assembly, however its string is spelled (split, escaped, built by macros of the
    preprocessor or of the assembler: `.inc\\()bin` in a .macro is .incbin); else None."""
    m = (re.search(r'^\s*#\s*embed\s*[<"]([^>"\n]*)', text, re.M)
         or re.search(r'__has_embed\s*\(\s*[<"]([^>"\n]*)', text))
    if m:
        return m.group(1), "#embed"
    for literal in string_literals(text):
        # Inside an assembler .macro, \() joins what is around it: .inc\()bin reads .incbin.
        literal = literal.replace("\\()", "")
        m = (re.search(r"\b(incbin)\b\s*\"?([^\"\n]*)", literal, re.I)
             or re.search(r"(?:^|[\n;])\s*\.(include)\b\s*\"?([^\"\n]*)", literal, re.I))
        if m:
            return m.group(2).strip() or "a file", f".{m.group(1).lower()} in inline assembly"
    if re.search(r"incbin", text, re.I):
        return "a file named by .incbin", "inline assembly"
    return None


def parse_depfile(text):
    """The prerequisites of a Make-style dependency file (-M / -MD output)."""
    text = text.replace("\\\n", " ")
    deps = []
    for rule in text.splitlines():
        if ":" not in rule:
            continue
        # The target ends at the first ": " (or ":" at the end); paths may hold escaped spaces.
        m = re.match(r"^((?:\\.|[^:\\]|:(?!\s|$))*):(?:\s|$)(.*)$", rule)
        if not m:
            continue
        for token in re.findall(r"(?:\\.|[^\s\\])+", m.group(2)):
            deps.append(re.sub(r"\\(.)", r"\1", token).replace("$$", "$"))
    return deps


def compile_commands_for(build, submission):
    """The compile commands (compile_commands.json) that compile the submission: its own file,
    or a simulator wrapper (sim_sources/*.cpp) that #includes it."""
    try:
        entries = json.loads((build / "compile_commands.json").read_text())
    except (OSError, json.JSONDecodeError):
        return []
    found = []
    for e in entries:
        f = Path(e["directory"], e["file"]).resolve()
        # Wrappers are written at build time: one the slot's build has not made yet is not this one.
        # A wrapper names the submission in quotes (#include or #line); nvcc's figures of it
        # (<name>_<hash>.nvcc.cpp) do not include it.
        wraps = (f.parent.name == "sim_sources" and f.is_file()
                 and f'"{submission}"' in f.read_text(errors="replace"))
        if f == submission.resolve() or wraps:
            args = e.get("arguments") or shlex.split(e["command"])
            found.append((Path(e["directory"]), f, args))
    return found


# Flags of a compile command that produce its outputs: dropped for the preprocessing run.
_OUTPUT_FLAGS_WITH_VALUE = {"-o", "-MT", "-MQ", "-MF", "--dependency-output", "-odir"}
_OUTPUT_FLAGS = {"-c", "-MD", "-MMD", "--generate-dependencies-with-compile",
                 "--generate-nonsystem-dependencies-with-compile", "-Winvalid-pch"}


def without_outputs(args):
    """A compile command without the flags that produce its outputs."""
    kept, skip = [], False
    for a in args:
        if skip:
            skip = False
            continue
        if a in _OUTPUT_FLAGS_WITH_VALUE:
            skip = True
            continue
        if a in _OUTPUT_FLAGS or any(a.startswith(f + "=") for f in _OUTPUT_FLAGS_WITH_VALUE):
            continue
        kept.append(a)
    return kept


def preprocess_only(args, depfile, preprocessed):
    kept = without_outputs(args)
    # -H also names each header as it is opened, so a run stopped by a missing header (which
    # writes no dependency file) still tells what it read before.
    if Path(kept[0]).name.startswith("nvcc"):
        # nvcc -M lists the files of every pass (host and each GPU architecture).
        return kept + ["-M", "-MF", str(depfile), "-Xcompiler=-H"]
    return kept + ["-E", "-H", "-MD", "-MF", str(depfile), "-o", str(preprocessed)]


def limit_preprocessor():
    """In the preprocessor's process: memory enough for any honest source, so that an include of
    a device such as /dev/zero fails at once instead of reading it for minutes."""
    import resource
    resource.setrlimit(resource.RLIMIT_AS, (PREPROCESS_MEMORY, PREPROCESS_MEMORY))


# A compiler that cannot open a header: clang and GCC ("file:line:col: fatal error: 'X' file not
# found", "...: fatal error: X: No such file or directory"), nvcc's front end ("file(line):
# catastrophic error: cannot open source file "X"").
_NOT_FOUND = re.compile(r"^(?P<file>\S[^:(]*?)(?::\d+:\d+:|\(\d+\):) (?:fatal|catastrophic) error: "
                        r"(?:'(?P<a>[^']+)' file not found|cannot open file '(?P<d>[^']+)': Permission denied|"
                        r"(?P<b>[^:]+): (?:No such file or directory|Permission denied)|"
                        r'cannot open source file "(?P<c>[^"]+)")', re.M)
_HAS_INCLUDE = re.compile(r'__has_include(?:_next)?\s*\(\s*(?:"([^"\n]+)"|<([^>\n]+)>)')


def hidden_target(policy, name, includer):
    """The file an #include or __has_include of `name` (from the file `includer`) would reach
    outside the sandbox's view, when that file exists and the build may not read it; else None.
    The sandbox hides such files, so the build meets a missing or unreadable file: it is still a
    read of what the submission may not read, and is refused as one."""
    candidates = [Path(name)] if name.startswith("/") else [Path(includer).parent / name]
    for c in candidates:
        try:
            resolved = Path(os.path.normpath(c))
            if resolved.exists() and not policy.allowed(resolved):
                return resolved
        except OSError:
            pass
    return None


def names_file(directory, arg, f):
    """`arg` when it names the file `f` (relative to `directory`), else None."""
    try:
        return arg if not arg.startswith("-") and (Path(directory) / arg).resolve() == f else None
    except (OSError, ValueError):
        return None


def compile_read_problem(policy, build, work, run=None):
    """Runs before the build. Returns (refused, failed): `refused` is the status of a submission
    whose build would read a file it may not ("" if none); `failed` is the preprocessor's output
    when it stopped with an error, which the build would meet too (None if it did not). `work`
    is a scratch folder. `run(args, cwd, timeout, memory)`: runs the preprocessor (in the
    grading's sandbox) and returns a sandbox.Result; None: here, as a plain process."""
    def embedded(text):
        found = embedding(text)
        if not found:
            return ""
        name, how = found
        return f"includes a file it may not: {policy.name(name) if name.startswith('/') else name} ({how})"

    source_text = policy.source.data.decode("utf-8", errors="replace")
    problem = embedded(source_text)
    if problem:
        return problem, None
    for m in _HAS_INCLUDE.finditer(source_text):
        target = hidden_target(policy, m.group(1) or m.group(2), policy.submission)
        if target:
            return f"includes a file it may not: {policy.name(target)} (__has_include)", None
    commands = compile_commands_for(build, policy.submission)
    for _, f, _ in commands:
        policy.extra_allowed.add(f)
    work.mkdir(parents=True, exist_ok=True)
    for n, (directory, f, args) in enumerate(commands):
        policy.add_compiler(args)
        if f.parent.name == "sim_sources":
            # A simulator wrapper on disk is the last build's (it may hold a rewritten copy of
            # another submission's source, and includes files the build generates): what this
            # submission reads is what a wrapper that only #includes it reads.
            wrapper = work / f"wrapper{n}.cpp"
            wrapper.write_text(f'#include <cuda_runtime.h>\n#include "{policy.submission}"\n')
            policy.extra_allowed.add(wrapper.resolve())
            args = [str(wrapper) if a == names_file(directory, a, f) else a for a in args]
        depfile, pre = work / f"deps{n}.d", work / f"pre{n}.i"
        depfile.unlink(missing_ok=True)
        # -H names each file as it is opened; the run stops after PREPROCESS_TIMEOUT seconds.
        command = preprocess_only(args, depfile, pre)
        if run is not None:
            result = run(command, directory, PREPROCESS_TIMEOUT, PREPROCESS_MEMORY)
            returncode = -1 if result.timed_out or result.problem else result.returncode
            stderr = result.output.decode("utf-8", errors="replace") + result.problem
        else:
            try:
                proc = subprocess.run(command, cwd=directory, stdin=subprocess.DEVNULL,
                                      stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                                      errors="replace", preexec_fn=limit_preprocessor,
                                      timeout=PREPROCESS_TIMEOUT)
                returncode, stderr = proc.returncode, proc.stderr
            except subprocess.TimeoutExpired:
                returncode, stderr = -1, f"the preprocessor ran past {PREPROCESS_TIMEOUT} s\n"
            except OSError:
                continue  # the build itself will say what is wrong
        messages = []
        for line in stderr.splitlines(keepends=True):
            m = re.match(r"^\.+ (\S.*)$", line.rstrip("\n"))
            if not m:
                messages.append(line)
            elif not policy.allowed(directory / m.group(1)):
                return f"includes a file it may not: {policy.name(directory / m.group(1))}", None
        try:
            deps = parse_depfile(depfile.read_text(errors="replace"))
        except OSError:
            deps = []
        for dep in deps:
            p = (directory / dep)
            if not policy.allowed(p):
                return f"includes a file it may not: {policy.name(p)}", None
        if pre.exists():
            # Macros can assemble an .incbin that the source never spells out.
            problem = embedded(pre.read_text(errors="replace"))
            pre.unlink()
            if problem:
                return problem, None
        if returncode != 0:
            why = "".join(messages) or f"the preprocessor stopped (exit {returncode})\n"
            for m in _NOT_FOUND.finditer(why):
                target = hidden_target(policy, m.group("a") or m.group("b") or m.group("c") or m.group("d"),
                                       directory / m.group("file"))
                if target:
                    return f"includes a file it may not: {policy.name(target)}", None
            return "", why
    return "", None


# What a student sees of a failed build: the compiler's messages about the submission's lines
# (and about the course's own headers), with files named as the student knows them. A message
# located in any other file is left out, with its quoted lines, so that no file of the grader's
# (nor one a link or #line pointed at) is ever shown.

_GCC_LOCATION = re.compile(r"^(\S[^:]*?):(\d+):(?:(\d+):)? (.*)$")
_NVCC_LOCATION = re.compile(r"^(\S.*?)\((\d+)\): (.*)$")


def student_messages(log, policy, cwd):
    kept, keeping = [], False
    tree = re.escape(str(policy.tree)) + r"/[^\s:()'\"`]+"

    def rename(line):
        return re.sub(tree, lambda m: policy.name(m.group(0)), line)

    for line in log.splitlines():
        m = _GCC_LOCATION.match(line) or _NVCC_LOCATION.match(line)
        if m and (Path(cwd) / m.group(1)).is_file():
            keeping = policy.allowed(Path(cwd) / m.group(1))
            if keeping:
                kept.append(rename(line))
            continue
        if line[:1].isspace() and keeping:
            kept.append(rename(line))
            continue
        keeping = False
        for what in ("undefined reference to", "multiple definition of"):
            if what in line:
                kept.append("link error: " + what + line.split(what, 1)[1])
        if "build ran past" in line or re.match(r"^(cc1plus|cc1|nvcc|cicc|ptxas)( fatal)?\s*: ", line):
            kept.append(rename(line))  # the build or a compiler stopped, naming no file's lines
    if not kept:
        return ("(the compiler's messages concern files other than your source and are not shown; "
                "check what your file includes)")
    return "\n".join(kept[:200])
