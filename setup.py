"""The compiled part of dbstor (src/dbstor/hotpath.c); everything else is in pyproject.toml."""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "dbstor.hotpath",
            sources=["src/dbstor/hotpath.c"],
            extra_compile_args=["-O2", "-std=c11", "-Wall"],
            libraries=["m"],
        )
    ]
)
