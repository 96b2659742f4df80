/** The `rollout-evidence` executable. */
import { main } from './main';
import { errorDetail } from '../../../shared/src/errors';
import { printableLines } from '../engine/text/printable';

main(process.argv.slice(2)).then(
  (status) => {
    process.exitCode = status;
  },
  (error: unknown) => {
    // main() turns every expected failure into exit status 2 with a message; reaching here is a bug.
    process.stderr.write(`rollout-evidence: internal error: ${printableLines(errorDetail(error))}\n`);
    process.exitCode = 2;
  },
);
