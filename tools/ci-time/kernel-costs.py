#!/usr/bin/env python3
"""What the kernel charges on this host for the things CI's processes do most besides computing: a system call,
and a round trip between two processes through pipes (a write that wakes the other side, which answers), the
partner on the other core and on the same core. The control planes' requests (kube-apiserver <-> etcd, a test <->
kube-apiserver), kubelet's probes and every process start are made of these, so on a host where they are dear
CI's CPU-seconds grow with them, not with the speed of plain arithmetic (bench/latest/ci-time/README.md).

Each figure is the median of 5 rounds and includes Python's own overhead per call (about 0.05-0.1 us a call).
    python3 tools/ci-time/kernel-costs.py   -> {"syscallUs": ..., "pipeRoundTripUs": ..., "pipeRoundTripSameCpuUs": ...}
"""
import json
import os
import statistics
import time


def syscall_us(n=200_000):
    started = time.perf_counter_ns()
    for _ in range(n):
        os.getppid()
    return (time.perf_counter_ns() - started) / 1e3 / n


def pipe_round_trip_us(same_cpu, n=20_000):
    child_in, parent_out = os.pipe()  # os.pipe(): (read end, write end)
    parent_in, child_out = os.pipe()
    cpus = sorted(os.sched_getaffinity(0))
    pid = os.fork()
    if pid == 0:
        if same_cpu:
            os.sched_setaffinity(0, {cpus[0]})
        elif len(cpus) > 1:
            os.sched_setaffinity(0, {cpus[1]})
        for _ in range(n):
            os.read(child_in, 1)
            os.write(child_out, b"x")
        os._exit(0)
    before = os.sched_getaffinity(0)
    os.sched_setaffinity(0, {cpus[0]})
    try:
        started = time.perf_counter_ns()
        for _ in range(n):
            os.write(parent_out, b"x")
            os.read(parent_in, 1)
        elapsed = time.perf_counter_ns() - started
    finally:
        os.sched_setaffinity(0, before)
        os.waitpid(pid, 0)
        for fd in (child_in, parent_out, parent_in, child_out):
            os.close(fd)
    return elapsed / 1e3 / n


def median_of(f, *args):
    return round(statistics.median(f(*args) for _ in range(5)), 2)


print(
    json.dumps(
        {
            "syscallUs": median_of(syscall_us),
            "pipeRoundTripUs": median_of(pipe_round_trip_us, False),
            "pipeRoundTripSameCpuUs": median_of(pipe_round_trip_us, True),
            "cpus": len(os.sched_getaffinity(0)),
            "load1": round(os.getloadavg()[0], 2),
        }
    )
)
