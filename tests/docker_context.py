"""What ``docker build .`` puts in the image, worked out without Docker: the build context and the COPY lines.

No Docker daemon runs here or in CI, so the tests rebuild the image's files themselves, the way Docker does:

1. **The build context** (:func:`context_files`): every file under the repository on disk, less those that
   ``.dockerignore`` excludes. :class:`DockerIgnore` follows Docker's rules (moby/patternmatcher, which BuildKit
   applies to the context): patterns are relative to the context root (a leading ``/`` changes nothing), use Go's
   ``filepath.Match`` syntax (``*`` and ``?`` stop at ``/``, ``[a-z]`` and ``[^a-z]`` classes, ``\\`` escapes) plus
   ``**`` for any number of folders; a pattern that matches a folder excludes everything under it; a line starting
   with ``!`` re-includes; and the last line that matches a path decides.
2. **The image's files** (:func:`materialise_image`): the Dockerfile's ``COPY [--chown=…] src… dest`` lines of its
   final stage, applied in order, each source taken from the context and each destination relative to the
   ``WORKDIR`` in force. ``COPY <folder> <dest>`` copies the folder's contents, as Docker does; ``.`` is the whole
   context. Wildcard sources, ``COPY --from`` and ``ADD`` are not modelled and raise :class:`NotImplementedError`,
   so a Dockerfile that starts using them fails loudly here instead of being checked wrongly.
"""

from __future__ import annotations

import json
import os
import posixpath
import re
import shutil
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path


def go_clean(path: str) -> str:
    """``path`` as Go's ``filepath.Clean`` (``/`` separators) returns it: no empty, ``.`` or resolvable ``..``
    elements, no trailing ``/``; ``""`` becomes ``"."``."""
    rooted = path.startswith("/")
    parts: list[str] = []
    for part in path.split("/"):
        if part in ("", "."):
            continue
        if part == "..":
            if parts and parts[-1] != "..":
                parts.pop()
            elif not rooted:
                parts.append("..")
            continue
        parts.append(part)
    cleaned = "/".join(parts)
    if rooted:
        return "/" + cleaned
    return cleaned or "."


# Characters that mean something in a regular expression but nothing in filepath.Match (moby's shouldEscape).
_REGEX_ONLY = set(".+()|{}$")


@dataclass(frozen=True)
class IgnorePattern:
    """One cleaned ``.dockerignore`` pattern, compiled as moby/patternmatcher compiles it.

    ``kind`` is moby's match type: ``exact`` (no wildcard: the path equals the pattern), ``prefix`` (``foo/**``:
    the path starts with ``foo/``), ``suffix`` (``**/foo``: the path is ``foo`` or ends with ``/foo``) or ``regex``.
    """

    text: str
    reinclude: bool
    kind: str
    regex: re.Pattern[str] | None = None

    @classmethod
    def compile(cls, line: str) -> IgnorePattern:
        line = go_clean(line.strip())
        reinclude = line.startswith("!")
        if reinclude:
            line = line[1:]
            if not line:
                raise ValueError('illegal exclusion pattern: "!"')
        regex, kind = "^", "exact"
        i, n = 0, len(line)
        first = True
        while i < n:
            ch = line[i]
            i += 1
            if ch == "*":
                if i < n and line[i] == "*":  # some flavour of "**"
                    i += 1
                    if i < n and line[i] == "/":  # "**/" is "**": eat the "/"
                        i += 1
                    if i == n:  # "**" at the end matches everything below
                        if kind == "exact":
                            kind = "prefix"
                        else:
                            regex += ".*"
                            kind = "regex"
                    else:  # any number of folders, none included
                        regex += "(.*/)?"
                        kind = "regex"
                    if first:
                        kind = "suffix"
                else:
                    regex += "[^/]*"
                    kind = "regex"
            elif ch == "?":
                regex += "[^/]"
                kind = "regex"
            elif ch in _REGEX_ONLY:
                regex += "\\" + ch
            elif ch == "\\":
                if i < n:  # the next character, literally
                    regex += re.escape(line[i])
                    i += 1
                    kind = "regex"
                else:  # Go's filepath.Match rejects a pattern that ends in an escape
                    raise ValueError(f"bad .dockerignore pattern {line!r}: it ends with a backslash")
            elif ch in "[]":
                regex += ch
                kind = "regex"
            else:
                regex += ch
            first = False
        compiled = None
        if kind == "regex":
            try:
                compiled = re.compile(regex + "$")
            except re.error as err:
                raise ValueError(f"bad .dockerignore pattern {line!r}: {err}") from err
        return cls(text=line, reinclude=reinclude, kind=kind, regex=compiled)

    def matches(self, path: str) -> bool:
        """Whether this pattern matches ``path`` itself (a cleaned, context-relative path with ``/`` separators)."""
        if self.kind == "exact":
            return path == self.text
        if self.kind == "prefix":
            return path.startswith(self.text[:-2])
        if self.kind == "suffix":
            suffix = self.text[2:]
            return path.endswith(suffix) or (suffix.startswith("/") and path == suffix[1:])
        return bool(self.regex.match(path))


