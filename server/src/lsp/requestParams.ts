/**
 * Checks the params of every request the server handles, before a handler reads them: any LSP client
 * can send anything, and a handler that trips over `null` answers InternalError (or worse, keeps going
 * with half-read input). A bad request is answered InvalidParams, naming the field that is wrong, and
 * its handler never runs, so it changes no state.
 */
import { ErrorCodes, ResponseError, type CancellationToken } from 'vscode-languageserver/node';

/** What a check throws: `field` is where in the params, as a client would spell it (`textDocument.uri`). */
export class ParamsError extends Error {
  constructor(
    readonly field: string,
    expected: string,
    found: unknown,
  ) {
    super(`${field === '' ? 'the params' : `"${field}"`} must be ${expected}, not ${describe(found)}`);
  }
}

/** Takes what arrived at `field` and returns it as T, or throws a ParamsError. */
export type Check<T> = (value: unknown, field: string) => T;

type Checked<C> = C extends Check<infer T> ? T : never;
type Shape = Readonly<Record<string, Check<unknown>>>;
/** Fields whose check admits undefined may be left out. */
type ObjectOf<S extends Shape> = { [K in keyof S as undefined extends Checked<S[K]> ? never : K]: Checked<S[K]> } & {
  [K in keyof S as undefined extends Checked<S[K]> ? K : never]?: Checked<S[K]>;
};

export const string: Check<string> = (value, field) => {
  if (typeof value !== 'string') throw new ParamsError(field, 'a string', value);
  return value;
};

export const boolean: Check<boolean> = (value, field) => {
  if (typeof value !== 'boolean') throw new ParamsError(field, 'true or false', value);
  return value;
};

export const finiteNumber: Check<number> = (value, field) => {
  if (typeof value !== 'number' || !Number.isFinite(value)) throw new ParamsError(field, 'a finite number', value);
  return value;
};

/** LSP's `uinteger`: lines, characters, counts. */
export const wholeNumber: Check<number> = (value, field) => {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0)
    throw new ParamsError(field, 'a whole number, 0 or more', value);
  return value;
};

export function oneOf<const T extends string>(values: readonly T[]): Check<T> {
  return (value, field) => {
    const known = values.find((candidate) => candidate === value);
    if (known === undefined)
      throw new ParamsError(field, `one of ${values.map((candidate) => JSON.stringify(candidate)).join(', ')}`, value);
    return known;
  };
}

/** Absent (undefined; JSON has no undefined, so: left out) is allowed; null is not, as LSP has no null for these fields. */
export function optional<T>(check: Check<T>): Check<T | undefined> {
  return (value, field) => (value === undefined ? undefined : check(value, field));
}

export function arrayOf<T>(item: Check<T>): Check<T[]> {
  return (value, field) => {
    if (!Array.isArray(value)) throw new ParamsError(field, 'an array', value);
    return value.map((element, index) => item(element, `${field}[${index}]`));
  };
}

/**
 * An object with at least these fields, each checked; fields not named are kept as they came (LSP adds
 * fields over time, and a diagnostic in a code action's context is handed back whole).
 */
export function objectOf<S extends Shape>(shape: S): Check<ObjectOf<S>> {
  return (value, field) => {
    if (typeof value !== 'object' || value === null || Array.isArray(value))
      throw new ParamsError(field, 'an object', value);
    const result: Record<string, unknown> = { ...value };
    for (const [key, check] of Object.entries(shape)) {
      const checked = check((value as Record<string, unknown>)[key], field === '' ? key : `${field}.${key}`);
      if (checked === undefined) delete result[key];
      else result[key] = checked;
    }
    return result as ObjectOf<S>;
  };
}

/** A further condition on what `check` accepted; `expected` says what a value must be to pass it. */
export function refined<T>(check: Check<T>, holds: (value: T) => boolean, expected: string): Check<T> {
  return (value, field) => {
    const checked = check(value, field);
    if (!holds(checked)) throw new ParamsError(field, expected, value);
    return checked;
  };
}

