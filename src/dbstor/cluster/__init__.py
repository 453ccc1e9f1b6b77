"""Studies across several hosts, on Ray: one dbstor worker per named host, outcomes merged exactly.

Ray is the control plane only: it places one agent on each named host, starts points together
and brings back the plain outcomes the host measured itself. Nothing here is imported unless
the user gives --cluster; Ray is imported only inside connect.require_ray().

A host is a Ray node named by a custom resource given at `ray start`:
    ray start ... --resources '{"dbstor-host:db1": 1}'
or, without one, by the node's hostname.
"""

HOST_RESOURCE_PREFIX = "dbstor-host:"
