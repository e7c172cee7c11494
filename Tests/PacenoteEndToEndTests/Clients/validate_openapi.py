"""Validates real responses against Pacenote's OpenAPI 3.1 document.

Reads the document path as argv[1] and, on stdin, a JSON list of exchanges:
{"method", "path" (the documented path template), "status", "content_type", "body"}.
Prints one line per problem and exits 1 if there is any; 0 otherwise. Also checks the
document itself with openapi-spec-validator."""
import json, sys

from jsonschema import Draft202012Validator
from openapi_spec_validator import validate as validate_spec
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

doc = json.load(open(sys.argv[1]))
validate_spec(doc)
exchanges = json.load(sys.stdin)
registry = Registry().with_resource("urn:pacenote", Resource.from_contents(doc, default_specification=DRAFT202012))


def pointer(*parts):
    return "/".join(str(p).replace("~", "~0").replace("/", "~1") for p in parts)


problems = []
for ex in exchanges:
    where = f'{ex["method"]} {ex["path"]} -> {ex["status"]}'
    operation = doc["paths"].get(ex["path"], {}).get(ex["method"].lower())
    if operation is None:
        problems.append(f"{where}: not in the document")
        continue
    response = operation["responses"].get(str(ex["status"]))
    if response is None:
        problems.append(f"{where}: status not documented")
        continue
    if "content" not in response:  # 204: nothing is documented, and nothing may come
        if ex["body"] not in ("", None):
            problems.append(f"{where}: a body where the document has none")
        continue
    media = ex["content_type"].split(";")[0].strip()
    if media not in response.get("content", {}):
        problems.append(f"{where}: content type {media} not documented")
        continue
    if media != "application/json":
        continue
    ref = "urn:pacenote#/" + pointer("paths", ex["path"], ex["method"].lower(), "responses", str(ex["status"]),
                                      "content", media, "schema")
    validator = Draft202012Validator({"$ref": ref}, registry=registry)
    for error in validator.iter_errors(ex["body"]):
        problems.append(f"{where}: {'/'.join(map(str, error.absolute_path))}: {error.message}")

for p in problems:
    print(p)
print(f"{len(exchanges)} responses checked, {len(problems)} problems", file=sys.stderr)
sys.exit(1 if problems else 0)
