/**
 * The worker thread of `check --jobs N` (bundled as dist/checkWorker.js beside cli.js): checks the
 * bundles it is sent, one at a time, with its own checker and caches, and answers each with its report.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { BundleCheckSession } from '../checkRun';
import { checkReport } from './checkReport';
import type { WorkerSetup, WorkerTask, WorkerAnswer } from './workerPool';

const setup = workerData as WorkerSetup;
const session = new BundleCheckSession(setup.check);
parentPort?.on('message', (task: WorkerTask) => {
  const answer: WorkerAnswer = { id: task.id, report: checkReport(session, task.bundle, setup.report) };
  parentPort?.postMessage(answer);
});
