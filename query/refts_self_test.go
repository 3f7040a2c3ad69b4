package query

import "testing"

// tsSelfFiles: a package's files that import its other files by the
// package's own name ("@acme/server/..."), as its tests do.
var tsSelfFiles = map[string]string{
	"packages/server/package.json": `{ "name": "@acme/server" }
`,
	"packages/server/src/types.ts": `export interface ServeOptions {
  url: string;
}

export interface FetchOptions {
  url: string;
}

`,
	"packages/server/src/__tests__/serve.ts": `import type { ServeOptions } from '../types';

export function serve(): ServeOptions {
  return { url: 'http://localhost' };
}

export const served: ServeOptions = serve();
`,
	"packages/server/src/serve.test.ts": `import { serve, served } from '@acme/server/__tests__/serve';
import type * as types from '@acme/server/types';

export function check(fetchUrl: (u: string) => void) {
  const s = serve();
  fetchUrl(s.url);
  fetchUrl(served.url);
}

export function viaNamespace(o: types.ServeOptions) {
  return o.url; // the namespace's type
}
`,
}

// TestRefsTypeScriptSelfImport: a value imported from the package's own
// file by the package's name has the type that file states, as one
// imported by a relative specifier does, and a namespace imported so is
// the repository's, not a package's.
func TestRefsTypeScriptSelfImport(t *testing.T) {
	p := refsRepo(t, tsSelfFiles)
	at := func(path, marker string) string { return atLine(t, tsSelfFiles, path, marker) }
	cases := []struct {
		path, qualname string
		want           map[string]string // "" when left out
	}{
		{"packages/server/src/types.ts", "ServeOptions.url", map[string]string{
			at("packages/server/src/serve.test.ts", "fetchUrl(s.url)"):      ConfResolved,
			at("packages/server/src/serve.test.ts", "fetchUrl(served.url)"): ConfResolved,
			at("packages/server/src/serve.test.ts", "return o.url"):         ConfResolved,
		}},
		{"packages/server/src/types.ts", "FetchOptions.url", map[string]string{
			at("packages/server/src/serve.test.ts", "fetchUrl(s.url)"):      "",
			at("packages/server/src/serve.test.ts", "fetchUrl(served.url)"): "",
			at("packages/server/src/serve.test.ts", "return o.url"):         "",
		}},
	}
	for _, c := range cases {
		got, _ := refsOf(t, p, c.path, c.qualname)
		wantRefs(t, c.qualname, got, c.want)
	}
}
