#!/usr/bin/env python3
"""json_schema_check.py SCHEMA DOC: checks DOC against the subset of JSON Schema that the
project's schemas use (type, with null; required; properties; items; enum). Prints one line per
violation and exits 1 when there is any, 0 otherwise. Standard library only."""
import json
import sys

TYPES = {"object": dict, "array": list, "string": str, "boolean": bool, "null": type(None)}


def type_ok(v, t):
    if t == "integer":
        return isinstance(v, int) and not isinstance(v, bool)
    if t == "number":
        return isinstance(v, (int, float)) and not isinstance(v, bool)
    return isinstance(v, TYPES[t])


def check(schema, v, path, errs):
    t = schema.get("type")
    if t is not None:
        ts = t if isinstance(t, list) else [t]
        if not any(type_ok(v, x) for x in ts):
            errs.append(f"{path}: {json.dumps(v)[:60]} is not {t}")
            return
    if "enum" in schema and v not in schema["enum"]:
        errs.append(f"{path}: {v!r} not in {schema['enum']}")
    if isinstance(v, dict):
        for k in schema.get("required", []):
            if k not in v:
                errs.append(f"{path}: missing {k}")
        for k, sub in schema.get("properties", {}).items():
            if k in v:
                check(sub, v[k], f"{path}.{k}", errs)
    if isinstance(v, list) and "items" in schema:
        for i, x in enumerate(v):
            check(schema["items"], x, f"{path}[{i}]", errs)


def main():
    with open(sys.argv[1]) as f:
        schema = json.load(f)
    with open(sys.argv[2]) as f:
        doc = json.load(f)  # also rejects NaN-free violations: json.load accepts NaN, so:
    text = open(sys.argv[2]).read()
    errs = []
    for bad in ("NaN", "Infinity"):
        if bad in text.replace('"', ' ').split():
            errs.append(f"$: {bad} is not JSON")
    check(schema, doc, "$", errs)
    for e in errs:
        print(e)
    sys.exit(1 if errs else 0)


main()
