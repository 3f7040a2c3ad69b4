package query

import "testing"

// tsTransformFiles: the chunks a runtime TransformStream's transformer
// receives are values of its first type argument, stated or inferred
// from the ReadableStream it is piped from.
var tsTransformFiles = map[string]string{
	"src/events.ts": `export interface Event {
  comment?: string;
  data: string;
}

export interface Note {
  comment?: string;
}

export function streamFrom<T>(iterable: AsyncIterable<T, void>): ReadableStream<T> {
  const it = iterable[Symbol.asyncIterator]();
  return new ReadableStream({
    async pull(c) {
      const r = await it.next();
      if (r.done) c.close();
      else c.enqueue(r.value);
    },
  });
}

async function* events(): AsyncIterable<Event, void> {
  yield { data: '' };
}

export function produce() {
  const stream = streamFrom(events());
  return stream
    .pipeThrough(
      new TransformStream({
        transform(chunk, controller: TransformStreamDefaultController<string>) {
          controller.enqueue(chunk.comment ?? '');
        },
      }),
    );
}

export function stated(src: ReadableStream<string>) {
  return src.pipeThrough(
    new TransformStream<Event, string>({
      transform(chunk, controller) {
        controller.enqueue(chunk.comment + 'x');
      },
    }),
  );
}
`,
}

// TestRefsTypeScriptTransformChunk: a transformer's chunk is the
// stream's input type, a type of the repository here, not the runtime's.
func TestRefsTypeScriptTransformChunk(t *testing.T) {
	p := refsRepo(t, tsTransformFiles)
	piped := atLine(t, tsTransformFiles, "src/events.ts", "chunk.comment ??")
	stated := atLine(t, tsTransformFiles, "src/events.ts", "chunk.comment +")
	for qualname, want := range map[string]string{"Event.comment": ConfResolved, "Note.comment": ""} {
		got, _ := refsOf(t, p, "src/events.ts", qualname)
		wantRefs(t, qualname, got, map[string]string{piped: want, stated: want})
	}
}
