/**
 * The code reference: the repository's README, with an anchor per diagnostic code in its code table,
 * which the build copies beside the bundles as dist/README.md. Diagnostics and SARIF rules link there
 * rather than to the package's own README, since the .vsix carries a short user README (as readme.md)
 * without the code table.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';

/** Its path beside the running bundle; undefined when it is absent (a bundle copied alone), so no link is made. */
export function shippedReference(): string | undefined {
  const path = join(__dirname, 'README.md');
  return existsSync(path) ? path : undefined;
}
