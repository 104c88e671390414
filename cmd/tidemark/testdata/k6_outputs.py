"""Reads a run's k6 --out json and --out csv files with Python's own json, csv and gzip
modules, as a user's post-processing would, and prints per metric the number of samples
and their sum as JSON: {"json": {metric: [n, sum]}, "csv": {metric: [n, sum]}}.

Usage: python3 k6_outputs.py OUT.json[.gz] OUT.csv[.gz]
"""
import csv
import gzip
import json
import sys


def open_text(path):
    if path.endswith(".gz"):
        return gzip.open(path, "rt", newline="")
    return open(path, newline="")


def add(counts, metric, value):
    n, s = counts.get(metric, (0, 0.0))
    counts[metric] = (n + 1, s + value)


def main():
    out = {"json": {}, "csv": {}}
    metrics = set()
    with open_text(sys.argv[1]) as f:
        for line in f:
            doc = json.loads(line)
            if doc["type"] == "Metric":
                metrics.add(doc["metric"])
            elif doc["type"] == "Point":
                if doc["metric"] not in metrics:
                    raise SystemExit("Point before its Metric line: " + doc["metric"])
                add(out["json"], doc["metric"], float(doc["data"]["value"]))
            else:
                raise SystemExit("unknown line type: " + doc["type"])
    with open_text(sys.argv[2]) as f:
        for row in csv.DictReader(f):
            add(out["csv"], row["metric_name"], float(row["metric_value"]))
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
