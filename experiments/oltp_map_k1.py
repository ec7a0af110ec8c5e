"""The OLTP map's amendment 1 (bench/swingbench-lite/PREREGISTRATION-amendment-1.md,
registered before these runs): buffer-latches with one shard per session, at
16, 64 and 128 sessions per vCPU, the same four arms, task-shared and
rseq-cr at 16. Everything else is experiments/oltp_map.py's.
"""

from experiments.oltp_map import OltpMap


class OltpMapK1(OltpMap):
    name = "oltp-map-k1"
    description = "the OLTP map's amendment 1: one shard per session"
    blocks = ["map", "point_abis"]
    axes = OltpMap.axes.replace(testbeds=["precise"], sessions=[16, 64, 128], profiles=["buffer-latches"])

    def psb(self, v, clients, profile, mutex):
        return dict(super().psb(v, clients, profile, mutex), shards=clients)


EXPERIMENT = OltpMapK1
