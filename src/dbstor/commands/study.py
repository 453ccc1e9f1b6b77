"""dbstor study: the JSON Schema of study files (--schema), and a study file checked
without running it (every table, the [capacity]/[efficiency]/[placement]/[tco] values too)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path


def register(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = subparsers.add_parser(
        "study",
        help="print the JSON Schema of study files, or check a study file without running it",
        description=(
            "--schema prints the JSON Schema of study files (docs/study.schema.json), for "
            "editors that complete and check TOML against a schema. With a file, checks it as "
            "'dbstor run FILE' would before anything runs, and runs nothing."
        ),
    )
    p.add_argument("file", nargs="?", type=Path, metavar="STUDY.toml", help="a study file to check")
    p.add_argument("--schema", action="store_true", help="print the study file's JSON Schema")
    p.add_argument(
        "--shrink",
        metavar="DIR",
        type=Path,
        help="print the study shrunk to this machine (targets under DIR, which is made; "
        "points of seconds, two loads, a small scale): dbstor study F --shrink DIR > small.toml",
    )
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from dbstor.errors import UserError

    if args.schema == (args.file is not None) or (args.shrink and args.schema):
        raise UserError("give --schema or a study file to check (dbstor study --help)")
    if args.schema:
        from dbstor.study.schema import study_schema

        json.dump(study_schema(), sys.stdout, indent=2)
        sys.stdout.write("\n")
        return 0
    from dbstor.commands.study_analyses import check_as_run_would
    from dbstor.study.load import load_study

    if args.shrink is not None:
        return _print_shrunk(args.file, args.shrink)
    study = load_study(args.file)
    check_as_run_would(study)
    tables = sorted({*study.analyses, *(n for t in study.targets for n in t.analyses)})
    tables += ["consolidation"] if study.consolidation else []
    print(
        f"{args.file}: ok: {len(study.targets)} targets, {len(study.profiles)} fio profiles, "
        f"{len(study.databases)} databases"
        + (f"; analyses: {', '.join(tables)}" if tables else "")
        + (f"; together: {', '.join(study.mix.workloads)}" if study.mix else "")
    )
    return 0


def _print_shrunk(path: Path, where: Path) -> int:
    """The shrunk study on stdout, checked as `dbstor run` would; its directories made."""
    import tomllib

    import tomli_w

    from dbstor.commands.study_analyses import check_as_run_would
    from dbstor.safefs import make_dir, user_dir
    from dbstor.study.load import load_study, study_from_dict
    from dbstor.study.shrink import shrink

    load_study(path)  # the original is refused as it is, naming its own file
    from dbstor.engines.shrunk import small_memory
    from dbstor.userfiles import STUDY_FILE_BYTES, read_text

    data = tomllib.loads(read_text(path, "a study file", STUDY_FILE_BYTES))
    small, dirs = shrink(data, where.resolve(), memory=small_memory)
    check_as_run_would(study_from_dict(small, source=f"{path} (shrunk)", base_dir=path.parent))
    user_dir(where, "--shrink")  # the folder the user named (a link at its name is refused)
    parts = [  # the folders made in it are dbstor's: never through a link
        part
        for folder in dirs
        for part in reversed(
            [folder, *folder.parents][: len(folder.relative_to(where.resolve()).parts)]
        )
    ]
    for part in [p for p in parts if p.is_symlink() or p.exists()] + parts:  # checked, then made
        make_dir(part, fix="choose another --shrink folder")
    sys.stdout.write(f"# {path} shrunk to this machine (dbstor study --shrink {where})\n")
    sys.stdout.write(tomli_w.dumps(small))
    return 0
