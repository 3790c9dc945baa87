"""Checks tessel-bench --json output (a file, or '-' for stdin): every line
is a JSON object with the required keys and sane values; prints one summary
line per object for FileCheck, then the number of objects."""
import json
import sys

REQUIRED = ["p50_ms", "p90_ms", "p99_ms", "mean_ms", "min_ms", "max_ms",
            "throughput_per_s", "iterations", "threads", "device", "batch",
            "warmup", "total_s", "model", "binary"]

lines = (sys.stdin if sys.argv[1] == "-" else open(sys.argv[1])).read().splitlines()
for line in lines:
    obj = json.loads(line)
    missing = [k for k in REQUIRED if k not in obj]
    assert not missing, "missing keys: %s" % missing
    assert 0 < obj["min_ms"] <= obj["p50_ms"] <= obj["p90_ms"] <= obj["p99_ms"] <= obj["max_ms"], obj
    assert obj["min_ms"] <= obj["mean_ms"] <= obj["max_ms"], obj
    # Nearest rank: pP is the ceil(P/100 * n)-th smallest, so p99 is the
    # largest of up to 100 latencies and p90 of up to 10.
    if obj["iterations"] <= 100:
        assert obj["p99_ms"] == obj["max_ms"], obj
    if obj["iterations"] <= 10:
        assert obj["p90_ms"] == obj["max_ms"], obj
    assert obj["throughput_per_s"] > 0, obj
    expected = obj["batch"] * obj["iterations"] / obj["total_s"]
    assert abs(obj["throughput_per_s"] - expected) <= 1e-3 * expected, obj
    print("batch=%d iterations=%d threads=%d device=%s binary=%s"
          % (obj["batch"], obj["iterations"], obj["threads"], obj["device"],
             obj["binary"]))
print("%d configurations" % len(lines))
