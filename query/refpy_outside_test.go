package query

import (
	"context"
	"testing"
)

// TestRefsPythonOutside: values of types the repository does not define
// own their members, read through super()'s stated results, a local's
// declared type, the calls of a plain outside value with plain arguments
// (a library's module, a parameter annotated with a library's class), a
// container's item the function assigns or its stated type gives; a
// library's value made from one of the repository's stays open.
func TestRefsPythonOutside(t *testing.T) {
	p := refsRepo(t, map[string]string{
		"app/base.py": `import os
import typing as t
from torch import nn


class Item:
    def update(self, **kw) -> None:
        pass


class Base:
    def info(self) -> dict[str, t.Any]:
        return {}

    def item(self) -> Item:
        return Item()


class Child(Base):
    def info(self) -> dict[str, t.Any]:
        d = super().info()
        d.update(a=1)
        it = super().item()
        it.update(b=2)
        return d

    def run(self, env: dict[str, str] | None, vec: nn.Tensor, thing) -> None:
        environ: dict[str, str] | None = None
        if env:
            environ = os.environ.copy()
            environ.update(env)
        layer = nn.Embedding.from_pretrained(vec.clone(), freeze=True)
        layer.weight.update()
        got = {}
        got["k"] = os.getcwd()
        got["k"].update()
        made = {}
        made["k"] = Item()
        made["k"].update()
        held = nn.Wrap(Item())
        held.get().update()
        copied: dict[str, str] = {}
        copied = thing.copy()
        copied.update(env)

    def pager(self, parts: list[str]) -> None:
        import shutil

        cmd = parts[0]
        found = shutil.which(cmd)
        path = nn.Path(found).absolute()
        path.update()
`,
	})
	got, _ := refsOf(t, p, "app/base.py", "Item.update")
	wantRefs(t, "Item.update", got, map[string]string{
		"app/base.py:22": "",           // super().info() -> dict[str, t.Any]
		"app/base.py:24": ConfResolved, // super().item() -> Item
		"app/base.py:31": "",           // os.environ.copy(): a library's value's method, plain arguments
		"app/base.py:33": "",           // from_pretrained(vec.clone(), …) of a library's class
		"app/base.py:36": "",           // the item assigned os.getcwd()
		"app/base.py:39": ConfResolved, // the item assigned Item()
		"app/base.py:41": ConfLikely,   // a library's value made from the repository's
		"app/base.py:44": "",           // declared dict[str, str], assigned a value of no stated type
		"app/base.py:52": "",           // made from a list[str]'s item through a library's functions
	})
}

// TestRefsPythonPropertyParts: a property defined as a getter and a
// setter: an assignment calls the setter, a read the getter.
func TestRefsPythonPropertyParts(t *testing.T) {
	p := refsRepo(t, map[string]string{
		"app/model.py": `class Model:
    def __init__(self, flag: bool) -> None:
        self.flag = flag

    @property
    def flag(self) -> bool:
        return self._flag

    @flag.setter
    def flag(self, value: bool) -> None:
        self._flag = value

    def use(self) -> bool:
        return self.flag


def make(m: Model) -> None:
    m.flag = not m.flag
`,
	})
	ctx := context.Background()
	var getter, setter map[string]string
	for _, sid := range symbolIDs(t, p, "Model.flag") {
		d, err := p.SymbolWith(ctx, sid, SymbolOptions{})
		if err != nil {
			t.Fatal(err)
		}
		got, _ := refsByID(t, p, sid)
		if d.StartLine < 9 {
			getter = got
		} else {
			setter = got
		}
	}
	wantRefs(t, "getter", getter, map[string]string{
		"app/model.py:3":  "",
		"app/model.py:14": ConfResolved,
		"app/model.py:18": ConfResolved, // reads it too
	})
	wantRefs(t, "setter", setter, map[string]string{
		"app/model.py:3":  ConfResolved,
		"app/model.py:14": "",
		"app/model.py:18": ConfResolved,
	})
}

// TestRefsPythonEnumerate: "for i, v in enumerate(xs)" binds v to an
// item of xs.
func TestRefsPythonEnumerate(t *testing.T) {
	p := refsRepo(t, map[string]string{
		"app/parse.py": `class Arg:
    def process(self) -> None:
        pass


class Opt:
    def process(self) -> None:
        pass


class Parser:
    def __init__(self) -> None:
        self._args: list[Arg] = []

    def run(self, opts: list[Opt]) -> None:
        for idx, arg in enumerate(self._args):
            arg.process()
        for n, (idx, opt) in enumerate(opts, start=1):
            opt.process()
        for idx, opt in enumerate(opts, start=1):
            opt.process()
`,
	})
	got, _ := refsOf(t, p, "app/parse.py", "Opt.process")
	wantRefs(t, "Opt.process", got, map[string]string{
		"app/parse.py:17": "",
		"app/parse.py:19": ConfNameOnly, // a nested target: not read
		"app/parse.py:21": ConfResolved,
	})
}
