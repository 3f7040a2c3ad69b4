package query

import "testing"

// tsControllerFiles: the controller the runtime's ReadableStream passes to
// its source's start, used in a callback nested in it, under the name of
// members two interfaces declare.
var tsControllerFiles = map[string]string{
	"src/stream.ts": `export interface ConsumerConfig {
  error: unknown;
}

export interface ResultError {
  error: Error;
}

export function consume(src: EventTarget) {
  return new ReadableStream<ResultError>({
    start(controller) {
      src.addEventListener('error', (event) => {
        controller.error(event);
      });
    },
  });
}
`,
}

// TestRefsTypeScriptStreamController: the controller's members are the
// runtime's, whatever values the stream holds.
func TestRefsTypeScriptStreamController(t *testing.T) {
	p := refsRepo(t, tsControllerFiles)
	at := func(marker string) string { return atLine(t, tsControllerFiles, "src/stream.ts", marker) }
	for _, q := range []string{"ConsumerConfig.error", "ResultError.error"} {
		got, _ := refsOf(t, p, "src/stream.ts", q)
		wantRefs(t, q, got, map[string]string{at("controller.error(event)"): ""})
	}
}
