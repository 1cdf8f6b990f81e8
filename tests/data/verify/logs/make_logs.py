#!/usr/bin/env python3
"""Writes the monitoring logs of tests/data/verify/logs (deterministic).

No public multi-minute `nvidia-smi --query-gpu ... --format=csv -l 1` log of
a training run was found, so these are SYNTHETIC: the header and every value
format are nvidia-smi's own (units, "0x%016x" reason masks), the numbers are
drawn around a Tesla V100-PCIE-32GB (250 W board power, 32,510 MiB) at load
as the recording in ../v100-1gpu shows it (P0, 170 W, 66 C, 1,380 MHz SM).
Run: python3 make_logs.py (from this directory)."""
import random

HEADER = ("timestamp, index, utilization.gpu [%], utilization.memory [%], memory.used [MiB], "
          "temperature.gpu, power.draw [W], clocks.sm [MHz], clocks_throttle_reasons.active")


def row(t, gpu, util, mem_util, mem, temp, power, sm, reasons):
    return (f"2023/05/26 10:{t // 60:02d}:{t % 60:02d}.{(37 * t + gpu) % 1000:03d}, {gpu}, {util} %, {mem_util} %, "
            f"{mem} MiB, {temp}, {power:.2f} W, {sm} MHz, 0x{reasons:016x}")


def write(name, rows):
    with open(name, "w", encoding="ascii") as f:
        f.write(HEADER + "\n" + "\n".join(rows) + "\n")


def main():
    r = random.Random(15)
    n = 180
    healthy, lowutil, thermal, capped, straggler = [], [], [], [], []
    for t in range(n):
        healthy.append(row(t, 0, r.randint(94, 100), r.randint(40, 60), 28100 + r.randint(0, 400), r.randint(62, 70),
                           r.uniform(225, 249), r.choice([1380, 1365, 1350]), 0x4 if r.random() < 0.2 else 0))
        # Input-bound: the GPU idles between bursts (DataLoader starved).
        busy = (t % 5) >= 2
        lowutil.append(row(t, 0, r.randint(85, 100) if busy else r.randint(0, 3), r.randint(30, 50) if busy else 0,
                           27900, r.randint(55, 62), r.uniform(180, 230) if busy else r.uniform(45, 60),
                           1380 if busy else 1230, 0 if busy else 0x1))
        hot = t > 40
        thermal.append(row(t, 0, r.randint(95, 100), r.randint(40, 60), 28100, r.randint(84, 89) if hot else r.randint(70, 79),
                           r.uniform(200, 240), 1245 if hot else 1380, (0x20 | 0x40) if hot and r.random() < 0.6 else 0))
        capped.append(row(t, 0, r.randint(95, 100), r.randint(35, 50), 28100, r.randint(58, 64), r.uniform(146, 150),
                          1110, 0x4))
        for gpu in (0, 1):
            slow = gpu == 1
            straggler.append(row(t, gpu, r.randint(60, 75) if slow else r.randint(94, 100), r.randint(30, 50), 28100,
                                 r.randint(60, 68), r.uniform(150, 180) if slow else r.uniform(225, 249), 1380, 0))
    write("healthy.csv", healthy)
    write("low-utilisation.csv", lowutil)
    write("thermal-throttle.csv", thermal)
    write("power-capped.csv", capped)
    write("straggler.csv", straggler)


if __name__ == "__main__":
    main()
