/**
 * The worker thread of `check --jobs N` (bundled as dist/checkWorker.js beside cli.js): says when it has
 * loaded, then checks the bundles it is sent, in order, with its own checker and caches, and answers
 * each with its report.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { BundleCheckSession } from '../checkRun';
import { checkReport } from './checkReport';
import type { WorkerSetup, WorkerTask, WorkerMessage } from './workerPool';

const setup = workerData as WorkerSetup;
const session = new BundleCheckSession(setup.check);
parentPort?.on('message', (task: WorkerTask) => {
  const answer: WorkerMessage = { id: task.id, report: checkReport(session, task.bundle, setup.report) };
  parentPort?.postMessage(answer);
});
parentPort?.postMessage({ ready: true } satisfies WorkerMessage);
