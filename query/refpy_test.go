package query

import (
	"slices"
	"testing"
)

// TestRefsPython: members told apart by the receiver's type as the source
// states it — a parameter's annotation, a constructor call, a function's
// and a method's return annotation, self's attribute assigned in
// __init__, a module-level instance imported from another module,
// "except T as e", super() through a base in another file and through a
// base outside the repository — an override's untyped uses left to its
// base, and a re-export line marked.
func TestRefsPython(t *testing.T) {
	p := refsRepo(t, map[string]string{
		"pkg/__init__.py": "from .store import Store as Store\nfrom .store import make_store\n",
		"pkg/store.py": `import io


class Store:
    name = "store"

    def close(self) -> None:
        pass

    def child(self) -> "Store":
        return Store()


class Cache(Store):
    name = "cache"

    def close(self) -> None:
        super().close()


class Sink(io.StringIO):
    def close(self) -> None:
        super().close()


class StoreError(Exception):
    def close(self) -> None:
        pass


def make_store() -> Store:
    return Store()


default = Cache()
`,
		"pkg/app.py": `from .store import Store, Cache, StoreError, make_store, default


class App:
    def __init__(self, cache: Cache) -> None:
        self.cache = cache
        self.store = Store()
        self.buf = open("x")

    def run(self, s: Store, thing) -> None:
        s.close()
        self.cache.close()
        self.store.close()
        self.buf.close()
        made = make_store()
        made.close()
        s.child().close()
        default.close()
        thing.close()
        print(thing.name)
        try:
            pass
        except StoreError as e:
            e.close()
`,
	})
	store, _ := refsOf(t, p, "pkg/store.py", "Store.close")
	cache, _ := refsOf(t, p, "pkg/store.py", "Cache.close")
	sink, _ := refsOf(t, p, "pkg/store.py", "Sink.close")
	storeErr, _ := refsOf(t, p, "pkg/store.py", "StoreError.close")
	wantRefs(t, "Store.close", store, map[string]string{
		"pkg/app.py:11":   ConfResolved, // s: Store
		"pkg/app.py:12":   "",           // self.cache: Cache, which overrides close
		"pkg/app.py:13":   ConfResolved, // self.store = Store()
		"pkg/app.py:14":   "",           // open(): a builtin's file
		"pkg/app.py:16":   ConfResolved, // make_store() -> Store
		"pkg/app.py:17":   ConfResolved, // Store.child() -> "Store"
		"pkg/app.py:18":   "",           // default = Cache(), imported
		"pkg/app.py:19":   ConfNameOnly, // thing: no stated type
		"pkg/app.py:24":   "",           // except StoreError as e
		"pkg/store.py:18": ConfResolved, // super() in Cache
		"pkg/store.py:23": "",           // super() in a subclass of io.StringIO
	})
	wantRefs(t, "Cache.close", cache, map[string]string{
		"pkg/app.py:12":   ConfResolved,
		"pkg/app.py:18":   ConfResolved,
		"pkg/app.py:11":   "",
		"pkg/app.py:19":   "", // untyped: listed under Store.close, which it overrides
		"pkg/store.py:18": "",
	})
	wantRefs(t, "Sink.close", sink, map[string]string{"pkg/store.py:23": "", "pkg/app.py:14": ""})
	wantRefs(t, "StoreError.close", storeErr, map[string]string{"pkg/app.py:24": ConfResolved, "pkg/app.py:11": ""})
	nameRefs, _ := refsOf(t, p, "pkg/store.py", "Cache.name")
	wantRefs(t, "Cache.name", nameRefs, map[string]string{"pkg/app.py:20": ""})

	_, r := refsOf(t, p, "pkg/store.py", "Store")
	var reexport, plain []string
	for _, f := range r.Files {
		for _, h := range f.Refs {
			if f.Path == "pkg/__init__.py" && slices.Contains(h.Kinds, KindReexport) {
				reexport = append(reexport, h.Snippet)
			} else if slices.Contains(h.Kinds, KindReexport) {
				plain = append(plain, h.Snippet)
			}
		}
	}
	if len(reexport) != 1 || len(plain) != 0 {
		t.Errorf("Store: re-export lines %q, other lines marked %q; want the __init__ line only", reexport, plain)
	}
}

