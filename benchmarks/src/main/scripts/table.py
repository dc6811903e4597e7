#!/usr/bin/env python3
"""Prints the side-by-side table of docs/http-client.md from a JMH JSON result file.

Usage: python3 benchmarks/src/main/scripts/table.py jmh-result.json
"""
import json
import sys

PEERS = [("raw", "raw JDK client"), ("failsafe", "Failsafe (retry 3 + breaker)"),
         ("resilience4j", "resilience4j (retry 3 + breaker)"), ("ballast", "Ballast (defaults)"),
         ("ballastWithMetrics", "Ballast + metrics (ballast-micrometer)")]


def load(path):
    results = {}
    for r in json.load(open(path)):
        name = r["benchmark"].rsplit(".", 2)
        key = (name[-2], name[-1], r["mode"])
        results[key] = r
    return results


def metric(r, name):
    m = r["secondaryMetrics"].get(name) if r else None
    return m["score"] if m else None


def pct(r, p):
    return r["primaryMetric"]["scorePercentiles"][p] if r else None


def fmt(v, digits=1):
    return "—" if v is None else f"{v:,.{digits}f}"


def ratio(v, base):
    return "" if v is None or not base else f" ({v / base:.2f}×)"


def main(path):
    res = load(path)
    out = []
    out.append("(a) Wrapper cost: a wrapped client that answers at once and runs the body handler; mean ns per call, "
               "allocation per call.\n")
    out.append("| | ns/call | added to raw | B/call |")
    out.append("| --- | ---: | ---: | ---: |")
    raw = res.get(("WrapperCostBenchmark", "raw", "avgt"))
    base = raw["primaryMetric"]["score"] if raw else None
    for key, label in PEERS:
        r = res.get(("WrapperCostBenchmark", key, "avgt"))
        score = r["primaryMetric"]["score"] if r else None
        added = "—" if key == "raw" or score is None else f"+{(score - base) / 1000:.2f} µs"
        out.append(f"| {label} | {fmt(score)} ± {fmt(r['primaryMetric']['scoreError']) if r else '—'} | {added} "
                   f"| {fmt(metric(r, 'gc.alloc.rate.norm'), 0)} |")
    out.append("")
    for threads, suffix in ((1, ""), (16, "16")):
        out.append(f"(b) Healthy GET on loopback, {threads} caller thread{'s' if threads > 1 else ''}: "
                   "latency in µs (ratio to raw), throughput in calls/s (threads ÷ mean latency of the same "
                   "sampling run), allocation per call.\n")
        out.append("| | p50 µs | p99 µs | calls/s | B/call |")
        out.append("| --- | ---: | ---: | ---: | ---: |")
        raw_s = res.get(("LoopbackBenchmark", "raw" + suffix, "sample"))
        peers = list(PEERS)
        if threads == 1:
            peers.insert(1, ("rawWithTimeout", "raw JDK client, request with a timeout"))
        for key, label in peers:
            s = res.get(("LoopbackBenchmark", key + suffix, "sample"))
            if s is None and key == "ballastWithMetrics":
                continue  # measured by (a) and (c) only
            p50, p99 = pct(s, "50.0"), pct(s, "99.0")
            thr = threads * 1e6 / s["primaryMetric"]["score"] if s else None
            out.append(f"| {label} | {fmt(p50)}{ratio(p50, pct(raw_s, '50.0'))} | {fmt(p99)}{ratio(p99, pct(raw_s, '99.0'))} "
                       f"| {fmt(thr, 0)} | {fmt(metric(s, 'gc.alloc.rate.norm'), 0)} |")
        out.append("")
    out.append("(c) Rejection while the circuit breaker is open: ns per call, allocation per call.\n")
    out.append("| | p50 ns | p99 ns | B/call |")
    out.append("| --- | ---: | ---: | ---: |")
    out.append("| raw JDK client | — | — | — |")
    for key, label in PEERS[1:]:
        r = res.get(("OpenCircuitBenchmark", key, "sample"))
        out.append(f"| {label} | {fmt(pct(r, '50.0'), 0)} | {fmt(pct(r, '99.0'), 0)} "
                   f"| {fmt(metric(r, 'gc.alloc.rate.norm'), 0)} |")
    print("\n".join(out))


if __name__ == "__main__":
    main(sys.argv[1])
