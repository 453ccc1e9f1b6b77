"""Telemetry beside every load point: host CPU from /proc/stat, the target's block
devices from /proc/diskstats, one sample a second in a background thread."""

from dbstor.telemetry.cpu import CpuTimes, cpu_stats, parse_proc_stat
from dbstor.telemetry.disk import DiskCounters, device_stats, devices_for_path, parse_diskstats
from dbstor.telemetry.sampler import SAMPLE_KEYS, Sample, Sampler, Snapshot, summarise

__all__ = [
    "SAMPLE_KEYS",
    "CpuTimes",
    "DiskCounters",
    "Sample",
    "Sampler",
    "Snapshot",
    "cpu_stats",
    "device_stats",
    "devices_for_path",
    "parse_diskstats",
    "parse_proc_stat",
    "summarise",
]
