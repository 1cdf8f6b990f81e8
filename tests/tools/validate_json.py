#!/usr/bin/env python3
"""Validate JSON against a JSON Schema: a file (--file) or the stdout of a
command (after --), whose exit code must be --exit-code. Exit 0 when valid."""
import argparse
import json
import pathlib
import subprocess
import sys

import jsonschema


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--schema", required=True)
    parser.add_argument("--file")
    parser.add_argument("--exit-code", type=int, default=0)
    parser.add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args()

    with open(args.schema, encoding="utf-8") as f:
        schema = json.load(f)
    jsonschema.validators.validator_for(schema).check_schema(schema)

    if args.file:
        with open(args.file, encoding="utf-8") as f:
            text = f.read()
    else:
        cmd = args.command[1:] if args.command and args.command[0] == "--" else args.command
        proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
        if proc.returncode != args.exit_code:
            print(f"exit code {proc.returncode}, expected {args.exit_code}\n{proc.stderr}")
            return 1
        text = proc.stdout
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as e:
        print(f"not JSON: {e}\n{text[:2000]}")
        return 1
    # $refs to sibling schemas ("catalog.schema.json#/$defs/gpu") resolve from
    # the schema folder, never from the network: preload every schema there
    # under both its $id and its file URI.
    store = {}
    for path in pathlib.Path(args.schema).resolve().parent.glob("*.json"):
        with open(path, encoding="utf-8") as f:
            other = json.load(f)
        store[path.as_uri()] = other
        if isinstance(other, dict) and "$id" in other:
            store[other["$id"]] = other
    base = schema.get("$id", pathlib.Path(args.schema).resolve().as_uri())
    resolver = jsonschema.RefResolver(base_uri=base, referrer=schema, store=store)
    validator = jsonschema.validators.validator_for(schema)(schema, resolver=resolver)
    errors = sorted(validator.iter_errors(doc), key=lambda e: list(e.path))
    for e in errors[:20]:
        print(f"{'/'.join(str(p) for p in e.path)}: {e.message}")
    if errors:
        return 1
    print("valid")
    return 0


if __name__ == "__main__":
    sys.exit(main())
