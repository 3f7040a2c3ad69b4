package query

import "testing"

// tsReturnedFiles: keys of literals passed to a function-valued key of
// the object literal an untyped function returns, whose parameter types
// the key's arrow states.
var tsReturnedFiles = map[string]string{
	"src/opts.ts": `export interface CallOpts {
  path: string;
}
`,
	"src/server.test.ts": `import type { CallOpts } from './opts';

function createServer(port: number) {
  return {
    fetch: async (
      opts: RequestInit & {
        path?: string;
      },
      handle: () => void,
    ) => {
      handle();
    },
    call: (opts: CallOpts) => opts.path,
  };
}

export async function run() {
  const server = createServer(1);
  await server.fetch(
    {
      method: 'GET',
      path: '/own', // the fetch parameter's type literal's key
    },
    () => {},
  );
  server.call({ path: '/stated' }); // CallOpts's
}
`,
}

// TestRefsTypeScriptReturnedLiteralKeys: a literal passed to a member of
// an untyped function's returned literal is written for the parameter
// that member's arrow states.
func TestRefsTypeScriptReturnedLiteralKeys(t *testing.T) {
	p := refsRepo(t, tsReturnedFiles)
	at := func(path, marker string) string { return atLine(t, tsReturnedFiles, path, marker) }
	got, _ := refsOf(t, p, "src/opts.ts", "CallOpts.path")
	wantRefs(t, "CallOpts.path", got, map[string]string{
		at("src/server.test.ts", "path: '/own'"):        "",
		at("src/server.test.ts", "{ path: '/stated' }"): ConfResolved,
	})
}
