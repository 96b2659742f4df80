/** extensionTestsPath of the integration suite: the extension loaded from the repository. */
import { runMochaFolder } from '../mochaRunner';

export function run(): Promise<void> {
  return runMochaFolder(__dirname);
}
