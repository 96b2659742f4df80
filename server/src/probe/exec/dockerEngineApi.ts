/**
 * The Docker Engine API on its unix socket, with Node's own http client: exec in a container and list
 * the running ones, for machines with a daemon socket and no docker CLI. Paths carry no API version: the
 * daemon answers in its own, these calls have kept their shape, and daemons drop old versions (Docker 29
 * refuses anything before 1.44).
 */
import { request } from 'node:http';
import { isJsonObject, type JsonObject } from '../../../../shared/src/jsonObject';
import { abortReason, type Exec, type ExecEnd, type ExecHooks } from './execution';
import { LineSplitter } from './lines';

interface ApiAnswer {
  readonly status: number;
  readonly body: string;
}

export class DockerEngineApiError extends Error {}

/** `env` is `NAME=value` entries, set for the command over the container's own. */
export function dockerEngineApiExec(
  socketPath: string,
  container: string,
  command: readonly string[],
  env: readonly string[],
  display: readonly string[],
): Exec {
  return { display, run: (hooks) => runExec(socketPath, container, command, env, hooks) };
}

async function runExec(
  socketPath: string,
  container: string,
  command: readonly string[],
  env: readonly string[],
  hooks: ExecHooks,
): Promise<ExecEnd> {
  try {
    const created = await call(
      socketPath,
      'POST',
      `/containers/${encodeURIComponent(container)}/exec`,
      { User: '0', AttachStdout: true, AttachStderr: true, AttachStdin: false, Tty: false, Env: env, Cmd: command },
      hooks.signal,
    );
    const id = parseObject(created)['Id'];
    if (typeof id !== 'string' || !/^[0-9a-f]+$/.test(id))
      throw new DockerEngineApiError('the Engine API returned no exec id');
    await streamExec(socketPath, id, hooks);
    const inspected = parseObject(await call(socketPath, 'GET', `/exec/${id}/json`, undefined, hooks.signal));
    const code = inspected['ExitCode'];
    if (typeof code !== 'number') throw new DockerEngineApiError('the Engine API reported no exit code for the exec');
    return { kind: 'exited', code };
  } catch (error) {
    if (hooks.signal.aborted) return { kind: 'failed', reason: abortReason(hooks.signal) };
    return { kind: 'failed', reason: error instanceof Error ? error.message : String(error) };
  }
}

/** Lists running containers: GET /containers/json. */
export async function dockerEngineApiContainers(socketPath: string, signal: AbortSignal): Promise<unknown> {
  return JSON.parse(await call(socketPath, 'GET', '/containers/json', undefined, signal)) as unknown;
}

async function call(
  socketPath: string,
  method: string,
  path: string,
  body: unknown,
  signal: AbortSignal,
): Promise<string> {
  const answer = await send(socketPath, method, path, body, signal);
  if (answer.status >= 200 && answer.status < 300) return answer.body;
  throw new DockerEngineApiError(
    `the Engine API answered ${method} ${path} with ${answer.status}: ${apiMessage(answer.body)}`,
  );
}

function send(
  socketPath: string,
  method: string,
  path: string,
  body: unknown,
  signal: AbortSignal,
): Promise<ApiAnswer> {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const outgoing = request(
      {
        socketPath,
        method,
        path,
        signal,
        headers:
          payload === undefined
            ? {}
            : { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(payload) },
      },
      (incoming) => {
        const chunks: Buffer[] = [];
        incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
        incoming.on('end', () =>
          resolve({ status: incoming.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }),
        );
        incoming.on('error', reject);
      },
    );
    outgoing.on('error', (error: NodeJS.ErrnoException) => reject(socketError(error, socketPath)));
    outgoing.end(payload);
  });
}

/**
 * Starts the exec attached. Without a TTY the answer multiplexes stdout and stderr in frames: an 8-byte
 * header (byte 0 the stream, bytes 4–7 the big-endian payload length), then the payload.
 */
function streamExec(socketPath: string, id: string, hooks: ExecHooks): Promise<void> {
  return new Promise((resolve, reject) => {
    const payload = JSON.stringify({ Detach: false, Tty: false });
    const outgoing = request(
      {
        socketPath,
        method: 'POST',
        path: `/exec/${id}/start`,
        signal: hooks.signal,
        headers: { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(payload) },
      },
      (incoming) => {
        if ((incoming.statusCode ?? 0) >= 300) {
          const chunks: Buffer[] = [];
          incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
          incoming.on('end', () =>
            reject(
              new DockerEngineApiError(
                `the Engine API could not start the exec (${incoming.statusCode}): ${apiMessage(Buffer.concat(chunks).toString('utf8'))}`,
              ),
            ),
          );
          return;
        }
        const streams = [new LineSplitter(hooks.onStdout), new LineSplitter(hooks.onStderr)] as const;
        let buffered: Buffer = Buffer.alloc(0);
        incoming.on('data', (chunk: Buffer) => {
          buffered = buffered.length === 0 ? chunk : Buffer.concat([buffered, chunk]);
          while (buffered.length >= 8) {
            const length = buffered.readUInt32BE(4);
            if (buffered.length < 8 + length) break;
            streams[buffered[0] === 2 ? 1 : 0].push(buffered.subarray(8, 8 + length));
            buffered = buffered.subarray(8 + length);
          }
        });
        incoming.on('end', () => {
          for (const stream of streams) stream.end();
          resolve();
        });
        incoming.on('error', reject);
      },
    );
    outgoing.on('error', (error: NodeJS.ErrnoException) => reject(socketError(error, socketPath)));
    outgoing.end(payload);
  });
}

function socketError(error: NodeJS.ErrnoException, socketPath: string): Error {
  if (error.code === 'ENOENT' || error.code === 'ECONNREFUSED')
    return new DockerEngineApiError(`no Docker Engine answers on ${socketPath} (${error.code})`);
  if (error.code === 'EACCES')
    return new DockerEngineApiError(`no permission to use the Docker Engine socket ${socketPath}`);
  return error;
}

function parseObject(text: string): JsonObject {
  try {
    const value: unknown = JSON.parse(text);
    if (isJsonObject(value)) return value;
  } catch {
    // Reported below with the text that was not an object.
  }
  throw new DockerEngineApiError(
    `the Engine API answered with something other than a JSON object: ${text.slice(0, 200)}`,
  );
}

/** The daemon's error body is `{"message": …}`; fall back to the raw text, shortened. */
function apiMessage(body: string): string {
  try {
    const value: unknown = JSON.parse(body);
    if (isJsonObject(value) && typeof value['message'] === 'string') return value['message'];
  } catch {
    // Not JSON: the raw text says more than nothing.
  }
  return body.trim().slice(0, 200);
}
