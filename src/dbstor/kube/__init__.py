"""Kubernetes: a study as one Job per storage class, rendered, run through the API and collected."""