class DockerIgnore:
    """The patterns of a ``.dockerignore`` file and Docker's decision for each path of the build context."""

    def __init__(self, patterns: Iterable[str]):
        self.patterns = [IgnorePattern.compile(line) for line in patterns if line.strip()]

    @classmethod
    def parse(cls, text: str) -> DockerIgnore:
        """Read a ``.dockerignore`` as Docker does: a line starting with ``#`` is a comment, blank lines are
        skipped, surrounding spaces are trimmed, and a leading ``/`` (after an optional ``!``) is dropped."""
        patterns = []
        for number, line in enumerate(text.splitlines()):
            if number == 0:
                line = line.removeprefix("\ufeff")
            if line.startswith("#"):
                continue
            line = line.strip()
            if not line:
                continue
            reinclude = line.startswith("!")
            if reinclude:
                line = line[1:].strip()
            if line:
                line = go_clean(line)
                if len(line) > 1 and line.startswith("/"):
                    line = line[1:]
            patterns.append("!" + line if reinclude else line)
        return cls(patterns)

    @classmethod
    def of(cls, root: Path) -> DockerIgnore:
        """The ``.dockerignore`` at the context root ``root`` (none: nothing is excluded)."""
        path = root / ".dockerignore"
        return cls.parse(path.read_text(encoding="utf-8")) if path.exists() else cls([])

    @property
    def has_reincludes(self) -> bool:
        return any(pattern.reinclude for pattern in self.patterns)

    def excludes(self, path: str) -> bool:
        """Whether the context-relative ``path`` (``/`` separators) is left out of the build context.

        Every pattern is tried in order against the path and each of its parent folders; the last one that
        matches decides (moby/patternmatcher ``MatchesOrParentMatches``). The context root itself is never
        excluded."""
        path = go_clean(path)
        if path == ".":
            return False
        parent = posixpath.dirname(path)
        parents = parent.split("/") if parent else []
        excluded = False
        for pattern in self.patterns:
            if pattern.reinclude != excluded:  # only an exclusion can change "kept", only a re-include "excluded"
                continue
            match = pattern.matches(path) or any(
                pattern.matches("/".join(parents[: i + 1])) for i in range(len(parents))
            )
            if match:
                excluded = not pattern.reinclude
        return excluded


def context_files(root: Path, ignore: DockerIgnore | None = None) -> list[str]:
    """Every file (and symbolic link) under ``root`` that ``docker build root`` sends to the builder: relative
    paths with ``/`` separators, sorted. Folders are walked on disk, so untracked files count, as they do for
    Docker; an excluded folder is not entered unless some ``!`` pattern might re-include a file inside it."""
    ignore = ignore if ignore is not None else DockerIgnore.of(root)
    files = []
    for directory, folders, names in os.walk(root):
        base = Path(directory).relative_to(root).as_posix()
        prefix = "" if base == "." else base + "/"
        for folder in list(folders):
            if (Path(directory) / folder).is_symlink():  # os.walk does not enter it; Docker sends the link
                folders.remove(folder)
                names.append(folder)
            elif not ignore.has_reincludes and ignore.excludes(prefix + folder):
                folders.remove(folder)
        files += [prefix + name for name in names if not ignore.excludes(prefix + name)]
    return sorted(files)


def copy_context(root: Path, destination: Path) -> list[str]:
    """Copy the build context of ``root`` into the empty or new folder ``destination``; returns its files."""
    files = context_files(root)
    for relative in files:
        target = destination / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(root / relative, target, follow_symlinks=False)
    return files


@dataclass(frozen=True)
class Copy:
    """One ``COPY`` instruction: its sources (relative to the context), its destination as an absolute path in
    the image (resolved against the WORKDIR in force), and its flags (``--chown=lab:lab``)."""

    sources: tuple[str, ...]
    destination: str
    flags: tuple[str, ...]
    into_folder: bool  # the destination is a folder (ends with "/", is "." or has several sources)


def dockerfile_instructions(text: str) -> list[tuple[str, str]]:
    """The Dockerfile's instructions as (KEYWORD, arguments): comment lines dropped, ``\\`` continuations
    joined as Docker joins them (the backslash and the line break removed)."""
    instructions, pending = [], ""
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith("#") or (not pending and not stripped):
            continue
        if stripped.endswith("\\"):
            pending += line.rstrip()[:-1]
            continue
        logical = (pending + line).strip()
        pending = ""
        keyword, _, arguments = logical.partition(" ")
        instructions.append((keyword.upper(), arguments.strip()))
    if pending.strip():
        keyword, _, arguments = pending.strip().partition(" ")
        instructions.append((keyword.upper(), arguments.strip()))
    return instructions


