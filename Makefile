# make demo: set up (venv, package, fio) and run the default study on ./dbstor-data
# make test: set up (venv, package, fio, chromium, postgresql, mariadb) and run lint and the tests
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
# what pip needs to build mysqlclient (MariaDB's driver: C over libmariadb, no wheel on PyPI)
# and dbstor's own compiled hot path (dbstor.hotpath from src/hotpath/, setup.py: gcc and
# python3-dev)
SYSTEM_DEPS_BUILD := libmariadb-dev pkg-config gcc python3-dev
SYSTEM_DEPS_DEMO := fio
SYSTEM_DEPS_TEST := $(SYSTEM_DEPS_BUILD) fio chromium poppler-utils postgresql mariadb-server prometheus prometheus-node-exporter nftables iproute2 util-linux sysstat btrfs-progs xfsprogs etcd-server openssl

.PHONY: demo test setup lint bench clean image

# the compiled hot path is built by pip: a change to its sources builds it again
$(BIN)/dbstor: pyproject.toml setup.py $(wildcard src/hotpath/*.c src/hotpath/*.h)
	scripts/install-system-deps $(SYSTEM_DEPS_BUILD)
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[dev]'
	touch $@

setup: $(BIN)/dbstor
	scripts/install-system-deps $(SYSTEM_DEPS_DEMO)

demo: setup
	$(BIN)/dbstor run

lint: $(BIN)/dbstor
	$(BIN)/ruff check src tests bench
	$(BIN)/ruff format --check src tests bench

test: $(BIN)/dbstor
	scripts/install-system-deps $(SYSTEM_DEPS_TEST)
	$(MAKE) lint
	$(BIN)/pytest

# make image: the OCI image of dbstor (Debian packages + this tree's wheel; docs/kubernetes.md)
image: $(BIN)/dbstor
	scripts/install-system-deps mmdebstrap buildah
	scripts/build-image

bench: setup
	$(BIN)/python bench/bench_fio_fidelity.py

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache src/*.egg-info build src/dbstor/*.so
