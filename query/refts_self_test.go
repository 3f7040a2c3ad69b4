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

// tsForwardFiles: a function stating no return type whose result is an
// object literal of its own through calls: a generic the literal is
// passed to as its type parameter ("makeResource<T>(thing: T): T &
// AsyncDisposable"), and a function returning that function's call.
var tsForwardFiles = map[string]string{
	"src/stream/sse.ts": `export interface StreamOptions<TConfig extends Config> {
  url: () => string;
  signal: number;
}

interface Config {
  data: unknown;
}

export function consume<TConfig extends Config>(
  opts: StreamOptions<TConfig>,
): number {
  return 1;
}
`,
	"src/stream/disposable.ts": `export function makeResource<T>(
  thing: T,
  dispose: () => Promise<void>,
): T & AsyncDisposable {
  return thing as T & AsyncDisposable;
}
`,
	"src/testing/serverResource.ts": `import { makeResource } from '../stream/disposable';

export function serverResource(handler: () => void) {
  const url = 'http://localhost:1';
  return makeResource(
    {
      url,
      get count() {
        return 0;
      },
    },
    async () => {},
  );
}
`,
	"src/stream/sse.test.ts": `import { serverResource } from '../testing/serverResource';
import { consume } from './sse';

function forStream(stream: ReadableStream) {
  return serverResource(() => {});
}

export function direct() {
  const d = serverResource(() => {});
  return d.url; // the literal's
}

export async function run() {
  await using server = forStream(null);
  const res = await fetch(server.url);
  const n = consume<{
    data: number;
  }>({
    url: () => server.url,
    signal: 1,
  });
}
`,
}

// TestRefsTypeScriptForwardedLiteral: a member use through the result of
// a function returning a generic's or another function's object literal
// is the literal's own, and a key of a literal passed to a call stating
// its type arguments over several lines is the parameter's type's.
func TestRefsTypeScriptForwardedLiteral(t *testing.T) {
	p := refsRepo(t, tsForwardFiles)
	at := func(marker string) string { return atLine(t, tsForwardFiles, "src/stream/sse.test.ts", marker) }
	got, _ := refsOf(t, p, "src/stream/sse.ts", "StreamOptions.url")
	wantRefs(t, "StreamOptions.url", got, map[string]string{
		at("return d.url"):          "",
		at("fetch(server.url)"):     "",
		at("url: () => server.url"): ConfResolved,
	})
}
