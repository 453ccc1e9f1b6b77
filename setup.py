"""The compiled part of dbstor: dbstor.hotpath from src/hotpath/ (the orders hot path's
draws, parameter text and counting; docs/architecture.md). Everything else is declared in
pyproject.toml. Building it needs gcc and python3-dev (the Makefile's SYSTEM_DEPS_BUILD)."""

from setuptools import Extension, setup

SOURCES = ["module.c", "draws.c", "sends.c", "text.c", "tally.c", "replies.c"]

setup(
    ext_modules=[
        Extension(
            "dbstor.hotpath",
            sources=[f"src/hotpath/{name}" for name in SOURCES],
            depends=["src/hotpath/hotpath.h"],
            include_dirs=["src/hotpath"],
            extra_compile_args=["-O2", "-std=c11", "-Wall"],
            libraries=["m"],
        )
    ]
)
