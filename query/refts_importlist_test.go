package query

import "testing"

// tsImportListFiles: a package's export imported under the name of
// members the repository declares, and re-exported by an export list.
var tsImportListFiles = map[string]string{
	"src/stream.ts": `export interface StreamLike {
  on(event: string, cb: () => void): void;
}

export class Bus {
  on(event: string) {
    return event;
  }
}
`,
	"src/events.test.ts": `import { EventEmitter, on } from 'node:events';
import type { StreamLike } from './stream';

export function listen(s: StreamLike, ee: EventEmitter) {
  s.on('data', () => {});
  return on(ee, 'data');
}
`,
	"src/index.ts": `export {
  on,
} from 'node:events';
export type { StreamLike } from './stream';
`,
}

// TestRefsTypeScriptImportListMember: a name in an import or export list
// binds a module's export, never a type's member.
func TestRefsTypeScriptImportListMember(t *testing.T) {
	p := refsRepo(t, tsImportListFiles)
	at := func(path, marker string) string { return atLine(t, tsImportListFiles, path, marker) }
	for _, q := range []string{"StreamLike.on", "Bus.on"} {
		got, _ := refsOf(t, p, "src/stream.ts", q)
		want := map[string]string{
			at("src/events.test.ts", "import { EventEmitter, on }"): "",
			at("src/index.ts", "  on,"):                             "",
		}
		if q == "StreamLike.on" {
			want[at("src/events.test.ts", "s.on('data'")] = ConfResolved
		}
		wantRefs(t, q, got, want)
	}
}
