"""Studies: what to test (targets x workloads x load series), from TOML or built in."""
