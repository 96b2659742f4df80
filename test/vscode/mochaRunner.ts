/**
 * Runs the mocha tests of one folder inside the VS Code extension host, prints the closing line CI reads
 * ("N passed, N failed"), and leaves the counts in the file the launcher named, so that the launcher can
 * add them up across suites.
 */
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Mocha from 'mocha';

export interface SuiteCounts {
  readonly passed: number;
  readonly failed: number;
}

export function runMochaFolder(folder: string): Promise<void> {
  const mocha = new Mocha({ ui: 'tdd', color: false, timeout: 60_000 });
  for (const file of readdirSync(folder)
    .filter((name) => name.endsWith('.test.js'))
    .sort())
    mocha.addFile(join(folder, file));
  return new Promise((resolve, reject) => {
    let passed = 0;
    let failed = 0;
    const runner = mocha.run(() => {
      console.log(`${passed} passed, ${failed} failed`);
      const resultsFile = process.env['ROLLOUT_EVIDENCE_TEST_RESULTS'];
      if (resultsFile) writeFileSync(resultsFile, JSON.stringify({ passed, failed } satisfies SuiteCounts));
      if (failed > 0) reject(new Error(`${failed} tests failed`));
      else resolve();
    });
    runner.on('pass', () => passed++);
    runner.on('fail', () => failed++);
  });
}
