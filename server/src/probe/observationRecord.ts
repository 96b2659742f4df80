/**
 * The probe's outcome as evidence: one `SandboxUserQuiescence` line for benchguard/action_records.jsonl
 * (schemas/action-record.schema.json), which the quiescence rules read.
 */
import { createHash } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { JsonObject } from '../../../shared/src/jsonObject';
import {
  describeTranscriptEntry,
  type ProbeOutcome,
  type SeenProcess,
  type TranscriptEntry,
} from '../../../shared/src/probe';
import { appendRecordToFile } from '../../../shared/src/recordAppend';
import { quiescenceProbeScript } from './probeScript';
import { version } from '../version';

export function quiescenceRecord(outcome: ProbeOutcome): JsonObject {
  const { request } = outcome;
  return {
    event_type: 'SandboxUserQuiescence',
    // As for BenchGuard's execs, the status says whether the call itself worked: did the probe report.
    status: outcome.reported ? 'ok' : 'error',
    sandbox_user: request.user,
    uid: outcome.uid,
    mode: request.mode,
    target:
      request.target.kind === 'local' ? { kind: 'local' } : { kind: request.target.kind, name: request.target.name },
    signals_sent: outcome.signals.map(({ signal, pid, round, delivered }) => ({ signal, pid, round, delivered })),
    survivors: outcome.survivors.map(processRecord),
    return_code: outcome.returnCode,
    ...(outcome.returnCode === 2 ? { unobservable_reason: outcome.reason } : {}),
    started_at: outcome.startedAt,
    finished_at: outcome.finishedAt,
    observed_at: outcome.observedAt,
    final: true,
    // Who made it, and what with: a record a person or a quick fix wrote says "authored" instead, and
    // the digests let a reader check the record against the transcript and the script that ran.
    provenance: 'probe',
    probe_version: version,
    probe_script_sha256: sha256(quiescenceProbeScript),
    transcript_sha256: transcriptDigest(outcome.transcript),
  };
}

/** The sha256 of the transcript as the output shows it: each entry one line, each line ending in a newline. */
export function transcriptDigest(transcript: readonly TranscriptEntry[]): string {
  return sha256(transcript.map((entry) => `${describeTranscriptEntry(entry)}\n`).join(''));
}

function sha256(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

function processRecord(process: SeenProcess): JsonObject {
  return {
    pid: process.pid,
    state: process.state,
    ruid: process.ruid,
    euid: process.euid,
    suid: process.suid,
    fsuid: process.fsuid,
    name: process.name,
    pid1: process.pid1,
  };
}

/**
 * Appends the record as one new line, making the file's folder when it has none; refuses a link or
 * anything but a regular file, as the extension does (`shared/src/recordAppend.ts`).
 */
export function appendRecord(path: string, record: JsonObject): void {
  mkdirSync(dirname(path), { recursive: true });
  appendRecordToFile(path, JSON.stringify(record));
}
