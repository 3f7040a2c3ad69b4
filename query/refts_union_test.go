package query

import "testing"

// tsUnionFiles: members read through a union narrowed to the parts that
// declare them, members a generic base declares with a type parameter
// its deriving declaration gives (through a namespace's base, over
// several lines), and keys of literals written for unknown.
var tsUnionFiles = map[string]string{
	"src/envelopes.ts": `export namespace RPC {
  export interface Base {
    seq?: number;
  }

  export interface BaseRequest<TMethod extends string = string> extends Base {
    method: TMethod;
  }

  export interface Request<TMethod extends string = string, TParams = unknown>
    extends BaseRequest<TMethod> {
    params: TParams;
  }
}

export interface CallRequest
  extends RPC.Request<
    'call',
    {
      path: string;
      input: unknown;
      lastId?: string;
    }
  > {}

export type CallMessage = CallRequest & { seq: number };

export type Message =
  | CallMessage
  | (RPC.BaseRequest<'stop'> & { seq: number });

export interface ErrorShape<TData extends object = object> {
  code: number;
  data: TData;
}

export interface ErrorData {
  code: string;
  status: number;
}

export interface Shape extends ErrorShape<ErrorData> {
  message: string;
}

export interface Result<TData = unknown> {
  data: TData;
}

export interface ResultResponse<TResult = unknown> {
  result: TResult;
}

export interface ResultMessage<TData>
  extends ResultResponse<
    | { type: 'started'; data?: never }
    | Result<TData>
  > {}

export type ResponseMessage<TData = unknown> = { seq: number } & (
  | RPC.BaseRequest<'error'>
  | ResultMessage<TData>
);

export interface ErrorResponse {
  error: ErrorShape;
}

export interface SuccessResponse<TData> extends ResultResponse<Result<TData>> {}

export type AnyResponse<TData = unknown> = ErrorResponse | SuccessResponse<TData>;
`,
	"src/events.ts": `export interface Event {
  lastId?: string;
}

export class Failure {
  code = 'x';
}
`,
	"src/handle.ts": `import type { AnyResponse, Message, ResponseMessage, ResultMessage, Shape } from './envelopes';
import type { Event } from './events';

export function handle(msg: Message, ev: Event) {
  if (msg.method === 'stop') {
    return ev;
  }
  // The part declaring params: its type literal's keys.
  const { path, lastId } = msg.params;
  let input: unknown = path;
  input = { lastId: 'x' }; // a literal written for unknown: its own key
  return input;
}

export function reply(id: string): Message {
  return {
    method: 'call',
    seq: 1,
    params: { path: 'p', input: null, lastId: id }, // CallRequest's params
  };
}

export function respond(msg: ResponseMessage) {
  return msg;
}

export function send(v: string) {
  respond({
    seq: 1,
    result: {
      type: 'data',
      data: v, // Result's: a part of the union ResultMessage gives result
    },
  });
}

export function unwrap(res: AnyResponse, msg: ResultMessage<string>) {
  if ('error' in res) {
    return null;
  }
  const first = res.result.data; // the part declaring result: Result's
  return msg.result.data; // a union of a literal and Result: Result's
}

export function shape(code: string): Shape {
  return {
    message: 'm',
    code: 1,
    data: {
      code, // ErrorData's, the argument Shape gives ErrorShape's data
      status: 500,
    },
  };
}
`,
}

// A member of a union's part, of a base's type parameter and of unknown
// is no other definition's of the name.
func TestRefsTypeScriptUnionMembers(t *testing.T) {
	p := refsRepo(t, tsUnionFiles)
	at := func(path, marker string) string { return atLine(t, tsUnionFiles, path, marker) }
	cases := []struct {
		path, qualname string
		want           map[string]string // "" when left out
	}{
		{"src/events.ts", "Event.lastId", map[string]string{
			at("src/handle.ts", "const { path, lastId }"): "",
			at("src/handle.ts", "input = { lastId"):       "",
			at("src/handle.ts", "lastId: id"):             "",
		}},
		{"src/events.ts", "Failure.code", map[string]string{
			at("src/handle.ts", "code, // ErrorData's"): "",
		}},
		{"src/envelopes.ts", "ErrorShape.code", map[string]string{
			at("src/handle.ts", "code, // ErrorData's"): "",
		}},
		{"src/envelopes.ts", "ErrorShape.data", map[string]string{
			at("src/handle.ts", "data: v"):                "",
			at("src/handle.ts", "res.result.data"):        "",
			at("src/handle.ts", "return msg.result.data"): "",
		}},
		{"src/envelopes.ts", "Result.data", map[string]string{
			at("src/handle.ts", "data: v"):                ConfResolved,
			at("src/handle.ts", "res.result.data"):        ConfResolved,
			at("src/handle.ts", "return msg.result.data"): ConfResolved,
		}},
		{"src/envelopes.ts", "ErrorData.code", map[string]string{
			at("src/handle.ts", "code, // ErrorData's"): ConfResolved,
		}},
	}
	for _, c := range cases {
		got, _ := refsOf(t, p, c.path, c.qualname)
		wantRefs(t, c.qualname, got, c.want)
	}
}