// TestRefsPythonFlow: types read through tuples, loops, comprehensions,
// with, typing.cast, isinstance, Callable results and modules outside the
// repository; bare names bound by loop targets and strings' text.
func TestRefsPythonFlow(t *testing.T) {
	p := refsRepo(t, map[string]string{
		"kit/nodes.py": `import typing as t
import subprocess


class Node:
    def render(self) -> str:
        return ""

    def __enter__(self) -> "Node":
        return self


class Leaf:
    def render(self) -> str:
        return ""


def pair() -> tuple[str, Node]:
    return "", Node()


def many() -> list[Node]:
    return []


def factory() -> t.Callable[[], Leaf]:
    return Leaf


make_leaf = factory()


def draw(items) -> None:
    name, node = pair()
    node.render()
    for n in many():
        n.render()
    texts = [m.render() for m in many()]
    with Node() as ctx:
        ctx.render()
    x = t.cast(Leaf, items)
    x.render()
    if isinstance(items, Leaf):
        items.render()
    make_leaf().render()
    subprocess.run(["ls"]).render()
    print("draw the nodes", items.draw)
    for i, draw in enumerate(items):
        print(draw)


def pick(a, b) -> str:
    return a.render() if isinstance(a, Leaf) else b.render()
`,
	})
	node, _ := refsOf(t, p, "kit/nodes.py", "Node.render")
	leaf, _ := refsOf(t, p, "kit/nodes.py", "Leaf.render")
	fn, _ := refsOf(t, p, "kit/nodes.py", "draw")
	wantRefs(t, "Node.render", node, map[string]string{
		"kit/nodes.py:35": ConfResolved, // a tuple's element
		"kit/nodes.py:37": ConfResolved, // a list's item
		"kit/nodes.py:38": ConfResolved, // a comprehension's
		"kit/nodes.py:40": ConfResolved, // with … as: __enter__'s result
		"kit/nodes.py:42": "",           // typing.cast(Leaf, …)
		"kit/nodes.py:44": "",           // isinstance(items, Leaf)
		"kit/nodes.py:45": "",           // a Callable[[], Leaf] called
		"kit/nodes.py:46": "",           // a module outside the repository
	})
	wantRefs(t, "Leaf.render", leaf, map[string]string{
		"kit/nodes.py:35": "",
		"kit/nodes.py:42": ConfResolved,
		"kit/nodes.py:44": ConfResolved,
		"kit/nodes.py:45": ConfResolved,
		"kit/nodes.py:53": ConfResolved, // "a.render() if isinstance(a, Leaf)"
	})
	wantRefs(t, "draw", fn, map[string]string{
		"kit/nodes.py:47": "", // a string's text, and another value's member
		"kit/nodes.py:49": "", // a loop's tuple target: a local
	})
}