/** A check that also turns the value into another (a folder resolved against the workspace). */
export function mapped<T, U>(check: Check<T>, map: (value: T, field: string) => U): Check<U> {
  return (value, field) => map(check(value, field), field);
}

// The shapes of the standard requests the server answers, as far as its handlers read them.
export const position = objectOf({ line: wholeNumber, character: wholeNumber });
export const range = objectOf({ start: position, end: position });
export const textDocumentParams = objectOf({ textDocument: objectOf({ uri: string }) });
export const textDocumentPositionParams = objectOf({ textDocument: objectOf({ uri: string }), position });
export const referenceParams = objectOf({
  textDocument: objectOf({ uri: string }),
  position,
  context: objectOf({ includeDeclaration: boolean }),
});
export const textDocumentRangeParams = objectOf({ textDocument: objectOf({ uri: string }), range });
const diagnosticCode: Check<string | number> = (value, field) => {
  if (typeof value === 'string' || (typeof value === 'number' && Number.isSafeInteger(value))) return value;
  throw new ParamsError(field, 'a string or an integer', value);
};
export const diagnostic = objectOf({
  range,
  message: string,
  source: optional(string),
  code: optional(diagnosticCode),
});
export const didChangeWatchedFilesParams = objectOf({ changes: arrayOf(objectOf({ uri: string })) });
export const shownDocumentsParams = objectOf({ uris: arrayOf(string) });
export const codeActionParams = objectOf({
  textDocument: objectOf({ uri: string }),
  range,
  context: objectOf({ diagnostics: arrayOf(diagnostic) }),
});

type Answer<R> = R | ResponseError<void> | Promise<R | ResponseError<void>>;

/**
 * A request handler that runs only on params `check` accepts; anything else is answered InvalidParams
 * with the check's message. Request types are declared by name (ParameterStructures.byName), so params
 * by position never get this far.
 */
export function withCheckedParams<P, R>(
  check: Check<P>,
  handler: (params: P, token: CancellationToken) => Answer<R>,
): (params: unknown, token: CancellationToken) => Answer<R> {
  return (params, token) => {
    let checked: P;
    try {
      checked = check(params, '');
    } catch (error) {
      if (error instanceof ParamsError) return new ResponseError(ErrorCodes.InvalidParams, error.message);
      throw error;
    }
    return handler(checked, token);
  };
}

/**
 * The same for a notification, which has no answer to carry the error: it is logged and dropped, and
 * the handler never runs.
 */
export function withCheckedNotification<P>(
  check: Check<P>,
  logger: { warn(message: string): void },
  method: string,
  handler: (params: P) => void,
): (params: unknown) => void {
  return (params) => {
    let checked: P;
    try {
      checked = check(params, '');
    } catch (error) {
      if (!(error instanceof ParamsError)) throw error;
      logger.warn(`Ignored a malformed ${method}: ${error.message}`);
      return;
    }
    handler(checked);
  };
}

/**
 * For a request that takes no params: the library hands them over before the token, so a client that
 * sends some anyway would otherwise put them where the token belongs. An empty object is what some
 * clients send for "none"; an empty array is none by position, and the library cannot tell it apart.
 */
export function withoutParams<R>(handler: (token: CancellationToken) => Answer<R>): (...args: unknown[]) => Answer<R> {
  return (...args) => {
    const token = args.at(-1) as CancellationToken;
    const params = args.length === 1 ? undefined : args[0];
    const empty =
      params === undefined ||
      (typeof params === 'object' && params !== null && !Array.isArray(params) && Object.keys(params).length === 0);
    if (args.length > 2 || !empty)
      return new ResponseError(ErrorCodes.InvalidParams, `the request takes no params, not ${describe(params)}`);
    return handler(token);
  };
}

function describe(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  if (typeof value === 'string')
    return `a string ${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)}`;
  return `${typeof value} ${String(value)}`;
}
