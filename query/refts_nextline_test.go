package query

import "testing"

// tsNextLineFiles: bindings whose value opens the line below "const v =".
var tsNextLineFiles = map[string]string{
	"src/types.ts": `export interface Ping {
  enabled: boolean;
}

export interface KeepAlive {
  enabled: boolean;
}

export interface WSSOptions {
  keepAlive?: KeepAlive;
}

export function options(): WSSOptions {
  return {};
}
`,
	"src/use.ts": `import { options } from './types';
import type { WSSOptions } from './types';

export function plugin(opts: { trpcOptions: unknown }) {
  const trpcOptions =
    opts.trpcOptions as unknown as WSSOptions;
  const called =
    options();
  if (called.keepAlive?.enabled) { // call below
    return 0;
  }
  return trpcOptions.keepAlive?.enabled; // cast below
}
`,
}

// TestRefsTypeScriptValueNextLine: a local whose value opens the line
// below "const v =" (a cast, a call) has that value's type.
func TestRefsTypeScriptValueNextLine(t *testing.T) {
	p := refsRepo(t, tsNextLineFiles)
	at := func(marker string) string { return atLine(t, tsNextLineFiles, "src/use.ts", marker) }
	cases := []struct {
		qualname string
		want     map[string]string // "" when left out
	}{
		{"KeepAlive.enabled", map[string]string{at("cast below"): ConfResolved, at("call below"): ConfResolved}},
		{"Ping.enabled", map[string]string{at("cast below"): "", at("call below"): ""}},
	}
	for _, c := range cases {
		got, _ := refsOf(t, p, "src/types.ts", c.qualname)
		wantRefs(t, c.qualname, got, c.want)
	}
}
