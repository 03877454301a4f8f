"""Submissions: which entries of a folder are students, and the one source taken from each.

The source must be a regular file (never a symbolic link, nor anything reached through one, nor a
device or pipe), at most SOURCE_LIMIT bytes, and text. Anything else is recorded as what it is,
with 0 points and a one-line status.
"""
import hashlib
import os
import re
import stat
from pathlib import Path

from .common import ROOT, within

SOURCE_LIMIT = 1 << 20
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
    (None, the one-line status saying why none is taken)."""
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
    entries = []
    for entry in sorted(Path(folder).iterdir()):
        if entry.name.startswith("."):
            continue
        if entry.is_dir() or entry.suffix == ".cu":
            entries.append((entry.stem if entry.is_file() else entry.name, entry))
    return entries


def list_submissions(out, entries):
    Path(out).mkdir(parents=True, exist_ok=True)
    (Path(out) / "submissions.txt").write_text("".join(f"{name}\n" for name, _ in entries))
