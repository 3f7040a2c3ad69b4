package query

import "testing"

// tsRuntimeFiles: values whose members are the runtime's: a cast to the
// runtime's Error in a file whose type parameters name Error as a
// constraint and a default (no declaration of it), and a value of an
// alias of a constructor type (a function), read through parameters
// carrying doc comments.
var tsRuntimeFiles = map[string]string{
	"src/file.ts": `export interface FileLike {
  name: string;
}
`,
	"src/wait.ts": `import type { FileLike } from './file';

type Constructor<T extends object = object> = new (...args: any[]) => T;

export async function waitError<TError extends Error = Error>(
  /**
   * The file the error names.
   */
  file: FileLike,
  /**
   * Force the error's constructor.
   **/
  errorConstructor?: Constructor<TError>,
) {
  try {
    await Promise.resolve();
  } catch (cause) {
    const a = (cause as Error).name; // the runtime's Error
    const b = errorConstructor?.name; // a function's
    const c = file.name; // FileLike's
    return [a, b, c];
  }
}
`,
}

// TestRefsTypeScriptRuntimeMembers: members of the runtime's types and
// of functions are none of the repository's.
func TestRefsTypeScriptRuntimeMembers(t *testing.T) {
	p := refsRepo(t, tsRuntimeFiles)
	at := func(marker string) string { return atLine(t, tsRuntimeFiles, "src/wait.ts", marker) }
	got, _ := refsOf(t, p, "src/file.ts", "FileLike.name")
	wantRefs(t, "FileLike.name", got, map[string]string{
		at("(cause as Error).name"):  "",
		at("errorConstructor?.name"): "",
		at("file.name"):              ConfResolved,
	})
}