// TestRefsPythonUnions: a receiver of several stated types (a union
// annotation, a TypeVar's bound or constraints, isinstance with a tuple,
// a union narrowed by isinstance) belongs to each type's member, and to
// none when no type defines the name; a foreign class's method called on
// an instance the chain itself makes from plain values is foreign.
func TestRefsPythonUnions(t *testing.T) {
	p := refsRepo(t, map[string]string{
		"kit/shapes.py": `import typing as t
from collections import abc
from pathlib import Path
from typing import TypeVar, Union


class Shell:
    name: t.ClassVar[str] = "sh"


class Atomic:
    @property
    def name(self) -> str:
        return ""


class Plain:
    def name(self) -> str:
        return ""


ShellType = TypeVar("ShellType", bound="type[Shell]")
Either = TypeVar("Either", Shell, Atomic)


def register(cls: ShellType, e: Either) -> ShellType:
    print(cls.name)
    print(e.name)
    return cls


def either(x: Shell | Atomic, y: Union[Atomic, Path], z: Shell | None, w: Path | int) -> None:
    print(x.name)
    print(y.name)
    print(z.name)
    print(w.name)


def fmt(v) -> str:
    if isinstance(v, (Atomic, Path)) and hasattr(v, "name"):
        return v.name
    return ""


def where(p: str, items: list[Plain]) -> str:
    q = Path(p).absolute()
    print(q.name)
    r = Path(items).absolute()
    return r.name


def group(shells: abc.Mapping[str, Shell] | abc.Sequence[Shell] | None) -> None:
    if isinstance(shells, abc.Sequence):
        print({s.name: s for s in shells})
`,
	})
	for qn, want := range map[string]map[string]string{
		"Shell.name": {
			"kit/shapes.py:27": ConfResolved, // a TypeVar's bound
			"kit/shapes.py:28": ConfResolved, // a TypeVar's constraints
			"kit/shapes.py:33": ConfResolved, // Shell | Atomic
			"kit/shapes.py:34": "",           // Union[Atomic, Path]
			"kit/shapes.py:35": ConfResolved,
			"kit/shapes.py:36": "", // Path | int: foreign both
			"kit/shapes.py:41": "", // isinstance(v, (Atomic, Path))
			"kit/shapes.py:47": "", // Path(p).absolute()
			"kit/shapes.py:54": ConfResolved,
		},
		"Atomic.name": {
			"kit/shapes.py:27": "",
			"kit/shapes.py:28": ConfResolved,
			"kit/shapes.py:33": ConfResolved,
			"kit/shapes.py:34": ConfResolved,
			"kit/shapes.py:35": "",
			"kit/shapes.py:41": ConfResolved,
			"kit/shapes.py:54": "",
		},
		"Plain.name": {
			"kit/shapes.py:27": "",
			"kit/shapes.py:28": "",
			"kit/shapes.py:33": "",
			"kit/shapes.py:34": "",
			"kit/shapes.py:35": "",
			"kit/shapes.py:36": "",
			"kit/shapes.py:41": "",
			"kit/shapes.py:47": "",
			"kit/shapes.py:49": ConfNameOnly, // Path(items): a value holding the repository's
			"kit/shapes.py:54": "",
		},
	} {
		got, _ := refsOf(t, p, "kit/shapes.py", qn)
		wantRefs(t, qn, got, want)
	}
}

// TestRefsPythonOwnPackage: an absolute import names the repository's own
// package (the index root being the package) only when its path past
// the first part names a repository file; another package's class of the
// same name is foreign.
func TestRefsPythonOwnPackage(t *testing.T) {
	p := refsRepo(t, map[string]string{
		"types.py": "class Path:\n    def absolute(self) -> \"Path\":\n        return self\n",
		"pager.py": "from pathlib import Path\n\n\ndef page(p: str) -> None:\n    Path(p).absolute()\n",
		"own.py":   "from mypkg.types import Path\n\n\ndef page(p: str) -> None:\n    Path(p).absolute()\n",
	})
	got, _ := refsOf(t, p, "types.py", "Path.absolute")
	wantRefs(t, "Path.absolute", got, map[string]string{
		"own.py:5":   ConfResolved,
		"pager.py:5": "", // pathlib's Path
	})
}

// TestRefsPythonDeclaredAttr: an attribute's declared type ("self.x: T")
// is its type whatever values are assigned to it.
func TestRefsPythonDeclaredAttr(t *testing.T) {
	p := refsRepo(t, map[string]string{
		"kit/lazy.py": `import typing as t


class Handle:
    def close(self) -> None:
        pass


class Lazy:
    def __init__(self, opener) -> None:
        self._f: t.IO[str] | None
        self._h: Handle | None = None
        self._f = opener()
        self._h = opener()

    def close(self) -> None:
        if self._f is not None:
            self._f.close()
        if self._h is not None:
            self._h.close()
`,
	})
	got, _ := refsOf(t, p, "kit/lazy.py", "Handle.close")
	wantRefs(t, "Handle.close", got, map[string]string{
		"kit/lazy.py:18": "", // t.IO[str]: typing's
		"kit/lazy.py:20": ConfResolved,
	})
}

