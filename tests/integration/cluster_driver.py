"""A coordinator for the cluster tests: probe points across hosts, one JSON line per event.

    python cluster_driver.py '{"address": ..., "hosts": [...], "target": ..., "points": 2,
                               "duration_s": 1, "secret": null}'

Prints {"event": "prepared"} once every host is prepared, then one {"event": "point", ...}
per point; exits 2 on a UserError, 1 on a failed point (message on stderr), 0 otherwise.
"""

from __future__ import annotations

import json
import sys

from dbstor.cluster.session import ClusterSession
from dbstor.errors import PointFailed, UserError


def say(**fields: object) -> None:
    print(json.dumps(fields), flush=True)


def main(spec: dict) -> int:
    hosts = spec["hosts"]
    grace = spec.get("late_grace_s", 30.0)
    with ClusterSession(spec["address"], hosts, late_grace_s=grace) as cluster:
        cluster.preflight({"fio": True, "target": spec["target"], "min_free_bytes": 1 << 20})
        setup: dict = {"target": spec["target"], "size_bytes": 4 << 20}
        if spec.get("secret"):
            from dbstor.cluster.actor import SECRETS_KEY, seal

            setup[SECRETS_KEY] = seal({"dsn_password": spec["secret"]})
        if spec.get("canary"):  # a value a task prints: proves Ray's logs are searched
            import ray

            ray.get(ray.remote(num_cpus=0)(lambda text: print(text)).remote(spec["canary"]))
        facts = cluster.prepare("probe", {}, {h: setup for h in hosts})
        say(
            event="prepared",
            facts=facts,
            offsets={h: o.offset_s for h, o in cluster.offsets.items()},
        )
        for index in range(int(spec.get("points", 1))):
            point = {"index": index, "duration_s": spec.get("duration_s", 1)}
            result = cluster.measure({h: point for h in hosts}, float(point["duration_s"]))
            say(
                event="point",
                index=index,
                skew_s=result.skew_s,
                limit_s=result.skew_limit_s,
                flagged=result.flagged,
                hosts={
                    h: {
                        "ops": o["ops"],
                        "bins_total": sum(o["read"]["bins"].values()),
                        "started_at": result.starts[h],
                    }
                    for h, o in result.outcomes.items()
                },
            )
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(json.loads(sys.argv[1])))
    except UserError as exc:
        print(f"dbstor: error: {exc}", file=sys.stderr)
        sys.exit(2)
    except PointFailed as exc:
        print(f"dbstor: a load point failed: {exc}", file=sys.stderr)
        sys.exit(1)
    except KeyboardInterrupt:
        print("dbstor: interrupted", file=sys.stderr)
        sys.exit(130)
