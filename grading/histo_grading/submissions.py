"""Submissions: which entries of a folder are students, and the one source taken from each.

The source must be a regular file (never a symbolic link, nor anything reached through one, nor a
device or pipe), at most SOURCE_LIMIT bytes, and text. Anything else is recorded as what it is,
with 0 points and a one-line status.
"""
import hashlib
import os
import re
import stat
import unicodedata
from pathlib import Path

from .common import ROOT, within, write_private

SOURCE_LIMIT = 1 << 20
# Where a grading writes (OUT): each student's folder under OUT/students/, the grader's own files
# (grades.csv, submissions.txt, timing.json, slots/, slurm/) beside students/, so that no
# student's name can be the name of a grader's file.
STUDENTS = "students"
# Longest folder name made of a student's name (bytes), well under the file systems' 255.
NAME_LIMIT = 200
# Folders a zip or an editor adds that hold no submission (macOS resource forks, VCS metadata).
IGNORED_FOLDERS = {"__MACOSX", ".git", ".svn", ".hg", ".vscode", ".idea"}


class Source:
    """The source taken from a submission: its name relative to the submission, and its bytes
    (read once, so that what is hashed, checked and built is the same)."""

    def __init__(self, name, data):
        self.name = name
        self.data = data
        self.sha256 = hashlib.sha256(data).hexdigest()


