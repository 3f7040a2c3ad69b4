"""jedirefs answers refsbench's questions with jedi.

    python3 jedirefs.py

It reads JSON requests from stdin, one a line, and writes one answer a
line. The first request is {"root": DIR, "files": [absolute paths]} and is
answered with {"version", "files"} (the given files: jedi searches them
all). Every later request is {"path", "line" (1-based), "column" (0-based
code points), "name"} and is answered with {"refs": [{"path", "line"}]}:
get_references at that position in a jedi project over DIR (with DIR's
parent on the import path, so that a package indexed at its own directory
imports itself by name), definitions included; or {"refs": [], "error"}.

jedi's answers depend on the order in which it meets objects in sets that
hash by address, and on what earlier queries left in its caches. So each
query runs in a process of its own, with a fixed hash seed and, where
setarch can turn it off, without address randomisation: then an answer
depends on the query alone.
"""

import json
import os
import platform
import shutil
import subprocess
import sys
import traceback


def one_query(root, req):
    import jedi

    project = jedi.Project(path=root, added_sys_path=[os.path.dirname(root)])
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


def no_aslr_prefix():
    """The command that runs a program without address randomisation, or
    [] where there is none."""
    setarch = shutil.which("setarch")
    if setarch is None:
        return []
    prefix = [setarch, platform.machine(), "-R"]
    try:
        subprocess.run(prefix + ["true"], check=True, capture_output=True)
    except (OSError, subprocess.CalledProcessError):
        return []
    return prefix


def main():
    if sys.argv[1:] == ["--query"]:
        req = json.load(sys.stdin)
        try:
            out = one_query(req["root"], req["query"])
        except Exception:
            out = {"refs": [], "error": traceback.format_exc(limit=3)}
        sys.stdout.write(json.dumps(out))
        return
    root, prefix = None, []
    env = dict(os.environ, PYTHONHASHSEED="0")
    for raw in sys.stdin:
        req = json.loads(raw)
        if root is None:
            import jedi

            root, prefix = req["root"], no_aslr_prefix()
            out = {"version": "jedi " + jedi.__version__, "files": sorted(req["files"])}
            if not prefix:
                out["warning"] = "setarch -R is unavailable: jedi's answers may vary from run to run"
        else:
            child = subprocess.run(prefix + [sys.executable, os.path.abspath(__file__), "--query"],
                                   input=json.dumps({"root": root, "query": req}), env=env,
                                   capture_output=True, text=True)
            try:
                out = json.loads(child.stdout)
            except ValueError:
                out = {"refs": [], "error": "the query's process ended with status %d: %s"
                       % (child.returncode, child.stderr[-600:])}
        sys.stdout.write(json.dumps(out) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