// TestRefsPythonAppended: the items of a local list made empty and
// filled only by appends of one stated type are of that type.
func TestRefsPythonAppended(t *testing.T) {
	p := refsRepo(t, map[string]string{
		"kit/run.py": `class Job:
    def start(self) -> None:
        pass


class Task:
    def start(self) -> None:
        pass


def make() -> Job:
    return Job()


def run(n: int, other) -> None:
    jobs = []
    mixed = []
    while n:
        job = make()
        jobs.append(job)
        mixed.append(other)
        n -= 1
    for j in jobs:
        j.start()
    print([k.start() for k in jobs])
    for m in mixed:
        m.start()
`,
	})
	job, _ := refsOf(t, p, "kit/run.py", "Job.start")
	task, _ := refsOf(t, p, "kit/run.py", "Task.start")
	wantRefs(t, "Job.start", job, map[string]string{
		"kit/run.py:24": ConfResolved,
		"kit/run.py:25": ConfResolved,
		"kit/run.py:27": ConfNameOnly, // an append of no stated type
	})
	wantRefs(t, "Task.start", task, map[string]string{
		"kit/run.py:24": "",
		"kit/run.py:25": "",
		"kit/run.py:27": ConfNameOnly,
	})
}

// TestRefsPythonFStrings: names used only inside f-strings' replacement
// fields are references: a function called there, a method on a typed
// parameter, a constant in a nested format spec.
func TestRefsPythonFStrings(t *testing.T) {
	p := refsRepo(t, map[string]string{
		"billing/money.py": `from decimal import Decimal

WIDTH = 12


def money(amount: Decimal) -> str:
    return f"{amount:,.2f}"


class Account:
    def label(self) -> str:
        return "account"


class Ledger:
    def label(self) -> str:
        return "ledger"
`,
		"billing/report.py": `from billing.money import WIDTH, Account, money


def line(account: Account, total) -> str:
    return f"{account.label()!r}: {money(total):>{WIDTH}} {{label}}"
`,
	})
	for _, tc := range []struct {
		qualname string
		want     map[string]string
	}{
		{"money", map[string]string{"billing/report.py:5": ConfResolved}},
		{"WIDTH", map[string]string{"billing/report.py:5": ConfResolved}},
		{"Account.label", map[string]string{"billing/report.py:5": ConfResolved}},
		{"Ledger.label", map[string]string{"billing/report.py:5": ""}},
	} {
		got, _ := refsOf(t, p, "billing/money.py", tc.qualname)
		wantRefs(t, tc.qualname, got, tc.want)
	}
}

// TestRefsPythonClosure: a nested function reads the names it does not
// bind from the function around it, as Python's scopes do; one it binds
// itself (a parameter of no stated type) shadows the outer one.
func TestRefsPythonClosure(t *testing.T) {
	p := refsRepo(t, map[string]string{
		"kit/serve.py": `class Ctx:
    def invoke(self) -> None:
        pass


class Runner:
    def invoke(self) -> None:
        pass


def serve(ctx: Ctx, runner) -> None:
    def step() -> None:
        ctx.invoke()

    def shadow(ctx) -> None:
        ctx.invoke()

    step()
`,
	})
	ctxRefs, _ := refsOf(t, p, "kit/serve.py", "Ctx.invoke")
	runner, _ := refsOf(t, p, "kit/serve.py", "Runner.invoke")
	wantRefs(t, "Ctx.invoke", ctxRefs, map[string]string{
		"kit/serve.py:13": ConfResolved, // ctx: Ctx of serve, read in step
		"kit/serve.py:16": ConfNameOnly, // shadow's own ctx, of no stated type
	})
	wantRefs(t, "Runner.invoke", runner, map[string]string{
		"kit/serve.py:13": "",
		"kit/serve.py:16": ConfNameOnly,
	})
}