def kind_of(mode):
    for test, what in ((stat.S_ISLNK, "a symbolic link"), (stat.S_ISDIR, "a folder"),
                       (stat.S_ISFIFO, "a named pipe"), (stat.S_ISCHR, "a character device"),
                       (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return what
    return "not a regular file"


def link_text(path):
    """Where a symbolic link points, as its text says (a place in the course named from the
    course's root)."""
    try:
        target = os.readlink(path)
    except OSError:
        return "?"
    resolved = Path(os.path.normpath(Path(path).parent / target))
    if within(resolved, ROOT):
        return f"{resolved.relative_to(ROOT)} in the course"
    return target if len(target) <= 120 else target[:117] + "..."


def read_source(path, name):
    """(Source, "") for a regular text file of at most SOURCE_LIMIT bytes, else (None, why)."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
    except OSError as e:
        if os.path.islink(path):
            return None, f"{name} is a symbolic link (to {link_text(path)}), not a file: links are not graded"
        return None, f"{name} cannot be read ({e.strerror})"
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            return None, f"{name} is {kind_of(st.st_mode)}, not a file"
        if st.st_size > SOURCE_LIMIT:
            return None, (f"{name} is {st.st_size} bytes, more than the {SOURCE_LIMIT >> 20} MiB "
                          f"a source may have")
        with os.fdopen(fd, "rb", closefd=False) as f:
            data = f.read(SOURCE_LIMIT + 1)
    finally:
        os.close(fd)
    if len(data) > SOURCE_LIMIT:
        return None, f"{name} is more than the {SOURCE_LIMIT >> 20} MiB a source may have"
    controls = sum(data.count(bytes([c])) for c in range(32) if c not in (9, 10, 11, 12, 13))
    if b"\0" in data or controls > len(data) // 100:
        return None, f"{name} is not text (it holds NUL or control bytes: a binary file?)"
    return Source(name, data), ""


def decorated(name, source_name):
    """True for a name a download or an upload form makes of the lab file's name:
    "lab04_shared_privatized (1).cu", "lab04_shared_privatized-2.cu", "Copy of lab04_...cu"."""
    stem, lower = source_name[:-3].lower(), name.lower()
    if not lower.endswith(".cu"):
        return False
    lower = re.sub(r"^copy of\s+", "", lower[:-3])
    return lower.startswith(stem) and re.fullmatch(r"[\s_.\-()0-9]*(copy|v)?[\s_.\-()0-9]*",
                                                   lower[len(stem):]) is not None


def listing(paths, limit=8):
    names = [str(p) for p in paths]
    shown = ", ".join(names[:limit])
    return shown + (f" and {len(names) - limit} more" if len(names) > limit else "") if names else "nothing"


def take_source(entry, source_name):
    """The lab's source in a submission (a folder, or a file <student>.cu): (Source, "") or
    (None, the one-line status saying why none is taken). A tuple of entries is one student's
    name given by several (submissions_of): none of them is taken."""
    if isinstance(entry, tuple):
        shown = ", ".join(folder_name(e.name) + ("/" if e.is_dir() and not e.is_symlink() else "")
                          for e in entry)
        return None, (f"several submissions for one student: {shown} (names that differ only in "
                      f"case or by .cu are one student's; keep one, and grade again)")
    entry = Path(entry)
    if entry.is_symlink():
        return None, f"the submission is a symbolic link (to {link_text(entry)}): links are not graded"
    try:
        mode = entry.lstat().st_mode
    except OSError as e:
        return None, f"the submission cannot be read ({e.strerror})"
    if stat.S_ISREG(mode):
        return read_source(entry, entry.name)
    if not stat.S_ISDIR(mode):
        return None, f"the submission is {kind_of(mode)}, not a file or a folder"
    received, exact, other_cu, folder_links = [], [], [], []
    for dirpath, dirnames, filenames in os.walk(entry):  # never follows a link
        d = Path(dirpath)
        for n in sorted(dirnames):
            if (d / n).is_symlink():
                folder_links.append(d / n)
                received.append((d / n).relative_to(entry))
        dirnames[:] = sorted(n for n in dirnames if n not in IGNORED_FOLDERS and not (d / n).is_symlink())
        for n in sorted(filenames):
            p = d / n
            if n.startswith("._"):  # macOS resource forks in a zip
                continue
            received.append(p.relative_to(entry))
            if n == source_name:
                exact.append(p)
            elif n.lower().endswith(".cu"):
                other_cu.append(p)

    def take(p):
        return read_source(p, str(p.relative_to(entry)))

    if exact:
        depth = min(len(p.relative_to(entry).parts) for p in exact)
        top = [p for p in exact if len(p.relative_to(entry).parts) == depth]
        if len(top) == 1:
            return take(top[0])
        return None, (f"several candidates for {source_name}: "
                      f"{listing(p.relative_to(entry) for p in top)} (submit one)")
    for link in folder_links:
        if os.path.lexists(link / source_name):
            return None, (f"{source_name} is in a folder that is a symbolic link "
                          f"({link.relative_to(entry)} -> {link_text(link)}): links are not graded")
    candidates = [p for p in other_cu if decorated(p.name, source_name)]
    if len(candidates) == 1:
        return take(candidates[0])
    if candidates:
        return None, (f"missing {source_name}; several candidates: "
                      f"{listing(p.relative_to(entry) for p in candidates)} (submit one, named {source_name})")
    return None, f"missing {source_name}; received: {listing(received)}"


def submissions_of(folder):
    """[(student's name, entry)] of a folder of submissions, by name: a folder is a student (its
    name), and so is a file NAME.cu. Where several entries give one name, or names that differ only
    in case (alice/ and alice.cu, Alice/ and alice/: one folder on a case-insensitive disk), each
    such name's entry is the tuple of all of them, graded as none (take_source)."""
    entries = []
    for entry in sorted(Path(folder).iterdir()):
        if entry.name in IGNORED_FOLDERS or entry.name.startswith("._"):
            continue  # a version control's or a zip's own, not a student
        if entry.is_dir() or entry.suffix == ".cu":
            entries.append((entry.stem if entry.is_file() else entry.name, entry))
    groups = {}
    for name, entry in entries:
        groups.setdefault(name.casefold(), []).append(entry)
    named = {}
    for name, entry in entries:
        group = groups[name.casefold()]
        named[name] = tuple(group) if len(group) > 1 else entry
    return sorted(named.items())


def folder_name(name):
    """The folder (under OUT/students/) and the name in grades.csv of a student named `name`: the
    name itself where it is a safe folder name, else the same name with what is not escaped as
    %XX (its bytes: path separators, control characters, %, a leading dot, bytes that are not
    UTF-8), and a name longer than NAME_LIMIT bytes cut, ending in %% and a hash of the whole.
    Distinct names get distinct folders: the escaping is one to one, "%" is always escaped
    itself, and only a cut name holds "%%"."""
    out = []
    for i, c in enumerate(name):
        unsafe = (c in "/\\%" or (i == 0 and c == ".") or "\udc80" <= c <= "\udcff"
                  or unicodedata.category(c) in ("Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"))
        if not unsafe:
            out.append(c)
        elif "\udc80" <= c <= "\udcff":  # a byte that is not UTF-8 (os.fsdecode's escape)
            out.append(f"%{ord(c) - 0xdc00:02X}")
        else:
            out.extend(f"%{b:02X}" for b in c.encode("utf-8", "surrogatepass"))
    folder = "".join(out) or "%"
    if len(folder.encode()) > NAME_LIMIT:
        digest = hashlib.sha256(os.fsencode(name)).hexdigest()[:16]
        cut = folder.encode()[:NAME_LIMIT - 20].decode("utf-8", "ignore")
        cut = re.sub(r"%[0-9A-F]?$", "", cut)  # never half an escape
        folder = f"{cut}%%{digest}"
    return folder


def student_dir(out, name):
    """OUT/students/<folder_name(name)>: where a student's results are written."""
    return Path(out) / STUDENTS / folder_name(name)


def list_submissions(out, entries):
    Path(out).mkdir(parents=True, exist_ok=True)
    write_private(Path(out) / "submissions.txt", "".join(f"{folder_name(name)}\n" for name, _ in entries))
