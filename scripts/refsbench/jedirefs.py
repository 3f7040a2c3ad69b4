"""jedirefs answers refsbench's questions with jedi.

    python3 jedirefs.py

It reads JSON requests from stdin, one a line, and writes one answer a
line. The first request is {"root": DIR, "files": [absolute paths]}: a jedi
project over DIR (with DIR's parent on the import path, so that a package
indexed at its own directory imports itself by name) answers
{"version", "files"} (the given files: jedi searches them all). Every later
request is {"path", "line" (1-based), "column" (0-based code points),
"name"} and is answered with {"refs": [{"path", "line"}]}: get_references
at that position, definitions included; or {"refs": [], "error": ...}.
"""

import json
import os
import sys
import traceback

import jedi

project = None


def setup(root, files):
    global project
    project = jedi.Project(path=root, added_sys_path=[os.path.dirname(root)])
    return {"version": "jedi " + jedi.__version__, "files": sorted(files)}


def references(req):
    with open(req["path"], encoding="utf-8") as f:
        lines = f.read().split("\n")
    line = lines[req["line"] - 1] if req["line"] <= len(lines) else ""
    col = req["column"]
    if line[col:col + len(req["name"])] != req["name"]:
        return {"refs": [], "error": "the name is not at %d:%d" % (req["line"], col)}
    script = jedi.Script(path=req["path"], project=project)
    refs = []
    for n in script.get_references(req["line"], col):
        if n.module_path is not None and n.line is not None:
            refs.append({"path": os.path.abspath(str(n.module_path)), "line": n.line})
    return {"refs": refs}


def main():
    for raw in sys.stdin:
        try:
            req = json.loads(raw)
            out = setup(req["root"], req["files"]) if project is None else references(req)
        except Exception:
            out = {"refs": [], "error": traceback.format_exc(limit=3)}
        sys.stdout.write(json.dumps(out) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