// TestRefsPythonImportInFunction: "from m import name as alias" inside a
// function of the same name imports m's definition; the name there is
// no use of the function around it.
func TestRefsPythonImportInFunction(t *testing.T) {
	p := refsRepo(t, map[string]string{
		"kit/__init__.py": "",
		"kit/_impl.py":    "def getchar() -> str:\n    return \"x\"\n",
		"kit/term.py": `def getchar() -> str:
    from ._impl import getchar as f
    return f()


def other() -> str:
    return getchar()

`,
		"kit/compat.py": `if WIN:
    from ._impl import getchar
else:

    def getchar() -> str:
        return ""
`,
	})
	impl, _ := refsOf(t, p, "kit/_impl.py", "getchar")
	term, _ := refsOf(t, p, "kit/term.py", "getchar")
	compat, _ := refsOf(t, p, "kit/compat.py", "getchar")
	wantRefs(t, "_impl.getchar", impl, map[string]string{
		"kit/term.py:2":   ConfResolved,
		"kit/term.py:7":   "",
		"kit/compat.py:2": ConfResolved,
	})
	wantRefs(t, "term.getchar", term, map[string]string{
		"kit/term.py:2":   "",
		"kit/term.py:7":   ConfResolved,
		"kit/compat.py:2": "",
	})
	// A top-level import of the name in compat's module binds compat's
	// name too.
	wantRefs(t, "compat.getchar", compat, map[string]string{
		"kit/compat.py:2": ConfResolved,
		"kit/term.py:2":   "",
	})
}

// TestRefsPythonKeywordField: a keyword argument to a class that writes
// no __init__ of its own (a dataclass's generated one) names the field;
// to a class with its own __init__, or to a function, it names a
// parameter.
func TestRefsPythonKeywordField(t *testing.T) {
	files := map[string]string{
		"kit/layout.py": `from dataclasses import dataclass
from pathlib import Path


@dataclass
class Layout:
    config: Path
    name: str = ""


class Plain:
    config: Path

    def __init__(self, config: Path) -> None:
        self.config = config


def build(config: Path) -> Layout:
    return Layout(config=config, name="x")


LAYOUTS = (
    Layout(
        config=Path("a"),
        name="a",
    ),
)
plain = Plain(config=Path("b"))
print(build(config=Path("c")))
`,
	}
	p := refsRepo(t, files)
	at := func(marker string) string { return atLine(t, files, "kit/layout.py", marker) }
	layout := refsOfQual(t, p, "kit/layout.py", "Layout.config")
	wantRefs(t, "Layout.config", layout, map[string]string{
		at("return Layout(config="):   ConfResolved,
		at(`config=Path("a")`):        ConfResolved,
		at(`Plain(config=Path("b"))`): "",
		at(`build(config=Path("c"))`): "",
	})
	plain := refsOfQual(t, p, "kit/layout.py", "Plain.config")
	wantRefs(t, "Plain.config", plain, map[string]string{
		at("return Layout(config="):   "",
		at(`config=Path("a")`):        "",
		at(`Plain(config=Path("b"))`): "",
	})
}

// TestRefsPythonWithItem: "with f()[0] as v" types v by the item of the
// tuple f is stated to return: a library's stream here, whose write is
// none of the repository's.
func TestRefsPythonWithItem(t *testing.T) {
	p := refsRepo(t, map[string]string{
		"kit/__init__.py": "",
		"kit/compat.py": `import typing as t


def open_stream(name: str) -> tuple[t.IO[t.Any], bool]:
    return open(name), True
`,
		"kit/fmt.py": `class Formatter:
    def write(self, s: str) -> None:
        pass
`,
		"kit/use.py": `from .compat import open_stream


def dump(text: str) -> None:
    with open_stream("x")[0] as f:
        f.write(text)
`,
	})
	got, _ := refsOf(t, p, "kit/fmt.py", "Formatter.write")
	wantRefs(t, "Formatter.write", got, map[string]string{"kit/use.py:6": ""})
}