def final_stage(text: str) -> list[tuple[str, str]]:
    """The instructions of the Dockerfile's last stage (from its last ``FROM``)."""
    instructions = dockerfile_instructions(text)
    starts = [i for i, (keyword, _) in enumerate(instructions) if keyword == "FROM"]
    if not starts:
        raise ValueError("the Dockerfile has no FROM")
    return instructions[starts[-1] :]


def workdir(text: str) -> str:
    """The WORKDIR the final stage ends with, where its CMD runs (``/`` when it sets none)."""
    current = "/"
    for keyword, arguments in final_stage(text):
        if keyword == "WORKDIR":
            current = posixpath.normpath(posixpath.join(current, arguments))
    return current


def dockerfile_copies(text: str) -> list[Copy]:
    """The ``COPY`` instructions of the final stage, in order, destinations resolved against the WORKDIR."""
    copies, current = [], "/"
    for keyword, arguments in final_stage(text):
        if keyword == "WORKDIR":
            current = posixpath.normpath(posixpath.join(current, arguments))
        elif keyword == "ADD":
            raise NotImplementedError(f"ADD {arguments}: not modelled; use COPY for files of the context")
        elif keyword == "COPY":
            flags, rest = [], arguments
            while flag := re.match(r"--\S+\s+", rest):
                flags.append(flag.group().strip())
                rest = rest[flag.end() :]
            paths = json.loads(rest) if rest.startswith("[") else rest.split()
            if any(flag.startswith("--from") for flag in flags):
                raise NotImplementedError(f"COPY {arguments}: copies from another stage or image are not modelled")
            if len(paths) < 2:
                raise ValueError(f"COPY {arguments}: needs at least one source and a destination")
            *sources, destination = paths
            wildcard = [source for source in sources if set(source) & set("*?[")]
            if wildcard:
                raise NotImplementedError(f"COPY {arguments}: wildcard sources {wildcard} are not modelled")
            into_folder = destination == "." or destination.endswith(("/", "/.")) or len(sources) > 1
            absolute = posixpath.normpath(posixpath.join(current, destination))
            copies.append(Copy(tuple(sources), absolute, tuple(flags), into_folder))
    return copies


@dataclass(frozen=True)
class MaterialisedImage:
    """The app's files as the image holds them, rebuilt in a local folder."""

    context: Path  # the build context Docker would send
    context_files: list[str]
    filesystem: Path  # the image's "/" (only what the COPY lines put there)
    app: Path  # the final WORKDIR inside ``filesystem``: where CMD runs

    def files(self) -> list[str]:
        """Every file under the app folder, relative to it, ``/`` separators, sorted."""
        return sorted(path.relative_to(self.app).as_posix() for path in self.app.rglob("*") if not path.is_dir())


def materialise_image(root: Path, target: Path) -> MaterialisedImage:
    """Rebuild, under ``target``, the files that ``docker build root`` copies into the image.

    ``target/context`` receives the build context (the files ``.dockerignore`` keeps), then each COPY of the
    Dockerfile's final stage is applied to ``target/image`` as Docker applies it: a file source lands in the
    destination folder (or at the destination path), a folder source has its contents merged into the destination.
    A source that is not in the context raises :class:`FileNotFoundError`, as ``docker build`` fails then."""
    text = (root / "Dockerfile").read_text(encoding="utf-8")
    context, filesystem = target / "context", target / "image"
    files = copy_context(root, context)
    filesystem.mkdir(parents=True, exist_ok=True)
    for copy in dockerfile_copies(text):
        destination = filesystem / copy.destination.lstrip("/")
        for source in copy.sources:
            relative = go_clean("/" + source).lstrip("/")  # sources cannot leave the context
            path = context / relative if relative else context
            if not path.exists() and not path.is_symlink():
                raise FileNotFoundError(
                    f"COPY {source}: not in the build context (missing, or excluded by .dockerignore)"
                )
            if path.is_dir() and not path.is_symlink():
                shutil.copytree(path, destination, symlinks=True, dirs_exist_ok=True)
            else:
                into = copy.into_folder or destination.is_dir()
                target_path = destination / path.name if into else destination
                target_path.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(path, target_path, follow_symlinks=False)
    app = filesystem / workdir(text).lstrip("/")
    app.mkdir(parents=True, exist_ok=True)  # WORKDIR creates its folder
    return MaterialisedImage(context=context, context_files=files, filesystem=filesystem, app=app)
